// Mixture-of-experts grouped GEMM: Y[t, :] = gate[t] * (X[t, :] * W[e(t)]).
//
// Tokens are routed top-k and then sorted by expert, so X [T, H] holds the
// routed token rows (T = tokens * top-k) grouped by expert: expert e owns
// rows [offsets[e], offsets[e + 1]). W [E, H, F] holds one weight matrix per
// expert, gate [T] the routing weight of each row. Grid: (expert, row block
// within the expert, column block). A program whose row block starts past
// its expert's rows does nothing; the last row block of an expert is ragged
// and is clipped to the expert's rows, never spilling into the next expert.
// The offsets are promised sorted (tile.nondecreasing): the checkers assume
// it, and tiletag-run refuses inputs that break it.

tile.kernel @moe_grouped_gemm(%X: memref<?x?xbf16> {tile.name = "X"},
                              %W: memref<?x?x?xbf16> {tile.name = "W"},
                              %offsets: memref<?xi32> {tile.name = "offsets", tile.nondecreasing},
                              %gate: memref<?xf32> {tile.name = "gate"},
                              %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(3) attributes {
        tag.contract = @moe_reference,
        tile.launch = #tile.launch<sizes = [T = 300, H = 192, F = 256, E = 4],
            grid = [E, T ceildiv 64, F ceildiv 128],
            shapes = [X = [T, H], W = [E, H, F], offsets = [E + 1], gate = [T], Y = [T, F]],
            check = "moe">,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pe = tile.program_id 0
  %pm = tile.program_id 1
  %pn = tile.program_id 2
  %H = memref.dim %X, %c1 : memref<?x?xbf16>
  %F = memref.dim %Y, %c1 : memref<?x?xf32>
  %pe1 = arith.addi %pe, %c1 : index
  %row0_i32 = memref.load %offsets[%pe] : memref<?xi32>
  %row1_i32 = memref.load %offsets[%pe1] : memref<?xi32>
  // The routing table is data: clamp it to the token rows so that no
  // offsets array can send a tile past X, gate or Y.
  %T = memref.dim %X, %c0 : memref<?x?xbf16>
  %row0_raw = arith.index_cast %row0_i32 : i32 to index
  %row1_raw = arith.index_cast %row1_i32 : i32 to index
  %row1 = arith.minui %row1_raw, %T : index
  %row0 = arith.minui %row0_raw, %row1 : index
  %rows = arith.subi %row1, %row0 : index
  %first = arith.muli %pm, %c64 : index
  %active = arith.cmpi ult, %first, %rows : index
  scf.if %active {
    %kblocks = arith.ceildivui %H, %c64 : index
    %zero = arith.constant dense<0.0> : tensor<64x128xf32>
    %acc = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc_k = %zero) -> (tensor<64x128xf32>) {
      %x = tile.load %X[%pm, %k] offset [%row0, %c0] bounds [%row1, %H] padding(0.0 : bf16)
          : memref<?x?xbf16> -> tensor<64x64xbf16>
      %x_e = tag.attach %x as "Expert"(%pe) : tensor<64x64xbf16>
      %w = tile.load %W[%pe, %k, %pn] padding(0.0 : bf16)
          : memref<?x?x?xbf16> -> tensor<64x128xbf16>
      // The weights must be those of the tokens' expert, at the same K block.
      %ex = tag.field %x_e["Expert", 0] : tensor<64x64xbf16>
      %ew = tag.field %w["W", 0] : tensor<64x128xbf16>
      tag.assert eq %ex, %ew, "tokens meet their own expert's weights" : index
      %kx = tag.field %x_e["X", 1] : tensor<64x64xbf16>
      %kw = tag.field %w["W", 1] : tensor<64x128xbf16>
      tag.assert eq %kx, %kw, "X and W tiles come from the same K block" : index
      %d = schedule.async wgmma {
        %r = tile.dot %x_e, %w, %acc_k
            : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
        schedule.yield %r : tensor<64x128xf32>
      } : tensor<64x128xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      scf.yield %d : tensor<64x128xf32>
    }
    %g = tile.load %gate[%pm] offset [%row0] bounds [%row1] padding(0.0 : f32)
        : memref<?xf32> -> tensor<64xf32>
    %g_b = tile.broadcast %g dims [1] : tensor<64xf32> -> tensor<64x128xf32>
    %y = arith.mulf %acc, %g_b : tensor<64x128xf32>
    tile.store %y, %Y[%pm, %pn] offset [%row0, %c0] bounds [%row1, %F]
        : tensor<64x128xf32> -> memref<?x?xf32>
  }
  tile.return
}

// The contract: for expert e, row block m and column block n, the rows
// [offsets[e], offsets[e + 1]) clamped to T, in blocks of 64, times the
// expert's weights over every K block, scaled by the gate of each row.
tile.kernel @moe_reference(%X: memref<?x?xbf16> {tile.name = "X"},
                           %W: memref<?x?x?xbf16> {tile.name = "W"},
                           %offsets: memref<?xi32> {tile.name = "offsets", tile.nondecreasing},
                           %gate: memref<?xf32> {tile.name = "gate"},
                           %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(3) attributes {
        tile.launch = #tile.launch<sizes = [T = 300, H = 192, F = 256, E = 4],
            grid = [E, T ceildiv 64, F ceildiv 128],
            shapes = [X = [T, H], W = [E, H, F], offsets = [E + 1], gate = [T], Y = [T, F]],
            check = "moe">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %e = tile.program_id 0
  %m = tile.program_id 1
  %n = tile.program_id 2
  %T = memref.dim %X, %c0 : memref<?x?xbf16>
  %H = memref.dim %X, %c1 : memref<?x?xbf16>
  %F = memref.dim %Y, %c1 : memref<?x?xf32>
  %e1 = arith.addi %e, %c1 : index
  %begin_i32 = memref.load %offsets[%e] : memref<?xi32>
  %end_i32 = memref.load %offsets[%e1] : memref<?xi32>
  %begin_raw = arith.index_cast %begin_i32 : i32 to index
  %end_raw = arith.index_cast %end_i32 : i32 to index
  %end = arith.minui %end_raw, %T : index
  %begin = arith.minui %begin_raw, %end : index
  %kblocks = arith.ceildivui %H, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32>) {
    %x = tile.load %X[%m, %k] offset [%begin, %c0] bounds [%end, %H] padding(0.0 : bf16)
        : memref<?x?xbf16> -> tensor<64x64xbf16>
    %w = tile.load %W[%e, %k, %n] padding(0.0 : bf16) : memref<?x?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %x, %w, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %g = tile.load %gate[%m] offset [%begin] bounds [%end] padding(0.0 : f32)
      : memref<?xf32> -> tensor<64xf32>
  %g_b = tile.broadcast %g dims [1] : tensor<64xf32> -> tensor<64x128xf32>
  %y = arith.mulf %sum, %g_b : tensor<64x128xf32>
  tile.store %y, %Y[%m, %n] offset [%begin, %c0] bounds [%end, %F]
      : tensor<64x128xf32> -> memref<?x?xf32>
  tile.return
}
