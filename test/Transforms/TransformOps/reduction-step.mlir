// transform.tiletag.reduction_step on the plain GEMM's K loop: the A and B
// tiles the induction variable indexes grow along K (64 -> 128), the loop
// runs ceildiv(T, 2) of its T steps, the accumulator keeps its shape. The
// result is proved against the unchanged contract (step n of the kernel is
// the reference's steps 2n and 2n + 1, the second past K reading zero
// padding only), and the oracle agrees at ragged sizes: K = 300 (an odd
// number of 64-blocks), K = 64 (one block, the kernel's second half past
// K) and K = 1.
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=300,K=300 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=130,N=129,K=64 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=1,N=1,K=1 | FileCheck %s --check-prefix=ORACLE

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: tag.verified = "
// CHECK-SAME: grid = [M ceildiv 128, N ceildiv 128]
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[STEPS:.*]] = arith.ceildivui %[[T]], %c2
// CHECK: scf.for %[[K:.*]] = %c0 to %[[STEPS]] step %c1 iter_args(%{{.*}}) -> (tensor<128x128xf32>)
// CHECK: tile.load %{{.*}}[%{{.*}}, %[[K]]] {{.*}} -> tensor<128x128xbf16>
// CHECK: tile.load %{{.*}}[%[[K]], %{{.*}}] {{.*}} -> tensor<128x128xbf16>
// CHECK: tile.dot {{.*}} : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
// CHECK-LABEL: tile.kernel @gemm_reference(
// CHECK: tensor<128x64xbf16>
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %k
        : (!transform.any_op) -> !transform.any_op
    %deep = transform.tiletag.reduction_step %loop factor(2) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %k : !transform.any_op
    transform.yield
  }
}
