#!/usr/bin/env bash
# Run where TileTag builds (no GPU needed): compiles the benchmark kernels to
# cubins in bench/gpu/build/ with their manifest. bench/gpu/run.sh takes them
# to the GPU machine (carry bench/gpu/build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$root/scripts/setup.sh" > /dev/null
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin" # ptxas
python3 "$root/bench/gpu/prepare.py" "$root/build" "$root/examples" "$root/bench/gpu/build"
