// What @exchange of Verification/schedule/cluster.mlir computes: every block
// of X and Y is 1 (each program reads a block its cluster neighbour wrote).
tile.kernel @exchange(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [(N ceildiv 256) * 2], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %v = arith.constant dense<1.0> : tensor<128xf32>
  tile.store %v, %X[%p] : tensor<128xf32> -> memref<?xf32>
  tile.store %v, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
