// The schedule suite's cluster syncs around an epilogue. The two programs
// of each cluster (p and its partner p ^ 1) exchange partial blocks through
// a workspace W, round after round: each writes its part to W, and its
// epilogue adds the partner's part. A cluster barrier before the epilogue
// orders each part before the partner reads it; one after the epilogue
// keeps a program from overwriting its part with the next round's before
// the partner has read it. Both are proved needed: without the first, the
// epilogue reads W as the partner writes it; without the second, a program
// writes W in round r + 1 while its partner reads it in round r (the
// counterexample names the two rounds; two rounds apart, the barrier before
// the epilogue between them orders them). test/Oracle/cluster.test runs
// the kernel on the CPU oracle, and Conversion/NVGPU/cluster.mlir lowers it.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/sync: before/d' %s > %t.before.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.before.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: sed -e '/sync: after/d' %s > %t.after.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.after.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// OK: tile.kernel @cluster_epilogue{{.*}}schedule.verified
// BEFORE: error: no other program touches the elements this read accesses (read-write race between programs with the access at line [[W:[0-9]+]]) does not hold
// BEFORE: note: counterexample: {{.*}}pid0 = [[P:[0-9]+]]; pid0' = [[Q:[0-9]+]];
// BEFORE: note: the tile.store at line [[W]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[R:[0-9]+]], block [0, {{[0-9]+}}] of W
// BEFORE: note: the tile.load at line {{[0-9]+}} runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[R]], block [0, {{[0-9]+}}] of W
// AFTER: error: no other program touches the elements this read accesses (read-write race between programs with the access at line [[W:[0-9]+]]) does not hold
// AFTER: note: the tile.store at line [[W]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[#NEXT:]], block [0, [[B:[0-9]+]]] of W
// AFTER: note: the tile.load at line {{[0-9]+}} runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[#NEXT-1]], block [0, [[B]]] of W

tile.kernel @cluster_epilogue(%X: memref<?x?xf32> {tile.name = "X"}, %W: memref<?x?xf32> {tile.name = "W"},
                              %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 3, N = 512, T = 1], grid = [(N ceildiv 256) * 2],
                               shapes = [X = [R, N], W = [T, N], Y = [R, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %partner = arith.xori %p, %c1 : index
  %R = memref.dim %X, %c0 : memref<?x?xf32>
  scf.for %r = %c0 to %R step %c1 {
    %part = tile.load %X[%r, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<1x128xf32>
    tile.store %part, %W[%c0, %p] : tensor<1x128xf32> -> memref<?x?xf32>
    schedule.barrier cluster // sync: before the epilogue
    %other = tile.load %W[%c0, %partner] padding(0.0 : f32) : memref<?x?xf32> -> tensor<1x128xf32>
    %sum = arith.addf %part, %other : tensor<1x128xf32>
    tile.store %sum, %Y[%r, %p] : tensor<1x128xf32> -> memref<?x?xf32>
    schedule.barrier cluster // sync: after the epilogue
  }
  tile.return
}
