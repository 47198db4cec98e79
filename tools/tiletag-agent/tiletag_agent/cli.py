"""tiletag-agent's command line, search loop and output directory."""

import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import evaluate as evaluation
from . import kernel as kernels
from . import llm
from . import planner as planning
from . import recipes as recipe_files

TARGETS = ("sm_90a", "gfx942", "gfx90a")
# Targets lowered by --tiletag-compile-rocm (no ptxas).
AMD_TARGETS = ("gfx942", "gfx90a")
USAGE = """Searches transform scripts for the fastest kernel the checkers prove
correct. Every candidate is applied, verified (tags, contract, schedule), run
on the CPU oracle at ragged sizes against the workload's float64 reference,
lowered to PTX and assembled by ptxas (for gfx942 and gfx90a: lowered to
AMDGPU assembly), then scored by the cost model of --target at --size (with
--measure: timed on the GPU). A candidate that fails any step is recorded with the reason and is
never reported. docs/Agent.md describes recipes, the planner and DIR."""


def parse_sizes(text, what="--size"):
    sizes = {}
    for entry in filter(None, (text or "").split(",")):
        name, _, value = entry.partition("=")
        try:
            sizes[name.strip()] = int(value)
            if sizes[name.strip()] < 0 or not name.strip():
                raise ValueError
        except ValueError:
            raise SystemExit("tiletag-agent: %s: malformed entry '%s' (expected NAME=VALUE)"
                             % (what, entry))
    return sizes


