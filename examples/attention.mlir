// Flash attention forward: O = softmax(Q K^T / sqrt(D)) V per (batch*head),
// with the online softmax (running row max m and row sum l), bf16 Q, K, V
// and O, f32 statistics and accumulator.
//
// Q, K, V, O are [B*H, S, D] with S symbolic. One program computes a block
// of 128 queries of one (batch, head). The producer warpgroup copies the
// query block by TMA into a slot of its own (complete on q_full), which the
// consumer's wgmma reads in place at every key step. K and V blocks of 64
// keys stream through 2-slot shared ring buffers: the producer issues TMA
// copies that complete on full[j mod 2]; the consumer warpgroup waits,
// computes the scores with wgmma, updates the softmax and accumulates P V,
// then releases the slot on empty[j mod 2].
//
// %causal selects the causal variant: query row r sees keys c <= r only, so
// the key loop stops after the diagonal block and masks inside it. Keys past
// S (ragged last block) are masked; query rows past S are clipped on store.
// @attention_fwd_d64 and @attention_fwd_d128 differ only in the head dim
// and the consumer's register budget. The lowering keeps the P V
// accumulator in registers across the key loop (rescaled in place), and
// the scores too where the budget covers both: d64 holds 64 + 64 f32 a
// thread in 240; d128 holds its 128 in 256, and its scores go through
// memory.

