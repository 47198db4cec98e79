// A persistent kernel: a loop mapped to CTAs hands tiles to programs. Each
// iteration owns its output tile; writing one tile from two iterations races.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e 's/tile.store %%t, %%Y\[%%tile\]/tile.store %%t, %%Y[%%half]/' %s > %t.mlir
// RUN: not diff -q %s %t.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK: schedule.verified
// CHECK: error: no other cta touches these elements without a barrier between (write-write race with the access at line [[S:[0-9]+]]) does not hold
// CHECK: note: the tile.store at line [[S]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = {{[0-9]+}}, block [[[B:[0-9]+]]] of Y
// CHECK: note: the tile.store at line [[S]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = {{[0-9]+}}, block [[[B]]] of Y

tile.kernel @persistent(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4096], grid = [1], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %N = memref.dim %X, %c0 : memref<?xf32>
  %tiles = arith.ceildivui %N, %c128 : index
  scf.for %tile = %c0 to %tiles step %c1 {
    %half = arith.divui %tile, %c2 : index
    %t = tile.load %X[%tile] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
    tile.store %t, %Y[%tile] : tensor<128xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<cta>}
  tile.return
}
