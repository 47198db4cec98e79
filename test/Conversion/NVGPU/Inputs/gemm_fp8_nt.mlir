// FP8 GEMM for Hopper: C[M, N] = A[M, K] * B[N, K]^T, A and B in f8E4M3FN
// (the e4m3 encoding wgmma multiplies), f32 accumulation and output.
//
// wgmma multiplies fp8 only with both operands K-major, so B comes as rows
// of K (the layout of a weight matrix stored transposed, "NT"): each slot
// holds a 128 x 128 block of B, N rows of K, and the dot takes its
// transpose, which wgmma reads in place from the slot. Otherwise the
// pipeline of examples/gemm.mlir: one program per 128x128 tile of C, a
// 4-slot ring of 128-deep K blocks (16 KiB of A and of B per slot, a
// 128-byte row of K each), a producer warpgroup issuing the TMA copies and
// a consumer warpgroup issuing the wgmmas, one group in flight.
//
// Sequential meaning: for every (pm, pn) and every k, copy the blocks,
// read them back and accumulate A B^T; ragged edges are zero-padded on
// load and clipped on store.

tile.kernel @gemm_fp8_nt(%A: memref<?x?xf8E4M3FN> {tile.name = "A"}, %B: memref<?x?xf8E4M3FN> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_fp8_nt_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [N, K], C = [M, N]], check = "gemm_nt">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xf8E4M3FN>
  %ksteps = arith.ceildivui %K, %c128 : index

  %a_ring = tile.alloc_shared : memref<4x128x128xf8E4M3FN, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<4x128x128xf8E4M3FN, #gpu.address_space<workgroup>>
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
      // Two 128x128 fp8 blocks: 2 * 16384 bytes.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<4>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<4> {
        tile.copy %A[%pm, %k] -> %a_ring[%slot] padding(0.0 : f8E4M3FN)
            : memref<?x?xf8E4M3FN> -> memref<4x128x128xf8E4M3FN, #gpu.address_space<workgroup>>
        tile.copy %B[%pn, %k] -> %b_ring[%slot] padding(0.0 : f8E4M3FN)
            : memref<?x?xf8E4M3FN> -> memref<4x128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      }
    }

    %next = schedule.role "consumer" warpgroups [1] regs 232 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
      %a = tile.read %a_ring[%slot]
          : memref<4x128x128xf8E4M3FN, #gpu.address_space<workgroup>> -> tensor<128x128xf8E4M3FN>
      %bt = tile.read %b_ring[%slot]
          : memref<4x128x128xf8E4M3FN, #gpu.address_space<workgroup>> -> tensor<128x128xf8E4M3FN>
      %b = tile.transpose %bt perm [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>

      // The A and B blocks come from the same K block, this step's, and
      // from this program's row and column blocks.
      %ka = tag.field %a["A", 1] : tensor<128x128xf8E4M3FN>
      %kb = tag.field %bt["B", 1] : tensor<128x128xf8E4M3FN>
      tag.assert eq %ka, %kb, "A and B blocks come from the same K block" : index
      tag.assert eq %ka, %k, "the blocks are those of step k" : index
      tag.assert_carries %a, "A"(%pm, %k), "A block of this row block" : tensor<128x128xf8E4M3FN>
      tag.assert_carries %bt, "B"(%pn, %k), "B block of this column block" : tensor<128x128xf8E4M3FN>

      %d = schedule.async wgmma {
        %r = tile.dot %a, %b, %acc_k
            : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
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

// The contract: block (i, j) of C is the sum over every K block k, in
// order, of A(i, k) * B(j, k)^T, starting from zero.
tile.kernel @gemm_fp8_nt_reference(%A: memref<?x?xf8E4M3FN> {tile.name = "A"}, %B: memref<?x?xf8E4M3FN> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [N, K], C = [M, N]], check = "gemm_nt">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xf8E4M3FN>
  %kblocks = arith.ceildivui %K, %c128 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : f8E4M3FN) : memref<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %bt = tile.load %B[%j, %k] padding(0.0 : f8E4M3FN) : memref<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %b = tile.transpose %bt perm [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.dot %a, %b, %acc : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
