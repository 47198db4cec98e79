// B given as the transpose of a TMA-filled slot (attention's K^T: the slot
// holds N rows of K) is K-major: wgmma reads it in place, without trans-b,
// through descriptors stepped as A's are. Nothing is staged or copied out.
// Each 64-row block of A takes one wgmma per 16-deep step of each 128-byte
// panel of K, all in one group: one fence, one commit, one wait.
// REQUIRES: ptxas
// RUN: tiletag-opt %s -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified report-fallbacks" -o /dev/null
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt "--tiletag-compile-cuda=verify=0 allow-unverified=1 format=isa output=%t.ptx" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s --check-prefix=WGMMA
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}

// One panel of K (64): 2 row blocks x 4 steps. B's descriptors step 32
// bytes through its rows, the second block's A 64 rows (8192 bytes) on.
// CHECK-LABEL: gpu.func @d64
// CHECK-NOT: nvgpu.warpgroup.mma {{.*}}: <tensor
// CHECK: nvvm.wgmma.fence.aligned
// WGMMA-LABEL: gpu.func @d64
// WGMMA-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// WGMMA-NOT: nvvm.wgmma.mma_async
// WGMMA-LABEL: gpu.func @d128
// WGMMA-COUNT-16: nvvm.wgmma.mma_async {{.*}} B[<bf16>, <one>, <col>]
// WGMMA-NOT: nvvm.wgmma.mma_async
// CHECK: arith.constant 96 : index
// CHECK: arith.constant 8224 : index
// CHECK: arith.constant 8288 : index
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// PTX-LABEL: .entry d64
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX-NOT: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned
// PTX-NEXT: wgmma.wait_group.sync.aligned 0
// expected-warning @+1 {{allow-unverified}}
tile.kernel @d64(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %S: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %q_ring = tile.alloc_shared : memref<1x128x64xbf16, #gpu.address_space<workgroup>>
  %k_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 24576 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %Q[%c0, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x128x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0] -> %k_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  %q = tile.read %q_ring[%c0] : memref<1x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
  %k = tile.read %k_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %q, %kt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  tile.store %s, %S[%c0, %c0] : tensor<128x64xf32> -> memref<?x?xf32>
  tile.return
}

// Two panels of K (128), in an asynchronous region that keeps one group in
// flight: 2 row blocks x 2 panels x 4 steps, then the wait of the region.
// CHECK-LABEL: gpu.func @d128
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 16480 : index
// CHECK: arith.constant 24672 : index
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// PTX-LABEL: .entry d128
// PTX-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// expected-warning @+1 {{allow-unverified}}
tile.kernel @d128(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %S: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %q_ring = tile.alloc_shared : memref<1x128x128xbf16, #gpu.address_space<workgroup>>
  %k_ring = tile.alloc_shared : memref<1x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 49152 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %Q[%c0, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x128x128xbf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0] -> %k_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x128xbf16, #gpu.address_space<workgroup>>
  }
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  %q = tile.read %q_ring[%c0] : memref<1x128x128xbf16, #gpu.address_space<workgroup>> -> tensor<128x128xbf16>
  %k = tile.read %k_ring[%c0] : memref<1x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = schedule.async wgmma {
    %r = tile.dot %q, %kt, %z : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    schedule.yield %r : tensor<128x64xf32>
  } : tensor<128x64xf32>
  schedule.commit_group wgmma
  schedule.wait_group wgmma pending 1
  schedule.wait_group wgmma pending 0
  tile.store %s, %S[%c0, %c0] : tensor<128x64xf32> -> memref<?x?xf32>
  tile.return
}

// A transpose of a tile that is not a slot (here a loaded one) is staged
// into shared memory as B is laid out, N-major: read with trans-b.
// CHECK-LABEL: gpu.func @staged
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvgpu.warpgroup.mma {{.*}}{transposeB
// WGMMA-LABEL: gpu.func @staged
// WGMMA-NOT: nvvm.wgmma.mma_async
// PTX-LABEL: .entry staged
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  1;
// PTX-NOT: wgmma.mma_async
tile.kernel @staged(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %S: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{the loaded tile}}
  %q = tile.load %Q[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  // expected-remark @+1 {{the loaded tile}}
  %k = tile.load %K[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  // expected-remark @+2 {{A is copied into shared memory}}
  // expected-remark @+1 {{B is copied into shared memory}}
  %s = tile.dot %q, %kt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  tile.store %s, %S[%c0, %c0] : tensor<128x64xf32> -> memref<?x?xf32>
  tile.return
}
