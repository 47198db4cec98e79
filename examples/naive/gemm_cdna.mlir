// GEMM: C[M, N] = A[M, K] * B[K, N], bf16 inputs, f32 accumulation and
// output: the plain first version of examples/naive/gemm.mlir with 64x64
// output tiles, written for an AMD CDNA workgroup: it lowers to MFMA as it
// is (the hand-written MFMA baseline that `tiletag-agent
// examples/naive/gemm.mlir --target gfx942` must beat, test/Agent/gfx942.test),
// and examples/scripts/gemm.mlir's pipeline stages its 64x64 A and B tiles
// in 16 KiB slots, 2 or 3 of which fit in 64 KiB of LDS. The contract
// (@gemm_reference) is this plain kernel, and every candidate is proved
// against it.

tile.kernel @gemm(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 64, N ceildiv 64],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// The contract of @gemm.
tile.kernel @gemm_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 64, N ceildiv 64],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
