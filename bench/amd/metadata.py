#!/usr/bin/env python3
"""What the AMD lowering's code objects use, per kernel: VGPRs, AGPRs, SGPRs,
spills, LDS (the dynamic LDS the runner must request, `tiletag.abi`'s `shared_bytes`)
and the occupancy these allow on a CDNA3 CU, with the MI300X cost model's
estimate beside it. Also lists the kernels the lowering refuses, with why.

  python3 bench/amd/metadata.py BUILD [--chip gfx942] [--size M=8192,...]
      [FILE.mlir ...]

Without files: every bundled kernel (examples/, examples/naive/) and every
result of examples/scripts/ and examples/scripts/cdna/. Prints one Markdown
table.

  python3 bench/amd/metadata.py BUILD --mfma-loops FILE.mlir ...

instead prints, per basic block of the AMDGPU assembly that issues MFMA,
its MFMA, other vector (VALU) and LDS-read instructions, and the lane
instructions per FLOP they make: the figure behind the cost model's
`mmaOperandOpsPerFlop` (lib/CostModel/CostModel.cpp)."""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# CDNA3 (gfx942): 512 vector registers per lane and SIMD (VGPRs and AGPRs
# together, allocated in blocks of 8; the metadata's .vgpr_count is that
# total on gfx90a and later, .agpr_count the AGPRs among them), 8 waves per
# SIMD, 4 SIMDs and 64 KiB of LDS per CU.
REGISTERS, MAX_WAVES, SIMDS, LDS = 512, 8, 4, 64 * 1024


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def scripted(opt, tmp):
    files = []
    scripts = sorted(glob.glob(os.path.join(ROOT, "examples/scripts/*.mlir")) +
                     glob.glob(os.path.join(ROOT, "examples/scripts/cdna/*.mlir")))
    for script in scripts:
        name = os.path.basename(script)[:-5]
        prefix = "cdna_" if os.path.basename(os.path.dirname(script)) == "cdna" else "scripted_"
        src = os.path.join(ROOT, "examples/naive", "gemm.mlir" if name == "gemm_wide"
                           else name + ".mlir")
        out = os.path.join(tmp, "%s%s.mlir" % (prefix, name))
        r = run([opt, src, "--transform-preload-library=transform-library-paths=" + script,
                 "--transform-interpreter", "-o", out])
        if r.returncode == 0:
            files.append(out)
    return files


def kernels_of(notes):
    """{field: value} per kernel of `llvm-readelf --notes` output: the keys
    of each `amdhsa.kernels` entry (indented 4, the first after `- `)."""
    found = []
    for line in notes.splitlines():
        m = re.match(r"^(  - |    )\.(\w+):\s*(\S*)$", line)
        if not m:
            continue
        if m.group(1) == "  - ":
            found.append({})
        if found:
            found[-1][m.group(2)] = m.group(3)
    return [k for k in found if "name" in k]


