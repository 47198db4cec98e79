// Two output tiles per program through one warp-specialized TMA ring whose
// steps run on across the tiles (step g = 8 i + k): the last wgmma of the
// first tile is retired by the epilogue's `wait_group pending 0`, not by a
// next step of its K loop, and the slot it read is released at the first
// step of the next tile. The schedule checker follows that retirement (it
// reported a write-after-read race here before). An epilogue that does not
// drain reads the accumulator while its wgmma still runs.
// The kernel's tag.program_map names, for reference block (i, j), the
// program (i floordiv 2, j) and the tile loop's value i mod 2 that store it:
// with the loop value the contract's coverage is a quantifier-free query.
// A kernel that stores its first row block twice never stores the second.
// RUN: tiletag-opt --tiletag-verify %s | FileCheck %s --check-prefix=OK
// "No mbarrier edge orders these accesses" is also stated at the edge that
// usually does (the arrival in the release's iteration, the wait in the
// later access's): its races are proved within 100 000 resources a query
// (250 000 without); the largest query, that the producer's wait gets its
// arrival (stated at ten iterations before it), within 150 000.
// RUN: tiletag-opt --tiletag-verify="rlimit=150000" %s -o /dev/null
// RUN: sed -e 's/^      schedule.wait_group wgmma pending 0/      schedule.wait_group wgmma pending 1/' %s > %t.mlir
// RUN: not diff -q %s %t.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e 's/%%pm = arith.addi %%p0x2, %%i : index/%%pm = arith.addi %%p0x2, %%c0 : index/' %s > %t.rows.mlir
// RUN: not diff -q %s %t.rows.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.rows.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// OK-LABEL: tile.kernel @gemm_two_tiles
// OK-SAME: schedule.verified = "
// OK-SAME: tag.verified = "
// CHECK: error: reads the result of the asynchronous wgmma operation at line {{[0-9]+}} before a wait_group retires it
// The map is a hint, never a proof: one that names iterations the loop does
// not run (program 0, iteration i, with the tile loop cut to one tile) is
// checked against the loop's bounds and the block is reported missing.
// RUN: sed -e 's/(d0 floordiv 2, d1, d0 mod 2)/(0, d1, d0)/' -e 's/scf.for %%i = %%c0 to %%c2/scf.for %%i = %%c0 to %%c1/' %s > %t.map.mlir
// RUN: not diff -q %s %t.map.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-tags %t.map.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: the kernel never stores a block of C that the reference's store here stores
// ROWS: note: counterexample: {{.*}}size.M = 129

tile.kernel @gemm_two_tiles(%A: memref<?x512xbf16> {tile.name = "A"}, %B: memref<512x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_two_tiles_reference,
        tag.program_map = affine_map<(d0, d1) -> (d0 floordiv 2, d1, d0 mod 2)>,
        tile.launch = #tile.launch<sizes = [M = 256, N = 384], grid = [M ceildiv 256, N ceildiv 128],
                               shapes = [A = [M, 512], B = [512, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %p0 = tile.program_id 0
  %pn = tile.program_id 1
  %ksteps = arith.constant 8 : index
  %a_ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>

  // Each program computes row blocks 2 p0 and 2 p0 + 1; the ring's steps
  // run on across the two tiles (step g = 8 i + k).
  scf.for %i = %c0 to %c2 step %c1 {
    %p0x2 = arith.muli %p0, %c2 : index
    %pm = arith.addi %p0x2, %i : index
    %base = arith.muli %i, %ksteps : index
    %acc = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
      %g = arith.addi %base, %k : index
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
tile.kernel @gemm_two_tiles_reference(%A: memref<?x512xbf16> {tile.name = "A"}, %B: memref<512x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 384], grid = [M ceildiv 128, N ceildiv 128],
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
