"""A scripted OpenAI-compatible endpoint on loopback for the LLM tests.

usage: fake_llm.py PORTFILE LOG SCRIPT -- COMMAND...

Serves POST /v1/chat/completions with, in turn: a good reply (a fenced
transform module, from SCRIPT), garbage, a reply slower than the client's
timeout, an HTTP 500; then runs COMMAND with the endpoint's URL in
TILETAG_LLM_URL and exits with its status. Each request's Authorization
header and prompt are appended to LOG."""
import http.server
import json
import os
import subprocess
import sys
import threading
import time

log_path, script_path = sys.argv[1], sys.argv[2]
command = sys.argv[sys.argv.index("--") + 1:]
script = open(script_path).read()
replies = ["good", "garbage", "slow", "error"]
count = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(log_path, "a") as log:
            log.write("auth=%s path=%s prompt-has-kernel=%s\n" % (
                self.headers.get("Authorization"), self.path,
                "tile.kernel @gemm" in body["messages"][-1]["content"]))
        kind = replies[count[0] % len(replies)]
        count[0] += 1
        if kind == "error":
            self.send_error(500, "scripted failure")
            return
        if kind == "slow":
            time.sleep(3)
        text = ("Here is a script:\n```mlir\n%s```\n" % script if kind == "good"
                else "I cannot help with that.")
        out = json.dumps({"choices": [{"message": {"role": "assistant",
                                                   "content": text}}]}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except OSError:
            pass  # the client gave up (the slow reply)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
env = dict(os.environ, TILETAG_LLM_URL="http://127.0.0.1:%d/v1" % server.server_port)
status = subprocess.run(command, env=env).returncode
server.shutdown()
sys.exit(status)
