// UNKNOWN is an error, never a proof: a nonlinear claim Z3 cannot settle
// (no positive cubes with a^3 + b^3 = c^3) within the resource limit. The
// limit counts Z3's resources, not time: the verdict is the same on any
// machine, however loaded.
// RUN: not tiletag-opt "--tiletag-verify-tags=rlimit=200000" %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: could not prove that the kernel's integer operations are defined {{.*}}Z3 answered unknown (the resource limit of 200000 was reached)
// CHECK: error: could not prove assertion "Fermat, n = 3": Z3 answered unknown (the resource limit of 200000 was reached)
tile.kernel @fermat(%a: index {tile.name = "a"}, %b: index {tile.name = "b"}, %c: index {tile.name = "c"}) grid(1) {
  %c1 = arith.constant 1 : index
  %ok = arith.cmpi uge, %a, %c1 : index
  scf.if %ok {
    %a2 = arith.muli %a, %a : index
    %a3 = arith.muli %a2, %a : index
    %b2 = arith.muli %b, %b : index
    %b3 = arith.muli %b2, %b : index
    %c2 = arith.muli %c, %c : index
    %c3 = arith.muli %c2, %c : index
    %lhs = arith.addi %a3, %b3 : index
    %b_pos = arith.cmpi uge, %b, %c1 : index
    scf.if %b_pos {
      tag.assert ne %lhs, %c3, "Fermat, n = 3" : index
    }
  }
  tile.return
}
