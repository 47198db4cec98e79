// A persistent GEMM: P programs take output tiles t = pid + i * P in turn,
// and one warp-specialized TMA ring runs on across their K loops (step g =
// 8 i + k, K fixed at 512). The checker proves its ring phases and races,
// its coverage (through the program map), its values and that no index
// wraps (the tile count is bounded by the operands' sizes in memory), for
// every M, N and P.
// RUN: tiletag-opt --tiletag-verify %s | FileCheck %s --check-prefix=OK
// With the instances the checkers state (the last write at the reader's
// iteration, each mbarrier edge at the iterations of the release and of
// the access it orders): within 1M resources a query (3.9M without).
// RUN: tiletag-opt --tiletag-verify="rlimit=1000000" %s -o /dev/null
// OK-LABEL: tile.kernel @gemm_persistent
// OK-SAME: schedule.verified = "
// OK-SAME: tag.verified = "
//
// Tiles taken as pid + i: two programs store the same tile.
// RUN: sed -e 's/%%t = arith.addi %%pid, %%iP : index/%%t = arith.addi %%pid, %%i : index/' %s > %t.tiles.mlir
// RUN: not diff -q %s %t.tiles.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.tiles.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: error: no other program touches the elements this write accesses
// TILES: note: counterexample: {{.*}}size.P = {{[0-9]+}}
// TILES: note: replay on the CPU: tiletag-run {{.*}} --kernel gemm_persistent --size
//
// Ring steps not carried across tiles in full (g = 4 i + k): the producer
// waits on a phase the consumer has not released.
// RUN: sed -e 's/%%g0 = arith.muli %%i, %%ksteps : index/%%g0 = arith.muli %%i, %%c4 : index/' %s > %t.steps.mlir
// RUN: not diff -q %s %t.steps.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.steps.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEPS
// STEPS: error: this wait on %empty (line {{[0-9]+}}) waits for the phase after the previous wait's (parities alternate) does not hold
// STEPS: note: counterexample:
//
// On the oracle at ragged sizes with more tiles than programs (a partial
// last round), and with more programs than tiles (programs with no tile);
// the verified kernel lowers to PTX with the wgmma and the mbarrier waits,
// which ptxas takes unspilled.
// REQUIRES: ptxas
// RUN: tiletag-run %s --kernel gemm_persistent --check --size M=300,N=200,P=3 | FileCheck %s
// RUN: tiletag-run %s --kernel gemm_persistent --check --size M=129,N=130,P=5 | FileCheck %s
// RUN: tiletag-opt %s --tiletag-compile-cuda="format=isa output=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// CHECK: check gemm: C matches
// PTX-DAG: wgmma.mma_async
// PTX-DAG: mbarrier.try_wait
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
tile.kernel @gemm_persistent(%A: memref<?x512xbf16> {tile.name = "A"}, %B: memref<512x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(1) attributes {
        tag.contract = @gemm_reference,
        tag.program_map = affine_map<(d0, d1)[s0, s1, s2] -> ((d0 * (s1 ceildiv 128) + d1) mod s2, (d0 * (s1 ceildiv 128) + d1) floordiv s2)>,
        tile.launch = #tile.launch<sizes = [M = 384, N = 256, P = 4], grid = [P],
                               shapes = [A = [M, 512], B = [512, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid = tile.program_id 0
  %P = tile.num_programs 0
  %M = memref.dim %A, %c0 : memref<?x512xbf16>
  %K = memref.dim %A, %c1 : memref<?x512xbf16>
  %N = memref.dim %B, %c1 : memref<512x?xbf16>
  %mt = arith.ceildivui %M, %c128 : index
  %nt = arith.ceildivui %N, %c128 : index
  %tiles = arith.muli %mt, %nt : index
  %ksteps = arith.ceildivui %K, %c64 : index
  %left = arith.subi %tiles, %pid : index
  %mine = arith.ceildivsi %left, %P : index

  %a_ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>

  scf.for %i = %c0 to %mine step %c1 {
    %iP = arith.muli %i, %P : index
    %t = arith.addi %pid, %iP : index
    %pm = arith.divui %t, %nt : index
    %pn = arith.remui %t, %nt : index
    %g0 = arith.muli %i, %ksteps : index
    %acc = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
      %g = arith.addi %g0, %k : index
      %slot = arith.remui %g, %c4 : index
      %round = arith.divui %g, %c4 : index
      %parity = arith.remui %round, %c2 : index

      schedule.role "producer" warpgroups [0] regs 40 {
        %reuse = arith.cmpi uge, %g, %c4 : index
        scf.if %reuse {
          %prev_round = arith.subi %round, %c1 : index
          %prev_parity = arith.remui %prev_round, %c2 : index
          schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<4>, index
        }
        schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<4>
        schedule.async tma arrive %full[%slot] : !schedule.mbarrier<4> {
          tile.copy %A[%pm, %k] -> %a_ring[%slot] padding(0.0 : bf16)
              : memref<?x512xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
          tile.copy %B[%k, %pn] -> %b_ring[%slot] padding(0.0 : bf16)
              : memref<512x?xbf16> -> memref<4x64x128xbf16, #gpu.address_space<workgroup>>
        }
      }

      %next = schedule.role "consumer" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
        %a = tile.read %a_ring[%slot]
            : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
        %b = tile.read %b_ring[%slot]
            : memref<4x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
        tag.assert_carries %a, "A"(%pm, %k), "A tile of this row block" : tensor<128x64xbf16>
        tag.assert_carries %b, "B"(%k, %pn), "B tile of this column block" : tensor<64x128xbf16>
        %d = schedule.async wgmma {
          %r = tile.dot %a, %b, %acc_k
              : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
          schedule.yield %r : tensor<128x128xf32>
        } : tensor<128x128xf32>
        schedule.commit_group wgmma
        schedule.wait_group wgmma pending 1
        %has_prev = arith.cmpi uge, %g, %c1 : index
        scf.if %has_prev {
          %g_prev = arith.subi %g, %c1 : index
          %prev_slot = arith.remui %g_prev, %c4 : index
          schedule.mbarrier.arrive %empty[%prev_slot] : !schedule.mbarrier<4>
        }
        schedule.yield %d : tensor<128x128xf32>
      } : tensor<128x128xf32>
      scf.yield %next : tensor<128x128xf32>
    }
    schedule.role "consumer" warpgroups [1] {
      schedule.wait_group wgmma pending 0
      tile.store %acc, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
    }
  }
  tile.return
}

// The contract: what @gemm computes, as a plain kernel over the same
// operands. Block (i, j) of C is the sum over every K block k, in order, of
// A(i, k) * B(k, j), starting from zero. The checker proves that @gemm stores
// exactly these blocks with exactly these values.
tile.kernel @gemm_reference(%A: memref<?x512xbf16> {tile.name = "A"}, %B: memref<512x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, 512], B = [512, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x512xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x512xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<512x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
