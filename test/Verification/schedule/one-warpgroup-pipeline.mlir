// One warpgroup runs a 2-stage TMA + wgmma pipeline with one wgmma group in
// flight. A wgmma reads its shared operands until a wait_group retires it,
// whoever writes the slot next -- here the same warpgroup's TMA refill. The
// correct kernel refills the slot of step k - 1 (retired by `pending 1`)
// with step k + 1; the broken one runs the copies two steps ahead and
// refills the slot the running wgmma still reads.
// RUN: tiletag-opt --tiletag-verify %s | FileCheck %s --check-prefix=OK
// RUN: sed -e 's/%%pro = arith.minui %%ksteps, %%c1/%%pro = arith.minui %%ksteps, %%c2/' -e 's/%%next = arith.addi %%k, %%c1/%%next = arith.addi %%k, %%c2/' %s > %t.ahead.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.ahead.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=AHEAD
// A register operand is staged into shared memory at each issue of its dot:
// with a wgmma still in flight, the next issue overwrites what it reads.
// RUN: sed -e 's/tile.dot %%a, %%b, %%acc_k/tile.dot %%an, %%b, %%acc_k/' -e 's/^    %%d = schedule.async wgmma {/    %%an = arith.negf %%a : tensor<128x64xbf16>\n    %%d = schedule.async wgmma {/' %s > %t.staged.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.staged.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGED
// RUN: sed -e 's/wait_group wgmma pending 1/wait_group wgmma pending 0/' %t.staged.mlir | tiletag-opt --tiletag-verify-schedule | FileCheck %s --check-prefix=OK
// OK: schedule.verified
// AHEAD: error: a wait_group wgmma retires the wgmma that reads the tile at line [[R:[0-9]+]] before this write to its shared memory does not hold
// AHEAD: note: counterexample: {{.*}} size.K = 129;
// AHEAD: note: the tile.read at line [[R]] runs with pid0 = 0, pid1 = 0, iv1@line{{[0-9]+}} = 0, slot [0]
// AHEAD: note: the tile.copy at line {{[0-9]+}} runs with pid0 = 0, pid1 = 0, iv1@line{{[0-9]+}} = 0, slot [0]
// AHEAD: note: replay on the CPU: tiletag-run {{.*}} --size M=1,N=1,K=129
// STAGED: error: a wait_group retires this wgmma before its next issue restages the operand it reads from shared memory does not hold
// STAGED: note: the tile.dot at line [[D:[0-9]+]] runs with {{.*}} = 0
// STAGED: note: the tile.dot at line [[D]] runs with {{.*}} = 1

tile.kernel @gemm_one_warpgroup(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                                %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %ksteps = arith.ceildivui %K, %c64 : index
  %a_ring = tile.alloc_shared : memref<2x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<2x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %pro = arith.minui %ksteps, %c1 : index
  scf.for %s = %c0 to %pro step %c1 {
    schedule.mbarrier.arrive_expect_tx %full[%s], 32768 : !schedule.mbarrier<2>
    schedule.async tma arrive %full[%s] : !schedule.mbarrier<2> {
      tile.copy %A[%pm, %s] -> %a_ring[%s] padding(0.0 : bf16)
          : memref<?x?xbf16> -> memref<2x128x64xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%s, %pn] -> %b_ring[%s] padding(0.0 : bf16)
          : memref<?x?xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
    }
  }
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
    %slot = arith.remui %k, %c2 : index
    %round = arith.divui %k, %c2 : index
    %parity = arith.remui %round, %c2 : index
    schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
    %a = tile.read %a_ring[%slot] : memref<2x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
    %b = tile.read %b_ring[%slot] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
    %d = schedule.async wgmma {
      %r = tile.dot %a, %b, %acc_k : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      schedule.yield %r : tensor<128x128xf32>
    } : tensor<128x128xf32>
    schedule.commit_group wgmma
    schedule.wait_group wgmma pending 1
    // Refill: step k + 1, into the slot of step k - 1.
    %next = arith.addi %k, %c1 : index
    %nslot = arith.remui %next, %c2 : index
    %more = arith.cmpi ult, %next, %ksteps : index
    scf.if %more {
      schedule.mbarrier.arrive_expect_tx %full[%nslot], 32768 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%nslot] : !schedule.mbarrier<2> {
        tile.copy %A[%pm, %next] -> %a_ring[%nslot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<2x128x64xbf16, #gpu.address_space<workgroup>>
        tile.copy %B[%next, %pn] -> %b_ring[%nslot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
      }
    }
    scf.yield %d : tensor<128x128xf32>
  }
  schedule.wait_group wgmma pending 0
  tile.store %acc, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
