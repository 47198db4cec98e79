#!/usr/bin/env bash
# The main job on the bundled GEMM kernel: set up and build, then parse and
# verify examples/gemm.mlir, describe it, prove its tag assertions and its
# schedule, run it on the CPU oracle against a float64 reference, and print
# its sequential specification (the kernel with schedule and tags stripped).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" > "$root/build-setup.log" 2>&1 || {
  cat "$root/build-setup.log"; exit 1; }
opt="$root/build/bin/tiletag-opt"
kernel="${1:-$root/examples/gemm.mlir}"

echo "== $(basename "$kernel"): parsed and verified; what it is"
"$opt" "$kernel" --tiletag-describe -o /dev/null
echo
echo "== proofs (tiletag-opt --tiletag-verify): tag assertions and the parallel schedule, for every size"
"$opt" "$kernel" "--tiletag-verify-tags=stats=1" "--tiletag-verify-schedule=stats=1" -o /dev/null \
  2>&1 | grep -E "remark|error|note" | sed -e 's/^.*remark: /  /'
echo
echo "== the sequential meaning on the CPU (tiletag-run --check)"
"$root/build/bin/tiletag-run" "$kernel" --check
echo
echo "== its sequential specification (tiletag-opt --tiletag-strip-schedule --tiletag-strip-tags)"
"$opt" "$kernel" --tiletag-strip-schedule --tiletag-strip-tags
