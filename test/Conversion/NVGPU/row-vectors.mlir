// A row reduction of a wgmma accumulator stays in the registers of the rows
// each thread holds (two per 64-row block, after the shuffles of the four
// lanes sharing a row): read beside the accumulator's registers (a
// broadcast along the row) it is the thread's own register. Read any other
// way (stored, or broadcast along the columns), its holders write it to the
// workspace first, one lane per row, and it is read from there.
// REQUIRES: ptxas
// RUN: tiletag-opt %s -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified report-fallbacks" -o /dev/null
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt "--tiletag-compile-cuda=verify=0 allow-unverified=1 format=isa output=%t.ptx" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// CHECK-LABEL: gpu.func @rows
// The maximum of each of the thread's two rows, over its registers and the
// lanes xor 1 and 2.
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}} : f32
// CHECK: %[[ROWS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// The maxima are also stored and read along the columns: where they are
// computed, lane mod 4 = 0 writes the thread's two rows to the workspace,
// and the role's warpgroup meets.
// CHECK: memref.view {{.*}} to memref<64xf32>
// CHECK: scf.if
// CHECK: vector.extract %[[ROWS]][0] : f32 from vector<2xf32>
// CHECK-NEXT: memref.store
// CHECK: vector.extract %[[ROWS]][1] : f32 from vector<2xf32>
// CHECK-NEXT: memref.store
// CHECK: nvvm.barrier id = {{.*}} number_of_threads = %c128_i32
// exp(S - max), stored from the registers: each register's row is slot 0
// or 1 of the thread's.
// CHECK: vector.extract %[[ROWS]][0] : f32 from vector<2xf32>
// CHECK: math.exp
// CHECK: vector.extract %[[ROWS]][1] : f32 from vector<2xf32>
// The stored maxima and the column broadcast read the workspace.
// CHECK: memref.load
// expected-warning @+1 {{allow-unverified}}
tile.kernel @rows(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %O: memref<?x?xf32>,
                  %M: memref<?xf32>, %C: memref<?x?xf32>) grid(1)
    attributes {schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %q_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %k_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.role "consumer" warpgroups [0] regs 240 {
    schedule.mbarrier.arrive_expect_tx %full[%c0], 16384 : !schedule.mbarrier<1>
    schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
      tile.copy %Q[%c0, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
          : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
      tile.copy %K[%c0, %c0] -> %k_ring[%c0] padding(0.0 : bf16)
          : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
    }
    schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
    %q = tile.read %q_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
    %k = tile.read %k_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
    %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.dot %q, %kt, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    // expected-remark @+1 {{held in the global workspace (256 bytes per program): a row vector read other than at the rows the thread holds}}
    %m = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %mb = tile.broadcast %m dims [1] : tensor<64xf32> -> tensor<64x64xf32>
    %d = arith.subf %s, %mb : tensor<64x64xf32>
    %e = math.exp %d : tensor<64x64xf32>
    tile.store %e, %O[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
    tile.store %m, %M[%c0] : tensor<64xf32> -> memref<?xf32>
    // Row maximum r added to column r: not a row the thread holds.
    %mc = tile.broadcast %m dims [0] : tensor<64xf32> -> tensor<64x64xf32>
    %f = arith.addf %s, %mc : tensor<64x64xf32>
    tile.store %f, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  tile.return
}

// A row vector read element-parallel first inside a branch, then after it:
// its holders write it to the workspace where it is computed, so the read
// after the branch finds it written whether the branch ran or not.
// CHECK-LABEL: gpu.func @rows_branch
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[BUF:.*]] = memref.view {{.*}} to memref<64xf32>
// CHECK: vector.extract %[[V]][0]
// CHECK-NEXT: memref.store {{.*}}, %[[BUF]]
// CHECK: vector.extract %[[V]][1]
// CHECK-NEXT: memref.store {{.*}}, %[[BUF]]
// CHECK: nvvm.barrier
// CHECK: scf.if %arg{{[0-9]+}} {
// CHECK: memref.load %[[BUF]]
// CHECK: memref.load %[[BUF]]
// expected-warning @+1 {{allow-unverified}}
tile.kernel @rows_branch(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>, %M: memref<?xf32>,
                         %N: memref<?xf32>, %flag: i1) grid(1)
    attributes {schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %q_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %k_ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.role "consumer" warpgroups [0] regs 240 {
    schedule.mbarrier.arrive_expect_tx %full[%c0], 16384 : !schedule.mbarrier<1>
    schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
      tile.copy %Q[%c0, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
          : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
      tile.copy %K[%c0, %c0] -> %k_ring[%c0] padding(0.0 : bf16)
          : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
    }
    schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
    %q = tile.read %q_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
    %k = tile.read %k_ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
    %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.dot %q, %kt, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    // expected-remark @+1 {{held in the global workspace (256 bytes per program): a row vector read other than at the rows the thread holds}}
    %m = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    scf.if %flag {
      tile.store %m, %M[%c0] : tensor<64xf32> -> memref<?xf32>
    }
    tile.store %m, %N[%c0] : tensor<64xf32> -> memref<?xf32>
  }
  tile.return
}
