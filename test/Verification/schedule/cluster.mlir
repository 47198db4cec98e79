// Programs of a thread-block cluster exchange data through global memory:
// each writes its block, then reads its cluster neighbour's. A cluster
// barrier between the steps orders them; without it they race, and programs
// of different clusters never touch each other's blocks. The grid is a whole
// number of clusters for every N (cluster-invalid.mlir: one that is not).
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/schedule.barrier cluster/d' %s > %t.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK-COUNT-2: schedule.verified
// CHECK: race between programs with the access at line {{[0-9]+}}) does not hold
// CHECK: note: counterexample: {{.*}}pid0 = [[P:[0-9]+]]; pid0' = [[Q:[0-9]+]];

tile.kernel @exchange(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [(N ceildiv 256) * 2], shapes = [X = [N], Y = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %v = arith.constant dense<1.0> : tensor<128xf32>
  tile.store %v, %X[%p] : tensor<128xf32> -> memref<?xf32>
  schedule.barrier cluster
  %pair = arith.remui %p, %c2 : index
  %base = arith.subi %p, %pair : index
  %other_pair = arith.subi %c1, %pair : index
  %q = arith.addi %base, %other_pair : index
  %t = tile.load %X[%q] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}

// Programs of different clusters may differ: the barrier count depends only
// on the cluster's index, so this one verifies.
tile.kernel @per_cluster(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [(N ceildiv 256) * 2], shapes = [X = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %cluster = arith.divui %p, %c2 : index
  scf.for %i = %c0 to %cluster step %c1 {
    schedule.barrier cluster
  }
  tile.return
}
