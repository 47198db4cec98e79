// Two regions of a role with the same name but different warpgroups are
// different units: a tile one writes and the other reads needs
// synchronization (here none, so the checker reports the race).
// RUN: not tiletag-opt --tiletag-verify-schedule %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: read-after-write on {{.*}}: the access at line {{[0-9]+}} happens before this one through a barrier does not hold

tile.kernel @handoff(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 128], grid = [M ceildiv 64], shapes = [X = [M, 64], Y = [M, 64]]>,
    schedule.launch = #schedule.launch<warpgroups = 3>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id 0
  %buf = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  schedule.role "worker" warpgroups [1] {
    %t = tile.load %X[%p, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
    tile.write %t, %buf[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  }
  schedule.role "worker" warpgroups [2] {
    %u = tile.read %buf[%c0] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> tensor<64x64xf32>
    tile.store %u, %Y[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
