"""Drives `TOOL --serve` (include/TileTag/CommandServer/CommandServer.h):
says how the server binds library functions (LD_BIND_NOW in its
environment, and whether it set that itself), sends each line of stdin as a
request, with @T@ replaced by DIR, and prints every reply; after a command ran, what it wrote, if anything (stdout, then
stderr).
Last, closes the server's stdin and prints its exit status.

usage: serve_client.py DIR TOOL < REQUESTS"""
import json
import os
import subprocess
import sys

out_dir, tool = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
server = subprocess.Popen([tool, "--serve"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
print("hello:", server.stdout.readline().strip())
with open("/proc/%d/environ" % server.pid, "rb") as f:
    env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
print("binding: LD_BIND_NOW=%s, set by the server: %s" % (
    env.get(b"LD_BIND_NOW", b"").decode(),
    "yes" if b"TILETAG_SERVE_SET_LD_BIND_NOW" in env else "no"))
for line in sys.stdin:
    line = line.replace("@T@", out_dir).rstrip("\n")
    if not line or line.startswith("#"):
        continue
    server.stdin.write(line + "\n")
    server.stdin.flush()
    reply = server.stdout.readline().strip()
    print("reply:", reply)
    request = json.loads(line) if line.startswith("{") else {}
    if ("exit" in reply or "signal" in reply) and "stdout" in request:
        for stream in ("stdout", "stderr"):
            path = request[stream]
            text = open(path).read().strip() if os.path.exists(path) else ""
            if text:
                print("%s: %s" % (stream, text.replace("\n", "\n%s: " % stream)))
    sys.stdout.flush()
server.stdin.close()
print("server exit:", server.wait())
