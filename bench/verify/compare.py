#!/usr/bin/env python3
"""Verification time of two builds side by side, in one run.

Runs `tiletag-opt --tiletag-verify-tags --tiletag-verify-schedule` of build
A and build B on every example, alternating A, B, A, B (so that machine load
hits both alike), and prints the median wall time of each, their ratio and
whether each proved the kernel.

usage: compare.py BUILD_A BUILD_B EXAMPLES_DIR [--examples-a DIR] [--repeat N]
--examples-a gives build A its own copies of the examples (an older build
that cannot parse what the examples gained since, e.g. kernel contracts)."""

import argparse
import os
import statistics
import subprocess
import time


def once(build, path):
    opt = os.path.join(build, "bin", "tiletag-opt")
    start = time.perf_counter()
    proc = subprocess.run([opt, "--tiletag-verify-tags", "--tiletag-verify-schedule", path,
                           "-o", os.devnull], capture_output=True, text=True)
    return time.perf_counter() - start, proc.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("examples")
    ap.add_argument("--examples-a", help="build A's examples (default: EXAMPLES_DIR)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print("| kernel | A median s | B median s | B / A | A proved | B proved |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for name in sorted(os.listdir(args.examples)):
        if not name.endswith(".mlir"):
            continue
        paths = {args.a: os.path.join(args.examples_a or args.examples, name),
                 args.b: os.path.join(args.examples, name)}
        times = {args.a: [], args.b: []}
        ok = {}
        for _ in range(args.repeat):
            for build in (args.a, args.b):
                t, proved = once(build, paths[build])
                times[build].append(t)
                ok[build] = proved
        ma, mb = statistics.median(times[args.a]), statistics.median(times[args.b])
        print("| %s | %.2f | %.2f | %.2f | %s | %s |" % (name[:-5], ma, mb, mb / ma,
                                                       ok[args.a], ok[args.b]))


if __name__ == "__main__":
    main()
