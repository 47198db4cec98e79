// UNKNOWN is an error, never a proof: a nonlinear claim Z3 cannot settle
// within the resource limit (no positive cubes with a^3 + b^3 = c^3). That
// the cubes of values up to 2^20 do not wrap is proved (nlsat, within the
// limit). The limit counts Z3's resources, not time: the verdict is the
// same on any machine, however loaded.
// RUN: not tiletag-opt "--tiletag-verify-tags=rlimit=200000" %s -o /dev/null 2>&1 | FileCheck %s
// CHECK-NOT: integer operations are defined
// CHECK: error: could not prove assertion "Fermat, n = 3": Z3 answered unknown (the resource limit of 200000 was reached)
// CHECK-NOT: integer operations are defined
tile.kernel @fermat(%a: index {tile.name = "a"}, %b: index {tile.name = "b"}, %c: index {tile.name = "c"}) grid(1) {
  %c1 = arith.constant 1 : index
  %cmax = arith.constant 1048576 : index
  %small_a = arith.cmpi sle, %a, %cmax : index
  %small_b = arith.cmpi sle, %b, %cmax : index
  %small_c = arith.cmpi sle, %c, %cmax : index
  %pos_a = arith.cmpi sge, %a, %c1 : index
  %pos_b = arith.cmpi sge, %b, %c1 : index
  %pos_c = arith.cmpi sge, %c, %c1 : index
  %ab = arith.andi %small_a, %small_b : i1
  %abc = arith.andi %ab, %small_c : i1
  %pos_ab = arith.andi %pos_a, %pos_b : i1
  %pos = arith.andi %pos_ab, %pos_c : i1
  %ok = arith.andi %abc, %pos : i1
  scf.if %ok {
    %a2 = arith.muli %a, %a : index
    %a3 = arith.muli %a2, %a : index
    %b2 = arith.muli %b, %b : index
    %b3 = arith.muli %b2, %b : index
    %c2 = arith.muli %c, %c : index
    %c3 = arith.muli %c2, %c : index
    %lhs = arith.addi %a3, %b3 : index
    tag.assert ne %lhs, %c3, "Fermat, n = 3" : index
  }
  tile.return
}
