// tiletag-run --device=rocm compiles the kernels with the AMDGPU lowering,
// launches them on the first AMD GPU (an MI300X: gfx942) and checks them
// against the float64 reference and the CPU oracle, at the default sizes and
// at ragged ones.
// REQUIRES: rocm-gpu
// RUN: tiletag-run %examples/naive/gemm.mlir --device=rocm --check | FileCheck %s
// RUN: tiletag-run %examples/naive/gemm.mlir --device=rocm --check --size M=200,N=72,K=136 | FileCheck %s
// RUN: tiletag-run %examples/gemm_splitk.mlir --device=rocm --check | FileCheck %s
// RUN: tiletag-run %examples/moe.mlir --device=rocm --check | FileCheck %s
// RUN: tiletag-run %examples/softmax.mlir --device=rocm --check | FileCheck %s
// RUN: tiletag-run %examples/layernorm.mlir --device=rocm --check | FileCheck %s
// RUN: tiletag-run %examples/naive/attention.mlir --device=rocm --check | FileCheck %s

// CHECK: on the GPU
// CHECK: compare with the CPU oracle: {{.*}} matches
// CHECK-NOT: MISMATCH
