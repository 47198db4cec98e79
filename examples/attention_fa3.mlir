// FlashAttention-3-style forward: O = softmax(Q K^T / sqrt(D)) V per
// (batch*head), with the online softmax (running row max m and row sum l),
// bf16 Q, K, V and O, f32 statistics and accumulators; two consumer
// warpgroups share the key stream.
//
// Q, K, V, O are [B*H, S, D] with S symbolic. One program computes 128
// queries of one (batch, head), as two blocks of 64 rows: consumer c
// (warpgroup 1 + c) owns query block 2 pq + c. The producer warpgroup
// copies both query blocks by TMA into slots of their own (complete on
// q_full), which each consumer's wgmma reads in place at every key step,
// and streams K and V blocks of 64 keys through 2-slot rings: the copies
// complete on full[j mod 2], both consumers read the slot, and empty[j mod 2]
// expects both consumers' arrivals before the producer refills it.
//
// Each consumer holds a 64-row block: its scores (64 x 64), its P V
// accumulator (64 x D) and its statistics stay in registers across the key
// loop at D = 128 too, and P goes to the second wgmma from registers. The
// two consumers run independently: while one computes its softmax, the
// other's wgmmas use the tensor cores.
//
// Each consumer rounds its output block to bf16 in registers, writes it to
// a shared buffer of its own and stores it by TMA.
//
// %causal selects the causal variant: query row r sees keys c <= r only.
// Both consumers run the program's key loop, to the diagonal block of its
// last query row; for consumer 0 that block is masked entirely, which leaves
// its statistics and accumulator as they were (the contract states the same
// bound). Keys past S (ragged last block) are masked; query rows past S are
// clipped by the TMA store. @attention_fa3_d64 and @attention_fa3_d128 differ only in
// the head dim.

