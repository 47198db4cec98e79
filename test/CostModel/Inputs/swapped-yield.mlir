// Loop-carried indices yielded crosswise: (1, 3) -> (3, 1) -> (1, 3), so
// the second loop runs once and loads one 16x16 f32 tile (1024 bytes).
tile.kernel @swapped(%A: memref<?x?xf32> {tile.name = "A"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 64], grid = [1], shapes = [A = [M, M]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %c1, %b = %c3) -> (index, index) {
    scf.yield %b, %a : index, index
  }
  scf.for %j = %c0 to %r#0 step %c1 {
    %t = tile.load %A[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x16xf32>
  }
  tile.return
}
