#!/usr/bin/env python3
"""Replays the first counterexample of a failed verification on the CPU.

usage: replay.py [--verify=PASS] TILETAG_OPT TILETAG_RUN FILE [EXTRA ARGS...]
Runs `tiletag-opt --tiletag-verify-tags FILE` (or --PASS), takes the first
"replay on the CPU: tiletag-run ..." note, runs it with the extra arguments,
and prints both the note and tiletag-run's output. Exits with tiletag-run's
status, or 3 if verification found nothing to replay."""
import shlex
import subprocess
import sys

args = sys.argv[1:]
verify = "tiletag-verify-tags"
if args and args[0].startswith("--verify="):
    verify = args.pop(0).split("=", 1)[1]
opt, run, path, extra = args[0], args[1], args[2], args[3:]
proc = subprocess.run([opt, "--" + verify, path, "-o", "/dev/null"],
                      capture_output=True, text=True)
marker = "replay on the CPU: "
lines = [l for l in proc.stderr.splitlines() if marker in l]
if not lines:
    print("no counterexample to replay")
    sys.exit(3)
command = shlex.split(lines[0].split(marker, 1)[1])
assert command[0] == "tiletag-run"
print("replaying:", " ".join(command[1:]))
result = subprocess.run([run] + command[1:] + extra, capture_output=True, text=True)
sys.stdout.write(result.stdout + result.stderr)
sys.exit(result.returncode)