def atomic_write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class Run:
    def __init__(self, args, tools, recipes, module, name, facts, scope):
        self.args = args
        self.scope = scope
        self.tools = tools
        self.recipes = {r.name: r for r in recipes}
        self.module = module
        self.kernel = name
        self.facts = facts
        self.attempts = []
        self.best = None
        sizes = dict(facts["sizes"])
        given = parse_sizes(args.size)
        self.scalars = {k: v for k, v in given.items() if k in facts["scalars"]}
        for k in given:
            if k not in sizes and k not in self.scalars:
                raise SystemExit("tiletag-agent: --size: @%s has no size or scalar "
                                 "operand named '%s' (sizes: %s)"
                                 % (name, k, ", ".join(sizes)))
        sizes.update({k: v for k, v in given.items() if k in sizes})
        self.size = sizes
        self.check_sizes = [evaluation.ragged_sizes(facts["sizes"])]
        self.planner = planning.Planner(recipes, args.seed)
        self.input_hash = hashlib.sha256(module.encode()).hexdigest()[:16]
        # Candidates of one recipe share most of their queries; their
        # verdicts are kept for the run in a folder only it can write.
        self.verdict_cache = None

    # -- output ---------------------------------------------------------
    def report(self):
        return {"kernel": self.kernel, "input_sha256": self.input_hash,
                "target": self.args.target, "size": self.size,
                "scored_by": self.scored_by(),
                "scalars": self.scalars, "seed": self.args.seed,
                "check_sizes": self.check_sizes,
                "recipes": sorted(self.recipes),
                "best": self.best and {k: self.best[k] for k in
                                       ("id", "recipe", "params", "score")},
                "attempts": [{k: v for k, v in a.items()
                              if k not in ("kernel_ir", "code")}
                             for a in self.attempts]}

    def save(self):
        out = self.args.out
        atomic_write(os.path.join(out, "report.json"),
                     json.dumps(self.report(), indent=1) + "\n")
        atomic_write(os.path.join(out, "report.md"), self.markdown())

    def save_best(self, attempt):
        out = self.args.out
        atomic_write(os.path.join(out, "best-script.mlir"), attempt["script"])
        atomic_write(os.path.join(out, "best.mlir"), attempt["kernel_ir"])
        atomic_write(os.path.join(out, self.best_code()), attempt["code"])

    def best_code(self):
        """The lowered best kernel's file: PTX, or AMDGPU assembly."""
        return "best.s" if self.args.target in AMD_TARGETS else "best.ptx"

    def markdown(self):
        lines = ["# tiletag-agent: @%s on %s at %s" % (
            self.kernel, self.args.target,
            ", ".join("%s=%d" % kv for kv in list(self.size.items()) +
                      list(self.scalars.items()))), ""]
        if self.best:
            s = self.best["score"]
            lines += ["Best: attempt %d (%s %s): %.1f us, %.1f TFLOP/s (%s, %s)."
                      % (self.best["id"], self.best["recipe"] or "llm",
                         json.dumps(self.best["params"], sort_keys=True),
                         s["time_us"], s["tflops"], s["kind"], s["bound_by"]), ""]
        else:
            lines += ["No candidate verified: nothing is reported.", ""]
        lines += ["| # | recipe | parameters | why | verdict | time (us) | TFLOP/s | eval (s) |",
                  "| ---: | --- | --- | --- | --- | ---: | ---: | ---: |"]
        for a in self.attempts:
            verdict = "verified" if a["status"] == "verified" else \
                "%s: %s" % (a.get("reason"), (a.get("message") or "")[:80].replace("|", "/"))
            s = a.get("score") or {}
            lines.append("| %d | %s | %s | %s | %s | %s | %s | %.1f |" % (
                a["id"], a.get("recipe") or "llm",
                json.dumps(a.get("params", {}), sort_keys=True).replace("|", "/"),
                a.get("why", ""), verdict,
                "%.1f" % s["time_us"] if s else "", "%.1f" % s["tflops"] if s else "",
                sum(a.get("times", {}).values())))
        return "\n".join(lines) + "\n"

    def progress(self, final=False):
        if not (sys.stderr.isatty() or final):
            return
        rejected = {}
        for a in self.attempts:
            if a["status"] != "verified":
                rejected[a["reason"]] = rejected.get(a["reason"], 0) + 1
        verified = sum(a["status"] == "verified" for a in self.attempts)
        best = ("best %.1f us (%.0f TFLOP/s)" % (self.best["score"]["time_us"],
                                                  self.best["score"]["tflops"])
                if self.best else "no verified kernel yet")
        line = "attempts %d, verified %d, rejected %d%s; %s" % (
            len(self.attempts), verified, len(self.attempts) - verified,
            (" (" + ", ".join("%s %d" % kv for kv in sorted(rejected.items())) + ")")
            if rejected else "", best)
        if sys.stderr.isatty() and not final:
            sys.stderr.write("\r\033[K" + line)
        else:
            sys.stderr.write(("\r\033[K" if sys.stderr.isatty() else "") + line + "\n")
        sys.stderr.flush()

    # -- search ---------------------------------------------------------
    def record(self, attempt):
        attempt["id"] = len(self.attempts) + 1
        ir = attempt.pop("candidate_ir", None)
        if ir is not None:
            # A rejected kernel, kept so that the obligation's location and
            # counterexample can be read and replayed.
            name = "attempts/%d.mlir" % attempt["id"]
            os.makedirs(os.path.join(self.args.out, "attempts"), exist_ok=True)
            atomic_write(os.path.join(self.args.out, name), ir)
            attempt["candidate"] = name
            if attempt.get("obligation"):
                attempt["obligation"] = json.loads(json.dumps(
                    attempt["obligation"]).replace("out.mlir", name))
        self.attempts.append(attempt)
        if attempt["status"] != "error":
            self.planner.observe(attempt)
        if attempt["status"] == "verified" and (
                self.best is None or
                attempt["score"]["time_us"] < self.best["score"]["time_us"]):
            self.best = attempt
            self.save_best(attempt)

    def scored_by(self):
        return "measurement" if self.args.measure else "estimate"

    def resume(self):
        path = os.path.join(self.args.out, "report.json")
        if not os.path.exists(path):
            return
        try:
            old = json.load(open(path))
        except ValueError:
            raise SystemExit("tiletag-agent: %s is not a report; use another --out" % path)
        if old.get("input_sha256") != self.input_hash or old.get("target") != self.args.target \
                or old.get("size") != self.size or old.get("scalars") != self.scalars:
            raise SystemExit("tiletag-agent: %s holds a run of another kernel, target or "
                             "size; use another --out" % path)
        if old.get("scored_by", "estimate") != self.scored_by():
            raise SystemExit("tiletag-agent: %s holds a run scored by %s, not %s; use "
                             "another --out" % (path, old.get("scored_by", "estimate"),
                                                self.scored_by()))
        best_id = (old.get("best") or {}).get("id")
        for a in old["attempts"]:
            if a["status"] == "error":
                continue  # never finished: evaluated again
            self.attempts.append(a)
            a["id"] = len(self.attempts)
            self.planner.observe(a)
            if a["status"] == "verified" and (self.best is None or
                                              a["score"]["time_us"] < self.best["score"]["time_us"]):
                self.best = a
        if self.best and best_id is not None:
            # best.* files were written when it was found.
            for f in ("best-script.mlir", "best.mlir", self.best_code()):
                if not os.path.exists(os.path.join(self.args.out, f)):
                    raise SystemExit("tiletag-agent: %s lacks %s; use another --out"
                                     % (self.args.out, f))
        sys.stderr.write("tiletag-agent: resumed %d attempts from %s\n"
                         % (len(self.attempts), path))

    def task(self, script, seed):
        return {"module": self.module, "kernel": self.kernel, "scope": self.scope,
                "script": script,
                "opt": self.tools["opt"], "run": self.tools["run"],
                "ptxas": self.tools["ptxas"], "chip": self.args.target,
                "size": self.size, "scalars": self.scalars,
                "check_sizes": self.check_sizes, "seed": seed,
                "calibration": self.args.calibration,
                "measure": self.args.measure,
                "rlimit": self.args.rlimit,
                "verdict_cache": self.verdict_cache,
                "timeout": self.args.timeout}

    def llm_candidate(self):
        a = self.args
        content = llm.prompt(self.kernel, self.module, list(self.recipes.values()),
                             self.attempts)
        try:
            reply = llm.ask(a.llm_url, a.llm_model, os.environ.get("TILETAG_LLM_KEY")
                            or os.environ.get("OPENAI_API_KEY"), content, a.llm_timeout)
            script = llm.extract_script(reply)
        except llm.LLMError as e:
            return None, str(e)
        return script, None

    def next_batch(self):
        batch = []
        pending = []
        for _ in range(self.args.batch):
            if len(self.attempts) + len(batch) >= self.args.budget:
                break
            n = len(self.attempts) + len(batch)
            if self.args.llm_url and n % self.args.llm_every == self.args.llm_every - 1:
                script, error = self.llm_candidate()
                # A failed request is an attempt of its own (the same error
                # twice is two attempts); a script is known by its text.
                key = planning.candidate_key("llm", hashlib.sha256(
                    script.encode()).hexdigest()[:16] if script else "failed-%d" % n)
                if key in self.planner.seen or key in pending:
                    continue
                pending.append(key)
                if script is None:
                    batch.append(({"key": key, "recipe": None, "params": {},
                                   "why": "llm", "status": "rejected", "reason": "llm",
                                   "message": error, "script": "", "times": {},
                                   "score": None}, None))
                else:
                    batch.append(({"key": key, "recipe": None, "params": {},
                                   "why": "llm", "script": script}, script))
                continue
            proposal = self.planner.propose(pending)
            if proposal is None:
                break
            name, params, why = proposal
            script = self.recipes[name].render(params, self.kernel)
            key = planning.candidate_key(name, params)
            pending.append(key)
            batch.append(({"key": key, "recipe": name, "params": params, "why": why,
                           "script": script}, script))
        return batch

    def search(self, submit):
        while len(self.attempts) < self.args.budget:
            batch = self.next_batch()
            if not batch:
                break
            futures = [(meta, submit(self.task(script, 1000 * self.args.seed + i))
                        if script is not None else None)
                       for i, (meta, script) in enumerate(batch)]
            for i, (meta, future) in enumerate(futures):
                if future is None:
                    self.record(meta)
                    continue
                try:
                    result = future.result()
                except KeyboardInterrupt:
                    # Keep what the round finished before the interrupt.
                    for later, f in futures[i + 1:]:
                        if f is not None and f.done() and not f.cancelled() \
                                and f.exception() is None:
                            self.record(dict(later, **f.result()))
                    raise
                except Exception as e:  # a worker died or the cluster failed
                    result = {"status": "error", "reason": "worker",
                              "message": "evaluation lost: %s: %s"
                                         % (type(e).__name__, e),
                              "times": {}, "score": None}
                self.record(dict(meta, **result))
            self.save()
            self.progress()


