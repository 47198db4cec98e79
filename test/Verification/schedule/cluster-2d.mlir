// A cluster of 2 programs along grid dimension 0 of a 2-D grid: programs
// (p, 0) and (p, 1) are in different clusters, so a cluster barrier does
// not order them. Reading the block the program beside it along dimension
// 1 wrote races; reading the one its cluster neighbour along dimension 0
// wrote does not.
// RUN: not tiletag-opt --tiletag-verify-schedule %s -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e 's/%%X\[%%p, %%other\]/%%X[%%neighbour, %%q]/' %s | tiletag-opt --tiletag-verify-schedule | FileCheck %s --check-prefix=OK
// CHECK: error: no other program touches the elements this read accesses (read-write race between programs with the access at line [[#]]) does not hold
// CHECK: note: counterexample: {{.*}}pid1 = {{[01]}};
// OK: schedule.verified

tile.kernel @across(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [(N ceildiv 64) * 2, 2], shapes = [X = [N, 64], Y = [N, 64]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %q = tile.program_id 1
  %v = arith.constant dense<1.0> : tensor<32x32xf32>
  tile.store %v, %X[%p, %q] : tensor<32x32xf32> -> memref<?x?xf32>
  schedule.barrier cluster
  %other = arith.subi %c1, %q : index
  %c2 = arith.constant 2 : index
  %pair = arith.remui %p, %c2 : index
  %base = arith.subi %p, %pair : index
  %flip = arith.subi %c1, %pair : index
  %neighbour = arith.addi %base, %flip : index
  %t = tile.load %X[%p, %other] padding(0.0 : f32) : memref<?x?xf32> -> tensor<32x32xf32>
  tile.store %t, %Y[%p, %q] : tensor<32x32xf32> -> memref<?x?xf32>
  tile.return
}
