// Split-k GEMM workload (a long K): the plain GEMM, which a transform
// script splits over K (combining by `combine add` or by a reduction kernel).
// The contract is the plain GEMM: the split kernel must add up to it.

tile.kernel @gemm_splitk(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_splitk_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640], grid = [M ceildiv 128, N ceildiv 128],
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

// The contract of @gemm_splitk.
tile.kernel @gemm_splitk_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640], grid = [M ceildiv 128, N ceildiv 128],
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