def find_tools(args, needed=("opt", "run", "ptxas")):
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    tools = {"opt": args.tiletag_opt or os.path.join(here, "tiletag-opt"),
             "run": args.tiletag_run or os.path.join(here, "tiletag-run"),
             "ptxas": args.ptxas or next((os.path.join(d, "ptxas") for d in
                                          os.environ.get("PATH", "").split(":") +
                                          ["/usr/local/cuda/bin"]
                                          if os.path.exists(os.path.join(d, "ptxas"))),
                                         "ptxas")}
    for what, path in tools.items():
        if what in needed and not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise SystemExit("tiletag-agent: %s not found at %s" % (what, path))
    return tools


def estimate(args, tools):
    options = "sizes=%s chip=%s format=%s" % (args.size or "", args.target,
                                             "json" if args.json else "text")
    if args.kernel:
        options += " kernel=" + args.kernel
    if args.calibration:
        options += " calibration=" + args.calibration
    proc = subprocess.run([tools["opt"], "--tiletag-estimate=" + options, args.input,
                           "-o", os.devnull])
    return proc.returncode


def main(argv=None):
    """Exit status: 0 with a verified kernel, 1 with none, 2 on bad input,
    130 when interrupted."""
    try:
        return _main(argv)
    except SystemExit as e:
        if isinstance(e.code, str):
            sys.stderr.write(e.code + "\n")
            return 2
        raise


