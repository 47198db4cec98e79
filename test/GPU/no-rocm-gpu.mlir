// Without an AMD GPU, --device=rocm stops with a usage error (exit 2) that
// says so: the ROCm runtime cannot be opened, or finds no GPU.
// UNSUPPORTED: rocm-gpu
// RUN: not tiletag-run %examples/naive/gemm.mlir --device=rocm 2>&1 | FileCheck %s
// RUN: not tiletag-run %examples/naive/gemm.mlir --device=rocm --chip gfx90a --repeat 3 2>&1 | FileCheck %s
// CHECK: tiletag-run: error: --device=rocm: {{(no AMD GPU|this build of TileTag has no ROCm support)}}
