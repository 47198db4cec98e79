// GEMM: C[M, N] = A[M, K] * B[K, N], bf16 inputs, f32 accumulation and
// output, as a kernel engineer writes a first, correct version: one program
// per 128x128 tile of C, a sequential K loop of tile loads and dots, one
// store. No shared memory, no schedule. The transform scripts in
// examples/scripts/ rewrite @gemm into the pipelined, warp-specialized
// kernels of examples/gemm.mlir and examples/gemm_wide.mlir; the contract
// (@gemm_reference, a copy of the plain kernel) stays, and the checkers
// prove every rewrite against it.

tile.kernel @gemm(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_reference,
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

// The contract of @gemm.
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
