#!/usr/bin/env python3
"""Replays the first counterexample of a failed verification on the CPU.

usage: replay.py TILETAG_OPT TILETAG_RUN FILE [EXTRA tiletag-run ARGS...]
Runs `tiletag-opt --tiletag-verify-tags FILE`, takes the first
"replay on the CPU: tiletag-run ..." note, runs it with the extra arguments,
and prints both the note and tiletag-run's output. Exits with tiletag-run's
status, or 3 if verification found nothing to replay."""
import shlex
import subprocess
import sys

opt, run, path, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
proc = subprocess.run([opt, "--tiletag-verify-tags", path, "-o", "/dev/null"],
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