def occupancy(vgprs, lds, threads):
    """Waves a CU holds: by registers (per SIMD), by LDS (whole workgroups
    per CU) and by the 8 waves of each of its 4 SIMDs."""
    waves = max(1, -(-threads // 64))
    registers = -(-vgprs // 8) * 8
    by_registers = SIMDS * min(MAX_WAVES, REGISTERS // max(registers, 1))
    groups = min(LDS // lds if lds else by_registers, by_registers // waves)
    return min(groups * waves, SIMDS * MAX_WAVES)


def mfma_loops(opt, chip, files, tmp):
    """Per MFMA-issuing basic block: MFMA, VALU and LDS-read counts, and
    (VALU + LDS reads) x 64 lanes / the MFMAs' FLOP."""
    print("| kernel | block | MFMA | VALU | LDS reads | lane instructions per FLOP |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for f in files:
        asm = os.path.join(tmp, "k.s")
        r = run([opt, f, "--tiletag-compile-rocm=chip=%s format=isa output=%s" % (chip, asm),
                 "-o", os.devnull])
        if r.returncode != 0:
            continue
        block, counts = None, {}
        for line in open(asm):
            line = line.strip()
            m = re.match(r"^(\.LBB\d+_\d+):", line)
            if m:
                block = m.group(1)
                counts[block] = [0, 0, 0, 0]  # MFMA, FLOP, VALU, LDS reads
                continue
            if block is None or not line:
                continue
            op = line.split()[0]
            shape = re.match(r"v_mfma_\w+?_(\d+)x(\d+)x(\d+)", op)
            c = counts[block]
            if shape:
                c[0] += 1
                c[1] += 2 * int(shape.group(1)) * int(shape.group(2)) * int(shape.group(3))
            elif op.startswith("v_"):
                c[2] += 1
            elif op.startswith("ds_read"):
                c[3] += 1
        for b, (mfma, flops, valu, lds) in counts.items():
            if mfma:
                print("| %s | %s | %d | %d | %d | %.3f |" % (
                    os.path.basename(f), b, mfma, valu, lds, (valu + lds) * 64 / flops))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--chip", default="gfx942")
    ap.add_argument("--size", default="M=8192,N=8192,K=8192,BH=32,S=4096,R=8192,C=8192")
    ap.add_argument("--mfma-loops", action="store_true",
                    help="instruction mix of the MFMA-issuing blocks instead")
    args = ap.parse_intermixed_args()
    opt = os.path.join(args.build, "bin", "tiletag-opt")
    if args.mfma_loops:
        with tempfile.TemporaryDirectory() as tmp:
            mfma_loops(opt, args.chip, args.files, tmp)
        return 0
    readelf = "/usr/lib/llvm-22/bin/llvm-readelf"
    with tempfile.TemporaryDirectory() as tmp:
        files = args.files or (sorted(glob.glob(os.path.join(ROOT, "examples/*.mlir"))) +
                               sorted(glob.glob(os.path.join(ROOT, "examples/naive/*.mlir"))) +
                               scripted(opt, tmp))
        print("| kernel | VGPR (total) | of which AGPR | SGPR | spills | LDS bytes | threads | waves/CU "
              "| %s estimate |" % args.chip)
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for f in files:
            label = os.path.relpath(f, ROOT) if f.startswith(ROOT) else os.path.basename(f)
            hsaco = os.path.join(tmp, "k.hsaco")
            r = run([opt, f, "--tiletag-compile-rocm=chip=%s output=%s" % (args.chip, hsaco),
                     "-o", os.devnull])
            if r.returncode != 0:
                why = next((l.split("error:", 1)[1].strip() for l in r.stderr.splitlines()
                            if "error:" in l), "failed")
                print("| %s | refused: %s | | | | | | | |" % (label, why.replace("|", "/")))
                continue
            lowered = run([opt, f, "--tiletag-verify", "--tiletag-convert-to-amdgpu"]).stdout
            shared = dict(re.findall(r"gpu\.func @(\w+)\(.*?tiletag\.abi = \{.*?"
                                     r"shared_bytes = (\d+)", lowered))
            block = dict(re.findall(r"gpu\.func @(\w+)\(.*?tiletag\.abi = \{block = "
                                    r"array<i64: (\d+)", lowered))
            for k in kernels_of(run([readelf, "--notes", hsaco]).stdout):
                name = k["name"]
                vgpr, agpr = int(k.get("vgpr_count", 0)), int(k.get("agpr_count", 0))
                lds = int(shared.get(name, 0)) + int(k.get("group_segment_fixed_size", 0))
                threads = int(block.get(name, 64))
                spills = int(k.get("vgpr_spill_count", 0)) + int(k.get("sgpr_spill_count", 0))
                # A split-k kernel's S is its number of splits.
                sizes = args.size.replace("S=4096", "S=4") if "splitk" in label else args.size
                est = run([opt, f, "--tiletag-estimate=chip=%s kernel=%s regs=%d sizes=%s"
                           % (args.chip, name, vgpr, sizes), "-o", os.devnull])
                m = re.search(r": ([0-9.]+ us, [0-9.]+ TFLOP/s)", est.stdout)
                print("| %s @%s | %d | %d | %s | %d | %d | %d | %d | %s |" % (
                    label, name, vgpr, agpr, k.get("sgpr_count", "?"), spills, lds, threads,
                    occupancy(vgpr, lds, threads),
                    m.group(1) if m else "no estimate: " + next(
                        (l.split("error:", 1)[1].strip() for l in est.stderr.splitlines()
                         if "error:" in l), "?")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
