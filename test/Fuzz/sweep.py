#!/usr/bin/env python3
"""Malformed-input sweep: truncated and garbled versions of every example.

Each variant goes through tiletag-opt (parse, verify, the strip passes and the
describe pass). A variant may be accepted (exit 0) or rejected with a
diagnostic (exit 1 and "error:" on stderr); anything else -- a crash, a
signal, a timeout, or a failure without a diagnostic -- fails the sweep.
Variants are made with a fixed seed, so a failure is reproducible; the failing
input is written next to the report.
"""

import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile

PASSES = ["--tiletag-strip-schedule", "--tiletag-strip-tags", "--tiletag-describe"]
# With --verify, variants go through both checkers instead (slower: fewer).
VERIFY = ["--tiletag-verify-tags=rlimit=2000000", "--tiletag-verify-schedule=rlimit=2000000"]
# With --lower, variants go through the Hopper lowering to PTX; with
# --lower-rocm, through the AMDGPU lowering to gfx942 assembly (unproved
# variants are let through, so that the lowering sees them all).
LOWER = ["--tiletag-compile-cuda=verify=0 allow-unverified=1 format=isa"]
LOWER_ROCM = ["--tiletag-compile-rocm=verify=0 allow-unverified=1 format=isa"]


def truncations(text, count):
    step = max(1, len(text) // count)
    return [text[:i] for i in range(0, len(text), step)]


def garbles(text, rng, count):
    lines = text.splitlines(keepends=True)
    noise = ["%", "@", "{", "}", "(", ")", "[", "]", "<", ">", ":", ",", "=",
             "\"", "0", "-1", "99999999999999999999", "tensor<", "memref<?x",
             "!schedule.mbarrier<", "#tag.label<", "tile.kernel", "\x00", "\xff"]
    out = []
    for _ in range(count):
        kind = rng.randrange(5)
        if kind == 0:  # replace one character
            i = rng.randrange(len(text))
            out.append(text[:i] + rng.choice(noise) + text[i + 1:])
        elif kind == 1:  # delete a line
            i = rng.randrange(len(lines))
            out.append("".join(lines[:i] + lines[i + 1:]))
        elif kind == 2:  # duplicate a line
            i = rng.randrange(len(lines))
            out.append("".join(lines[:i + 1] + lines[i:]))
        elif kind == 3:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            swapped = list(lines)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            out.append("".join(swapped))
        else:  # change a number
            digits = [k for k, c in enumerate(text) if c.isdigit()]
            i = rng.choice(digits)
            out.append(text[:i] + rng.choice(["0", "7", "-3", "65"]) + text[i + 1:])
    return out


# A hang is a run that does not end: verifying a garbled kernel can take tens
# of seconds (each Z3 query may spend its whole resource limit), more under
# the sanitizers, so the limit is generous.
HANG_SECONDS = 240


def run_one(tool, name, text, passes=None):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False,
                                     encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run([tool, path, "-o", os.devnull] + (passes or PASSES),
                              capture_output=True, timeout=HANG_SECONDS)
        ok = proc.returncode == 0 or (proc.returncode == 1 and b"error:" in proc.stderr)
        why = None if ok else "exit %d: %s" % (proc.returncode, proc.stderr[-400:].decode(errors="replace"))
    except subprocess.TimeoutExpired:
        ok, why = False, "timeout"
    if ok:
        os.unlink(path)
    return ok, name, why, path


def npy_variants(rng, count):
    """Valid, truncated and garbled .npy files for A of a 8x4 GEMM."""
    import struct
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 4), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    good = (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
            + b"".join(struct.pack("<f", i) for i in range(32)))
    out = [good[:i] for i in range(0, len(good), max(1, len(good) // 40))]
    for _ in range(count):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(data))
            data[i] = rng.randrange(256)
        out.append(bytes(data))
    for text in ["'descr': '>f4'", "'descr': '<c8'", "'shape': (8, -4)", "'shape': (99999999999, 4)",
                 "'fortran_order': True", "'descr': '<f4"]:
        key = text.split(":")[0]
        start = good.index(key.encode())
        end = good.index(b",", start + len(key) + 3) if "shape" not in key else good.index(b")", start) + 1
        out.append(good[:start] + text.encode() + good[end:])
    return out


def run_npy(run_tool, examples, data, index):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "A.npy"), "wb") as f:
            f.write(data)
        cmd = [run_tool, os.path.join(examples, "gemm.mlir"), "--size", "M=8,K=4,N=8", "--inputs", d]
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return False, "npy variant #%d" % index, "timeout", None
        ok = proc.returncode == 0 or (proc.returncode == 2 and b"error" in proc.stderr)
        why = None if ok else "exit %d: %s" % (proc.returncode, proc.stderr[-400:].decode(errors="replace"))
        return ok, "npy variant #%d" % index, why, None


def main():
    args = [a for a in sys.argv[1:] if a not in ("--verify", "--lower", "--lower-rocm")]
    verify = "--verify" in sys.argv
    lower = "--lower" in sys.argv or "--lower-rocm" in sys.argv
    tool, examples = args[0], args[1]
    run_tool = args[2] if len(args) > 2 else None
    passes = (VERIFY if verify else LOWER_ROCM if "--lower-rocm" in sys.argv
              else LOWER if lower else PASSES)
    per_file = 30 if verify or lower else 60
    rng = random.Random(20261202)
    jobs = []
    for file in sorted(os.listdir(examples)):
        if not file.endswith(".mlir"):
            continue
        text = open(os.path.join(examples, file), encoding="utf-8").read()
        for i, v in enumerate(truncations(text, per_file)):
            jobs.append(("%s truncated #%d" % (file, i), v))
        for i, v in enumerate(garbles(text, rng, per_file)):
            jobs.append(("%s garbled #%d" % (file, i), v))
    failures = 0
    accepted = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for ok, name, why, path in pool.map(lambda j: run_one(tool, *j, passes=passes), jobs):
            if not ok:
                failures += 1
                print("FAIL %s (input kept at %s): %s" % (name, path, why))
        if run_tool:
            variants = npy_variants(rng, 60)
            for ok, name, why, _ in pool.map(lambda iv: run_npy(run_tool, examples, iv[1], iv[0]),
                                             enumerate(variants)):
                if not ok:
                    failures += 1
                    print("FAIL %s: %s" % (name, why))
            print("malformed .npy sweep: %d variants" % len(variants))
    print("malformed-input sweep: %d variants, %d failures" % (len(jobs), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
