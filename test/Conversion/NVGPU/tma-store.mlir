// TMA-store epilogues on Hopper: the accumulator goes from its registers to
// the 128-byte swizzled epilogue buffer, each thread's column pairs as one
// vector store (cast on the way where the output is narrower), the threads
// fence the async proxy and meet, one thread issues the store (one box per
// 128-byte column panel), commits its bulk group and
// waits for it; the group meets after the wait before anyone rewrites the
// buffer. The wait only needs the buffer read (`.read`) unless the kernel
// accesses the stored memory again.
// REQUIRES: ptxas
// RUN: tiletag-opt --tiletag-verify %s -o %t.mlir
// RUN: tiletag-run %s --kernel store_two --check --size M=300,N=200 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-opt %t.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// ORACLE: check gemm: C matches

// Two 128x64 f32 tiles per program through a double-buffered epilogue.
// CHECK-LABEL: .entry store_two(
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK-COUNT-32: st.shared.v2.b32
// CHECK-NOT: st.{{global|shared.b32}}
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read {{[[:space:]]*}}1;
// CHECK: cp.async.bulk.wait_group.read {{[[:space:]]*}}0;
// CHECK: bar.sync
// CHECK: ret;
tile.kernel @store_two(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                       %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 300, N = 200], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %epi = tile.alloc_shared : memref<2x128x64xf32, #gpu.address_space<workgroup>>
  scf.for %j = %c0 to %c2 step %c1 {
    %n = arith.muli %pn, %c2 : index
    %nj = arith.addi %n, %j : index
    %b = tile.load %B[%c0, %nj] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    tile.write %d, %epi[%j] : tensor<128x64xf32> -> memref<2x128x64xf32, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %epi[%j] -> %C[%pm, %nj] : memref<2x128x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 1
  }
  schedule.wait_group tma pending 0
  tile.return
}

// A bf16 output: each register pair is rounded on its way to the buffer and
// stored as one 32-bit word (rows of 256 bytes: two panels, two boxes).
// CHECK-LABEL: .entry store_bf16(
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.shared.b32
// CHECK-NOT: st.{{global|shared.b16}}
// CHECK: fence.proxy.async.shared::cta;
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read {{[[:space:]]*}}0;
tile.kernel @store_bf16(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                        %C: memref<?x?xbf16> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 300, N = 200], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %B[%c0, %pn] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %h = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xbf16>
  %epi = tile.alloc_shared : memref<1x128x128xbf16, #gpu.address_space<workgroup>>
  tile.write %h, %epi[%c0] : tensor<128x128xbf16> -> memref<1x128x128xbf16, #gpu.address_space<workgroup>>
  schedule.fence_async_proxy
  schedule.async tma {
    tile.copy %epi[%c0] -> %C[%pm, %pn] : memref<1x128x128xbf16, #gpu.address_space<workgroup>> -> memref<?x?xbf16>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0
  tile.return
}

// The program reads back what it stored: its wait sees the store's writes
// done (no `.read`), which the checker asks for before the load.
// CHECK-LABEL: .entry read_back(
// CHECK: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group {{[[:space:]]*}}0;
// CHECK: bar.sync
// CHECK: ld.global
// RUN: sed -e 's/pending 0 \/\/ read back/pending 1/' %s > %t.early.mlir
// RUN: not diff -q %s %t.early.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.early.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: a wait_group tma retires the TMA store at line [[L:[0-9]+]] before this access to the global memory it writes does not hold
// EARLY: note: counterexample:
tile.kernel @read_back(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"},
                       %D: memref<?x?xf32> {tile.name = "D"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 300, N = 200], grid = [M ceildiv 64, N ceildiv 64],
                                   shapes = [X = [M, N], C = [M, N], D = [M, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %x = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %epi = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  tile.write %x, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
  schedule.fence_async_proxy
  schedule.async tma {
    tile.copy %epi[%c0] -> %C[%pm, %pn] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0 // read back
  %c = tile.load %C[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tile.store %c, %D[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
// NOSPILL-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
