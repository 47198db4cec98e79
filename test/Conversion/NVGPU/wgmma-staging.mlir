// wgmma operands that are not TMA-filled slots are staged into shared
// memory by the warpgroup: at the dot, or once before the innermost loop
// around the dot that does not change them. A slot read outside the loop
// whose dot is inside it is copied out first (the slot could be refilled
// between iterations).
// REQUIRES: ptxas
// RUN: tiletag-opt %s -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified report-fallbacks" -o /dev/null
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt "--tiletag-compile-cuda=verify=0 allow-unverified=1 format=isa output=%t.ptx" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}

// A is staged once, before the K loop; B, loaded in it, at every dot.
// CHECK-LABEL: gpu.func @hoisted
// CHECK: nvvm.fence.proxy
// CHECK: scf.for {{.*}} -> (!nvgpu.warpgroup.accumulator
// CHECK: nvvm.fence.proxy
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvgpu.warpgroup.mma
tile.kernel @hoisted(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>, %n: index) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) {
    // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
    %b = tile.load %B[%i, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    // expected-remark @+2 {{A is copied into shared memory for wgmma once, before the loop it does not change in (it is not a slot a TMA copy fills)}}
    // expected-remark @+1 {{B is copied into shared memory for wgmma by the warpgroup}}
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %r, %C[%c0, %c0] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// A transposed slot read before a loop whose dot takes it as A (which
// wgmma reads K-major only) is copied out at the read (an arrive in the
// loop could let the slot be refilled before the dot), then staged once
// before the loop. (As B it is read in place: wgmma-kmajor.mlir.)
// CHECK-LABEL: gpu.func @slot_before_loop
// expected-warning @+1 {{allow-unverified}}
tile.kernel @slot_before_loop(%A: memref<?x?xbf16>, %K: memref<?x?xbf16>, %C: memref<?x?xf32>, %n: index) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 8192 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %K[%c0, %c0] -> %ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  // expected-remark @+1 {{held in the global workspace (8192 bytes per program): a copy of the slot for readers other than the matrix unit}}
  %k = tile.read %ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) {
    schedule.mbarrier.arrive %empty[%c0] : !schedule.mbarrier<1>
    // expected-remark @+1 {{held in the global workspace (8192 bytes per program): the loaded tile}}
    %b = tile.load %A[%i, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    // expected-remark @+2 {{A is copied into shared memory for wgmma once, before the loop it does not change in}}
    // expected-remark @+1 {{B is copied into shared memory for wgmma by the warpgroup}}
    %s = tile.dot %kt, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.store %r, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
