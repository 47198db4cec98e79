// transform.tiletag.occupancy sets the `occupancy` of the kernel's
// schedule.launch (one warpgroup where it had none; warpgroups and cluster
// kept), drops the proof stamps (verify stamps it again), and refuses what
// is not a kernel.
// RUN: tiletag-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// CHECK-LABEL: tile.kernel @plain
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 1, occupancy = 4>
// CHECK-SAME: schedule.verified
tile.kernel @plain(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.tiletag.occupancy %k programs(4) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %r : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK-LABEL: tile.kernel @clustered
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 2, cluster = [2], occupancy = 1>
// CHECK-NOT: schedule.verified
tile.kernel @clustered(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2, cluster = [2], occupancy = 3>,
    schedule.verified = "0123456789abcdef"} {
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.tiletag.occupancy %k programs(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_kernel() {
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects a tile.kernel, got 'func.func'}}
    %r = transform.tiletag.occupancy %f programs(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
