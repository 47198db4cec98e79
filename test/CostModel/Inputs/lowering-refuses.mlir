// A loop mapped to warpgroups, which the Hopper lowering does not implement
// yet (it refuses the kernel): the estimate charges no workspace and says so.
tile.kernel @mapped(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4096], grid = [N ceildiv 128], shapes = [X = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %w = %c0 to %c4 step %c1 {
    %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%p] : tensor<32xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<warpgroup>}
  tile.return
}
