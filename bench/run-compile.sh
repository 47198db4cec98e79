#!/usr/bin/env bash
# Tile IR -> cubin time per example (target: under 200 ms per kernel), against
# ptxas alone on the same PTX; writes bench/results/compile-<date>.md.
# Usage: bench/run-compile.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" > /dev/null
python3 "$root/bench/compile/run.py" "$root/build" "$root/examples" \
  "$root/bench/results/compile-$(date +%Y-%m-%d).md" "${1:-5}"
