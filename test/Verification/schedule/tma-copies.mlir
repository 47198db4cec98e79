// TMA copies complete in any order: two copies into one slot need an access
// of another unit between them (which the checker orders with each), and
// roles of one program must not race on global memory either.
// RUN: not tiletag-opt --tiletag-verify-schedule %s --split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: an access of another unit separates this TMA copy from the one at line [[C:[0-9]+]] to the same memory (TMA copies complete in any order) does not hold
// CHECK: note: the tile.copy at line [[C]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[K1:[0-9]+]], slot [0]
// CHECK: error: write-write on Y: the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// CHECK: block [{{[0-9]+}}, 0] of Y

tile.kernel @overwrite(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 128, K = 256], grid = [M ceildiv 64], shapes = [X = [M, K]]>,
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %p = tile.program_id 0
  %K = memref.dim %X, %c1 : memref<?x?xf32>
  %ks = arith.ceildivui %K, %c64 : index
  %ring = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  scf.for %k = %c0 to %ks step %c1 {
    schedule.role "producer" warpgroups [0] {
      schedule.mbarrier.arrive_expect_tx %full[%c0], 16384 : !schedule.mbarrier<1>
      schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
        tile.copy %X[%p, %k] -> %ring[%c0] padding(0.0 : f32)
            : memref<?x?xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
      }
    }
  }
  tile.return
}

// -----

tile.kernel @two_writers(%Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 128], grid = [M ceildiv 64], shapes = [Y = [M, 64]]>,
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id 0
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  schedule.role "a" warpgroups [0] {
    tile.store %one, %Y[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  schedule.role "b" warpgroups [1] {
    tile.store %one, %Y[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