tile.kernel @attention_fwd_d64(%Q: memref<?x?x64xbf16> {tile.name = "Q"},
                               %K: memref<?x?x64xbf16> {tile.name = "K"},
                               %V: memref<?x?x64xbf16> {tile.name = "V"},
                               %O: memref<?x?x64xbf16> {tile.name = "O"},
                               %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tag.contract = @attention_fwd_d64_reference,
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 128, BH],
            shapes = [Q = [BH, S, 64], K = [BH, S, 64], V = [BH, S, 64], O = [BH, S, 64]],
            check = "attention">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pq = tile.program_id 0
  %pbh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x64xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  // Causal: the last key block that holds a key <= the last query row.
  %q_end = arith.muli %pq, %c128 : index
  %q_last = arith.addi %q_end, %c128 : index
  %diag_blocks = arith.ceildivui %q_last, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %k_ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %v_ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>

  // The query block, by TMA into a slot of its own that the consumer's
  // wgmma reads in place every key step.
  %q_ring = tile.alloc_shared : memref<1x128x64xbf16, #gpu.address_space<workgroup>>
  %q_full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.role "producer" warpgroups [0] {
    schedule.mbarrier.arrive_expect_tx %q_full[%c0], 16384 : !schedule.mbarrier<1>
    schedule.async tma arrive %q_full[%c0] : !schedule.mbarrier<1> {
      tile.copy %Q[%pbh, %pq, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
          : memref<?x?x64xbf16> -> memref<1x128x64xbf16, #gpu.address_space<workgroup>>
    }
  }
  schedule.role "consumer" warpgroups [1] {
    schedule.mbarrier.wait %q_full[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  %scale = arith.constant dense<0.125> : tensor<128x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x64xf32>
  %rows = tile.iota dim 0 : tensor<128x64xindex>
  %cols = tile.iota dim 1 : tensor<128x64xindex>
  %q_base = tensor.splat %q_end : tensor<128x64xindex>
  %q_pos = arith.addi %rows, %q_base : tensor<128x64xindex>
  %S_splat = tensor.splat %S : tensor<128x64xindex>
  %causal_splat = tensor.splat %causal : tensor<128x64xi1>
  %all_true = arith.constant dense<true> : tensor<128x64xi1>

  %res:3 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    %slot = arith.remui %j, %c2 : index
    %round = arith.divui %j, %c2 : index
    %parity = arith.remui %round, %c2 : index

    schedule.role "producer" warpgroups [0] regs 40 {
      %reuse = arith.cmpi uge, %j, %c2 : index
      scf.if %reuse {
        %prev_round = arith.subi %round, %c1 : index
        %prev_parity = arith.remui %prev_round, %c2 : index
        schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<2>, index
      }
      // A K and a V tile of 64 x D bf16 values.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 16384 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<2> {
        tile.copy %K[%pbh, %j, %c0] -> %k_ring[%slot] padding(0.0 : bf16)
            : memref<?x?x64xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
        tile.copy %V[%pbh, %j, %c0] -> %v_ring[%slot] padding(0.0 : bf16)
            : memref<?x?x64xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
      }
    }

    %next:3 = schedule.role "consumer" warpgroups [1] regs 240 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      %q = tile.read %q_ring[%c0]
          : memref<1x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
      %k = tile.read %k_ring[%slot]
          : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %v = tile.read %v_ring[%slot]
          : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      // The V block must be the K block just used for the scores, of the
      // same (batch, head) as the queries.
      %kj = tag.field %k["K", 1] : tensor<64x64xbf16>
      %vj = tag.field %v["V", 1] : tensor<64x64xbf16>
      tag.assert eq %kj, %vj, "V block matches the K block" : index
      tag.assert_carries %k, "K"(%pbh, %j, %c0), "K block j of this head" : tensor<64x64xbf16>
      // Causal: no key block starts after the last query row.
      %kv_start = arith.muli %kj, %c64 : index
      %in_range = arith.select %causal, %q_last, %S : index
      tag.assert_range %kv_start in [%c0, %in_range), "key block starts before the bound" : index

      %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %s_raw = schedule.async wgmma {
        %r = tile.dot %q, %kt, %zero_s
            : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        schedule.yield %r : tensor<128x64xf32>
      } : tensor<128x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      %s_scaled = arith.mulf %s_raw, %scale : tensor<128x64xf32>

      // Mask keys past S, and keys after the query row when causal.
      %k_base = arith.muli %j, %c64 : index
      %k_base_splat = tensor.splat %k_base : tensor<128x64xindex>
      %k_pos = arith.addi %cols, %k_base_splat : tensor<128x64xindex>
      %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<128x64xindex>
      %after = arith.cmpi ugt, %k_pos, %q_pos : tensor<128x64xindex>
      %hidden = arith.andi %after, %causal_splat : tensor<128x64xi1>
      %shown = arith.xori %hidden, %all_true : tensor<128x64xi1>
      %keep = arith.andi %in_seq, %shown : tensor<128x64xi1>
      %s = arith.select %keep, %s_scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>

      // Online softmax.
      %row_max = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
      %m_new = arith.maximumf %m, %row_max : tensor<128xf32>
      %m_b = tile.broadcast %m_new dims [1] : tensor<128xf32> -> tensor<128x64xf32>
      %shifted = arith.subf %s, %m_b : tensor<128x64xf32>
      %p = math.exp %shifted : tensor<128x64xf32>
      %m_diff = arith.subf %m, %m_new : tensor<128xf32>
      %alpha = math.exp %m_diff : tensor<128xf32>
      %l_scaled = arith.mulf %l, %alpha : tensor<128xf32>
      %p_sum = tile.reduce sum %p axis 1 : tensor<128x64xf32> -> tensor<128xf32>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<128xf32>
      %alpha_b = tile.broadcast %alpha dims [1] : tensor<128xf32> -> tensor<128x64xf32>
      %acc_scaled = arith.mulf %acc, %alpha_b : tensor<128x64xf32>
      %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
      %pv = schedule.async wgmma {
        %r = tile.dot %p_bf16, %v, %acc_scaled
            : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
        schedule.yield %r : tensor<128x64xf32>
      } : tensor<128x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.yield %m_new, %l_new, %pv : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    } : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
    scf.yield %next#0, %next#1, %next#2 : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  }

  schedule.role "consumer" warpgroups [1] {
    %l_b = tile.broadcast %res#1 dims [1] : tensor<128xf32> -> tensor<128x64xf32>
    %out = arith.divf %res#2, %l_b : tensor<128x64xf32>
    %out_bf16 = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
    tile.store %out_bf16, %O[%pbh, %pq, %c0] : tensor<128x64xbf16> -> memref<?x?x64xbf16>
  }
  tile.return
}

