"""Evaluation of one candidate, self-contained so that it runs in a local
worker or on a Dask worker: a task (the kernel's module, the script, tool
paths and options) in; a verdict, artifacts, step times and a score out.
Steps, each of which can reject: apply the script with the transform
interpreter (it may rewrite the kernel and add kernels, nothing else: the
contract stays as it was), verify (tags, contract, schedule), run the CPU
oracle at ragged sizes on fresh random inputs against the workload's
float64 reference, lower to PTX and assemble with ptxas (registers, spills),
or for a gfx chip lower to AMDGPU assembly (registers, spills),
estimate the time, and with `measure` time it on the GPU."""

import json
import os
import re
import select
import signal
import subprocess
import tempfile
import threading
import time

from . import kernel as kernels

# Launches a measured candidate's time is the median of (after the one
# whose outputs tiletag-run keeps).
MEASURE_LAUNCHES = 20

# Reasons a candidate is rejected (recipes name them in [repair]).
WAIT_RE = re.compile(r"wait_group|wait depth|wait_depth|retires", re.I)
SLOT_RE = re.compile(r"slot|release|empty barrier|overwrit|reuse", re.I)


def classify_verify(verdicts):
    """The reason and a one-line summary of the first failed obligation."""
    for kernel in verdicts.get("kernels", []):
        for o in kernel.get("obligations", []):
            if o.get("status") == "proved":
                continue
            text = " ".join([o.get("what", "")] + o.get("notes", []))
            if o.get("status") == "unknown":
                reason = "verify:unknown"
            elif o.get("checker") == "contract":
                reason = "verify:contract"
            elif o.get("checker") == "schedule" and WAIT_RE.search(text):
                reason = "verify:wait"
            elif o.get("checker") == "schedule" and SLOT_RE.search(text):
                reason = "verify:slot"
            elif o.get("checker") == "schedule":
                reason = "verify:schedule"
            else:
                reason = "verify:tags"
            return reason, o
    return "verify:unknown", {}


def classify_apply(message):
    if re.search(r"shared memory", message, re.I):
        return "shared-memory"
    if re.search(r"register", message, re.I):
        return "registers"
    if WAIT_RE.search(message):
        return "verify:wait"
    return "apply"


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "no message"


