"""Interrupts a tiletag-agent run (SIGINT, as Ctrl-C does) once its first
round is saved, then checks that DIR is consistent: a valid report with
every finished attempt, exit status 130.

usage: interrupt.py DIR -- COMMAND..."""
import json
import os
import signal
import subprocess
import sys
import time

out = sys.argv[1]
command = sys.argv[sys.argv.index("--") + 1:]
# lit's workers ignore SIGINT, and children inherit that: give it back.
proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True,
                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
report = os.path.join(out, "report.json")
for _ in range(6000):
    if os.path.exists(report) or proc.poll() is not None:
        break
    time.sleep(0.05)
proc.send_signal(signal.SIGINT)
_, err = proc.communicate(timeout=600)
sys.stderr.write(err)
data = json.load(open(report))
print("exit %d, %d attempts saved" % (proc.returncode, len(data["attempts"])))
assert proc.returncode == 130, proc.returncode
assert data["attempts"], "no attempt saved"
