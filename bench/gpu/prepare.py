"""Compiles the example kernels to sm_90a cubins and writes the manifest the
GPU harness reads (one line per kernel: cubin, threads, dynamic shared
memory, workspace bytes per program, tensor maps). Runs where TileTag is
built; the GPU machine only gets the outputs."""
import os
import re
import subprocess
import sys

EXAMPLES = ["gemm", "gemm_wide", "gemm_splitk", "attention", "moe"]


def main():
    build, examples, out = sys.argv[1], sys.argv[2], sys.argv[3]
    opt = os.path.join(build, "bin", "tiletag-opt")
    os.makedirs(out, exist_ok=True)
    lines = []
    for name in EXAMPLES:
        src = os.path.join(examples, name + ".mlir")
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
            block = re.search(r"tiletag\.block = array<i64: (\d+)", attrs).group(1)
            shared = re.search(r"tiletag\.shared_bytes = (\d+)", attrs).group(1)
            workspace = re.search(r"tiletag\.workspace_bytes = (\d+)", attrs).group(1)
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
