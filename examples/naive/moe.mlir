// Mixture-of-experts grouped GEMM, plain: Y[t, :] = gate[t] * (X[t, :] *
// W[e(t)]) over tokens sorted by expert (rows [offsets[e], offsets[e + 1])),
// one program per (expert, row block, column block), a sequential K loop.
// No shared memory, no schedule; the contract is its plain copy.

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

// The contract of @moe_grouped_gemm.
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
