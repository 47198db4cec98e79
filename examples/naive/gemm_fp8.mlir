// GEMM with fp8 inputs: C[M, N] = A[M, K] * B[K, N], A and B in
// f8E4M3FNUZ (the e4m3 encoding CDNA3's MFMA multiplies: no infinities, one
// NaN), f32 accumulation and output. The same plain kernel as gemm.mlir:
// one program per 128x128 tile of C, a sequential K loop of 64-deep tile
// loads and dots, one store. On gfx942 its dots run on
// v_mfma_f32_32x32x16_fp8_fp8 (twice the bf16 rate); gfx90a and Hopper,
// whose lowerings have no fp8 matrix multiply, widen each element to f32
// and multiply on the vector lanes. examples/scripts/cdna/gemm.mlir
// pipelines it as it does the bf16 GEMM (docs/Lowering.md, "fp8").

tile.kernel @gemm(%A: memref<?x?xf8E4M3FNUZ> {tile.name = "A"}, %B: memref<?x?xf8E4M3FNUZ> {tile.name = "B"},
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
  %K = memref.dim %A, %c1 : memref<?x?xf8E4M3FNUZ>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : f8E4M3FNUZ) : memref<?x?xf8E4M3FNUZ> -> tensor<128x64xf8E4M3FNUZ>
    %b = tile.load %B[%k, %j] padding(0.0 : f8E4M3FNUZ) : memref<?x?xf8E4M3FNUZ> -> tensor<64x128xf8E4M3FNUZ>
    %d = tile.dot %a, %b, %acc : tensor<128x64xf8E4M3FNUZ>, tensor<64x128xf8E4M3FNUZ> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// The contract of @gemm.
tile.kernel @gemm_reference(%A: memref<?x?xf8E4M3FNUZ> {tile.name = "A"}, %B: memref<?x?xf8E4M3FNUZ> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xf8E4M3FNUZ>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : f8E4M3FNUZ) : memref<?x?xf8E4M3FNUZ> -> tensor<128x64xf8E4M3FNUZ>
    %b = tile.load %B[%k, %j] padding(0.0 : f8E4M3FNUZ) : memref<?x?xf8E4M3FNUZ> -> tensor<64x128xf8E4M3FNUZ>
    %d = tile.dot %a, %b, %acc : tensor<128x64xf8E4M3FNUZ>, tensor<64x128xf8E4M3FNUZ> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
