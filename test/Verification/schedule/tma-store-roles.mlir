// Two warp roles each store their own block by TMA, outside any loop: each
// store is retired by the wait after it in its block, and the blocks are
// apart. (An earlier checker asked for the wait in a loop and could not
// order the two stores at all.) Storing one block from both is a race.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// OK: schedule.verified
// RUN: sed -e 's/-> %%Y\[%%pm, %%n1\]/-> %%Y[%%pm, %%n0]/' %s > %t.same.mlir
// RUN: not diff -q %s %t.same.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.same.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: write-write on Y: the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// CHECK: note: counterexample:
tile.kernel @halves(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 200, N = 300], grid = [M ceildiv 64, N ceildiv 128], shapes = [X = [M, N], Y = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %a = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %n0 = arith.muli %pn, %c2 : index
  %n1 = arith.addi %n0, %c1 : index
  schedule.role "left" warpgroups [0] {
    %t = tile.load %X[%pm, %n0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
    tile.write %t, %a[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %a[%c0] -> %Y[%pm, %n0] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  schedule.role "right" warpgroups [1] {
    %t = tile.load %X[%pm, %n1] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
    tile.write %t, %b[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %b[%c0] -> %Y[%pm, %n1] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  tile.return
}
