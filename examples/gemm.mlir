// GEMM: C[M, N] = A[M, K] * B[K, N], bf16 inputs, f32 accumulation and output.
//
// One program computes one 128x128 tile of C. The K loop runs through a
// 4-slot shared ring buffer: a producer warpgroup issues TMA copies of the A
// and B tiles for step k into slot k mod 4, which complete on full[k mod 4];
// a consumer warpgroup waits for that phase, issues an asynchronous wgmma
// and keeps one wgmma group in flight, releasing slot (k-1) mod 4 through
// empty[(k-1) mod 4] once the wgmma that read it has retired. The producer
// reuses a slot only after the consumer's release.
//
// Sequential meaning: for every (pm, pn) and every k, copy the tiles, read
// them back and accumulate; the schedule only says how this runs in parallel.
// Problem sizes M, N, K are the memrefs' dynamic sizes; ragged edges are
// zero-padded on load and clipped on store.

tile.kernel @gemm(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
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
  %ksteps = arith.ceildivui %K, %c64 : index

  %a_ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>

  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
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
        tile.copy %A[%pm, %k] -> %a_ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k, %pn] -> %b_ring[%slot] padding(0.0 : bf16)
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
      tag.assert eq %ka, %k, "the tiles are those of step k" : index
      tag.assert_carries %a, "A"(%pm, %k), "A tile of this row block" : tensor<128x64xbf16>
      tag.assert_carries %b, "B"(%k, %pn), "B tile of this column block" : tensor<64x128xbf16>

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
    %acc_tagged = tag.attach %acc as "Acc"(%pm, %pn) : tensor<128x128xf32>
    tile.store %acc_tagged, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
  }
  tile.return
}

// The contract: what @gemm computes, as a plain kernel over the same
// operands. Block (i, j) of C is the sum over every K block k, in order, of
// A(i, k) * B(k, j), starting from zero. The checker proves that @gemm stores
// exactly these blocks with exactly these values.
tile.kernel @gemm_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
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
