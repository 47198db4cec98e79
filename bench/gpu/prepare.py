"""Compiles the example kernels to sm_90a cubins and writes the manifest the
GPU harness reads (one line per kernel: cubin, threads, dynamic shared
memory, workspace bytes per program, tensor maps). Runs where TileTag is
built; the GPU machine only gets the outputs."""
import importlib.util
import os
import re
import subprocess
import sys

EXAMPLES = ["gemm", "gemm_wide", "gemm_persistent", "gemm_persistent_cooperative",
            "gemm_splitk", "attention", "attention_fa3", "moe"]
# GEMMs of the schedule suite (test/Verification/schedule/gemm-schedules.py):
# (kind, ring depth, consumer warpgroups), compiled as gemm_KIND_dD_cC.
SUITE = [("cooperative", 4, 2), ("pingpong", 4, 2), ("splitk", 4, 2)]
# Kernels a transform script makes from a plain kernel: (name, plain kernel,
# script), both under examples/.
SCRIPTED = [("gemm_tma_store", "naive/gemm.mlir", "scripts/gemm_tma_store.mlir")]
# Test inputs the harness also runs (under test/): the fp8 GEMM.
TEST_INPUTS = [("gemm_fp8_nt", "Conversion/NVGPU/Inputs/gemm_fp8_nt.mlir")]


def scripted_sources(opt, examples, out):
    """Applies each script, renames the kernel apart, and yields its name."""
    for name, plain, script in SCRIPTED:
        text = subprocess.run(
            [opt, os.path.join(examples, plain),
             "--transform-preload-library=transform-library-paths=" +
             os.path.join(examples, script), "--transform-interpreter"],
            check=True, capture_output=True, text=True).stdout
        text = re.sub(r"tile\.kernel @gemm\(", f"tile.kernel @{name}(", text)
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(text)
        yield name


def suite_sources(examples, out):
    """Writes the suite's kernels, renamed apart, and yields their names."""
    path = os.path.join(examples, "..", "test", "Verification", "schedule",
                        "gemm-schedules.py")
    spec = importlib.util.spec_from_file_location("gemm_schedules", path)
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    for kind, depth, consumers in SUITE:
        name = f"gemm_{kind}_d{depth}_c{consumers}"
        text = suite.kernel(kind, depth, consumers)
        text = text.replace("@reference", f"@{name}_reference").replace(
            "tile.kernel @gemm(", f"tile.kernel @{name}(")
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(text)
        yield name


def main():
    build, examples, out = sys.argv[1], sys.argv[2], sys.argv[3]
    opt = os.path.join(build, "bin", "tiletag-opt")
    os.makedirs(out, exist_ok=True)
    lines = []
    sources = [(name, os.path.join(examples, name + ".mlir")) for name in EXAMPLES]
    sources += [(name, os.path.join(out, name + ".mlir"))
                for name in suite_sources(examples, out)]
    sources += [(name, os.path.join(out, name + ".mlir"))
                for name in scripted_sources(opt, examples, out)]
    sources += [(name, os.path.join(examples, "..", "test", path))
                for name, path in TEST_INPUTS]
    for name, src in sources:
        lowered = subprocess.run(
            [opt, src, "--tiletag-verify", "--tiletag-convert-to-nvgpu"],
            check=True, capture_output=True, text=True).stdout
        cubin = name + ".cubin"
        subprocess.run(
            [opt, "-canonicalize", "-cse",
             "-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90a cubin-features=+ptx80 "
             "cubin-format=bin opt-level=3",
             "--tiletag-write-gpu-binary=path=" + os.path.join(out, cubin),
             "-o", os.devnull],
            input=lowered, check=True, text=True)
        for m in re.finditer(r"gpu\.func @(\w+)\(.*?\) kernel attributes \{(.*?)\} \{",
                             lowered):
            kernel, attrs = m.group(1), m.group(2)
            # The launch ABI the lowering records (tiletag.abi).
            block = re.search(r"\bblock = array<i64: (\d+)", attrs).group(1)
            shared = re.search(r"\bshared_bytes = (\d+)", attrs).group(1)
            workspace = re.search(r"\bworkspace_bytes = (\d+)", attrs).group(1)
            maps = []
            for t in re.finditer(r"\{box = array<i64: ([\d, ]+)>, operand = (\d+)", attrs):
                box = "x".join(x.strip() for x in t.group(1).split(","))
                maps.append(f"{t.group(2)}:{box}")
            lines.append(f"kernel {kernel} cubin {cubin} block {block} shared {shared} "
                         f"workspace {workspace} maps {','.join(maps) or '-'}")
    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