tile.kernel @attention_fwd_d128(%Q: memref<?x?x128xbf16> {tile.name = "Q"},
                               %K: memref<?x?x128xbf16> {tile.name = "K"},
                               %V: memref<?x?x128xbf16> {tile.name = "V"},
                               %O: memref<?x?x128xbf16> {tile.name = "O"},
                               %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tag.contract = @attention_fwd_d128_reference,
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 128, BH],
            shapes = [Q = [BH, S, 128], K = [BH, S, 128], V = [BH, S, 128], O = [BH, S, 128]],
            check = "attention">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pq = tile.program_id 0
  %pbh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x128xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  // Causal: the last key block that holds a key <= the last query row.
  %q_end = arith.muli %pq, %c128 : index
  %q_last = arith.addi %q_end, %c128 : index
  %diag_blocks = arith.ceildivui %q_last, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %k_ring = tile.alloc_shared : memref<2x64x128xbf16, #gpu.address_space<workgroup>>
  %v_ring = tile.alloc_shared : memref<2x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>

  // The query block, by TMA into a slot of its own that the consumer's
  // wgmma reads in place every key step.
  %q_ring = tile.alloc_shared : memref<1x128x128xbf16, #gpu.address_space<workgroup>>
  %q_full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.role "producer" warpgroups [0] {
    schedule.mbarrier.arrive_expect_tx %q_full[%c0], 32768 : !schedule.mbarrier<1>
    schedule.async tma arrive %q_full[%c0] : !schedule.mbarrier<1> {
      tile.copy %Q[%pbh, %pq, %c0] -> %q_ring[%c0] padding(0.0 : bf16)
          : memref<?x?x128xbf16> -> memref<1x128x128xbf16, #gpu.address_space<workgroup>>
    }
  }
  schedule.role "consumer" warpgroups [1] {
    schedule.mbarrier.wait %q_full[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  %scale = arith.constant dense<0.08838834764831843> : tensor<128x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x64xf32>
  %rows = tile.iota dim 0 : tensor<128x64xindex>
  %cols = tile.iota dim 1 : tensor<128x64xindex>
  %q_base = tensor.splat %q_end : tensor<128x64xindex>
  %q_pos = arith.addi %rows, %q_base : tensor<128x64xindex>
  %S_splat = tensor.splat %S : tensor<128x64xindex>
  %causal_splat = tensor.splat %causal : tensor<128x64xi1>
  %all_true = arith.constant dense<true> : tensor<128x64xi1>

  %res:3 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
    %slot = arith.remui %j, %c2 : index
    %round = arith.divui %j, %c2 : index
    %parity = arith.remui %round, %c2 : index

    schedule.role "producer" warpgroups [0] regs 40 {
      %reuse = arith.cmpi uge, %j, %c2 : index
      scf.if %reuse {
        %prev_round = arith.subi %round, %c1 : index
        %prev_parity = arith.remui %prev_round, %c2 : index
        schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<2>, index
      }
      // A K and a V tile of 64 x D bf16 values.
      schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<2> {
        tile.copy %K[%pbh, %j, %c0] -> %k_ring[%slot] padding(0.0 : bf16)
            : memref<?x?x128xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
        tile.copy %V[%pbh, %j, %c0] -> %v_ring[%slot] padding(0.0 : bf16)
            : memref<?x?x128xbf16> -> memref<2x64x128xbf16, #gpu.address_space<workgroup>>
      }
    }

    %next:3 = schedule.role "consumer" warpgroups [1] regs 256 {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      %q = tile.read %q_ring[%c0]
          : memref<1x128x128xbf16, #gpu.address_space<workgroup>> -> tensor<128x128xbf16>
      %k = tile.read %k_ring[%slot]
          : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      %v = tile.read %v_ring[%slot]
          : memref<2x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
      // The V block must be the K block just used for the scores, of the
      // same (batch, head) as the queries.
      %kj = tag.field %k["K", 1] : tensor<64x128xbf16>
      %vj = tag.field %v["V", 1] : tensor<64x128xbf16>
      tag.assert eq %kj, %vj, "V block matches the K block" : index
      tag.assert_carries %k, "K"(%pbh, %j, %c0), "K block j of this head" : tensor<64x128xbf16>
      // Causal: no key block starts after the last query row.
      %kv_start = arith.muli %kj, %c64 : index
      %in_range = arith.select %causal, %q_last, %S : index
      tag.assert_range %kv_start in [%c0, %in_range), "key block starts before the bound" : index

      %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
      %s_raw = schedule.async wgmma {
        %r = tile.dot %q, %kt, %zero_s
            : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
        schedule.yield %r : tensor<128x64xf32>
      } : tensor<128x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      %s_scaled = arith.mulf %s_raw, %scale : tensor<128x64xf32>

      // Mask keys past S, and keys after the query row when causal.
      %k_base = arith.muli %j, %c64 : index
      %k_base_splat = tensor.splat %k_base : tensor<128x64xindex>
      %k_pos = arith.addi %cols, %k_base_splat : tensor<128x64xindex>
      %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<128x64xindex>
      %after = arith.cmpi ugt, %k_pos, %q_pos : tensor<128x64xindex>
      %hidden = arith.andi %after, %causal_splat : tensor<128x64xi1>
      %shown = arith.xori %hidden, %all_true : tensor<128x64xi1>
      %keep = arith.andi %in_seq, %shown : tensor<128x64xi1>
      %s = arith.select %keep, %s_scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>

      // Online softmax.
      %row_max = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
      %m_new = arith.maximumf %m, %row_max : tensor<128xf32>
      %m_b = tile.broadcast %m_new dims [1] : tensor<128xf32> -> tensor<128x64xf32>
      %shifted = arith.subf %s, %m_b : tensor<128x64xf32>
      %p = math.exp %shifted : tensor<128x64xf32>
      %m_diff = arith.subf %m, %m_new : tensor<128xf32>
      %alpha = math.exp %m_diff : tensor<128xf32>
      %l_scaled = arith.mulf %l, %alpha : tensor<128xf32>
      %p_sum = tile.reduce sum %p axis 1 : tensor<128x64xf32> -> tensor<128xf32>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<128xf32>
      %alpha_b = tile.broadcast %alpha dims [1] : tensor<128xf32> -> tensor<128x128xf32>
      %acc_scaled = arith.mulf %acc, %alpha_b : tensor<128x128xf32>
      %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
      %pv = schedule.async wgmma {
        %r = tile.dot %p_bf16, %v, %acc_scaled
            : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
        schedule.yield %r : tensor<128x128xf32>
      } : tensor<128x128xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.yield %m_new, %l_new, %pv : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
    } : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
    scf.yield %next#0, %next#1, %next#2 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }

  schedule.role "consumer" warpgroups [1] {
    %l_b = tile.broadcast %res#1 dims [1] : tensor<128xf32> -> tensor<128x128xf32>
    %out = arith.divf %res#2, %l_b : tensor<128x128xf32>
    %out_bf16 = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.store %out_bf16, %O[%pbh, %pq, %c0] : tensor<128x128xbf16> -> memref<?x?x128xbf16>
  }
  tile.return
}

// The contract of @attention_fwd_d64: the same online softmax over the key
// blocks, as a plain kernel: for query block q of head bh, key blocks
// j < kv_end (the diagonal block when causal), keys masked past S and, when
// causal, after the query.
tile.kernel @attention_fwd_d64_reference(%Q: memref<?x?x64xbf16> {tile.name = "Q"},
                                        %K: memref<?x?x64xbf16> {tile.name = "K"},
                                        %V: memref<?x?x64xbf16> {tile.name = "V"},
                                        %O: memref<?x?x64xbf16> {tile.name = "O"},
                                        %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 128, BH],
            shapes = [Q = [BH, S, 64], K = [BH, S, 64], V = [BH, S, 64], O = [BH, S, 64]],
            check = "attention">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %qb = tile.program_id 0
  %bh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x64xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  %q_first = arith.muli %qb, %c128 : index
  %q_end = arith.addi %q_first, %c128 : index
  %diag_blocks = arith.ceildivui %q_end, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %q = tile.load %Q[%bh, %qb, %c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> tensor<128x64xbf16>
  %scale = arith.constant dense<0.125> : tensor<128x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x64xf32>
  %rows = tile.iota dim 0 : tensor<128x64xindex>
  %cols = tile.iota dim 1 : tensor<128x64xindex>
  %q_base = tensor.splat %q_first : tensor<128x64xindex>
  %q_pos = arith.addi %rows, %q_base : tensor<128x64xindex>
  %S_splat = tensor.splat %S : tensor<128x64xindex>
  %causal_splat = tensor.splat %causal : tensor<128x64xi1>

  %res:3 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    %k = tile.load %K[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> tensor<64x64xbf16>
    %v = tile.load %V[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x64xbf16> -> tensor<64x64xbf16>
    %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s_raw = tile.dot %q, %kt, %zero_s : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s_raw, %scale : tensor<128x64xf32>
    // Keep key c of query r when c < S and, if causal, c <= r.
    %k_first = arith.muli %j, %c64 : index
    %k_base = tensor.splat %k_first : tensor<128x64xindex>
    %k_pos = arith.addi %cols, %k_base : tensor<128x64xindex>
    %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<128x64xindex>
    %seen = arith.cmpi ule, %k_pos, %q_pos : tensor<128x64xindex>
    %visible = arith.select %causal_splat, %seen, %in_seq : tensor<128x64xi1>, tensor<128x64xi1>
    %keep = arith.andi %in_seq, %visible : tensor<128x64xi1>
    %s = arith.select %keep, %s_scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>
    %row_max = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m, %row_max : tensor<128xf32>
    %m_b = tile.broadcast %m_new dims [1] : tensor<128xf32> -> tensor<128x64xf32>
    %shifted = arith.subf %s, %m_b : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_scaled = arith.mulf %l, %alpha : tensor<128xf32>
    %p_sum = tile.reduce sum %p axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_new = arith.addf %l_scaled, %p_sum : tensor<128xf32>
    %alpha_b = tile.broadcast %alpha dims [1] : tensor<128xf32> -> tensor<128x64xf32>
    %acc_scaled = arith.mulf %acc, %alpha_b : tensor<128x64xf32>
    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %pv = tile.dot %p_bf16, %v, %acc_scaled : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %m_new, %l_new, %pv : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  }
  %l_b = tile.broadcast %res#1 dims [1] : tensor<128xf32> -> tensor<128x64xf32>
  %out = arith.divf %res#2, %l_b : tensor<128x64xf32>
  %out_bf16 = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
  tile.store %out_bf16, %O[%bh, %qb, %c0] : tensor<128x64xbf16> -> memref<?x?x64xbf16>
  tile.return
}

// The contract of @attention_fwd_d128: the same online softmax over the key
// blocks, as a plain kernel: for query block q of head bh, key blocks
// j < kv_end (the diagonal block when causal), keys masked past S and, when
// causal, after the query.
tile.kernel @attention_fwd_d128_reference(%Q: memref<?x?x128xbf16> {tile.name = "Q"},
                                        %K: memref<?x?x128xbf16> {tile.name = "K"},
                                        %V: memref<?x?x128xbf16> {tile.name = "V"},
                                        %O: memref<?x?x128xbf16> {tile.name = "O"},
                                        %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [BH = 2, S = 320], grid = [S ceildiv 128, BH],
            shapes = [Q = [BH, S, 128], K = [BH, S, 128], V = [BH, S, 128], O = [BH, S, 128]],
            check = "attention">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %qb = tile.program_id 0
  %bh = tile.program_id 1
  %S = memref.dim %K, %c1 : memref<?x?x128xbf16>
  %kv_blocks = arith.ceildivui %S, %c64 : index
  %q_first = arith.muli %qb, %c128 : index
  %q_end = arith.addi %q_first, %c128 : index
  %diag_blocks = arith.ceildivui %q_end, %c64 : index
  %causal_blocks = arith.minui %diag_blocks, %kv_blocks : index
  %kv_end = arith.select %causal, %causal_blocks, %kv_blocks : index

  %q = tile.load %Q[%bh, %qb, %c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> tensor<128x128xbf16>
  %scale = arith.constant dense<0.08838834764831843> : tensor<128x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %acc0 = arith.constant dense<0.0> : tensor<128x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x64xf32>
  %rows = tile.iota dim 0 : tensor<128x64xindex>
  %cols = tile.iota dim 1 : tensor<128x64xindex>
  %q_base = tensor.splat %q_first : tensor<128x64xindex>
  %q_pos = arith.addi %rows, %q_base : tensor<128x64xindex>
  %S_splat = tensor.splat %S : tensor<128x64xindex>
  %causal_splat = tensor.splat %causal : tensor<128x64xi1>

  %res:3 = scf.for %j = %c0 to %kv_end step %c1
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
    %k = tile.load %K[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> tensor<64x128xbf16>
    %v = tile.load %V[%bh, %j, %c0] padding(0.0 : bf16) : memref<?x?x128xbf16> -> tensor<64x128xbf16>
    %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
    %s_raw = tile.dot %q, %kt, %zero_s : tensor<128x128xbf16>, tensor<128x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s_raw, %scale : tensor<128x64xf32>
    // Keep key c of query r when c < S and, if causal, c <= r.
    %k_first = arith.muli %j, %c64 : index
    %k_base = tensor.splat %k_first : tensor<128x64xindex>
    %k_pos = arith.addi %cols, %k_base : tensor<128x64xindex>
    %in_seq = arith.cmpi ult, %k_pos, %S_splat : tensor<128x64xindex>
    %seen = arith.cmpi ule, %k_pos, %q_pos : tensor<128x64xindex>
    %visible = arith.select %causal_splat, %seen, %in_seq : tensor<128x64xi1>, tensor<128x64xi1>
    %keep = arith.andi %in_seq, %visible : tensor<128x64xi1>
    %s = arith.select %keep, %s_scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>
    %row_max = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m, %row_max : tensor<128xf32>
    %m_b = tile.broadcast %m_new dims [1] : tensor<128xf32> -> tensor<128x64xf32>
    %shifted = arith.subf %s, %m_b : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_scaled = arith.mulf %l, %alpha : tensor<128xf32>
    %p_sum = tile.reduce sum %p axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_new = arith.addf %l_scaled, %p_sum : tensor<128xf32>
    %alpha_b = tile.broadcast %alpha dims [1] : tensor<128xf32> -> tensor<128x128xf32>
    %acc_scaled = arith.mulf %acc, %alpha_b : tensor<128x128xf32>
    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %pv = tile.dot %p_bf16, %v, %acc_scaled : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %m_new, %l_new, %pv : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %l_b = tile.broadcast %res#1 dims [1] : tensor<128xf32> -> tensor<128x128xf32>
  %out = arith.divf %res#2, %l_b : tensor<128x128xf32>
  %out_bf16 = arith.truncf %out : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out_bf16, %O[%bh, %qb, %c0] : tensor<128x128xbf16> -> memref<?x?x128xbf16>
  tile.return
}
