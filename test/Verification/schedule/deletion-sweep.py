#!/usr/bin/env python3
"""Deleting any single synchronization op from a shipped kernel must make
--tiletag-verify-schedule fail with a diagnostic (and never crash).

usage: deletion-sweep.py TILETAG_OPT EXAMPLES_DIR
Prints one line per deletion and a summary; exits 1 if any deletion went
unnoticed or crashed the tool."""
import os
import re
import subprocess
import sys
import tempfile

SYNC = re.compile(r"^\s*(schedule\.(mbarrier\.wait|mbarrier\.sync|mbarrier\.arrive|mbarrier\.arrive_expect_tx|"
                  r"barrier|fence_async_proxy|commit_group|wait_group))\b")

opt, examples = sys.argv[1], sys.argv[2]
total = caught = 0
for name in sorted(os.listdir(examples)):
    if not name.endswith(".mlir"):
        continue
    lines = open(os.path.join(examples, name)).read().split("\n")
    for i, line in enumerate(lines):
        m = SYNC.match(line)
        if not m:
            continue
        total += 1
        variant = "\n".join(lines[:i] + lines[i + 1:])
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(variant)
        # The first error is enough (fail-fast: the checker stops there).
        # The timeout only guards against a hang (the sanitizer build runs
        # the larger kernels' checks several times slower).
        try:
            proc = subprocess.run([opt, "--tiletag-verify-schedule=fail-fast=1", f.name,
                                   "-o", os.devnull],
                                  capture_output=True, text=True, timeout=600)
            stderr, rc = proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            stderr, rc = "error: timed out after 600 s", None
        os.unlink(f.name)
        ok = rc == 1 and "error:" in stderr
        caught += ok
        first = next((l for l in stderr.splitlines() if "error:" in l), "no error")
        first = first.split("error:", 1)[-1].strip()
        print("%s %s:%d %s -> %s" % ("caught" if ok else "MISSED", name, i + 1, m.group(1),
                                      first[:110]))
print("deletion sweep: %d deletions, %d caught" % (total, caught))
sys.exit(0 if total == caught and total > 0 else 1)
