// A TMA-store epilogue: threads write the tile into shared memory, a fence
// makes the writes visible to the async proxy, the TMA engine stores it.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/schedule.fence_async_proxy/d' %s > %t.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK: schedule.verified
// CHECK: error: a fence_async_proxy separates the thread write at line [[W:[0-9]+]] from this async-proxy access to the same shared memory does not hold
// CHECK: note: the tile.write at line [[W]] runs with pid0 = {{[0-9]+}}, pid1 = {{[0-9]+}}

tile.kernel @epilogue(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 256, N = 256], grid = [M ceildiv 64, N ceildiv 64],
                               shapes = [X = [M, N], C = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
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
  schedule.wait_group tma pending 0
  tile.return
}
