// Four epilogues of a 128x128 f32 tile after a short dot (K = 64: one wgmma
// group; its loaded operands pass through the lowering's workspace), where
// the store is most of the work: the accumulator stored from registers,
// each lane's column pair as one vector store (its lanes cover 8 rows per
// instruction); the same accumulator added by atomics, one element per lane
// and instruction; a loaded tile stored from registers (consecutive lanes,
// consecutive elements); and the accumulator written to shared memory and
// stored by TMA (whole lines).
tile.kernel @acc_regs(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                      %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 8192, N = 8192], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %B[%c0, %pn] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

tile.kernel @acc_add(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                     %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 8192, N = 8192], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %B[%c0, %pn] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %C[%pm, %pn] combine add : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

tile.kernel @copy_scalar(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 8192, N = 8192], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [X = [M, N], C = [M, N]]>} {
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %x = tile.load %X[%pm, %pn] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128x128xf32>
  tile.store %x, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

tile.kernel @acc_tma(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                     %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 8192, N = 8192], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %B[%c0, %pn] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %epi = tile.alloc_shared : memref<1x128x128xf32, #gpu.address_space<workgroup>>
  tile.write %d, %epi[%c0] : tensor<128x128xf32> -> memref<1x128x128xf32, #gpu.address_space<workgroup>>
  schedule.fence_async_proxy
  schedule.async tma {
    tile.copy %epi[%c0] -> %C[%pm, %pn] : memref<1x128x128xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0
  tile.return
}
