#!/usr/bin/env bash
# Tag verification time per example and its growth with pipeline stages,
# tiles per stage and assertions; writes bench/results/verify-<date>.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" > /dev/null
python3 "$root/bench/verify/run.py" "$root/build" "$root/examples" \
  "$root/bench/results/verify-$(date +%Y-%m-%d).md"
