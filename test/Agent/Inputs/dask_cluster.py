"""Runs COMMAND against a local Dask cluster: a dask-scheduler and two
dask-worker processes (one thread each) on loopback, started here and
stopped when COMMAND ends.

usage: dask_cluster.py AGENT_DIR WORKDIR -- COMMAND...   (COMMAND gets the
scheduler's address in place of the word SCHEDULER)"""
import json
import os
import subprocess
import sys
import time

agent_dir, workdir = sys.argv[1], sys.argv[2]
command = sys.argv[sys.argv.index("--") + 1:]
os.makedirs(workdir, exist_ok=True)
info = os.path.join(workdir, "scheduler.json")
if os.path.exists(info):
    os.remove(info)
# The workers import the evaluation from the agent's package.
env = dict(os.environ, PYTHONPATH=agent_dir, DASK_DISTRIBUTED__WORKER__DAEMON="False")
log = open(os.path.join(workdir, "cluster.log"), "w")
procs = [subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1", "--port", "0",
                           "--no-dashboard", "--scheduler-file", info],
                          env=env, stdout=log, stderr=log)]
try:
    for _ in range(600):
        if os.path.exists(info):
            break
        time.sleep(0.1)
    address = json.load(open(info))["address"]
    for i in range(2):
        procs.append(subprocess.Popen(
            ["dask-worker", address, "--nworkers", "1", "--nthreads", "1",
             "--no-dashboard", "--local-directory", os.path.join(workdir, "w%d" % i)],
            env=env, stdout=log, stderr=log))
    status = subprocess.run([address if a == "SCHEDULER" else a for a in command]).returncode
finally:
    for p in reversed(procs):
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
sys.exit(status)
