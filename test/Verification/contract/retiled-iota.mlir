// A tile.iota counts coordinates in the kernel's own tile: in a 256-element
// tile the second 128-element window's coordinates run from 128, where the
// reference's run from 0. Masking the first 64 elements of each tile is
// another output in a tile twice as long; the checker compares the
// integers of each window element by element and names the difference.
// REQUIRES: z3
// RUN: not tiletag-opt --tiletag-verify-tags %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: the value stored here differs from the contract: the value of 'arith.cmpi' (line 18) can differ from the reference's 'arith.cmpi' (line 30)
// CHECK: note: counterexample: {{.*}}size.N = {{[0-9]+}}; X.dim0

tile.kernel @half(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tag.contract = @half_reference,
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 256], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<256xf32>
  %i = tile.iota dim 0 : tensor<256xindex>
  %c64 = arith.constant dense<64> : tensor<256xindex>
  %low = arith.cmpi ult, %i, %c64 : tensor<256xindex>
  %z = arith.constant dense<0.0> : tensor<256xf32>
  %y = arith.select %low, %t, %z : tensor<256xi1>, tensor<256xf32>
  tile.store %y, %Y[%p] : tensor<256xf32> -> memref<?xf32>
  tile.return
}
tile.kernel @half_reference(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  %i = tile.iota dim 0 : tensor<128xindex>
  %c64 = arith.constant dense<64> : tensor<128xindex>
  %low = arith.cmpi ult, %i, %c64 : tensor<128xindex>
  %z = arith.constant dense<0.0> : tensor<128xf32>
  %y = arith.select %low, %t, %z : tensor<128xi1>, tensor<128xf32>
  tile.store %y, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
