// transform.tiletag.skip_empty_blocks on the plain GEMM: its store has no
// offsets, so every dimension is guarded (the block's first row and column
// inside C); the work moves into the scf.if, the result is proved against
// the unchanged contract and the oracle agrees at a ragged size. The MoE
// case (offsets: only the expert's rows are guarded) is in moe-script.test.
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=136,K=100 | FileCheck %s --check-prefix=ORACLE

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: tag.verified = "
// CHECK: %[[I:.*]] = tile.program_id 0
// CHECK: %[[J:.*]] = tile.program_id 1
// CHECK: %[[M:.*]] = memref.dim %[[C:.*]], %{{.*}} :
// CHECK: %[[R:.*]] = arith.muli %[[I]], %{{.*}} :
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[R]], %[[M]] :
// CHECK: %[[N:.*]] = memref.dim %[[C]], %{{.*}} :
// CHECK: %[[S:.*]] = arith.muli %[[J]], %{{.*}} :
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[S]], %[[N]] :
// CHECK: %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK: scf.for
// CHECK: tile.store
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %g = transform.tiletag.skip_empty_blocks %kernel : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %g : !transform.any_op
    transform.yield
  }
}
