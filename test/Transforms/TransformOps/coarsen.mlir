// transform.tiletag.coarsen on the plain softmax: each program takes the
// rows of two neighbouring programs. Its three loops stay three loops, each
// carrying both row blocks' values (the last one storing both); the grid
// extent halves; the result is proved against the unchanged contract, and
// the oracle agrees at ragged sizes (an odd number of row blocks: the last
// program's second block is past the end, its loads pad, its stores clip).
// RUN: tiletag-opt %examples/naive/softmax.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size R=40,C=600 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size R=17,C=100 | FileCheck %s --check-prefix=ORACLE

// CHECK-LABEL: tile.kernel @softmax(
// CHECK-SAME: tag.verified = "
// CHECK-SAME: grid = [R ceildiv 32]
// CHECK: %[[P:.*]] = tile.program_id 0
// CHECK: %[[R0:.*]] = arith.muli %[[P]], %[[TWO:.*]] :
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %{{.*}} :
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[M0:.*]] = %{{.*}}, %[[M1:.*]] = %{{.*}}) -> (tensor<16xf32>, tensor<16xf32>)
// CHECK: tile.load %{{.*}}[%[[R0]], %[[J]]]
// CHECK: tile.load %{{.*}}[%[[R1]], %[[J]]]
// CHECK: scf.for {{.*}} -> (tensor<16xf32>, tensor<16xf32>)
// CHECK: scf.for
// CHECK: tile.store %{{.*}}[%[[R0]], %{{.*}}]
// CHECK: tile.store %{{.*}}[%[[R1]], %{{.*}}]
// CHECK-LABEL: tile.kernel @softmax_reference(
// CHECK-SAME: grid = [R ceildiv 16]
// ORACLE: check softmax: Y matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "softmax"} in %root
        : (!transform.any_op) -> !transform.any_op
    %wide = transform.tiletag.coarsen %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %wide : !transform.any_op
    transform.yield
  }
}
