// A tile order permuted with xor: program p writes block p ^ 1, so the
// two programs of each pair swap blocks. xor by 1 is a bijection on an
// even grid, which the checker proves (no two programs write one block).
// Masking instead of swapping (p & -2, both programs of a pair on one
// block) is a race with a counterexample.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e 's/arith.xori %%p, %%c1/arith.andi %%p, %%cm2/' %s > %t.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK: schedule.verified
// CHECK: error: no other program touches the elements this write accesses (write-write race between programs with the access at line {{[0-9]+}}) does not hold
// CHECK: note: counterexample: {{.*}}pid0 = [[P:[0-9]+]]; pid0' = [[Q:[0-9]+]];

tile.kernel @swap_pairs(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [(N ceildiv 128) * 2], shapes = [X = [N]]>} {
  %c1 = arith.constant 1 : index
  %cm2 = arith.constant -2 : index
  %p = tile.program_id 0
  %v = arith.constant dense<1.0> : tensor<64xf32>
  %q = arith.xori %p, %c1 : index
  tile.store %v, %X[%q] : tensor<64xf32> -> memref<?xf32>
  tile.return
}
