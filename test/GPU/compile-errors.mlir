// --device=cuda compiles before it looks for a GPU: a kernel that cannot be
// proved stops there, with the checker's diagnostic and exit status 2.
// RUN: not tiletag-run %s --device=cuda 2>&1 | FileCheck %s
// CHECK: error: assertion "the tile comes from block 1" does not hold
// CHECK: tiletag-run: error: --device=cuda: the kernels could not be proved or lowered (see above)

tile.kernel @wrong(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [N = 64], grid = [1], shapes = [X = [N, N], Y = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.load %X[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tag.assert_carries %t, "X"(%c1, %c0), "the tile comes from block 1" : tensor<64x64xf32>
  tile.store %t, %Y[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