tile.kernel @attention_fa3_d64(%Q: memref<?x?x64xbf16> {tile.name = "Q"},
                               %K: memref<?x?x64xbf16> {tile.name = "K"},
                               %V: memref<?x?x64xbf16> {tile.name = "V"},
                               %O: memref<?x?x64xbf16> {tile.name = "O"},
                               %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tag.contract = @attention_fa3_d64_reference,
        tag.program_map = affine_map<(d0, d1)[s0, s1] -> (d0 floordiv 2, d1)>,
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 128, BH],
            shapes = [Q = [BH, S, 64], K = [BH, S, 64], V = [BH, S, 64], O = [BH, S, 64]],
            check = "attention">,
        schedule.launch = #schedule.launch<warpgroups = 3>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pq = tile.program_id 0
  %pbh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x64xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  // The program's two 64-row query blocks, one per consumer.
  %r0 = arith.muli %pq, %c2 : index
  %r1 = arith.addi %r0, %c1 : index
  // Causal: the last key block that holds a key <= the program's last
  // query row (for consumer 0 the block after its own diagonal, all masked).
  %q_end = arith.muli %pq, %c128 : index
  %q_last = arith.addi %q_end, %c128 : index
  %diag_blocks = arith.ceildivui %q_last, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %k_ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %v_ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  // Both consumers read each K and V slot: its release takes two arrivals.
  %empty = schedule.mbarrier.init count 2 : !schedule.mbarrier<2>

  // The two query blocks, by TMA into slots of their own that each
  // consumer's wgmma reads in place every key step.
  %q_ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %q_full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  // Ping-pong: consumer c computes its key step's scores (Q K^T on wgmma)
  // when %turn[c] completes a phase (its sync and the other consumer's
  // arrival), and then hands the turn on: one consumer's softmax runs
  // while the other's scores use the tensor cores.
  %turn = schedule.mbarrier.init count 2 named : !schedule.mbarrier<2>
  // Each consumer's output block, stored from its own buffer by TMA.
  %o_buf0 = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %o_buf1 = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  schedule.role "producer" warpgroups [0] {
    schedule.mbarrier.arrive_expect_tx %q_full[%c0], 16384 : !schedule.mbarrier<1>
    schedule.async tma arrive %q_full[%c0] : !schedule.mbarrier<1> {
      tile.copy %Q[%pbh, %r0, %c0] -> %q_ring[%c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
      tile.copy %Q[%pbh, %r1, %c0] -> %q_ring[%c1] padding(0.0 : bf16) : memref<?x?x64xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
    }
  }
  schedule.role "consumer0" warpgroups [1] {
    schedule.mbarrier.wait %q_full[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  schedule.role "consumer1" warpgroups [2] {
    schedule.mbarrier.wait %q_full[%c0], %c0 : !schedule.mbarrier<1>, index
    // Consumer 0 takes the first turn.
    schedule.mbarrier.arrive %turn[%c0] : !schedule.mbarrier<2>
  }
  %scale = arith.constant dense<0.125> : tensor<64x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<64xf32>
  %l_init = arith.constant dense<0.0> : tensor<64xf32>
  %acc_init = arith.constant dense<0.0> : tensor<64x64xf32>
  %zero_s = arith.constant dense<0.0> : tensor<64x64xf32>
  %rows = tile.iota dim 0 : tensor<64x64xindex>
  %cols = tile.iota dim 1 : tensor<64x64xindex>
  %q_base0 = tensor.splat %q_end : tensor<64x64xindex>
  %q_pos0 = arith.addi %rows, %q_base0 : tensor<64x64xindex>
  %q_first1 = arith.addi %q_end, %c64 : index
  %q_base1 = tensor.splat %q_first1 : tensor<64x64xindex>
  %q_pos1 = arith.addi %rows, %q_base1 : tensor<64x64xindex>
  %S_splat = tensor.splat %S : tensor<64x64xindex>
  %causal_splat = tensor.splat %causal : tensor<64x64xi1>
  %all_true = arith.constant dense<true> : tensor<64x64xi1>

  %res:6 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m0 = %m_init, %l0 = %l_init, %acc0 = %acc_init,
                %m1 = %m_init, %l1 = %l_init, %acc1 = %acc_init)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
    %slot = arith.remui %j, %c2 : index
    %round = arith.divui %j, %c2 : index
    %parity = arith.remui %round, %c2 : index

    schedule.role "producer" warpgroups [0] regs 24 {
      %reuse = arith.cmpi uge, %j, %c2 : index
      scf.if %reuse {
        %prev_round = arith.subi %round, %c1 : index
        %prev_parity = arith.remui %prev_round, %c2 : index
        schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<2>, index
      }
      // A K and a V tile of 64 x 64 bf16 values.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 16384 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<2> {
        tile.copy %K[%pbh, %j, %c0] -> %k_ring[%slot] padding(0.0 : bf16) : memref<?x?x64xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
        tile.copy %V[%pbh, %j, %c0] -> %v_ring[%slot] padding(0.0 : bf16) : memref<?x?x64xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
      }
    }
    %next0:3 = schedule.role "consumer0" warpgroups [1] regs 240 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      %q = tile.read %q_ring[%c0] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %k = tile.read %k_ring[%slot] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %v = tile.read %v_ring[%slot] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %kj = tag.field %k["K", 1] : tensor<64x64xbf16>
      %vj = tag.field %v["V", 1] : tensor<64x64xbf16>
      tag.assert eq %kj, %vj, "V block matches the K block" : index
      tag.assert_carries %k, "K"(%pbh, %j, %c0), "K block j of this head" : tensor<64x64xbf16>
      %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      // Its turn for the scores (its k-th sync lands in phase k mod 2).
      schedule.mbarrier.sync %turn[%c0], %slot : !schedule.mbarrier<2>, index
      %s_raw = schedule.async wgmma {
        %r = tile.dot %q, %kt, %zero_s : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
        schedule.yield %r : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      // The other consumer's turn: its scores while this one's softmax runs.
      schedule.mbarrier.arrive %turn[%c1] : !schedule.mbarrier<2>
      %s_scaled = arith.mulf %s_raw, %scale : tensor<64x64xf32>
      %k_base = arith.muli %j, %c64 : index
      %k_base_splat = tensor.splat %k_base : tensor<64x64xindex>
      %k_pos = arith.addi %cols, %k_base_splat : tensor<64x64xindex>
      %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<64x64xindex>
      %after = arith.cmpi ugt, %k_pos, %q_pos0 : tensor<64x64xindex>
      %hidden = arith.andi %after, %causal_splat : tensor<64x64xi1>
      %shown = arith.xori %hidden, %all_true : tensor<64x64xi1>
      %keep = arith.andi %in_seq, %shown : tensor<64x64xi1>
      %s = arith.select %keep, %s_scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
      %row_max = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %m_new = arith.maximumf %m0, %row_max : tensor<64xf32>
      %m_b = tile.broadcast %m_new dims [1] : tensor<64xf32> -> tensor<64x64xf32>
      %shifted = arith.subf %s, %m_b : tensor<64x64xf32>
      %p = math.exp %shifted : tensor<64x64xf32>
      %m_diff = arith.subf %m0, %m_new : tensor<64xf32>
      %alpha = math.exp %m_diff : tensor<64xf32>
      %l_scaled = arith.mulf %l0, %alpha : tensor<64xf32>
      %p_sum = tile.reduce sum %p axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32>
      %alpha_b = tile.broadcast %alpha dims [1] : tensor<64xf32> -> tensor<64x64xf32>
      %acc_scaled = arith.mulf %acc0, %alpha_b : tensor<64x64xf32>
      %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
      %pv = schedule.async wgmma {
        %r = tile.dot %p_bf16, %v, %acc_scaled : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
        schedule.yield %r : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.yield %m_new, %l_new, %pv : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    } : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    %next1:3 = schedule.role "consumer1" warpgroups [2] regs 240 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      %q = tile.read %q_ring[%c1] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %k = tile.read %k_ring[%slot] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %v = tile.read %v_ring[%slot] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %kj = tag.field %k["K", 1] : tensor<64x64xbf16>
      %vj = tag.field %v["V", 1] : tensor<64x64xbf16>
      tag.assert eq %kj, %vj, "V block matches the K block" : index
      tag.assert_carries %k, "K"(%pbh, %j, %c0), "K block j of this head" : tensor<64x64xbf16>
      %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      // Its turn for the scores (its k-th sync lands in phase k mod 2).
      schedule.mbarrier.sync %turn[%c1], %slot : !schedule.mbarrier<2>, index
      %s_raw = schedule.async wgmma {
        %r = tile.dot %q, %kt, %zero_s : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
        schedule.yield %r : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      // The other consumer's turn: its scores while this one's softmax runs.
      schedule.mbarrier.arrive %turn[%c0] : !schedule.mbarrier<2>
      %s_scaled = arith.mulf %s_raw, %scale : tensor<64x64xf32>
      %k_base = arith.muli %j, %c64 : index
      %k_base_splat = tensor.splat %k_base : tensor<64x64xindex>
      %k_pos = arith.addi %cols, %k_base_splat : tensor<64x64xindex>
      %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<64x64xindex>
      %after = arith.cmpi ugt, %k_pos, %q_pos1 : tensor<64x64xindex>
      %hidden = arith.andi %after, %causal_splat : tensor<64x64xi1>
      %shown = arith.xori %hidden, %all_true : tensor<64x64xi1>
      %keep = arith.andi %in_seq, %shown : tensor<64x64xi1>
      %s = arith.select %keep, %s_scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
      %row_max = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %m_new = arith.maximumf %m1, %row_max : tensor<64xf32>
      %m_b = tile.broadcast %m_new dims [1] : tensor<64xf32> -> tensor<64x64xf32>
      %shifted = arith.subf %s, %m_b : tensor<64x64xf32>
      %p = math.exp %shifted : tensor<64x64xf32>
      %m_diff = arith.subf %m1, %m_new : tensor<64xf32>
      %alpha = math.exp %m_diff : tensor<64xf32>
      %l_scaled = arith.mulf %l1, %alpha : tensor<64xf32>
      %p_sum = tile.reduce sum %p axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32>
      %alpha_b = tile.broadcast %alpha dims [1] : tensor<64xf32> -> tensor<64x64xf32>
      %acc_scaled = arith.mulf %acc1, %alpha_b : tensor<64x64xf32>
      %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
      %pv = schedule.async wgmma {
        %r = tile.dot %p_bf16, %v, %acc_scaled : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
        schedule.yield %r : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.yield %m_new, %l_new, %pv : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    } : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
    scf.yield %next0#0, %next0#1, %next0#2, %next1#0, %next1#1, %next1#2
        : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  }

  // The epilogue: O = acc / l, rounded to bf16 in registers, written to the
  // consumer's own shared buffer and stored by TMA; retired before the CTA
  // exits.
  schedule.role "consumer0" warpgroups [1] {
    %l_b = tile.broadcast %res#1 dims [1] : tensor<64xf32> -> tensor<64x64xf32>
    %out = arith.divf %res#2, %l_b : tensor<64x64xf32>
    %out_bf16 = arith.truncf %out : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.write %out_bf16, %o_buf0[%c0] : tensor<64x64xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %o_buf0[%c0] -> %O[%pbh, %r0, %c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> memref<?x?x64xbf16>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  // The epilogue: O = acc / l, rounded to bf16 in registers, written to the
  // consumer's own shared buffer and stored by TMA; retired before the CTA
  // exits.
  schedule.role "consumer1" warpgroups [2] {
    %l_b = tile.broadcast %res#4 dims [1] : tensor<64xf32> -> tensor<64x64xf32>
    %out = arith.divf %res#5, %l_b : tensor<64x64xf32>
    %out_bf16 = arith.truncf %out : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.write %out_bf16, %o_buf1[%c0] : tensor<64x64xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %o_buf1[%c0] -> %O[%pbh, %r1, %c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> memref<?x?x64xbf16>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  tile.return
}

tile.kernel @attention_fa3_d128(%Q: memref<?x?x128xbf16> {tile.name = "Q"},
                               %K: memref<?x?x128xbf16> {tile.name = "K"},
                               %V: memref<?x?x128xbf16> {tile.name = "V"},
                               %O: memref<?x?x128xbf16> {tile.name = "O"},
                               %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tag.contract = @attention_fa3_d128_reference,
        tag.program_map = affine_map<(d0, d1)[s0, s1] -> (d0 floordiv 2, d1)>,
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 128, BH],
            shapes = [Q = [BH, S, 128], K = [BH, S, 128], V = [BH, S, 128], O = [BH, S, 128]],
            check = "attention">,
        schedule.launch = #schedule.launch<warpgroups = 3>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pq = tile.program_id 0
  %pbh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x128xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  // The program's two 64-row query blocks, one per consumer.
  %r0 = arith.muli %pq, %c2 : index
  %r1 = arith.addi %r0, %c1 : index
  // Causal: the last key block that holds a key <= the program's last
  // query row (for consumer 0 the block after its own diagonal, all masked).
  %q_end = arith.muli %pq, %c128 : index
  %q_last = arith.addi %q_end, %c128 : index
  %diag_blocks = arith.ceildivui %q_last, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %k_ring = tile.alloc_shared : memref<2x64x128xbf16, #gpu.address_space<workgroup>>
  %v_ring = tile.alloc_shared : memref<2x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  // Both consumers read each K and V slot: its release takes two arrivals.
  %empty = schedule.mbarrier.init count 2 : !schedule.mbarrier<2>

  // The two query blocks, by TMA into slots of their own that each
  // consumer's wgmma reads in place every key step.
  %q_ring = tile.alloc_shared : memref<2x64x128xbf16, #gpu.address_space<workgroup>>
  %q_full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  // Ping-pong: consumer c computes its key step's scores (Q K^T on wgmma)
  // when %turn[c] completes a phase (its sync and the other consumer's
  // arrival), and then hands the turn on: one consumer's softmax runs
  // while the other's scores use the tensor cores.
  %turn = schedule.mbarrier.init count 2 named : !schedule.mbarrier<2>
  // Each consumer's output block, stored from its own buffer by TMA.
  %o_buf0 = tile.alloc_shared : memref<1x64x128xbf16, #gpu.address_space<workgroup>>
  %o_buf1 = tile.alloc_shared : memref<1x64x128xbf16, #gpu.address_space<workgroup>>
  schedule.role "producer" warpgroups [0] {
    schedule.mbarrier.arrive_expect_tx %q_full[%c0], 32768 : !schedule.mbarrier<1>
    schedule.async tma arrive %q_full[%c0] : !schedule.mbarrier<1> {
      tile.copy %Q[%pbh, %r0, %c0] -> %q_ring[%c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
      tile.copy %Q[%pbh, %r1, %c0] -> %q_ring[%c1] padding(0.0 : bf16) : memref<?x?x128xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
    }
  }
  schedule.role "consumer0" warpgroups [1] {
    schedule.mbarrier.wait %q_full[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  schedule.role "consumer1" warpgroups [2] {
    schedule.mbarrier.wait %q_full[%c0], %c0 : !schedule.mbarrier<1>, index
    // Consumer 0 takes the first turn.
    schedule.mbarrier.arrive %turn[%c0] : !schedule.mbarrier<2>
  }
  %scale = arith.constant dense<0.08838834764831843> : tensor<64x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<64xf32>
  %l_init = arith.constant dense<0.0> : tensor<64xf32>
  %acc_init = arith.constant dense<0.0> : tensor<64x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<64x64xf32>
  %rows = tile.iota dim 0 : tensor<64x64xindex>
  %cols = tile.iota dim 1 : tensor<64x64xindex>
  %q_base0 = tensor.splat %q_end : tensor<64x64xindex>
  %q_pos0 = arith.addi %rows, %q_base0 : tensor<64x64xindex>
  %q_first1 = arith.addi %q_end, %c64 : index
  %q_base1 = tensor.splat %q_first1 : tensor<64x64xindex>
  %q_pos1 = arith.addi %rows, %q_base1 : tensor<64x64xindex>
  %S_splat = tensor.splat %S : tensor<64x64xindex>
  %causal_splat = tensor.splat %causal : tensor<64x64xi1>
  %all_true = arith.constant dense<true> : tensor<64x64xi1>

  %res:6 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m0 = %m_init, %l0 = %l_init, %acc0 = %acc_init,
                %m1 = %m_init, %l1 = %l_init, %acc1 = %acc_init)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>) {
    %slot = arith.remui %j, %c2 : index
    %round = arith.divui %j, %c2 : index
    %parity = arith.remui %round, %c2 : index

    schedule.role "producer" warpgroups [0] regs 24 {
      %reuse = arith.cmpi uge, %j, %c2 : index
      scf.if %reuse {
        %prev_round = arith.subi %round, %c1 : index
        %prev_parity = arith.remui %prev_round, %c2 : index
        schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<2>, index
      }
      // A K and a V tile of 64 x 128 bf16 values.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<2> {
        tile.copy %K[%pbh, %j, %c0] -> %k_ring[%slot] padding(0.0 : bf16) : memref<?x?x128xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
        tile.copy %V[%pbh, %j, %c0] -> %v_ring[%slot] padding(0.0 : bf16) : memref<?x?x128xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
      }
    }
    %next0:3 = schedule.role "consumer0" warpgroups [1] regs 240 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      %q = tile.read %q_ring[%c0] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %k = tile.read %k_ring[%slot] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %v = tile.read %v_ring[%slot] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %kj = tag.field %k["K", 1] : tensor<64x128xbf16>
      %vj = tag.field %v["V", 1] : tensor<64x128xbf16>
      tag.assert eq %kj, %vj, "V block matches the K block" : index
      tag.assert_carries %k, "K"(%pbh, %j, %c0), "K block j of this head" : tensor<64x128xbf16>
      %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
      // Its turn for the scores (its k-th sync lands in phase k mod 2).
      schedule.mbarrier.sync %turn[%c0], %slot : !schedule.mbarrier<2>, index
      %s_raw = schedule.async wgmma {
        %r = tile.dot %q, %kt, %zero_s : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
        schedule.yield %r : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      // The other consumer's turn: its scores while this one's softmax runs.
      schedule.mbarrier.arrive %turn[%c1] : !schedule.mbarrier<2>
      %s_scaled = arith.mulf %s_raw, %scale : tensor<64x64xf32>
      %k_base = arith.muli %j, %c64 : index
      %k_base_splat = tensor.splat %k_base : tensor<64x64xindex>
      %k_pos = arith.addi %cols, %k_base_splat : tensor<64x64xindex>
      %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<64x64xindex>
      %after = arith.cmpi ugt, %k_pos, %q_pos0 : tensor<64x64xindex>
      %hidden = arith.andi %after, %causal_splat : tensor<64x64xi1>
      %shown = arith.xori %hidden, %all_true : tensor<64x64xi1>
      %keep = arith.andi %in_seq, %shown : tensor<64x64xi1>
      %s = arith.select %keep, %s_scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
      %row_max = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %m_new = arith.maximumf %m0, %row_max : tensor<64xf32>
      %m_b = tile.broadcast %m_new dims [1] : tensor<64xf32> -> tensor<64x64xf32>
      %shifted = arith.subf %s, %m_b : tensor<64x64xf32>
      %p = math.exp %shifted : tensor<64x64xf32>
      %m_diff = arith.subf %m0, %m_new : tensor<64xf32>
      %alpha = math.exp %m_diff : tensor<64xf32>
      %l_scaled = arith.mulf %l0, %alpha : tensor<64xf32>
      %p_sum = tile.reduce sum %p axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32>
      %alpha_b = tile.broadcast %alpha dims [1] : tensor<64xf32> -> tensor<64x128xf32>
      %acc_scaled = arith.mulf %acc0, %alpha_b : tensor<64x128xf32>
      %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
      %pv = schedule.async wgmma {
        %r = tile.dot %p_bf16, %v, %acc_scaled : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
        schedule.yield %r : tensor<64x128xf32>
      } : tensor<64x128xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.yield %m_new, %l_new, %pv : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
    } : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
    %next1:3 = schedule.role "consumer1" warpgroups [2] regs 240 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      %q = tile.read %q_ring[%c1] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %k = tile.read %k_ring[%slot] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %v = tile.read %v_ring[%slot] : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %kj = tag.field %k["K", 1] : tensor<64x128xbf16>
      %vj = tag.field %v["V", 1] : tensor<64x128xbf16>
      tag.assert eq %kj, %vj, "V block matches the K block" : index
      tag.assert_carries %k, "K"(%pbh, %j, %c0), "K block j of this head" : tensor<64x128xbf16>
      %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
      // Its turn for the scores (its k-th sync lands in phase k mod 2).
      schedule.mbarrier.sync %turn[%c1], %slot : !schedule.mbarrier<2>, index
      %s_raw = schedule.async wgmma {
        %r = tile.dot %q, %kt, %zero_s : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
        schedule.yield %r : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      // The other consumer's turn: its scores while this one's softmax runs.
      schedule.mbarrier.arrive %turn[%c0] : !schedule.mbarrier<2>
      %s_scaled = arith.mulf %s_raw, %scale : tensor<64x64xf32>
      %k_base = arith.muli %j, %c64 : index
      %k_base_splat = tensor.splat %k_base : tensor<64x64xindex>
      %k_pos = arith.addi %cols, %k_base_splat : tensor<64x64xindex>
      %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<64x64xindex>
      %after = arith.cmpi ugt, %k_pos, %q_pos1 : tensor<64x64xindex>
      %hidden = arith.andi %after, %causal_splat : tensor<64x64xi1>
      %shown = arith.xori %hidden, %all_true : tensor<64x64xi1>
      %keep = arith.andi %in_seq, %shown : tensor<64x64xi1>
      %s = arith.select %keep, %s_scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
      %row_max = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %m_new = arith.maximumf %m1, %row_max : tensor<64xf32>
      %m_b = tile.broadcast %m_new dims [1] : tensor<64xf32> -> tensor<64x64xf32>
      %shifted = arith.subf %s, %m_b : tensor<64x64xf32>
      %p = math.exp %shifted : tensor<64x64xf32>
      %m_diff = arith.subf %m1, %m_new : tensor<64xf32>
      %alpha = math.exp %m_diff : tensor<64xf32>
      %l_scaled = arith.mulf %l1, %alpha : tensor<64xf32>
      %p_sum = tile.reduce sum %p axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32>
      %alpha_b = tile.broadcast %alpha dims [1] : tensor<64xf32> -> tensor<64x128xf32>
      %acc_scaled = arith.mulf %acc1, %alpha_b : tensor<64x128xf32>
      %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
      %pv = schedule.async wgmma {
        %r = tile.dot %p_bf16, %v, %acc_scaled : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
        schedule.yield %r : tensor<64x128xf32>
      } : tensor<64x128xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.yield %m_new, %l_new, %pv : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
    } : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
    scf.yield %next0#0, %next0#1, %next0#2, %next1#0, %next1#1, %next1#2
        : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
  }

  // The epilogue: O = acc / l, rounded to bf16 in registers, written to the
  // consumer's own shared buffer and stored by TMA; retired before the CTA
  // exits.
  schedule.role "consumer0" warpgroups [1] {
    %l_b = tile.broadcast %res#1 dims [1] : tensor<64xf32> -> tensor<64x128xf32>
    %out = arith.divf %res#2, %l_b : tensor<64x128xf32>
    %out_bf16 = arith.truncf %out : tensor<64x128xf32> to tensor<64x128xbf16>
    tile.write %out_bf16, %o_buf0[%c0] : tensor<64x128xbf16> -> memref<1x64x128xbf16, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %o_buf0[%c0] -> %O[%pbh, %r0, %c0] : memref<1x64x128xbf16, #gpu.address_space<workgroup>> -> memref<?x?x128xbf16>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  // The epilogue: O = acc / l, rounded to bf16 in registers, written to the
  // consumer's own shared buffer and stored by TMA; retired before the CTA
  // exits.
  schedule.role "consumer1" warpgroups [2] {
    %l_b = tile.broadcast %res#4 dims [1] : tensor<64xf32> -> tensor<64x128xf32>
    %out = arith.divf %res#5, %l_b : tensor<64x128xf32>
    %out_bf16 = arith.truncf %out : tensor<64x128xf32> to tensor<64x128xbf16>
    tile.write %out_bf16, %o_buf1[%c0] : tensor<64x128xbf16> -> memref<1x64x128xbf16, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %o_buf1[%c0] -> %O[%pbh, %r1, %c0] : memref<1x64x128xbf16, #gpu.address_space<workgroup>> -> memref<?x?x128xbf16>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 0
  }
  tile.return
}

// The contract of @attention_fa3_d64: the online softmax over the key blocks
// as a plain kernel, per 64-row query block q of head bh: key blocks
// j < kv_end, where kv_end ends with the diagonal of the 128 queries of
// q's pair (2 (q floordiv 2), + 1) when causal; keys masked past S and,
// when causal, after the query.
tile.kernel @attention_fa3_d64_reference(%Q: memref<?x?x64xbf16> {tile.name = "Q"},
                                        %K: memref<?x?x64xbf16> {tile.name = "K"},
                                        %V: memref<?x?x64xbf16> {tile.name = "V"},
                                        %O: memref<?x?x64xbf16> {tile.name = "O"},
                                        %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 64, BH],
            shapes = [Q = [BH, S, 64], K = [BH, S, 64], V = [BH, S, 64], O = [BH, S, 64]],
            check = "attention">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %qb = tile.program_id 0
  %bh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x64xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  %q_first = arith.muli %qb, %c64 : index
  %pair = arith.divui %qb, %c2 : index
  %pair_first = arith.muli %pair, %c128 : index
  %pair_end = arith.addi %pair_first, %c128 : index
  %diag_blocks = arith.ceildivui %pair_end, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %q = tile.load %Q[%bh, %qb, %c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> tensor<64x64xbf16>
  %scale = arith.constant dense<0.125> : tensor<64x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32>
  %l0 = arith.constant dense<0.0> : tensor<64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %zero_s = arith.constant dense<0.0> : tensor<64x64xf32>
  %rows = tile.iota dim 0 : tensor<64x64xindex>
  %cols = tile.iota dim 1 : tensor<64x64xindex>
  %q_base = tensor.splat %q_first : tensor<64x64xindex>
  %q_pos = arith.addi %rows, %q_base : tensor<64x64xindex>
  %S_splat = tensor.splat %S : tensor<64x64xindex>
  %causal_splat = tensor.splat %causal : tensor<64x64xi1>

  %res:3 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
    %k = tile.load %K[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> tensor<64x64xbf16>
    %v = tile.load %V[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> tensor<64x64xbf16>
    %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s_raw = tile.dot %q, %kt, %zero_s : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %s_scaled = arith.mulf %s_raw, %scale : tensor<64x64xf32>
    // Keep key c of query r when c < S and, if causal, c <= r.
    %k_first = arith.muli %j, %c64 : index
    %k_base = tensor.splat %k_first : tensor<64x64xindex>
    %k_pos = arith.addi %cols, %k_base : tensor<64x64xindex>
    %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<64x64xindex>
    %seen = arith.cmpi ule, %k_pos, %q_pos : tensor<64x64xindex>
    %visible = arith.select %causal_splat, %seen, %in_seq : tensor<64x64xi1>, tensor<64x64xi1>
    %keep = arith.andi %in_seq, %visible : tensor<64x64xi1>
    %s = arith.select %keep, %s_scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
    %row_max = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m, %row_max : tensor<64xf32>
    %m_b = tile.broadcast %m_new dims [1] : tensor<64xf32> -> tensor<64x64xf32>
    %shifted = arith.subf %s, %m_b : tensor<64x64xf32>
    %p = math.exp %shifted : tensor<64x64xf32>
    %m_diff = arith.subf %m, %m_new : tensor<64xf32>
    %alpha = math.exp %m_diff : tensor<64xf32>
    %l_scaled = arith.mulf %l, %alpha : tensor<64xf32>
    %p_sum = tile.reduce sum %p axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32>
    %alpha_b = tile.broadcast %alpha dims [1] : tensor<64xf32> -> tensor<64x64xf32>
    %acc_scaled = arith.mulf %acc, %alpha_b : tensor<64x64xf32>
    %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
    %pv = tile.dot %p_bf16, %v, %acc_scaled : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %m_new, %l_new, %pv : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  }
  %l_b = tile.broadcast %res#1 dims [1] : tensor<64xf32> -> tensor<64x64xf32>
  %out = arith.divf %res#2, %l_b : tensor<64x64xf32>
  %out_bf16 = arith.truncf %out : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %out_bf16, %O[%bh, %qb, %c0] : tensor<64x64xbf16> -> memref<?x?x64xbf16>
  tile.return
}

// The contract of @attention_fa3_d128: the online softmax over the key blocks
// as a plain kernel, per 64-row query block q of head bh: key blocks
// j < kv_end, where kv_end ends with the diagonal of the 128 queries of
// q's pair (2 (q floordiv 2), + 1) when causal; keys masked past S and,
// when causal, after the query.
tile.kernel @attention_fa3_d128_reference(%Q: memref<?x?x128xbf16> {tile.name = "Q"},
                                        %K: memref<?x?x128xbf16> {tile.name = "K"},
                                        %V: memref<?x?x128xbf16> {tile.name = "V"},
                                        %O: memref<?x?x128xbf16> {tile.name = "O"},
                                        %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 64, BH],
            shapes = [Q = [BH, S, 128], K = [BH, S, 128], V = [BH, S, 128], O = [BH, S, 128]],
            check = "attention">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %qb = tile.program_id 0
  %bh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x128xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  %q_first = arith.muli %qb, %c64 : index
  %pair = arith.divui %qb, %c2 : index
  %pair_first = arith.muli %pair, %c128 : index
  %pair_end = arith.addi %pair_first, %c128 : index
  %diag_blocks = arith.ceildivui %pair_end, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %q = tile.load %Q[%bh, %qb, %c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> tensor<64x128xbf16>
  %scale = arith.constant dense<0.08838834764831843> : tensor<64x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32>
  %l0 = arith.constant dense<0.0> : tensor<64xf32>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<64x64xf32>
  %rows = tile.iota dim 0 : tensor<64x64xindex>
  %cols = tile.iota dim 1 : tensor<64x64xindex>
  %q_base = tensor.splat %q_first : tensor<64x64xindex>
  %q_pos = arith.addi %rows, %q_base : tensor<64x64xindex>
  %S_splat = tensor.splat %S : tensor<64x64xindex>
  %causal_splat = tensor.splat %causal : tensor<64x64xi1>

  %res:3 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>) {
    %k = tile.load %K[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> tensor<64x128xbf16>
    %v = tile.load %V[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> tensor<64x128xbf16>
    %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s_raw = tile.dot %q, %kt, %zero_s : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    %s_scaled = arith.mulf %s_raw, %scale : tensor<64x64xf32>
    // Keep key c of query r when c < S and, if causal, c <= r.
    %k_first = arith.muli %j, %c64 : index
    %k_base = tensor.splat %k_first : tensor<64x64xindex>
    %k_pos = arith.addi %cols, %k_base : tensor<64x64xindex>
    %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<64x64xindex>
    %seen = arith.cmpi ule, %k_pos, %q_pos : tensor<64x64xindex>
    %visible = arith.select %causal_splat, %seen, %in_seq : tensor<64x64xi1>, tensor<64x64xi1>
    %keep = arith.andi %in_seq, %visible : tensor<64x64xi1>
    %s = arith.select %keep, %s_scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
    %row_max = tile.reduce max %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m, %row_max : tensor<64xf32>
    %m_b = tile.broadcast %m_new dims [1] : tensor<64xf32> -> tensor<64x64xf32>
    %shifted = arith.subf %s, %m_b : tensor<64x64xf32>
    %p = math.exp %shifted : tensor<64x64xf32>
    %m_diff = arith.subf %m, %m_new : tensor<64xf32>
    %alpha = math.exp %m_diff : tensor<64xf32>
    %l_scaled = arith.mulf %l, %alpha : tensor<64xf32>
    %p_sum = tile.reduce sum %p axis 1 : tensor<64x64xf32> -> tensor<64xf32>
    %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32>
    %alpha_b = tile.broadcast %alpha dims [1] : tensor<64xf32> -> tensor<64x128xf32>
    %acc_scaled = arith.mulf %acc, %alpha_b : tensor<64x128xf32>
    %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
    %pv = tile.dot %p_bf16, %v, %acc_scaled : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %m_new, %l_new, %pv : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
  }
  %l_b = tile.broadcast %res#1 dims [1] : tensor<64xf32> -> tensor<64x128xf32>
  %out = arith.divf %res#2, %l_b : tensor<64x128xf32>
  %out_bf16 = arith.truncf %out : tensor<64x128xf32> to tensor<64x128xbf16>
  tile.store %out_bf16, %O[%bh, %qb, %c0] : tensor<64x128xbf16> -> memref<?x?x128xbf16>
  tile.return
}
