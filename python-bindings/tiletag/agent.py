"""The agent from Python: search transform scripts for the fastest kernel
the checkers prove (tiletag-agent, docs/Agent.md).

``search`` runs the agent's own search loop (the tiletag_agent package, the
same recipes, report and output directory as the command line) on a DSL
kernel, a Module or an .mlir file, and returns its report with the best
kernel parsed.
"""

import json
import os
import shutil
import sys
from dataclasses import dataclass
from typing import Optional

from . import _config, ir
from .errors import TileTagError


@dataclass
class SearchResult:
    """What a search found. `report` is report.json as a dict; `best` its
    best attempt (or None: nothing verified); `best_module` the best
    kernel's Module; `out` the output directory."""
    status: int
    out: str
    report: dict
    best: Optional[dict]
    best_module: Optional["ir.Module"]
    kernel: str

    @property
    def best_kernel(self):
        return self.best_module.kernel(self.kernel) if self.best_module else None


def _agent_cli():
    if _config.AGENT_DIR not in sys.path:
        sys.path.insert(0, _config.AGENT_DIR)
    try:
        from tiletag_agent import cli
    except ImportError as e:
        raise TileTagError("the agent package is not at %s: %s" % (_config.AGENT_DIR, e))
    return cli


def _ptxas():
    found = shutil.which("ptxas")
    if found:
        return found
    for d in (os.path.join(os.environ.get("CUDA_HOME", ""), "bin"), "/usr/local/cuda/bin"):
        if os.path.isfile(os.path.join(d, "ptxas")):
            return os.path.join(d, "ptxas")
    raise TileTagError("ptxas not found (on PATH or in /usr/local/cuda/bin): the "
                       "agent assembles every candidate")


def search(kernel, size=None, budget=24, seed=0, jobs=None, out=None,
           target="sm_90a", recipes=None, rlimit=None, measure=False,
           timeout=300, calibration=None, name=None):
    """Searches for the fastest proved version of `kernel` (a DSL kernel, a
    Module, or the path of an .mlir file; `name` picks the kernel of a
    module) at `size` (a dict of problem sizes). Returns a SearchResult;
    raises TileTagError when the search cannot start (a kernel that does
    not verify as given, bad options)."""
    from .dsl import DSLKernel

    out = os.path.abspath(out or os.path.join(os.getcwd(), "tiletag-agent-out"))
    os.makedirs(out, exist_ok=True)
    if isinstance(kernel, DSLKernel):
        name = name or kernel.name
        path = kernel.save(os.path.join(out, "dsl-%s.mlir" % kernel.name))
    elif isinstance(kernel, ir.Module):
        path = kernel.save(os.path.join(out, "module.mlir"))
    elif isinstance(kernel, (str, os.PathLike)):
        path = os.fspath(kernel)
    else:
        raise TypeError("search takes a DSL kernel, a Module or a path, not %r"
                        % (kernel,))
    argv = [path, "--target", target, "--budget", str(budget), "--seed", str(seed),
            "--out", out,
            "--tiletag-opt", os.path.join(_config.BIN_DIR, "tiletag-opt"),
            "--tiletag-run", os.path.join(_config.BIN_DIR, "tiletag-run"),
            "--ptxas", _ptxas(), "--timeout", str(timeout)]
    if name:
        argv += ["--kernel", name]
    if size:
        for k, v in size.items():
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError("size %s must be a non-negative int, not %r" % (k, v))
        argv += ["--size", ",".join("%s=%d" % kv for kv in size.items())]
    if jobs:
        argv += ["--jobs", str(jobs)]
    for r in ([recipes] if isinstance(recipes, str) else recipes or []):
        argv += ["--recipes", r]
    if rlimit:
        argv += ["--rlimit", str(rlimit)]
    if measure:
        argv.append("--measure")
    if calibration:
        argv += ["--calibration", calibration]

    status = _agent_cli().main(argv)
    if status == 2 or status == 130:
        raise TileTagError("tiletag-agent %s: %s" % (
            " ".join(argv), "bad input (see the message above)" if status == 2
            else "interrupted"))
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    best_module = None
    if report.get("best"):
        best_module = ir.parse_file(os.path.join(out, "best.mlir"))
    return SearchResult(status, out, report, report.get("best"), best_module,
                        report["kernel"])
