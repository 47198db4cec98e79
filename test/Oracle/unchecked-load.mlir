// An unchecked load (no padding) at a ragged edge reads out of range: the run
// fails with the element and the program, and exits 1. At a size that is a
// multiple of the tile, the same kernel runs.
// RUN: %python %S/Inputs/expect-exit.py 1 tiletag-run %s --size N=100 | FileCheck %s
// RUN: tiletag-run %s --size N=128 | FileCheck %s --check-prefix=OK
// CHECK: run @copy (N=100): FAILED at run time
// CHECK: error: unchecked load (no padding) reads element [100, 0], which is out of range
// CHECK-NEXT: %t = tile.load
// CHECK: note: in program (1) of the sequential run
// OK: run @copy (N=128): 2 programs

tile.kernel @copy(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 128], grid = [N ceildiv 64], shapes = [X = [N, 32], Y = [N, 32]]>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id 0
  %t = tile.load %X[%p, %c0] : memref<?x?xf32> -> tensor<64x32xf32>
  tile.store %t, %Y[%p, %c0] : tensor<64x32xf32> -> memref<?x?xf32>
  tile.return
}
