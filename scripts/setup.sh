#!/usr/bin/env bash
# Sets up everything TileTag needs on Debian 12 and builds it into build/:
# installs the missing Debian packages (a no-op when all are present),
# configures once, and rebuilds incrementally. Safe to run again at any time.
# With --sanitize it builds the sanitizer configuration into build-sanitize/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
cmake_flags=()
# --sanitize: an AddressSanitizer + UndefinedBehaviorSanitizer build of its
# own, in build-sanitize/.
if [[ ${1:-} == --sanitize ]]; then
  build="$root/build-sanitize"
  cmake_flags+=(-DTILETAG_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libz3-dev z3 pkg-config cmake ninja-build ccache libgtest-dev libhsa-runtime-dev python3
  python3-distributed python3-dev pybind11-dev python3-numpy python3-pytest
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${cmake_flags[@]}"
fi
ninja -C "$build"
