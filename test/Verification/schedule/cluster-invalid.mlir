// Launches and cluster barriers the checker refuses: a grid that is not a
// whole number of clusters for some problem size (the launch fails), a
// cluster along a dimension the grid does not have, and a cluster barrier
// that some programs of a cluster skip (the others wait for ever).
// RUN: not tiletag-opt -split-input-file --tiletag-verify-schedule %s -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: the grid extent along dimension 0 is a multiple of the cluster's 2 (a launch of a partial cluster fails) does not hold
// CHECK: note: counterexample: nprog0 = {{[0-9]*[13579]}}; size.N = {{[0-9]+}};
tile.kernel @partial(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [N ceildiv 128], shapes = [X = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %p = tile.program_id 0
  %v = arith.constant dense<1.0> : tensor<128xf32>
  tile.store %v, %X[%p] : tensor<128xf32> -> memref<?xf32>
  schedule.barrier cluster
  tile.return
}

// -----

// CHECK: error: the cluster spans 2 programs along grid dimension 1, but the kernel's grid has 1 dimension(s): its extent there is 1
tile.kernel @rank(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [1, 2]>} {
  schedule.barrier cluster
  tile.return
}

// -----

// Only the first program of each pair reaches the barrier.
// CHECK: error: every program of the cluster reaches this cluster barrier at the same iterations (a program that skips one leaves the others waiting) does not hold
// CHECK: note: counterexample: {{.*}}pid0 = [[P:[0-9]+]]; pid0' = [[Q:[0-9]+]];
tile.kernel @skipped(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [(N ceildiv 256) * 2], shapes = [X = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %pair = arith.remui %p, %c2 : index
  %first = arith.cmpi eq, %pair, %c0 : index
  scf.if %first {
    schedule.barrier cluster
  }
  tile.return
}

// -----

// Each program loops once per program id below it: the trip counts differ.
// CHECK: error: every program of the cluster reaches this cluster barrier at the same iterations
tile.kernel @trips(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [(N ceildiv 256) * 2], shapes = [X = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  scf.for %i = %c0 to %p step %c1 {
    schedule.barrier cluster
  }
  tile.return
}

