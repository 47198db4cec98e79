"""Tile IR -> cubin time per example kernel file, on the CPU.

For each example: the whole `tiletag-opt --tiletag-compile-cuda` process to
PTX (format=isa) and
on the proved kernel file without re-proving (verify=0: lowering, NVVM, PTX,
ptxas -> cubin), the same from the source with the proofs, and, as the peer in the same run, ptxas alone on the PTX
that TileTag produced (the part of the time that is NVIDIA's assembler).
Medians of N runs; writes a Markdown table.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    build, examples, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    opt = os.path.join(build, "bin", "tiletag-opt")
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(ptxas) + os.pathsep + env.get("PATH", "")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(examples)):
            if not name.endswith(".mlir"):
                continue
            src = os.path.join(examples, name)
            # The lowering takes proved kernels: prove once, then time the rest.
            proved_src = os.path.join(tmp, name)
            subprocess.run([opt, src, "--tiletag-verify", "-o", proved_src], check=True, env=env)
            ptx = os.path.join(tmp, name + ".ptx")
            cubin = os.path.join(tmp, name + ".cubin")
            subprocess.run([opt, proved_src, "--tiletag-compile-cuda=format=isa verify=0 output=" + ptx,
                            "-o", os.devnull], check=True, env=env)
            kernels = open(ptx).read().count(".entry ")
            lower = [timed([opt, proved_src, "--tiletag-compile-cuda=format=bin verify=0 output=" + cubin,
                            "-o", os.devnull], env) for _ in range(runs)]
            to_ptx = [timed([opt, proved_src, "--tiletag-compile-cuda=format=isa verify=0",
                             "-o", os.devnull], env) for _ in range(runs)]
            proved = [timed([opt, src, "--tiletag-compile-cuda=format=bin output=" + cubin,
                             "-o", os.devnull], env) for _ in range(runs)]
            alone = [timed([ptxas, "-arch=sm_90a", ptx, "-o", cubin], env) for _ in range(runs)]
            rows.append((name, kernels, statistics.median(to_ptx), statistics.median(lower),
                         statistics.median(proved), statistics.median(alone)))
    lines = ["# Tile IR -> cubin time (sm_90a), CPU only", "",
             f"`bench/run-compile.sh` ({runs} runs, medians; whole processes). "
             "ptxas alone is the peer: NVIDIA's assembler on the PTX TileTag produced.", "",
             "| example | kernels | tile -> PTX (ms) | tile -> cubin (ms) | cubin per kernel (ms) | with proofs (ms) | ptxas alone (ms) | tile -> cubin / ptxas |",
             "|---|---|---|---|---|---|---|---|"]
    for name, k, px, lo, pr, al in rows:
        lines.append(f"| {name} | {k} | {px*1e3:.0f} | {lo*1e3:.0f} | {lo*1e3/k:.0f} | {pr*1e3:.0f} | {al*1e3:.0f} | {lo/al:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
