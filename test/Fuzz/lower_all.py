#!/usr/bin/env python3
"""Every .mlir file of the test suite (valid and invalid kernels alike, each
split at `// -----`) through a target's lowering (`cuda`: the Hopper
lowering to PTX; `rocm`: the AMDGPU lowering to gfx942 assembly), unproved
kernels let through: each must lower or be refused with a diagnostic, never
crash."""
import os
import subprocess
import sys


def main():
    tool, root = sys.argv[1], sys.argv[2]
    target = sys.argv[3] if len(sys.argv) > 3 else "cuda"
    pipeline = {"cuda": "--tiletag-compile-cuda", "rocm": "--tiletag-compile-rocm"}[target]
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                   if f.endswith(".mlir") and "Output" not in d)
    failures = 0
    for path in files:
        r = subprocess.run([tool, path, "-split-input-file",
                            pipeline + "=verify=0 allow-unverified=1 format=isa",
                            "-o", os.devnull], capture_output=True, text=True, timeout=300)
        if r.returncode not in (0, 1) or "Stack dump" in r.stderr or (
                r.returncode == 1 and "error:" not in r.stderr):
            failures += 1
            print("FAIL %s: exit %d: %s" % (path, r.returncode, r.stderr[-300:]))
    print("lowering sweep: %d files, %d failures" % (len(files), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
