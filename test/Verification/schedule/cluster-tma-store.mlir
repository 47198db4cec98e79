// A program publishes its block to its cluster neighbour by TMA store and a
// cluster barrier: the barrier orders the store only once a wait_group has
// retired it (the TMA engine may still be writing after the issuing thread
// passed the barrier). Retired before the barrier, the kernel verifies;
// retired after it, the neighbour's read races with the store.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/@retire/d' -e 's|^  schedule.barrier cluster$|  schedule.barrier cluster\n  schedule.wait_group tma pending 0|' %s > %t.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK: schedule.verified
// CHECK: error: no other program touches the elements this read accesses (read-write race between programs with the access at line [[#]]) does not hold
// CHECK: note: counterexample:

tile.kernel @publish(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"}, %D: memref<?x?xf32> {tile.name = "D"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 256, N = 256], grid = [(M ceildiv 128) * 2, N ceildiv 64],
                               shapes = [X = [M, N], C = [M, N], D = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %epi = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %t = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %two = arith.addf %t, %t : tensor<64x64xf32>
  tile.write %two, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  schedule.fence_async_proxy
  schedule.async tma {
    tile.copy %epi[%c0] -> %C[%pm, %pn] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0 // @retire
  schedule.barrier cluster
  %pair = arith.remui %pm, %c2 : index
  %base = arith.subi %pm, %pair : index
  %other = arith.subi %c1, %pair : index
  %q = arith.addi %base, %other : index
  %u = tile.load %C[%q, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.store %u, %D[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