def _main(argv=None):
    default_recipes = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "recipes")
    ap = argparse.ArgumentParser(prog="tiletag-agent", description=USAGE)
    ap.add_argument("input", metavar="KERNEL", help="MLIR file with the tile kernel")
    ap.add_argument("--target", default="sm_90a",
                    help="target chip (%s: NVIDIA H200; gfx942: AMD MI300X; gfx90a: AMD "
                    "MI250X)" % ", ".join(TARGETS))
    ap.add_argument("--kernel", help="kernel to optimize (default: the file's first "
                    "kernel that is no other kernel's contract)")
    ap.add_argument("--size", default="", help="problem sizes (and scalar operands) to "
                    "optimize for, NAME=VALUE,... (default: the kernel's launch sizes)")
    ap.add_argument("--budget", type=int, default=50, help="candidates to evaluate")
    ap.add_argument("--seed", type=int, default=0, help="seed of the planner and the "
                    "oracle's inputs; the same seed gives the same run")
    ap.add_argument("--out", default="tiletag-agent-out", help="output directory "
                    "(resumed when it holds a run of the same kernel)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="candidates evaluated at once on this machine (default: "
                    "the number of CPUs)")
    ap.add_argument("--batch", type=int, default=4, help="candidates proposed per "
                    "round (fixed, so that --jobs and Dask give the same run)")
    ap.add_argument("--dask-scheduler", metavar="HOST:PORT", help="evaluate on this "
                    "Dask cluster (the workers need the same tool paths)")
    ap.add_argument("--recipes", action="append", help="recipe file or directory "
                    "(repeatable; default: the shipped recipes)")
    ap.add_argument("--calibration", default="", help="cost model calibration (JSON)")
    ap.add_argument("--measure", action="store_true", help="score verified candidates by "
                    "their time on GPU 0 at --size (tiletag-run --device=cuda, median of "
                    "%d launches) instead of the cost model's estimate, which is kept "
                    "beside it; needs a CUDA GPU, checked first" % evaluation.MEASURE_LAUNCHES)
    ap.add_argument("--estimate", action="store_true", help="only print the cost "
                    "model's estimate of KERNEL at --size")
    ap.add_argument("--json", action="store_true", help="with --estimate: JSON output")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per tool run")
    ap.add_argument("--rlimit", type=int, help="Z3 resources per query when verifying "
                    "a candidate (deterministic, unlike --timeout); a candidate with a "
                    "query past it is rejected as verify:unknown, never reported. "
                    "Lower it to drop hard-to-prove candidates sooner (default: the "
                    "verifier's own limit)")
    ap.add_argument("--llm-url", default=os.environ.get("TILETAG_LLM_URL"),
                    help="OpenAI-compatible endpoint (or TILETAG_LLM_URL); key from "
                    "TILETAG_LLM_KEY or OPENAI_API_KEY")
    ap.add_argument("--llm-model", default=os.environ.get("TILETAG_LLM_MODEL", "default"))
    ap.add_argument("--llm-every", type=int, default=4, help="every Nth candidate "
                    "comes from the LLM")
    ap.add_argument("--llm-timeout", type=float, default=60)
    ap.add_argument("--tiletag-opt"), ap.add_argument("--tiletag-run")
    ap.add_argument("--ptxas")
    args = ap.parse_args(argv)

    if args.target not in TARGETS:
        raise SystemExit("tiletag-agent: unsupported target '%s' (supported: %s)"
                         % (args.target, ", ".join(TARGETS)))
    for flag in ("budget", "jobs", "batch", "llm_every", "timeout", "rlimit"):
        if getattr(args, flag) is not None and getattr(args, flag) < 1:
            raise SystemExit("tiletag-agent: --%s must be at least 1" % flag.replace("_", "-"))
    if args.measure and args.target in AMD_TARGETS:
        raise SystemExit("tiletag-agent: --measure times kernels on a CUDA GPU; "
                         "%s has no runner yet" % args.target)
    if args.estimate:
        return estimate(args, find_tools(args, needed=("opt",)))
    tools = find_tools(args, needed=("opt", "run") if args.target in AMD_TARGETS
                       else ("opt", "run", "ptxas"))

    try:
        text = open(args.input).read()
        module, name = kernels.extract(text, args.kernel)
        loaded = recipe_files.load(args.recipes or [default_recipes])
    except OSError as e:
        raise SystemExit("tiletag-agent: %s" % e)
    except (kernels.KernelError, recipe_files.RecipeError) as e:
        raise SystemExit("tiletag-agent: %s" % e)
    facts = kernels.facts(kernels.kernels_in(module)[name][2])
    usable = [r for r in loaded if r.applies(facts, args.target) is None]
    if not usable:
        raise SystemExit("tiletag-agent: no recipe applies to @%s:\n%s" % (name, "\n".join(
            "  %s: %s" % (r.name, r.applies(facts, args.target)) for r in loaded)))

    # The kernel must verify to begin with.
    os.makedirs(args.out, exist_ok=True)
    atomic_write(os.path.join(args.out, "input.mlir"), module)
    proc = subprocess.run([tools["opt"], "--tiletag-verify",
                           os.path.join(args.out, "input.mlir"), "-o", os.devnull],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit("tiletag-agent: @%s does not verify as given; fix it first" % name)

    # Measuring needs a GPU that runs the kernel as given (checked against
    # the CPU oracle at its launch sizes).
    if args.measure:
        proc = subprocess.run([tools["run"], os.path.join(args.out, "input.mlir"),
                               "--device=cuda", "--chip", args.target, "--kernel", name],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit("tiletag-agent: --measure needs a CUDA GPU that runs @%s: %s"
                             % (name, evaluation.first_error(proc.stderr + proc.stdout)))

    # What scripts must leave as it is, as tiletag-opt prints it (and so
    # prints a candidate).
    proc = subprocess.run([tools["opt"], os.path.join(args.out, "input.mlir")],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit("tiletag-agent: tiletag-opt could not print @%s" % name)
    run = Run(args, tools, usable, module, name, facts,
              kernels.scope(proc.stdout, name))
    run.resume()
    interrupted = False
    try:
        if args.dask_scheduler:
            import distributed
            client = distributed.Client(args.dask_scheduler, timeout=30)
            try:
                run.search(lambda task: client.submit(evaluation.evaluate, task, pure=False))
            finally:
                client.close()
        else:
            run.verdict_cache = tempfile.mkdtemp(prefix="tiletag-agent-verdicts-")
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                run.search(lambda task: pool.submit(evaluation.evaluate, task))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if run.verdict_cache:
            shutil.rmtree(run.verdict_cache, ignore_errors=True)
    run.save()
    run.progress(final=True)
    if interrupted:
        sys.stderr.write("tiletag-agent: interrupted; %s is consistent and resumes\n" % args.out)
        return 130
    if not run.best:
        sys.stderr.write("tiletag-agent: no candidate verified; nothing reported\n")
        return 1
    return 0
