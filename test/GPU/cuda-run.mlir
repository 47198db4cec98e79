// tiletag-run --device=cuda compiles the kernels with the Hopper lowering,
// launches them on GPU 0 and checks them against the float64 reference and
// the CPU oracle, at the default sizes and at ragged ones.
// REQUIRES: cuda-gpu
// RUN: tiletag-run %examples/gemm.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/gemm.mlir --device=cuda --check --size M=200 --size N=72 --size K=136 | FileCheck %s
// RUN: tiletag-run %examples/gemm_splitk.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/attention.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/moe.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/softmax.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/layernorm.mlir --device=cuda --check | FileCheck %s

// CHECK: on the GPU
// CHECK: compare with the CPU oracle: {{.*}} matches
// CHECK-NOT: MISMATCH
