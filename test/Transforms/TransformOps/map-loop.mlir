// transform.tiletag.map_loop marks a loop's iterations concurrent; the
// schedule checker then proves them independent, or names two iterations
// that race.
// RUN: tiletag-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// Warps write disjoint blocks: mapped and proved.
// CHECK-LABEL: tile.kernel @rows
// CHECK-SAME: schedule.verified = "
// CHECK: scf.for
// CHECK: } {schedule.map = #schedule.map<warp>}
tile.kernel @rows(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64], grid = [R ceildiv 16], shapes = [X = [R, 128], Y = [R, 128]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %w = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %w] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    tile.store %x, %Y[%p, %w] : tensor<16x32xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %k : (!transform.any_op) -> !transform.any_op
    %mapped = transform.tiletag.map_loop %loop to "warp" : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %k : !transform.any_op
    transform.yield
  }
}

// -----

// Every warp writes the same block: the checker names two racing warps.
// expected-note @below {{at }}
tile.kernel @same_block(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64], grid = [R ceildiv 16], shapes = [X = [R, 128], Y = [R, 128]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %w = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %w] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    tile.store %x, %Y[%p, %c0] : tensor<16x32xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %k : (!transform.any_op) -> !transform.any_op
    %mapped = transform.tiletag.map_loop %loop to "warp" : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@same_block does not verify: no other warp touches these elements without a barrier between (write-write race}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{replay on the CPU: tiletag-run}}
    // expected-note @below {{iv0@line43 = 0, block [0, 0] of Y}}
    // expected-note @below {{iv0@line43 = 1, block [0, 0] of Y}}
    transform.tiletag.verify %k : !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @carries(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64], grid = [R ceildiv 16], shapes = [X = [R, 128], Y = [R, 128]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %sum = scf.for %w = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<16x32xf32>) {
    %x = tile.load %X[%p, %w] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    %s = arith.addf %acc, %x : tensor<16x32xf32>
    scf.yield %s : tensor<16x32xf32>
  }
  tile.store %sum, %Y[%p, %c0] : tensor<16x32xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop carries values from one iteration to the next; concurrent iterations cannot}}
    %m = transform.tiletag.map_loop %loop to "thread" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @lane(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64], grid = [R ceildiv 16], shapes = [X = [R, 128], Y = [R, 128]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %w = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %w] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    tile.store %x, %Y[%p, %w] : tensor<16x32xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{unknown level 'lane' (expected cta, warpgroup, warp or thread)}}
    %n = transform.tiletag.map_loop %loop to "lane" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
