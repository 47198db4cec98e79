#!/usr/bin/env bash
# The main job on the bundled GEMM kernel: set up and build, then parse and
# verify examples/gemm.mlir, describe it, and print its sequential
# specification (the kernel with its schedule and tags stripped).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" > "$root/build-setup.log" 2>&1 || {
  cat "$root/build-setup.log"; exit 1; }
opt="$root/build/bin/tiletag-opt"
kernel="${1:-$root/examples/gemm.mlir}"

echo "== $(basename "$kernel"): parsed and verified; what it is"
"$opt" "$kernel" --tiletag-describe -o /dev/null
echo
echo "== its sequential specification (tiletag-opt --tiletag-strip-schedule --tiletag-strip-tags)"
"$opt" "$kernel" --tiletag-strip-schedule --tiletag-strip-tags
