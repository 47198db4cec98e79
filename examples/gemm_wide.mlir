// GEMM with a 128x256 tile per program and two consumer warpgroups:
// C[M, N] = A[M, K] * B[K, N], bf16 inputs, f32 accumulation and output.
//
// A producer warpgroup brings, for each K step, the 128x64 A tile and the two
// 64x128 halves of the 64x256 B block into slot k mod 4 of three rings; all
// three copies complete on full[k mod 4]. Consumer 0 multiplies A by the
// left half of B into C's columns [256 pn, 256 pn + 128), consumer 1 by the
// right half into the next 128 columns: both read the same A slot. Each
// consumer keeps one wgmma group in flight and releases the slot it no longer
// reads through its own empty barrier (one arrival per phase each), and the
// producer refills a slot only after both releases. Compared with
// examples/gemm.mlir, each A tile is loaded once for twice the work and two
// warpgroups keep the tensor cores busy.
//
// Sequential meaning: for every (pm, pn) and every k, copy the tiles, read
// them back and accumulate both halves.

tile.kernel @gemm_wide(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                       %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_wide_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 512, K = 320], grid = [M ceildiv 128, N ceildiv 256],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 3>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %n0 = arith.muli %pn, %c2 : index
  %n1 = arith.addi %n0, %c1 : index
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %ksteps = arith.ceildivui %K, %c64 : index

  %a_ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  %b0_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
  %b1_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %empty0 = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %empty1 = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>

  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc:2 = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
      -> (tensor<128x128xf32>, tensor<128x128xf32>) {
    %slot = arith.remui %k, %c4 : index
    %round = arith.divui %k, %c4 : index
    %parity = arith.remui %round, %c2 : index

    schedule.role "producer" warpgroups [0] regs 40 {
      // Slot k mod 4 was last read at step k - 4 by both consumers.
      %reuse = arith.cmpi uge, %k, %c4 : index
      scf.if %reuse {
        %prev_round = arith.subi %round, %c1 : index
        %prev_parity = arith.remui %prev_round, %c2 : index
        schedule.mbarrier.wait %empty0[%slot], %prev_parity : !schedule.mbarrier<4>, index
        schedule.mbarrier.wait %empty1[%slot], %prev_parity : !schedule.mbarrier<4>, index
      }
      // 128x64 + 2 x 64x128 bf16 tiles: 3 * 8192 elements * 2 bytes.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 49152 : !schedule.mbarrier<4>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<4> {
        tile.copy %A[%pm, %k] -> %a_ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k, %n0] -> %b0_ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<4x64x128xbf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k, %n1] -> %b1_ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<4x64x128xbf16, #gpu.address_space<workgroup>>
      }
    }

    %next0 = schedule.role "consumer0" warpgroups [1] regs 232 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
      %a = tile.read %a_ring[%slot]
          : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
      %b = tile.read %b0_ring[%slot]
          : memref<4x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      tag.assert_carries %a, "A"(%pm, %k), "A tile of this row block, step k" : tensor<128x64xbf16>
      tag.assert_carries %b, "B"(%k, %n0), "left B tile of this column block, step k" : tensor<64x128xbf16>
      %d = schedule.async wgmma {
        %r = tile.dot %a, %b, %acc0
            : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        schedule.yield %r : tensor<128x128xf32>
      } : tensor<128x128xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 1
      %has_prev = arith.cmpi uge, %k, %c1 : index
      scf.if %has_prev {
        %k_prev = arith.subi %k, %c1 : index
        %prev_slot = arith.remui %k_prev, %c4 : index
        schedule.mbarrier.arrive %empty0[%prev_slot] : !schedule.mbarrier<4>
      }
      schedule.yield %d : tensor<128x128xf32>
    } : tensor<128x128xf32>

    %next1 = schedule.role "consumer1" warpgroups [2] regs 232 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
      %a = tile.read %a_ring[%slot]
          : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
      %b = tile.read %b1_ring[%slot]
          : memref<4x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      tag.assert_carries %a, "A"(%pm, %k), "A tile of this row block, step k" : tensor<128x64xbf16>
      tag.assert_carries %b, "B"(%k, %n1), "right B tile of this column block, step k" : tensor<64x128xbf16>
      %d = schedule.async wgmma {
        %r = tile.dot %a, %b, %acc1
            : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        schedule.yield %r : tensor<128x128xf32>
      } : tensor<128x128xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 1
      %has_prev = arith.cmpi uge, %k, %c1 : index
      scf.if %has_prev {
        %k_prev = arith.subi %k, %c1 : index
        %prev_slot = arith.remui %k_prev, %c4 : index
        schedule.mbarrier.arrive %empty1[%prev_slot] : !schedule.mbarrier<4>
      }
      schedule.yield %d : tensor<128x128xf32>
    } : tensor<128x128xf32>
    scf.yield %next0, %next1 : tensor<128x128xf32>, tensor<128x128xf32>
  }

  schedule.role "consumer0" warpgroups [1] {
    schedule.wait_group wgmma pending 0
    %c_left = tag.attach %acc#0 as "Acc"(%pm, %n0) : tensor<128x128xf32>
    tile.store %c_left, %C[%pm, %n0] : tensor<128x128xf32> -> memref<?x?xf32>
  }
  schedule.role "consumer1" warpgroups [2] {
    schedule.wait_group wgmma pending 0
    %c_right = tag.attach %acc#1 as "Acc"(%pm, %n1) : tensor<128x128xf32>
    tile.store %c_right, %C[%pm, %n1] : tensor<128x128xf32> -> memref<?x?xf32>
  }
  tile.return
}

// The contract: block (i, j) of C, in 128x128 blocks, is the sum over every
// K block k, in order, of A(i, k) * B(k, j), starting from zero. @gemm_wide
// stores two such blocks per program.
tile.kernel @gemm_wide_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 512, K = 320], grid = [M ceildiv 128, N ceildiv 128],
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
