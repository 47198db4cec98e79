// GEMM with an epilogue: D = max(A * B + bias, 0), bias broadcast over the
// rows, as a kernel engineer writes it first: the plain GEMM stores A * B to
// a workspace T, and a second kernel, launched after it (`then`), adds the
// bias and clamps, block by block. The contract (@gemm_bias_relu_reference)
// computes D from A, B and bias in one kernel; it is the launch chain's (its
// operands are the chain's inputs and output, T is a workspace): the checker
// matches the value the GEMM stored to T where the epilogue reads it.
// examples/scripts/gemm_bias_relu.mlir fuses the epilogue into the GEMM's
// store and pipelines the result.

tile.kernel @gemm_bias_relu(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %T: memref<?x?xf32> {tile.name = "T"})
    grid(2) attributes {
        tag.contract = @gemm_bias_relu_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], T = [M, N]], check = "gemm_bias_relu", then = [@bias_relu]>} {
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
  tile.store %sum, %T[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

tile.kernel @bias_relu(%T: memref<?x?xf32> {tile.name = "T"}, %bias: memref<?xf32> {tile.name = "bias"},
                       %D: memref<?x?xf32> {tile.name = "D"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [T = [M, N], bias = [N], D = [M, N]]>} {
  %i = tile.program_id 0
  %j = tile.program_id 1
  %t = tile.load %T[%i, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128x128xf32>
  %bv = tile.load %bias[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  %bb = tile.broadcast %bv dims [0] : tensor<128xf32> -> tensor<128x128xf32>
  %s = arith.addf %t, %bb : tensor<128x128xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = arith.maximumf %s, %z : tensor<128x128xf32>
  tile.store %r, %D[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// The contract of the chain.
tile.kernel @gemm_bias_relu_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %bias: memref<?xf32> {tile.name = "bias"}, %D: memref<?x?xf32> {tile.name = "D"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], bias = [N], D = [M, N]], check = "gemm_bias_relu">} {
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
  %bv = tile.load %bias[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  %bb = tile.broadcast %bv dims [0] : tensor<128xf32> -> tensor<128x128xf32>
  %s = arith.addf %sum, %bb : tensor<128x128xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = arith.maximumf %s, %z : tensor<128x128xf32>
  tile.store %r, %D[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
