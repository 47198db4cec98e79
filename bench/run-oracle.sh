#!/usr/bin/env bash
# CPU oracle speed: examples/gemm.mlir at 1024^3 through the tiletag-run
# interpreter against a plain C++ triple loop, in one process, alternating.
# Writes bench/results/oracle-gemm-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" > /dev/null
out="$root/bench/results/oracle-gemm-$(date +%Y-%m-%d).txt"
{
  echo "# bench/run-oracle.sh on $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
  "$root/build/bin/tiletag-bench-oracle" "$root/examples/gemm.mlir" "${1:-1024}" "${2:-5}"
} | tee "$out"
