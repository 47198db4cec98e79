// transform.tiletag.stage_stores turns a kernel's tile.store ops into
// TMA-store epilogues (write to an epilogue buffer, fence, TMA copy, commit,
// wait), which the checkers prove; buffers(2) alternates two slots along
// the store's loop and keeps one store in flight; buffers(0) leaves the
// kernel as it is; stores TMA cannot make are refused with the reason.
// RUN: tiletag-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// CHECK-LABEL: tile.kernel @one
// CHECK-SAME: schedule.verified
// CHECK-SAME: tag.verified
// CHECK-NEXT: %[[EPI:.*]] = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[V:.*]] = arith.mulf
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: tile.write %[[V]], %[[EPI]][%[[C0]]]
// CHECK-NEXT: schedule.fence_async_proxy
// CHECK-NEXT: schedule.async tma {
// CHECK-NEXT: tile.copy %[[EPI]][%[[C0]]] -> %Y[%{{.*}}, %{{.*}}] offset [%{{.*}}, %{{.*}}]
// CHECK: schedule.commit_group tma
// CHECK-NEXT: schedule.wait_group tma pending 0
// CHECK-NEXT: tile.return
tile.kernel @one(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tag.contract = @one_ref,
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %two = arith.constant dense<2.0> : tensor<64x64xf32>
  %y = arith.mulf %t, %two : tensor<64x64xf32>
  tile.store %y, %Y[%pm, %pn] offset [%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
tile.kernel @one_ref(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %two = arith.constant dense<2.0> : tensor<64x64xf32>
  %y = arith.mulf %t, %two : tensor<64x64xf32>
  tile.store %y, %Y[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "one"} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %r : !transform.any_op
    transform.yield
  }
}

// -----

// Two column tiles per program: tile j goes through slot j mod 2 while the
// store of tile j - 1 may still read the other slot.
// CHECK-LABEL: tile.kernel @two
// CHECK-SAME: schedule.verified
// CHECK-NEXT: %[[EPI:.*]] = tile.alloc_shared : memref<2x64x64xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[J:.*]] = %[[LB:.*]] to
// CHECK: %[[N:.*]] = arith.subi %[[J]], %[[LB]]
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[SLOT:.*]] = arith.remui %[[N]], %[[TWO]]
// CHECK-NEXT: tile.write %{{.*}}, %[[EPI]][%[[SLOT]]]
// CHECK: tile.copy %[[EPI]][%[[SLOT]]] -> %Y
// CHECK: schedule.commit_group tma
// CHECK-NEXT: schedule.wait_group tma pending 1
// CHECK-NEXT: }
// CHECK-NEXT: schedule.wait_group tma pending 0
tile.kernel @two(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 200, N = 256], grid = [M ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %pm = tile.program_id 0
  scf.for %j = %c1 to %c5 step %c1 {
    %t = tile.load %X[%pm, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
    tile.store %t, %Y[%pm, %j] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.tiletag.stage_stores %k buffers(2) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %r : !transform.any_op
    transform.yield
  }
}

// -----

// buffers(0): stores stay stores from registers.
// CHECK-LABEL: tile.kernel @kept
// CHECK-NOT: tile.alloc_shared
// CHECK: tile.store
tile.kernel @kept(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) {
  %pm = tile.program_id 0
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.store %t, %Y[%pm, %pm] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.tiletag.stage_stores %k buffers(0) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @add(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) {
  %pm = tile.program_id 0
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  // expected-note @below {{this tile.store}}
  tile.store %t, %Y[%pm, %pm] combine add : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store through TMA: it combines (`combine add`), which TMA stores here do not}}
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @bounded(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) {
  %pm = tile.program_id 0
  %c8 = arith.constant 8 : index
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  // expected-note @below {{this tile.store}}
  tile.store %t, %Y[%pm, %pm] bounds [%c8, %c8] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store through TMA: it has `bounds`; TMA clips at the operand's size only}}
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @narrow(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) {
  %pm = tile.program_id 0
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x16xf32>
  // expected-note @below {{this tile.store}}
  tile.store %t, %Y[%pm, %pm] : tensor<64x16xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store through TMA: its tile is not 2-D with rows of a multiple of 128 bytes (the 128-byte swizzle of TMA)}}
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @no_loop(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) {
  %pm = tile.program_id 0
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  // expected-note @below {{this tile.store}}
  tile.store %t, %Y[%pm, %pm] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store through TMA: two buffers alternate by iteration: it must be in an scf.for of step 1}}
    %r = transform.tiletag.stage_stores %k buffers(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @outside_roles(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %pm = tile.program_id 0
  schedule.role "a" warpgroups [0] {
  }
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  // expected-note @below {{this tile.store}}
  tile.store %t, %Y[%pm, %pm] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store through TMA: it is outside the warp roles of a warp-specialized kernel}}
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @too_big(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) {
  %pm = tile.program_id 0
  %t = tile.load %X[%pm, %pm] padding(0.0 : f32) : memref<?x?xf32> -> tensor<256x256xf32>
  tile.store %t, %Y[%pm, %pm] : tensor<256x256xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the epilogue buffers need 262144 bytes of shared memory with what the kernel has already; a CTA has 232448 (227 KiB on sm_90a)}}
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @nothing(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) {
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the kernel has no tile.store}}
    %r = transform.tiletag.stage_stores %k buffers(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
