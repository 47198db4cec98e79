// The same GEMM twice, the K loop contracting 64 deep per dot in @on_mma
// and 16 deep in @elementwise. Hopper's wgmma contracts whole 128-byte
// panels (64 bf16), so the lowering computes @elementwise's dots element by
// element on the SIMT cores (its report-fallbacks remark says so): the
// estimate charges them there, not as tensor-core work.
tile.kernel @on_mma(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
    %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 4096, N = 4096, K = 4096],
            grid = [M ceildiv 128, N ceildiv 128], shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %steps = arith.ceildivui %K, %c64 : index
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

tile.kernel @elementwise(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
    %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 4096, N = 4096, K = 4096],
            grid = [M ceildiv 128, N ceildiv 128], shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %steps = arith.ceildivui %K, %c16 : index
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x16xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<16x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x16xbf16>, tensor<16x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
