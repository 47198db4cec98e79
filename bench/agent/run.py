#!/usr/bin/env python3
"""tiletag-agent throughput: candidates applied + verified + lowered (and
assembled and estimated) per minute, with --jobs 1 and --jobs 2, and the
share of candidates rejected, by reason.

usage: run.py BUILD [--kernel examples/naive/gemm.mlir] [--size ...]
              [--budget N] [--seed S] [--jobs 1,2] [--rlimit N]"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--kernel", default=os.path.join(ROOT, "examples/naive/gemm.mlir"))
    ap.add_argument("--size", default="M=8192,N=8192,K=8192")
    ap.add_argument("--budget", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--rlimit", type=int, help="passed to tiletag-agent")
    args = ap.parse_args()
    agent = os.path.join(args.build, "bin", "tiletag-agent")
    print("kernel %s at %s, budget %d, seed %d, %d CPUs" % (
        os.path.relpath(args.kernel, ROOT), args.size, args.budget, args.seed,
        os.cpu_count()))
    print()
    print("| jobs | wall (s) | attempts | verified | per minute | rejected by reason | best (us) | mean s per step (apply / verify / oracle / lower / ptxas / estimate) |")
    print("| ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |")
    for jobs in [int(j) for j in args.jobs.split(",")]:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            proc = subprocess.run([agent, args.kernel, "--size", args.size,
                                   "--budget", str(args.budget), "--seed", str(args.seed),
                                   "--jobs", str(jobs), "--out", out]
                                  + (["--rlimit", str(args.rlimit)] if args.rlimit else []),
                                  capture_output=True, text=True)
            wall = time.perf_counter() - start
            if not os.path.exists(os.path.join(out, "report.json")):
                sys.exit("agent failed: " + proc.stderr)
            report = json.load(open(os.path.join(out, "report.json")))
        attempts = report["attempts"]
        verified = [a for a in attempts if a["status"] == "verified"]
        reasons = collections.Counter(a["reason"] for a in attempts
                                      if a["status"] != "verified")
        steps = collections.defaultdict(list)
        for a in attempts:
            for k, v in a["times"].items():
                steps[k].append(v)
        mean = " / ".join("%.2f" % (sum(steps[k]) / len(steps[k])) if steps[k] else "-"
                          for k in ("apply", "verify", "oracle", "lower", "ptxas", "estimate"))
        print("| %d | %.1f | %d | %d | %.1f | %s | %s | %s |" % (
            jobs, wall, len(attempts), len(verified), 60 * len(attempts) / wall,
            ", ".join("%s %d (%.0f %%)" % (r, n, 100.0 * n / len(attempts))
                      for r, n in sorted(reasons.items())) or "none",
            "%.1f" % report["best"]["score"]["time_us"] if report["best"] else "-",
            mean))


if __name__ == "__main__":
    main()
