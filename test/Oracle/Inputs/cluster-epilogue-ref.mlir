// What @cluster_epilogue of Verification/schedule/cluster-epilogue.mlir
// computes: Y[r, p] = X[r, p] + X[r, p ^ 1], and W holds each program's
// part of the last round.
tile.kernel @cluster_epilogue(%X: memref<?x?xf32> {tile.name = "X"}, %W: memref<?x?xf32> {tile.name = "W"},
                              %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 3, N = 512, T = 1], grid = [(N ceildiv 256) * 2],
                               shapes = [X = [R, N], W = [T, N], Y = [R, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %partner = arith.xori %p, %c1 : index
  %R = memref.dim %X, %c0 : memref<?x?xf32>
  scf.for %r = %c0 to %R step %c1 {
    %part = tile.load %X[%r, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<1x128xf32>
    %other = tile.load %X[%r, %partner] padding(0.0 : f32) : memref<?x?xf32> -> tensor<1x128xf32>
    %sum = arith.addf %part, %other : tensor<1x128xf32>
    tile.store %sum, %Y[%r, %p] : tensor<1x128xf32> -> memref<?x?xf32>
    tile.store %part, %W[%c0, %p] : tensor<1x128xf32> -> memref<?x?xf32>
  }
  tile.return
}
