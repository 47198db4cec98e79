#!/usr/bin/env python3
"""What the Hopper lowering makes of every bundled kernel (examples/,
examples/naive/) and every result of examples/scripts/: per file, ptxas's
registers and spills and the PTX's wgmma and TMA instruction counts, and
with --save DIR the PTX itself. Run it with two builds (before and after a
lowering change) and diff the outputs (and the saved PTX):

  python3 bench/compile/lowering_report.py BUILD [--save DIR] > report.txt
"""

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# Scripts that apply to another script's plain kernel.
PLAIN = {"gemm_wide": "gemm", "gemm_tma_store": "gemm", "gemm_persistent": "gemm"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--save", help="also keep each file's PTX in DIR")
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "tiletag-opt")
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        files = (sorted(glob.glob(os.path.join(ROOT, "examples/*.mlir"))) +
                 sorted(glob.glob(os.path.join(ROOT, "examples/naive/*.mlir"))))
        for script in sorted(glob.glob(os.path.join(ROOT, "examples/scripts/*.mlir"))):
            name = os.path.basename(script)[:-5]
            src = os.path.join(ROOT, "examples/naive", PLAIN.get(name, name) + ".mlir")
            out = os.path.join(tmp, "scripted_%s.mlir" % name)
            subprocess.run([opt, src, "--transform-preload-library="
                            "transform-library-paths=" + script,
                            "--transform-interpreter", "-o", out], check=True)
            files.append(out)
        for f in files:
            label = os.path.relpath(f, ROOT) if f.startswith(ROOT) else os.path.basename(f)
            ptx = os.path.join(tmp, "k.ptx")
            r = subprocess.run([opt, f, "--tiletag-compile-cuda=format=isa output=" + ptx,
                                "-o", os.devnull], capture_output=True, text=True)
            if r.returncode != 0:
                print("%s: refused" % label)
                continue
            text = open(ptx).read()
            if args.save:
                shutil.copy(ptx, os.path.join(args.save, label.replace("/", "_") + ".ptx"))
            report = subprocess.run([ptxas, "-arch=sm_90a", "-v", ptx, "-o", os.devnull],
                                    capture_output=True, text=True).stderr
            regs = re.findall(r"Used (\d+) registers", report)
            spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
            print("%s: registers %s; spill bytes %s; wgmma %d; tma %d; ptx sha256 %s" % (
                label, ",".join(regs), ",".join("%s/%s" % s for s in spills),
                text.count("wgmma.mma_async"), text.count("cp.async.bulk.tensor"),
                hashlib.sha256(text.encode()).hexdigest()[:16]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
