// Split-k GEMM whose K range runs through a warp-specialized TMA ring: split
// ps (grid dimension 2) owns K blocks [ps * per, min((ps + 1) * per, kblocks))
// with per = kblocks ceildiv S, and adds its partial into C. The ring step
// counts from the split's first block, so ring slots and phases start at 0 in
// every split. The split's range is a product of two symbols and a division
// by one; the checkers prove the ring protocol and the contract for every
// size. Counting ring steps from K block 0 instead makes a split's first
// wait wait for parity 1 where its range starts at an odd round.
// RUN: tiletag-opt --tiletag-verify %s | FileCheck %s --check-prefix=OK
// The contract's "last write of the slot a step reads" is also stated at
// the step's own iteration, which pins it down: within 500 000 resources a
// query (9.1M without).
// RUN: tiletag-opt --tiletag-verify="rlimit=500000" %s -o /dev/null
// RUN: sed -e 's/%%k = arith.subi %%kg, %%kbegin : index/%%k = arith.addi %%kg, %%c0 : index/' %s > %t.mlir
// RUN: not diff -q %s %t.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK-LABEL: tile.kernel @gemm_splitk_ring
// OK: schedule.verified = "
// OK: tag.verified = "
// CHECK: error: the first wait on %empty (line {{[0-9]+}}) waits for parity 0 does not hold
// CHECK: note: counterexample: {{.*}}size.S = {{[0-9]+}}
// CHECK: note: the schedule.mbarrier.wait at line {{[0-9]+}} runs with {{.*}}pid2 = {{[1-9][0-9]*}}, iv0@line{{[0-9]+}} = {{[0-9]+}}, mbarrier [{{[0-9]}}] of %empty
// CHECK: note: replay on the CPU: tiletag-run {{.*}} --kernel gemm_splitk_ring --size {{.*}}S={{[0-9]+}}

tile.kernel @gemm_splitk_ring(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(3) attributes {
        tag.contract = @gemm_splitk_atomic_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 832, S = 3], grid = [M ceildiv 128, N ceildiv 128, S],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %ps = tile.program_id 2
  %splits = tile.num_programs 2
  %kblocks = arith.ceildivui %K, %c64 : index
  %per_split = arith.ceildivui %kblocks, %splits : index
  %kbegin_raw = arith.muli %ps, %per_split : index
  %kbegin = arith.minui %kbegin_raw, %kblocks : index
  %kend_raw = arith.addi %kbegin, %per_split : index
  %kend = arith.minui %kend_raw, %kblocks : index

  %a_ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>

  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kg = %kbegin to %kend step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
    // Ring step k counts from the split's first K block.
    %k = arith.subi %kg, %kbegin : index
    %slot = arith.remui %k, %c4 : index
    %round = arith.divui %k, %c4 : index
    %parity = arith.remui %round, %c2 : index

    schedule.role "producer" warpgroups [0] regs 40 {
      // Slot k mod 4 was last read at step k - 4; wait for its release.
      %reuse = arith.cmpi uge, %k, %c4 : index
      scf.if %reuse {
        %prev_round = arith.subi %round, %c1 : index
        %prev_parity = arith.remui %prev_round, %c2 : index
        schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<4>, index
      }
      // 128x64 + 64x128 bf16 tiles: 2 * 8192 elements * 2 bytes.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<4>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<4> {
        tile.copy %A[%pm, %kg] -> %a_ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
        tile.copy %B[%kg, %pn] -> %b_ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<4x64x128xbf16, #gpu.address_space<workgroup>>
      }
    }

    %next = schedule.role "consumer" warpgroups [1] regs 232 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
      %a = tile.read %a_ring[%slot]
          : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
      %b = tile.read %b_ring[%slot]
          : memref<4x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>

      // The A and B tiles must come from the same K block, and from this
      // program's row and column blocks.
      %ka = tag.field %a["A", 1] : tensor<128x64xbf16>
      %kb = tag.field %b["B", 0] : tensor<64x128xbf16>
      tag.assert eq %ka, %kb, "A and B tiles come from the same K block" : index
      tag.assert eq %ka, %kg, "the tiles are those of step k" : index
      tag.assert_carries %a, "A"(%pm, %kg), "A tile of this row block" : tensor<128x64xbf16>
      tag.assert_carries %b, "B"(%kg, %pn), "B tile of this column block" : tensor<64x128xbf16>

      %d = schedule.async wgmma {
        %r = tile.dot %a, %b, %acc_k
            : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        schedule.yield %r : tensor<128x128xf32>
      } : tensor<128x128xf32>
      schedule.commit_group wgmma
      // Keep one wgmma group in flight: the one issued at step k-1 has now
      // retired, so its slot can be handed back to the producer.
      schedule.wait_group wgmma pending 1
      %has_prev = arith.cmpi uge, %k, %c1 : index
      scf.if %has_prev {
        %k_prev = arith.subi %k, %c1 : index
        %prev_slot = arith.remui %k_prev, %c4 : index
        schedule.mbarrier.arrive %empty[%prev_slot] : !schedule.mbarrier<4>
      }
      schedule.yield %d : tensor<128x128xf32>
    } : tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }

  schedule.role "consumer" warpgroups [1] {
    schedule.wait_group wgmma pending 0
    // The accumulator covers every K block of this output tile.
        tile.store %acc, %C[%pm, %pn] combine add : tensor<128x128xf32> -> memref<?x?xf32>
  }
  tile.return
}

tile.kernel @gemm_splitk_atomic_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
