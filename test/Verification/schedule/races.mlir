// Races the checker finds for symbolic sizes, and their race-free versions.
// RUN: not tiletag-opt --tiletag-verify-schedule %s --split-input-file -o /dev/null 2>&1 | FileCheck %s
// RUN: not tiletag-opt --tiletag-verify-schedule %s --split-input-file 2>/dev/null | FileCheck %s --check-prefix=OK
// CHECK: :[[STORE:[0-9]+]]:3: error: no other program touches the elements this write accesses (read-write race between programs with the access at line [[LOAD:[0-9]+]]) does not hold
// CHECK: note: counterexample: {{.*}}pid0 = [[P:[0-9]+]]; pid0' = [[Q:[0-9]+]];
// CHECK: :[[LOAD]]:{{[0-9]+}}: note: the tile.load at line [[LOAD]] runs with pid0 = [[P]]
// CHECK: :[[STORE]]:3: note: the tile.store at line [[STORE]] runs with pid0 = [[Q]]
// CHECK: error: no other warp touches these elements without a barrier between (read-write race with the access at line [[L2:[0-9]+]]) does not hold
// CHECK: note: the memref.load at line [[L2]] runs with pid0 = 0, iv0@line{{[0-9]+}} = [[W1:[0-9]+]]
// CHECK: note: the memref.store at line {{[0-9]+}} runs with pid0 = 0, iv0@line{{[0-9]+}} = {{[0-9]+}}
// CHECK-NOT: error
// OK: tile.kernel @disjoint{{.*}}schedule.verified

// Each program shifts its block right by one block: program p reads block p
// and writes block p + 1, which program p + 1 reads.
tile.kernel @shift(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 64], shapes = [X = [N]]>} {
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<64xf32>
  %q = arith.addi %p, %c1 : index
  tile.store %t, %X[%q] : tensor<64xf32> -> memref<?xf32>
  tile.return
}

// -----

// Iteration w of a warp-parallel loop reads element w + 1, which iteration
// w + 1 writes.
tile.kernel @neighbour(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 8], grid = [1], shapes = [X = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  scf.for %w = %c0 to %c4 step %c1 {
    %w1 = arith.addi %w, %c1 : index
    %inside = arith.cmpi ult, %w1, %n : index
    scf.if %inside {
      %v = memref.load %X[%w1] : memref<?xf32>
      memref.store %v, %X[%w] : memref<?xf32>
    }
  } {schedule.map = #schedule.map<warp>}
  tile.return
}

// -----

// Race-free: disjoint blocks per program and per warp.
tile.kernel @disjoint(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 64], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %w = %c0 to %c4 step %c1 {
    %p4 = arith.muli %p, %c4 : index
    %b = arith.addi %p4, %w : index
    %t = tile.load %X[%b] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
    tile.store %t, %Y[%b] : tensor<16xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<warp>}
  tile.return
}
