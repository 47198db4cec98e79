#!/usr/bin/env python3
"""Time to apply each transform script of examples/scripts/ and to verify
its result, median of N runs.

Apply: the script with its `transform.tiletag.verify` lines removed, run
by the transform interpreter on its plain kernel. Verify: `tiletag-opt
--tiletag-verify` on the rewritten kernel (tag, contract and schedule
checkers). A result that does not verify is reported as such.

usage: scripts.py BUILD [--repeat N]"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# script -> the plain kernel it starts from
SCRIPTS = {
    "gemm": "gemm",
    "gemm_wide": "gemm",
    "gemm_splitk": "gemm_splitk",
    "gemm_bias_relu": "gemm_bias_relu",
    "attention": "attention",
    "moe": "moe",
}


def timed(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "tiletag-opt")
    print("| script | apply (ms) | verify (ms) | verified |")
    print("| --- | ---: | ---: | --- |")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, plain in SCRIPTS.items():
            script = os.path.join(ROOT, "examples", "scripts", name + ".mlir")
            text = open(script).read()
            applyOnly = os.path.join(tmp, name + "-apply.mlir")
            with open(applyOnly, "w") as f:
                f.write(re.sub(r"^\s*transform\.tiletag\.verify .*$", "", text,
                               flags=re.M))
            out = os.path.join(tmp, name + "-out.mlir")
            applies, verifies, ok = [], [], True
            for _ in range(args.repeat):
                t, proc = timed([opt, os.path.join(ROOT, "examples", "naive", plain + ".mlir"),
                                 "--transform-preload-library=transform-library-paths=" + applyOnly,
                                 "--transform-interpreter", "-o", out])
                if proc.returncode != 0:
                    sys.exit("%s: the script does not apply:\n%s" % (name, proc.stderr))
                applies.append(t)
                t, proc = timed([opt, out, "--tiletag-verify", "-o", os.devnull])
                verifies.append(t)
                ok = ok and proc.returncode == 0
            failed = failed or not ok
            print("| %s | %.0f | %.0f | %s |" % (name, 1000 * statistics.median(applies),
                                              1000 * statistics.median(verifies),
                                              "yes" if ok else "NO"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
