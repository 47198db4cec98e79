// Each warp role runs its own copy of the code outside the roles, keeping
// only what it uses: the tile loaded before the roles is loaded by role "b"
// alone, and role "a" (which stores a constant) loads nothing.
// RUN: tiletag-opt %s --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s

// CHECK-LABEL: gpu.func @roles
// CHECK: gpu.shuffle idx
// Role "a" on warpgroup 0.
// CHECK: scf.if
// CHECK-NOT: memref.load %arg0
// CHECK: memref.store
// Role "b" on warpgroup 1: the load, then the store of what it loaded.
// CHECK: scf.if
// CHECK: memref.load %arg0
// CHECK: gpu.return
tile.kernel @roles(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %Z: memref<?x?xf32>) grid(1)
    attributes {schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %X[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  schedule.role "a" warpgroups [0] {
    tile.store %one, %Z[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  schedule.role "b" warpgroups [1] {
    tile.store %t, %Y[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
