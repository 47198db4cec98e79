// A persistent epilogue reuses one staging buffer for several tiles: each
// TMA store must be retired (wait_group tma) before the threads overwrite
// the buffer for the next tile.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/schedule.wait_group tma pending 0/d' %s > %t.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// A wait with nothing committed retires nothing:
// RUN: sed -e '/schedule.commit_group tma/d' %s > %t.nocommit.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.nocommit.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,EXIT
// OK: schedule.verified
// CHECK: error: a wait_group tma retires the TMA store at line [[S:[0-9]+]] before this write to its shared buffer does not hold
// CHECK: note: the tile.copy at line [[S]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[J:[0-9]+]]
// CHECK: note: the tile.write at line {{[0-9]+}} runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = {{[0-9]+}}

// EXIT: error: a commit_group tma and a wait_group tma retire this TMA store before the program ends does not hold
// EXIT: note: counterexample:
tile.kernel @epilogue(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 256, N = 256], grid = [M ceildiv 64],
                               shapes = [X = [M, N], C = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %N = memref.dim %X, %c1 : memref<?x?xf32>
  %tiles = arith.ceildivui %N, %c64 : index
  %epi = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  scf.for %j = %c0 to %tiles step %c1 {
    %t = tile.load %X[%pm, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
    tile.write %t, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %epi[%c0] -> %C[%pm, %j] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  tile.return
}
