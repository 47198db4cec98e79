// The same K loop twice, with A loaded once before it. In @hoisted the dot
// reads A as it is, and the Hopper lowering stages it into shared memory
// once, before the loop; in @restaged the loop carries A (unchanged), so it
// is staged at every dot. The exponentials make the loop bound by the CUDA
// cores, where the staging's stores show.
tile.kernel @hoisted(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                     %C: memref<?x?xf32> {tile.name = "C"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [M = 67584, N = 128, K = 4096],
            grid = [M ceildiv 128], shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %K = memref.dim %B, %c0 : memref<?x?xbf16>
  %steps = arith.ceildivui %K, %c64 : index
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) {
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %e = math.exp %d : tensor<128x128xf32>
    %f = math.exp %e : tensor<128x128xf32>
    scf.yield %f : tensor<128x128xf32>
  }
  tile.store %r, %C[%pm, %c0] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

tile.kernel @restaged(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                      %C: memref<?x?xf32> {tile.name = "C"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [M = 67584, N = 128, K = 4096],
            grid = [M ceildiv 128], shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %K = memref.dim %B, %c0 : memref<?x?xbf16>
  %steps = arith.ceildivui %K, %c64 : index
  %a0 = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %r:2 = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %z, %a = %a0)
      -> (tensor<128x128xf32>, tensor<128x64xbf16>) {
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %e = math.exp %d : tensor<128x128xf32>
    %f = math.exp %e : tensor<128x128xf32>
    scf.yield %f, %a : tensor<128x128xf32>, tensor<128x64xbf16>
  }
  tile.store %r#0, %C[%pm, %c0] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
