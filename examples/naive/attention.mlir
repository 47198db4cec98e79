// Flash attention forward, plain: O = softmax(Q K^T / sqrt(D)) V per
// (batch*head) with the online softmax, one program per block of 128 queries,
// a sequential loop over key blocks of 64, keys masked past S and, when
// %causal is set, after the query row. Head dims 64 and 128. No shared
// memory, no schedule; each kernel's contract is its plain copy.

tile.kernel @attention_fwd_d64(%Q: memref<?x?x64xbf16> {tile.name = "Q"},
                              %K: memref<?x?x64xbf16> {tile.name = "K"},
                              %V: memref<?x?x64xbf16> {tile.name = "V"},
                              %O: memref<?x?x64xbf16> {tile.name = "O"},
                              %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tag.contract = @attention_fwd_d64_reference,
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

tile.kernel @attention_fwd_d128(%Q: memref<?x?x128xbf16> {tile.name = "Q"},
                                        %K: memref<?x?x128xbf16> {tile.name = "K"},
                                        %V: memref<?x?x128xbf16> {tile.name = "V"},
                                        %O: memref<?x?x128xbf16> {tile.name = "O"},
                                        %causal: i1 {tile.name = "causal"})
    grid(2) attributes {
        tag.contract = @attention_fwd_d128_reference,
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

// The contract of @attention_fwd_d64.
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

// The contract of @attention_fwd_d128.
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
