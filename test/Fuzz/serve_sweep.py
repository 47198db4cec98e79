"""Sends `TOOL --serve` a seeded stream of malformed requests -- random
bytes, JSON of every other shape, fields of the wrong type -- among valid
ones, and checks that every line gets one well-formed reply, that valid
requests still run, and that the server ends cleanly when stdin closes.

usage: serve_sweep.py TOOL DIR"""
import json
import os
import random
import subprocess
import sys

tool, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
out, err = os.path.join(work, "out"), os.path.join(work, "err")
rng = random.Random(7)
values = [None, True, 0, -1, 1e300, "", "x", [], ["a"], [1, 2], {}, {"a": 1}]


def request():
    """(line, whether it is a valid request of a command that succeeds)"""
    kind = rng.randrange(4)
    if kind == 0:  # bytes, one line
        return bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 60))) \
            .replace(b"\n", b" "), False
    if kind == 1:  # JSON that is not an object
        return json.dumps(rng.choice(values)).encode(), False
    good = {"argv": [tool, "--version"], "stdout": out, "stderr": err}
    if kind == 2:  # a valid request, perhaps with a timeout
        if rng.random() < 0.5:
            good["timeout"] = 30
        return json.dumps(good).encode(), True
    bad = dict(good)  # a field of the wrong type, missing, or unknown
    field = rng.choice(["argv", "stdout", "stderr", "timeout", "extra"])
    if rng.random() < 0.3:
        bad.pop(field, None)
    else:
        bad[field] = rng.choice(values)
    return json.dumps(bad).encode(), False


server = subprocess.Popen([tool, "--serve"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE)
hello = json.loads(server.stdout.readline())
assert "serving" in hello, hello
counts = {"error": 0, "exit": 0, "signal": 0, "other": 0}
for i in range(400):
    line, good = request()
    if not line.strip():
        continue
    server.stdin.write(line + b"\n")
    server.stdin.flush()
    reply = server.stdout.readline()
    try:
        answer = json.loads(reply)
    except ValueError:
        sys.exit("request %d (%r): reply %r is not JSON" % (i, line, reply))
    key = next((k for k in ("error", "exit", "signal") if k in answer), "other")
    counts[key] += 1
    if good and answer != {"exit": 0}:
        sys.exit("request %d (%r): a valid command failed: %r" % (i, line, answer))
    if key in ("other", "signal"):
        sys.exit("request %d (%r): unexpected reply %r" % (i, line, answer))
server.stdin.close()
status = server.wait(timeout=60)
print("serve sweep: %d refused, %d run, server exit %d" % (counts["error"], counts["exit"], status))
sys.exit(1 if status else 0)
