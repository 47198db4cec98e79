// One persistent GEMM, its 128x128 output tiles taken in two orders: row by
// row (@rows), and in groups of 8 tile rows, column by column within a
// group (@grouped, the rasterization CUTLASS calls a swizzle). At
// 8192^3, 132 programs running row by row read all 64 column blocks of B
// (128 MiB, more than L2) for each round of tiles; in groups, a round
// reads 8 row blocks of A and about 17 column blocks of B.
tile.kernel @rows(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320, P = 4], grid = [P],
                                   shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid = tile.program_id 0
  %P = tile.num_programs 0
  %M = memref.dim %A, %c0 : memref<?x?xbf16>
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %N = memref.dim %B, %c1 : memref<?x?xbf16>
  %mt = arith.ceildivui %M, %c128 : index
  %nt = arith.ceildivui %N, %c128 : index
  %tiles = arith.muli %mt, %nt : index
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %pid to %tiles step %P {
    %i = arith.divui %t, %nt : index
    %j = arith.remui %t, %nt : index
    %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
      %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
      %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
      %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  }
  tile.return
}

tile.kernel @grouped(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                     %C: memref<?x?xf32> {tile.name = "C"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320, P = 4], grid = [P],
                                   shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid = tile.program_id 0
  %P = tile.num_programs 0
  %M = memref.dim %A, %c0 : memref<?x?xbf16>
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %N = memref.dim %B, %c1 : memref<?x?xbf16>
  %mt = arith.ceildivui %M, %c128 : index
  %nt = arith.ceildivui %N, %c128 : index
  %tiles = arith.muli %mt, %nt : index
  %per_group = arith.muli %nt, %c8 : index
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %pid to %tiles step %P {
    %group = arith.divui %t, %per_group : index
    %first = arith.muli %group, %c8 : index
    %left = arith.subi %mt, %first : index
    %rows = arith.minui %left, %c8 : index
    %within = arith.remui %t, %per_group : index
    %r = arith.remui %within, %rows : index
    %i = arith.addi %first, %r : index
    %j = arith.divui %within, %rows : index
    %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
      %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
      %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
      %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  }
  tile.return
}
