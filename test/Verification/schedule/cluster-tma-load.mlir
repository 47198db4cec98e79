// A program reads its cluster neighbour's block by TMA, then, after a
// cluster barrier, overwrites its own block, which the neighbour read. The
// barrier orders the neighbour's TMA read before the write only where the
// neighbour waited for the copy's bytes (on its mbarrier) before the
// barrier: the TMA engine may still be reading after the issuing thread
// passed it. Waited before the barrier, the kernel verifies; waited after
// it, the write races with the read.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/@landed/d' -e 's|^  schedule.barrier cluster$|  schedule.barrier cluster\n  schedule.mbarrier.wait %%full[%%c0], %%c0 : !schedule.mbarrier<1>, index|' %s > %t.mlir
// RUN: not diff -q %s %t.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK: schedule.verified
// CHECK: error: no other program touches the elements this write accesses (read-write race between programs with the access at line [[#]]) does not hold
// CHECK: note: counterexample:

tile.kernel @swap_in_place(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [(N ceildiv 128) * 2],
                               shapes = [X = [N, N], Y = [N, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %q = arith.xori %p, %c1 : index
  %buf = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 16384 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %X[%c0, %q] -> %buf[%c0] : memref<?x?xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  }
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index // @landed
  schedule.barrier cluster
  %t = tile.read %buf[%c0] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> tensor<64x64xf32>
  tile.store %t, %Y[%c0, %p] : tensor<64x64xf32> -> memref<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  tile.store %zero, %X[%c0, %p] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
