// A TMA-store epilogue against its contract: the contract checker compares
// the tile the tile.write put in the slot with what the reference stores at
// the copy's block (the schedule checker proves the slot is not rewritten
// before the store reads it, and that the store completes).
// RUN: tiletag-opt --tiletag-verify %s | FileCheck %s --check-prefix=OK
// OK-LABEL: tile.kernel @scale
// OK-SAME: tag.verified
// OK-LABEL: tile.kernel @pair
// OK-SAME: tag.verified
// OK-LABEL: tile.kernel @in_place
// OK-SAME: tag.verified
//
// The store copies to the transposed block: blocks of the reference are
// never stored.
// RUN: sed -e 's/-> %%Y\[%%pm, %%pn\]/-> %%Y[%%pn, %%pm]/' %s > %t.block.mlir
// RUN: not diff -q %s %t.block.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.block.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: the kernel never stores a block of Y that the reference's store here stores
// BLOCK: note: counterexample:
//
// The slot holds X, not 2 X.
// RUN: sed -e 's/tile.write %%y, %%epi/tile.write %%t, %%epi/' %s > %t.value.mlir
// RUN: not diff -q %s %t.value.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.value.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: error: the value stored to Y here is not the contract's: the kernel has 'tile.load' (line {{[0-9]+}}) where the reference has 'arith.mulf' (line {{[0-9]+}})
//
// The store reads a slot no tile.write just before it fills (another
// index value): refused.
// RUN: sed -e 's/tile.copy %%epi\[%%c0\]/tile.copy %%epi[%%other]/' %s > %t.slot.mlir
// RUN: not diff -q %s %t.slot.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.slot.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOT
// SLOT: error: the contract checker follows a copy to global memory whose slot a tile.write fills just before it, in the same block and warp role (the buffer written by tile.write in that role alone)
tile.kernel @scale(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tag.contract = @scale_ref,
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %epi = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %other = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %two = arith.constant dense<2.0> : tensor<64x64xf32>
  %y = arith.mulf %t, %two : tensor<64x64xf32>
  tile.write %y, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  schedule.fence_async_proxy
  schedule.async tma {
    tile.copy %epi[%c0] -> %Y[%pm, %pn] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0
  tile.return
}

tile.kernel @scale_ref(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %two = arith.constant dense<2.0> : tensor<64x64xf32>
  %y = arith.mulf %t, %two : tensor<64x64xf32>
  tile.store %y, %Y[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// Two stores in one TMA region, each of its own buffer.
tile.kernel @pair(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tag.contract = @pair_ref,
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 128], shapes = [X = [M, N], Y = [M, N]]>} {
  %a = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %n0 = arith.muli %pn, %c2 : index
  %n1 = arith.addi %n0, %c1 : index
  %t0 = tile.load %X[%pm, %n0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %t1 = tile.load %X[%pm, %n1] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.write %t0, %a[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  tile.write %t1, %b[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  schedule.fence_async_proxy
  schedule.async tma {
    tile.copy %a[%c0] -> %Y[%pm, %n0] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    tile.copy %b[%c0] -> %Y[%pm, %n1] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0
  tile.return
}
tile.kernel @pair_ref(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.store %t, %Y[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// A copy to global memory run in place (no TMA region) is compared the same
// way.
tile.kernel @in_place(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tag.contract = @in_place_ref,
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %buf = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.write %t, %buf[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  tile.copy %buf[%c0] -> %Y[%pm, %pn] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  tile.return
}
tile.kernel @in_place_ref(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 200, N = 100], grid = [M ceildiv 64, N ceildiv 64], shapes = [X = [M, N], Y = [M, N]]>} {
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.store %t, %Y[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
