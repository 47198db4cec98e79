#!/usr/bin/env python3
"""Runs a command, echoes its stdout and stderr, and fails unless it exits
with the given status: `expect-exit.py STATUS CMD ARGS...`."""
import subprocess
import sys

want = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], capture_output=True, text=True)
sys.stdout.write(proc.stdout)
sys.stdout.write(proc.stderr)
if proc.returncode != want:
    sys.stdout.write("expected exit status %d, got %d\n" % (want, proc.returncode))
    sys.exit(1)
