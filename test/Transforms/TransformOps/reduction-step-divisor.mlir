// transform.tiletag.reduction_step divisor(2) on the plain GEMM's K loop: the
// A and B tiles the induction variable indexes shrink along K (64 -> 32);
// the trip count ceildiv(K, 64) becomes ceildiv(K, 32) (no step reads
// padding only); the accumulator keeps its shape. The result is proved
// against the unchanged contract (step 2m + j of the kernel is half j of
// the reference's step m), and the oracle agrees at ragged sizes: K = 300
// (the last reference step half padding: the kernel stops after its first
// half), K = 64 and K = 1.
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=300,K=300 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=130,N=129,K=64 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=1,N=1,K=1 | FileCheck %s --check-prefix=ORACLE

// A trip count that is not ceildiv(X, c): twice as many steps.
// RUN: sed -e '0,/%%kblocks = arith.ceildivui %%K, %%c64 : index/s//%%kfull = arith.ceildivui %%K, %%c64 : index\n  %%kblocks = arith.addi %%kfull, %%c0 : index/' %examples/naive/gemm.mlir > %t.sum.mlir
// RUN: tiletag-opt %t.sum.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o - | FileCheck %s --check-prefix=TWICE

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: tag.verified = "
// CHECK: %[[K:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[STEPS:.*]] = arith.ceildivui %[[K]], %c32
// CHECK: scf.for %[[I:.*]] = %c0 to %[[STEPS]] step %c1 iter_args(%{{.*}}) -> (tensor<128x128xf32>)
// CHECK: tile.load %{{.*}}[%{{.*}}, %[[I]]] {{.*}} -> tensor<128x32xbf16>
// CHECK: tile.load %{{.*}}[%[[I]], %{{.*}}] {{.*}} -> tensor<32x128xbf16>
// CHECK: tile.dot {{.*}} : tensor<128x32xbf16>, tensor<32x128xbf16> -> tensor<128x128xf32>
// CHECK-LABEL: tile.kernel @gemm_reference(
// CHECK: tensor<128x64xbf16>
// ORACLE: check gemm: C matches

// TWICE-LABEL: tile.kernel @gemm(
// TWICE-SAME: tag.verified = "
// TWICE: %[[T:.*]] = arith.addi
// TWICE: %[[STEPS:.*]] = arith.muli %[[T]], %c2
// TWICE: scf.for %{{.*}} = %c0 to %[[STEPS]] step %c1

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %k
        : (!transform.any_op) -> !transform.any_op
    %short = transform.tiletag.reduction_step %loop divisor(2) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %k : !transform.any_op
    transform.yield
  }
}
