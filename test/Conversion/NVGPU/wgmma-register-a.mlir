// An A operand computed element-wise from a wgmma accumulator of its shape
// (attention's P = exp(S) as bf16) is taken by wgmma from registers: each
// thread packs its own accumulator registers two to a 32-bit register, in
// order (layout::wgmmaAccumulatorRegisterOfA), and issues the register form
// of wgmma; nothing is staged through shared memory, and no shared memory
// is set aside for it: the program asks for its three slots (32 KiB) and
// the 1 KiB that aligns them. B is its slot, N-major (trans-b 1), or K-major
// (a transposed slot, trans-b 0).
// REQUIRES: ptxas
// RUN: tiletag-opt %s -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified report-fallbacks" -o /dev/null
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt "--tiletag-compile-cuda=verify=0 allow-unverified=1 format=isa output=%t.ptx" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}

// S = Q K^T (K-major B from the slot), then O = P V with P from registers:
// 2 row blocks x 4 steps of 16 keys, each taking 4 packed registers.
// CHECK-LABEL: gpu.func @pv
// CHECK-SAME: shared_bytes = 33792
// CHECK-COUNT-8: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: math.exp
// CHECK: llvm.bitcast {{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// PTX-LABEL: .entry pv
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PTX-NOT: wgmma.mma_async
// expected-warning @+1 {{allow-unverified}}
tile.kernel @pv(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %V: memref<?x?xbf16>, %O: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %q_ring = tile.alloc_shared : memref<1x128x64xbf16, #gpu.address_space<workgroup>>
  %k_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %v_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 32768 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %Q[%c0, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x128x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0] -> %k_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0] -> %v_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  %q = tile.read %q_ring[%c0] : memref<1x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
  %k = tile.read %k_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %v = tile.read %v_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %q, %kt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  %e = math.exp %s : tensor<128x64xf32>
  %p = arith.truncf %e : tensor<128x64xf32> to tensor<128x64xbf16>
  %o = tile.dot %p, %v, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  tile.store %o, %O[%c0, %c0] : tensor<128x64xf32> -> memref<?x?xf32>
  tile.return
}

// P V with V transposed (a K-major B): the register form with trans-b 0.
// CHECK-LABEL: gpu.func @pvt
// CHECK-SAME: shared_bytes = 33792
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-LABEL: .entry pvt
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// expected-warning @+1 {{allow-unverified}}
tile.kernel @pvt(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %V: memref<?x?xbf16>, %O: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %q_ring = tile.alloc_shared : memref<1x128x64xbf16, #gpu.address_space<workgroup>>
  %k_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %v_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 32768 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %Q[%c0, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x128x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0] -> %k_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %V[%c0, %c0] -> %v_ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  %q = tile.read %q_ring[%c0] : memref<1x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
  %k = tile.read %k_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %v = tile.read %v_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %vt = tile.transpose %v perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %q, %kt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  %p = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %o = tile.dot %p, %vt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  tile.store %o, %O[%c0, %c0] : tensor<128x64xf32> -> memref<?x?xf32>
  tile.return
}
