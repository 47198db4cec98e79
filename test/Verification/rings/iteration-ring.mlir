// A split-k GEMM through a six-slot warp-specialized TMA ring indexed by the
// iteration (slot = (k - k0) mod 6, phase = (k - k0) / 6 mod 2), as the
// agent's gemm-splitk-reduce recipe writes it. Each step of the ring
// protocol (the previous wait on a slot is one period back, parities
// alternate, one arrival per phase) is proved with Z3 given the instance of
// its quantifier one ring period away, which the checker names for it: the
// whole kernel verifies within 150 000 resources a query (the largest: that
// the producer never laps a waiter, stated at the release's step and the
// next), where Z3's own quantifier instantiation needed over 400 000.
// RUN: tiletag-opt --tiletag-verify="rlimit=150000" %s | FileCheck %s --check-prefix=OK
// OK-LABEL: tile.kernel @gemm
// OK-SAME: schedule.verified = "
// OK-SAME: tag.verified = "
//
// The named instances only help a proof: a producer that waits for the
// current phase (so its first wait, a period in, waits for parity 1) still
// gets its counterexample.
// RUN: sed -e 's/schedule.mbarrier.wait %%13\[%%16\], %%22/schedule.mbarrier.wait %%13[%%16], %%18/' %s > %t.phase.mlir
// RUN: not diff -q %s %t.phase.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule="rlimit=100000" %t.phase.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PHASE
// PHASE: error: the first wait on %13 (line {{[0-9]+}}) waits for parity 0 does not hold
// PHASE: note: counterexample: {{.*}}size.K = 385;
// PHASE: note: the schedule.mbarrier.wait at line {{[0-9]+}} runs with {{.*}}iv0@line{{[0-9]+}} = 6,
//
// A consumer that frees a slot one step early (its wgmma still reads it).
// RUN: sed -e 's/%%24 = arith.subi %%15, %%c2_1 : index/%%24 = arith.subi %%15, %%c1_0 : index/' -e 's/%%23 = arith.cmpi uge, %%15, %%c2_1 : index/%%23 = arith.cmpi uge, %%15, %%c1_0 : index/' %s > %t.early.mlir
// RUN: not diff -q %s %t.early.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule="rlimit=100000" %t.early.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: write-after-read on %10 (line {{[0-9]+}}): the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// EARLY: note: counterexample:
module {
  tile.kernel @gemm(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C_partials: memref<?x?x?xf32> {tile.name = "C_partials"}) grid(3) attributes {schedule.launch = #schedule.launch<warpgroups = 2>, tag.contract = @gemm_reference, tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320, S = 3], grid = [M ceildiv 128, N ceildiv 128, S], shapes = [A = [M, K], B = [K, N], C_partials = [S, M, N]], check = "gemm", then = [@gemm_reduce]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %0 = tile.program_id 0
    %1 = tile.program_id 1
    %dim = memref.dim %A, %c1 : memref<?x?xbf16>
    %2 = arith.ceildivui %dim, %c64 : index
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %3 = tile.program_id 2
    %4 = tile.num_programs 2
    %5 = arith.ceildivui %2, %4 : index
    %6 = arith.muli %3, %5 : index
    %7 = arith.minui %6, %2 : index
    %8 = arith.addi %7, %5 : index
    %9 = arith.minui %8, %2 : index
    %10 = tile.alloc_shared : memref<6x128x64xbf16, #gpu.address_space<workgroup>>
    %11 = tile.alloc_shared : memref<6x64x128xbf16, #gpu.address_space<workgroup>>
    %12 = schedule.mbarrier.init count 1 : <6>
    %13 = schedule.mbarrier.init count 1 : <6>
    %14 = scf.for %arg0 = %7 to %9 step %c1 iter_args(%arg1 = %cst) -> (tensor<128x128xf32>) {
      %15 = arith.subi %arg0, %7 : index
      %c6 = arith.constant 6 : index
      %16 = arith.remui %15, %c6 : index
      %c1_0 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %17 = arith.divui %15, %c6 : index
      %18 = arith.remui %17, %c2 : index
      schedule.role "producer" warpgroups [0] regs 40 {
        %20 = arith.cmpi uge, %15, %c6 : index
        scf.if %20 {
          %21 = arith.subi %17, %c1_0 : index
          %22 = arith.remui %21, %c2 : index
          schedule.mbarrier.wait %13[%16], %22 : <6>, index
        }
        schedule.mbarrier.arrive_expect_tx %12[%16], 32768 : <6>
        schedule.async tma arrive %12[%16] : !schedule.mbarrier<6> {
          tile.copy %A[%0, %arg0] -> %10[%16] padding(0.000000e+00 : bf16) : memref<?x?xbf16> -> memref<6x128x64xbf16, #gpu.address_space<workgroup>>
          tile.copy %B[%arg0, %1] -> %11[%16] padding(0.000000e+00 : bf16) : memref<?x?xbf16> -> memref<6x64x128xbf16, #gpu.address_space<workgroup>>
        }
      }
      %19 = schedule.role "consumer" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %12[%16], %18 : <6>, index
        %20 = tile.read %10[%16] : memref<6x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
        %21 = tile.read %11[%16] : memref<6x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
        %22 = schedule.async wgmma {
          %24 = tile.dot %20, %21, %arg1 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
          schedule.yield %24 : tensor<128x128xf32>
        } : tensor<128x128xf32>
        schedule.commit_group wgmma
        schedule.wait_group wgmma pending 2
        %c2_1 = arith.constant 2 : index
        %23 = arith.cmpi uge, %15, %c2_1 : index
        scf.if %23 {
          %24 = arith.subi %15, %c2_1 : index
          %25 = arith.remui %24, %c6 : index
          schedule.mbarrier.arrive %13[%25] : <6>
        }
        schedule.yield %22 : tensor<128x128xf32>
      } : tensor<128x128xf32>
      scf.yield %19 : tensor<128x128xf32>
    }
    schedule.role "consumer" warpgroups [1] {
      schedule.wait_group wgmma pending 0
      tile.store %14, %C_partials[%3, %0, %1] : tensor<128x128xf32> -> memref<?x?x?xf32>
    }
    tile.return
  }
  tile.kernel @gemm_reduce(%C_partials: memref<?x?x?xf32> {tile.name = "C_partials"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320, S = 3], grid = [M ceildiv 128, N ceildiv 128], shapes = [C_partials = [S, M, N], C = [M, N]]>} {
    %0 = tile.program_id 0
    %1 = tile.program_id 1
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dim = memref.dim %C_partials, %c0 : memref<?x?x?xf32>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %2 = scf.for %arg0 = %c0 to %dim step %c1 iter_args(%arg1 = %cst) -> (tensor<128x128xf32>) {
      %3 = tile.load %C_partials[%arg0, %0, %1] padding(0.000000e+00 : f32) : memref<?x?x?xf32> -> tensor<128x128xf32>
      %4 = arith.addf %arg1, %3 : tensor<128x128xf32>
      scf.yield %4 : tensor<128x128xf32>
    }
    tile.store %2, %C[%0, %1] : tensor<128x128xf32> -> memref<?x?xf32>
    tile.return
  }
  tile.kernel @gemm_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128], shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %0 = tile.program_id 0
    %1 = tile.program_id 1
    %dim = memref.dim %A, %c1 : memref<?x?xbf16>
    %2 = arith.ceildivui %dim, %c64 : index
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %3 = scf.for %arg0 = %c0 to %2 step %c1 iter_args(%arg1 = %cst) -> (tensor<128x128xf32>) {
      %4 = tile.load %A[%0, %arg0] padding(0.000000e+00 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
      %5 = tile.load %B[%arg0, %1] padding(0.000000e+00 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
      %6 = tile.dot %4, %5, %arg1 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      scf.yield %6 : tensor<128x128xf32>
    }
    tile.store %3, %C[%0, %1] : tensor<128x128xf32> -> memref<?x?xf32>
    tile.return
  }
}

