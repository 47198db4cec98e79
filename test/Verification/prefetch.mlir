// Loop-carried tiles: a prefetching loop keeps the tiles of steps k and k+1
// in two iter_args and loads step k+2. The invariant "a0 holds block k, a1
// holds block k+1" comes from the yield and is checked against the init.
// Rotating the wrong way breaks it.
// RUN: tiletag-opt --tiletag-verify-tags %s | FileCheck %s --check-prefix=OK
// RUN: sed -e 's/scf.yield %%a1, %%a2/scf.yield %%a2, %%a1/' %s > %t.rotated.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.rotated.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROT
// RUN: sed -e 's/%%first = tile.load %%X\[%%c0\]/%%first = tile.load %%X[%%c1]/' %s > %t.init.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.init.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=INIT
// OK: tag.verified
// ROT: error: assertion "a0 holds block k" does not hold
// ROT: note: counterexample: {{.*}}iv0@line{{[0-9]+}} = [[K:[0-9]+]];
// ROT: note: field 0 of the "X" tag read here is {{[0-9]+}}: the value carries X({{[0-9]+}}) from the tile.load
// INIT: error: assertion "a0 holds block k" does not hold

tile.kernel @prefetch(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 640], grid = [1], shapes = [X = [N], Y = [64]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %N = memref.dim %X, %c0 : memref<?xf32>
  %steps = arith.ceildivui %N, %c64 : index
  %first = tile.load %X[%c0] padding(0.0 : f32) : memref<?xf32> -> tensor<64xf32>
  %second = tile.load %X[%c1] padding(0.0 : f32) : memref<?xf32> -> tensor<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r:3 = scf.for %k = %c0 to %steps step %c1 iter_args(%a0 = %first, %a1 = %second, %acc = %zero)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
    %b0 = tag.field %a0["X", 0] : tensor<64xf32>
    tag.assert eq %b0, %k, "a0 holds block k" : index
    %k2 = arith.addi %k, %c2 : index
    %a2 = tile.load %X[%k2] padding(0.0 : f32) : memref<?xf32> -> tensor<64xf32>
    %sum = arith.addf %acc, %a0 : tensor<64xf32>
    scf.yield %a1, %a2, %sum : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  tile.store %r#2, %Y[%c0] : tensor<64xf32> -> memref<?xf32>
  tile.return
}
