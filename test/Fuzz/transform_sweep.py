#!/usr/bin/env python3
"""Every transform.tiletag rewrite on every kernel the project has.

Each op (with a few parameter choices) is applied by the transform
interpreter to every kernel of the given files, and the pipelining ops to
every loop, one loop at a time. A rewrite may apply (exit 0) or be refused
with a diagnostic (exit 1 and "error:"); a crash, a signal, a timeout, a
failure without a diagnostic, or a rewrite that leaves invalid IR (an op
that fails to verify, a use its definition does not dominate) fails the
sweep.

usage: transform_sweep.py TILETAG_OPT FILE_OR_DIR..."""

import concurrent.futures
import os
import subprocess
import sys
import tempfile

KERNEL_OPS = {
    "coarsen-0x2": "transform.tiletag.coarsen %k dim(0) factor(2)",
    "coarsen-1x3": "transform.tiletag.coarsen %k dim(1) factor(3)",
    "coarsen-2x2": "transform.tiletag.coarsen %k dim(2) factor(2)",
    "retile-0x2": "transform.tiletag.retile %k dim(0) factor(2)",
    "retile-1x2": "transform.tiletag.retile %k dim(1) factor(2)",
    "rasterize-0x8": "transform.tiletag.rasterize %k dim(0) group(8)",
    "rasterize-1x4": "transform.tiletag.rasterize %k dim(1) group(4)",
    "persist": "transform.tiletag.persist %k programs(4)",
    "skip-empty-blocks": "transform.tiletag.skip_empty_blocks %k",
    "split-k": "transform.tiletag.split_k %k splits(2)",
}
LOOP_OPS = {
    "async-mma-plain": ["transform.tiletag.async_mma %l wait_depth(0)"],
    "reduction-step": ["transform.tiletag.reduction_step %l factor(2)"],
    "reduction-step-divisor": ["transform.tiletag.reduction_step %l divisor(2)"],
    "pipeline-mfma": ["transform.tiletag.reduction_step %l divisor(2)",
                      "transform.tiletag.stage_loads %s stages(3)",
                      "transform.tiletag.warp_specialize %s",
                      "transform.tiletag.async_mma %s wait_depth(1) unit(mfma)"],
    "unroll": ["transform.tiletag.unroll %l factor(3)"],
    "pipeline": ["transform.tiletag.stage_loads %l stages(3)",
                 "transform.tiletag.warp_specialize %s",
                 "transform.tiletag.async_mma %s wait_depth(1)"],
    "pipeline-cooperative": ["transform.tiletag.stage_loads %l stages(2)",
                             "transform.tiletag.warp_specialize %s {consumers = 2, consumer_regs = 128}",
                             "transform.tiletag.async_mma %s wait_depth(1)"],
    "map-thread": ["transform.tiletag.map_loop %l to \"thread\""],
}
HANDLE = "(!transform.any_op) -> !transform.any_op"
INVALID_IR = ["failed to verify", "does not dominate", "must be the last operation"]


def kernel_script(op):
    return """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ks = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %ks : !transform.any_op {
    ^bb0(%k: !transform.any_op):
      %r = """ + op + " : " + HANDLE + """
    }
    transform.yield
  }
}
"""


def loop_script(steps):
    body, handle = [], "%l"
    for i, step in enumerate(steps):
        body.append("      %%s%d = %s : %s" % (i, step.replace("%s", handle), HANDLE))
        handle = "%%s%d" % i
    return """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%l: !transform.any_op):
""" + "\n".join(body) + """
    }
    transform.yield
  }
}
"""


def inputs(paths):
    for path in paths:
        if os.path.isdir(path):
            for dirpath, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.endswith(".mlir") and "scripts" not in dirpath:
                        yield os.path.join(dirpath, name)
        else:
            yield path


def run(opt, script, path):
    try:
        proc = subprocess.run([opt, path, "--transform-preload-library=transform-library-paths=" + script,
                               "--transform-interpreter", "-o", os.devnull],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    if proc.returncode == 0:
        return None
    if proc.returncode != 1 or "error:" not in proc.stderr:
        return "exit %d without a diagnostic: %s" % (proc.returncode, proc.stderr[-400:])
    for text in INVALID_IR:
        if text in proc.stderr:
            return "invalid IR: " + proc.stderr[-600:]
    return None


def main():
    opt, paths = sys.argv[1], sys.argv[2:]
    files = [f for f in inputs(paths) if "tile.kernel" in open(f, errors="replace").read()]
    with tempfile.TemporaryDirectory() as tmp:
        scripts = []
        for name, op in KERNEL_OPS.items():
            scripts.append((name, kernel_script(op)))
        for name, steps in LOOP_OPS.items():
            scripts.append((name, loop_script(steps)))
        jobs = []
        for name, text in scripts:
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            jobs += [(name, path, f) for f in files]
        failures = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = pool.map(lambda j: (j, run(opt, j[1], j[2])), jobs)
            for (name, _, path), problem in results:
                if problem:
                    failures += 1
                    print("FAIL %s on %s: %s" % (name, path, problem))
    print("transform sweep: %d rewrites tried on %d files, %d failures" % (len(jobs), len(files), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
