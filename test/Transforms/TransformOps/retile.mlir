// transform.tiletag.retile on the plain softmax: the row tiles indexed by
// tile.program_id 0 grow from 16 to 32 rows, and with them every tile
// computed from their rows (the row maxima and sums the loops carry, their
// broadcasts, the splat constants); the column extent of each step, which
// the reductions reduce, stays 256. The grid extent halves and the program
// map records `p floordiv 2`; the result is proved against the unchanged
// contract (each 16-row reference tile is a window of a 32-row tile), and
// the oracle agrees at ragged sizes (the last program's rows past the end
// pad and clip).
// RUN: tiletag-opt %examples/naive/softmax.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size R=40,C=600 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size R=17,C=100 | FileCheck %s --check-prefix=ORACLE

// CHECK: #[[MAP:.*]] = affine_map<(d0) -> (d0 floordiv 2)>
// CHECK-LABEL: tile.kernel @softmax(
// CHECK-SAME: tag.program_map = #[[MAP]]
// CHECK-SAME: tag.verified = "
// CHECK-SAME: grid = [R ceildiv 32]
// CHECK: %[[P:.*]] = tile.program_id 0
// CHECK: arith.constant dense<0xFF800000> : tensor<32xf32>
// CHECK: scf.for {{.*}} -> (tensor<32xf32>)
// CHECK: tile.load %{{.*}}[%[[P]], %{{.*}}] {{.*}} -> tensor<32x256xf32>
// CHECK: tile.reduce max %{{.*}} axis 1 : tensor<32x256xf32> -> tensor<32xf32>
// CHECK: tile.broadcast %{{.*}} dims [1] : tensor<32xf32> -> tensor<32x256xf32>
// CHECK: tile.store %{{.*}}, %{{.*}}[%[[P]], %{{.*}}] : tensor<32x256xf32>
// CHECK-LABEL: tile.kernel @softmax_reference(
// CHECK-SAME: grid = [R ceildiv 16]
// CHECK-NOT: tensor<32
// ORACLE: check softmax: Y matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "softmax"} in %root
        : (!transform.any_op) -> !transform.any_op
    %tall = transform.tiletag.retile %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %tall : !transform.any_op
    transform.yield
  }
}
