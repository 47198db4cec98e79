#!/usr/bin/env bash
# GPU benchmark, run on the GPU machine (CUDA, PyTorch and Triton there; no
# MLIR): builds the driver-API harness with nvcc, runs TileTag's kernels
# (compiled beforehand by bench/gpu/prepare.sh into bench/gpu/build/) against
# cuBLAS in one process, then the torch/Triton peers, and prints one table.
# Writes $OUT (or bench/results/) gpu-<date>.json and .md. Within 8 minutes.
# Usage: bench/gpu/run.sh [quick]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here/../results}
mkdir -p "$out"
stamp=$(date +%Y-%m-%d)
[[ -f "$here/build/manifest.txt" ]] || { echo "run bench/gpu/prepare.sh first (and carry bench/gpu/build)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/gpu-$stamp.machine.txt"
nvcc -O2 -std=c++17 -arch=sm_90a -o "$here/build/harness" "$here/harness.cu" -lcuda -lcublas -lcublasLt
timeout 300 "$here/build/harness" "$here/build" "$out/gpu-$stamp.tiletag.json" "${1:-}" | tee "$out/gpu-$stamp.tiletag.log"
timeout 150 python3 "$here/peers.py" "$out/gpu-$stamp.peers.json" "${1:-}" | tee "$out/gpu-$stamp.peers.log" || echo "peers: incomplete"
python3 "$here/table.py" "$out/gpu-$stamp.tiletag.json" "$out/gpu-$stamp.peers.json" | tee "$out/gpu-$stamp.md"