def ragged_sizes(defaults):
    """Sizes off every tile boundary, small enough for the oracle: 3/4 of
    the kernel's default plus one (sizes of 4 or less stay)."""
    return {k: (v - v // 4 + 1 if v > 4 else v) for k, v in defaults.items()}


def _sizes(values):
    """NAME=VALUE,... of a dict."""
    return ",".join("%s=%d" % kv for kv in values.items())


def _run_flags(sizes, scalars):
    """tiletag-run's flags for problem sizes and scalar operands."""
    flags = ["--size", _sizes(sizes)] if sizes else []
    for name, value in scalars.items():
        flags += ["--set", "%s=%d" % (name, value)]
    return flags


def _tool_env():
    """The environment of the tools: glibc's malloc on transparent huge
    pages (GLIBC_TUNABLES, glibc 2.35+; ignored elsewhere). Page faults are
    much of a step's cost -- a Z3 context alone writes ~17 MB -- and a 2 MB
    page takes one fault where 4 KB pages take 512 (ptxas 0.20 -> 0.15 s).
    A setting of the user's own wins."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if "glibc.malloc.hugetlb" in tunables:
        return None
    return dict(os.environ, GLIBC_TUNABLES=":".join(
        filter(None, [tunables, "glibc.malloc.hugetlb=1"])))


class _Server:
    """A TileTag tool loaded once and serving command lines (`TOOL --serve`,
    include/TileTag/CommandServer/CommandServer.h): each runs in a child
    forked from it, exactly as if started on its own, without the ~60 ms of
    CPU a tool takes to load its libraries. A tool that does not serve (a
    wrapper script, another build) is run the ordinary way."""

    def __init__(self, tool):
        try:
            self.proc = subprocess.Popen([tool, "--serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True,
                                         env=_tool_env())
        except OSError:
            self.proc = None
            return
        hello = self._reply(30)
        if not hello or "serving" not in hello:
            self.close()

    def _reply(self, timeout):
        """The next reply, or None when the server is gone or silent."""
        try:
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            line = self.proc.stdout.readline() if ready else ""
            return json.loads(line) if line else None
        except (OSError, ValueError):
            return None

    def close(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def run(self, cmd, timeout, out, err):
        """The exit status as subprocess gives it (negative: the signal that
        ended the command; None: timed out), or "unserved" when the server
        refused the request (nothing ran)."""
        request = {"argv": cmd, "stdout": out, "stderr": err, "timeout": timeout}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            # The server enforces the timeout; the margin is for a stuck one.
            reply = self._reply(timeout + 30)
        except OSError:
            reply = None
        if reply is None:
            # The server died with its command (Ctrl-C reaches both) or hung.
            self.proc.kill()
            status = self.proc.wait()
            self.proc = None
            return status if status < 0 else -signal.SIGKILL
        if "error" in reply:
            self.close()
            return "unserved"
        if reply.get("timeout"):
            return None
        return -reply["signal"] if "signal" in reply else reply["exit"]


_threads = threading.local()


def _server(tool):
    """This thread's server for `tool`, started (again) if needed; None if
    the tool does not serve."""
    servers = _threads.__dict__.setdefault("servers", {})
    server = servers.get(tool)
    if server is False:
        return None
    if server is None or server.proc is None:
        server = _Server(tool)
        servers[tool] = server if server.proc else False
    return servers[tool] or None


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:  # a command killed before the files were made
        return ""


def _run(cmd, timeout, tmp=None):
    """Runs a command line: (rc, stdout, stderr, seconds); rc None: timed out.
    With `tmp` (a folder for its output), a TileTag tool runs in its server
    (one per tool and thread), or as a plain process if it does not serve."""
    start = time.perf_counter()
    server = _server(cmd[0]) if tmp else None
    if server:
        out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        rc = server.run(cmd, timeout, out, err)
        if rc != "unserved":
            if rc is None:
                return None, "", "timed out after %d s" % timeout, time.perf_counter() - start
            return rc, _read(out), _read(err), time.perf_counter() - start
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=_tool_env())
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", "timed out after %d s" % timeout
    return rc, out, err, time.perf_counter() - start


def lower_and_assemble(task, proved, tmp, t):
    """Lowers the proved candidate for task["chip"]: PTX assembled by ptxas
    (registers and spills from its report), or for a gfx chip AMDGPU assembly
    (registers and spills from its code object metadata). Returns times and
    registers, or the arguments of a rejection or a crash."""
    amd = task["chip"].startswith("gfx")
    code = os.path.join(tmp, "kernel.s" if amd else "kernel.ptx")
    pipeline = "--tiletag-compile-rocm=" if amd else "--tiletag-compile-cuda="
    rc, _, err, s = _run([task["opt"], proved, pipeline + "chip=%s format=isa output=%s "
                          "verify=0" % (task["chip"], code), "-o", os.devnull], t, tmp)
    if rc is None or rc < 0:
        return {"crashed": ("lower", rc, err, s)}
    if rc != 0:
        msg = first_error(err)
        return {"reject": ("lower", "shared-memory" if "shared memory" in msg
                           else "lower", msg, s)}
    times = {"lower": round(s, 3)}
    if amd:
        text = _read(code)
        regs = [int(r) for r in re.findall(r"^\s*\.vgpr_count:\s*(\d+)", text, re.M)]
        # Spilled registers, 4 bytes a lane each.
        spills = [4 * int(r) for r in re.findall(r"^\s*\.[sv]gpr_spill_count:\s*(\d+)",
                                                 text, re.M)]
    else:
        rc, _, err, s = _run([task["ptxas"], "-arch=" + task["chip"], "-v", code,
                              "-o", os.path.join(tmp, "kernel.cubin")], t)
        if rc != 0:
            return {"times": times,
                    "reject": ("ptxas", "ptxas", first_error(err) if rc else "ptxas "
                               + ("timed out" if rc is None else "crashed"), s)}
        times["ptxas"] = round(s, 3)
        regs = [int(r) for r in re.findall(r"Used (\d+) registers", err)]
        spills = [int(a) + int(b) for a, b in re.findall(
            r"(\d+) bytes spill stores, (\d+) bytes spill loads", err)]
    # The cost model does not charge spill traffic: a kernel that spills is
    # not ranked as if it did not.
    if sum(spills):
        return {"times": times,
                "reject": ("lower" if amd else "ptxas", "registers",
                           "the kernel spills %d bytes of registers per thread"
                           % sum(spills), s)}
    return {"times": times, "code": code,
            "registers": {"registers": max(regs) if regs else None,
                          "spill_bytes": 0}}


def evaluate(task):
    """task: dict with module (text), kernel, scope (kernel.scope of the
    module as tiletag-opt prints it), script (text), opt, run,
    ptxas (paths), chip, size (dict for the estimate), check_sizes (list of
    dicts), scalars (dict), seed (int), calibration (path or ""), measure
    (bool: score by the GPU time at `size` instead of the estimate), rlimit
    (Z3 resources per query, or None: the verifier's), verdict_cache (a
    private folder where the verifier keeps and reuses query verdicts, or
    None), timeout (s).
    Returns the attempt record."""
    result = {"status": "rejected", "reason": None, "message": "",
              "obligation": None, "times": {}, "score": None}
    t = task["timeout"]
    with tempfile.TemporaryDirectory(prefix="tiletag-agent-") as tmp:
        src = os.path.join(tmp, "input.mlir")
        script = os.path.join(tmp, "script.mlir")
        out = os.path.join(tmp, "out.mlir")
        proved = os.path.join(tmp, "proved.mlir")
        with open(src, "w") as f:
            f.write(task["module"])
        with open(script, "w") as f:
            f.write(task["script"])

        def reject(step, reason, message, seconds, obligation=None):
            # Locations name the candidate's files, not this temporary folder.
            if obligation:
                obligation = json.loads(json.dumps(obligation).replace(tmp + "/", ""))
            result["times"][step] = round(seconds, 3)
            result.update(reason=reason, message=message.replace(tmp + "/", ""),
                          obligation=obligation)
            return result

        def crashed(step, rc, err, seconds):
            what = "timed out" if rc is None else "crashed (signal %d)" % -rc
            return reject(step, "tool", "%s %s: %s" % (step, what, first_error(err)),
                          seconds)

        rc, _, err, s = _run([task["opt"], src, "--transform-preload-library="
                              "transform-library-paths=" + script,
                              "--transform-interpreter", "-o", out], t, tmp)
        if rc is None or rc < 0:
            return crashed("apply", rc, err, s)
        if rc != 0:
            msg = first_error(err)
            return reject("apply", classify_apply(msg), msg, s)
        with open(out) as f:
            why = kernels.out_of_scope(f.read(), task["scope"])
        if why:
            return reject("apply", "scope", why, s)
        result["times"]["apply"] = round(s, 3)

        verify = "--tiletag-verify=format=json"
        if task.get("rlimit"):
            verify += " rlimit=%d" % task["rlimit"]
        if task.get("verdict_cache"):
            verify += " verdict-cache=" + task["verdict_cache"]
        rc, sout, err, s = _run([task["opt"], verify, out, "-o", proved], t, tmp)
        if rc is None or rc < 0:
            return crashed("verify", rc, err, s)
        if rc != 0:
            try:
                reason, obligation = classify_verify(json.loads(sout))
            except ValueError:
                reason, obligation = "verify:unknown", None
            msg = obligation.get("what") if obligation else first_error(err)
            with open(out) as f:
                result["candidate_ir"] = f.read()  # what the obligation points into
            return reject("verify", reason, msg, s, obligation)
        result["times"]["verify"] = round(s, 3)

        total = 0.0
        for i, sizes in enumerate(task["check_sizes"]):
            cmd = [task["run"], proved, "--check", "--kernel", task["kernel"],
                   "--seed", str(task["seed"] + i)] + _run_flags(sizes, task["scalars"])
            rc, sout, err, s = _run(cmd, t, tmp)
            total += s
            if rc is None or rc < 0:
                return crashed("oracle", rc, err, total)
            if rc != 0:
                return reject("oracle", "oracle", "at %s: %s" % (
                    _sizes(sizes), first_error(err + sout)), total)
        result["times"]["oracle"] = round(total, 3)

        lowered = lower_and_assemble(task, proved, tmp, t)
        result["times"].update(lowered.get("times", {}))
        if "reject" in lowered:
            return reject(*lowered["reject"])
        if "crashed" in lowered:
            return crashed(*lowered["crashed"])
        result["ptxas"] = lowered["registers"]

        options = "sizes=%s format=json kernel=%s chip=%s" % (
            _sizes(dict(task["size"], **task["scalars"])), task["kernel"], task["chip"])
        if result["ptxas"]["registers"]:
            options += " regs=%d" % result["ptxas"]["registers"]
        if task.get("calibration"):
            options += " calibration=" + task["calibration"]
        rc, sout, err, s = _run([task["opt"], "--tiletag-estimate=" + options, proved,
                                 "-o", os.devnull], t, tmp)
        if rc != 0:
            return reject("estimate", "estimate", first_error(err), s)
        result["times"]["estimate"] = round(s, 3)
        estimate = json.loads(sout)
        result["score"] = {"kind": "estimate", "time_us": estimate["time_us"],
                           "tflops": estimate["tflops"],
                           "bound_by": estimate["kernels"][0]["bound_by"],
                           "model": estimate["model"]}

        if task.get("measure"):
            cmd = [task["run"], proved, "--device=cuda", "--chip", task["chip"],
                   "--kernel", task["kernel"], "--seed", str(task["seed"]),
                   "--repeat", str(MEASURE_LAUNCHES),
                   "--skip-oracle"] + _run_flags(task["size"], task["scalars"])
            rc, sout, err, s = _run(cmd, t, tmp)
            if rc is None or rc < 0:
                return crashed("measure", rc, err, s)
            m = re.search(r" in ([0-9.]+) ms on the GPU \(median of", sout)
            if rc != 0 or not m:
                return reject("measure", "measure", first_error(err + sout) if rc else
                              "tiletag-run printed no GPU time", s)
            result["times"]["measure"] = round(s, 3)
            us = float(m.group(1)) * 1000
            if us <= 0:
                return reject("measure", "measure", "a GPU time of 0", s)
            # The same FLOPs as the estimate counts, over the measured time.
            result["score"] = dict(result["score"], kind="measured", time_us=us,
                                   tflops=estimate["tflops"] * estimate["time_us"] / us,
                                   launches=MEASURE_LAUNCHES,
                                   estimate_us=estimate["time_us"])
        result["status"] = "verified"
        with open(proved) as f:
            result["kernel_ir"] = f.read()
        result["code"] = _read(lowered["code"])
    return result
