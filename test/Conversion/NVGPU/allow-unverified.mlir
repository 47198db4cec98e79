// allow-unverified lowers an unproved kernel and says so; a kernel with
// neither tags nor schedule needs no proof. Element-parallel code runs on the
// CTA's 128 threads with a workspace slice per program.
// RUN: tiletag-opt %s --tiletag-convert-to-nvgpu=allow-unverified 2>&1 | FileCheck %s

// CHECK: warning: lowering a kernel although its schedule annotations were not proved (allow-unverified)
tile.kernel @unproved(%X: memref<?x?xf32>) grid(1) {
  schedule.barrier cta
  tile.return
}

// CHECK-LABEL: gpu.func @scale
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: tiletag.abi = {{.*}}workspace_bytes = 16384 : i64}
// CHECK: gpu.block_id  x
// CHECK: scf.for
// CHECK: scf.if
// CHECK: memref.load
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: memref.store
tile.kernel @scale(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) grid(2) {
  %i = tile.program_id 0
  %j = tile.program_id 1
  %t = tile.load %X[%i, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %s = arith.addf %t, %t : tensor<64x64xf32>
  tile.store %s, %Y[%i, %j] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
