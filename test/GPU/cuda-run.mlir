// tiletag-run --device=cuda compiles the kernels with the Hopper lowering,
// launches them on GPU 0 and checks them against the float64 reference and
// the CPU oracle, at the default sizes and at ragged ones.
// REQUIRES: cuda-gpu
// RUN: tiletag-run %examples/gemm.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/gemm.mlir --device=cuda --check --size M=200 --size N=72 --size K=136 | FileCheck %s
// RUN: tiletag-run %examples/gemm_splitk.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/attention.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/attention_fa3.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/moe.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/softmax.mlir --device=cuda --check | FileCheck %s
// RUN: tiletag-run %examples/layernorm.mlir --device=cuda --check | FileCheck %s
// A thread-block cluster exchanging blocks through global memory across a
// cluster barrier, against the oracle's cluster run:
// RUN: tiletag-run %S/../Verification/schedule/cluster.mlir --kernel exchange --device=cuda | FileCheck %s
// and round after round, with cluster barriers before and after the epilogue:
// RUN: tiletag-run %S/../Verification/schedule/cluster-epilogue.mlir --kernel cluster_epilogue --device=cuda --size R=3,N=768,T=1 | FileCheck %s
// Two roles taking turns on one shared buffer through named barriers
// (bar.sync / bar.arrive):
// RUN: tiletag-run %S/../Verification/schedule/named-barrier.mlir --kernel turns --device=cuda --size R=7,N=384 | FileCheck %s
// Timing (tiletag-agent --measure): the median of N more launches, without
// the CPU oracle, at a size the oracle would take long on.
// RUN: tiletag-run %examples/gemm_wide.mlir --device=cuda --repeat 5 --skip-oracle --size M=4096,N=4096,K=4096 | FileCheck %s --check-prefix=TIME
// TIME: run @gemm_wide (M=4096, N=4096, K=4096): 512 programs in {{[0-9]+\.[0-9]+}} ms on the GPU (median of 5 launches)
// TIME-NOT: CPU oracle

// CHECK: on the GPU
// CHECK: compare with the CPU oracle: {{.*}} matches
// CHECK-NOT: MISMATCH
