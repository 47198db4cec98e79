// Unsigned compares, min/max and division read the bits as unsigned: a
// negative index is larger than any non-negative one.
// RUN: tiletag-opt --split-input-file --verify-diagnostics --tiletag-verify-tags %s -o /dev/null

tile.kernel @negative_is_large(%x: index {tile.name = "x"}) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %m1 = arith.constant -1 : index
  %lt = arith.cmpi ult, %c10, %m1 : index
  %one64 = arith.extui %lt : i1 to i64
  %one = arith.index_castui %one64 : i64 to index
  tag.assert eq %one, %c1, "10 <u -1" : index
  %min = arith.minui %m1, %c10 : index
  tag.assert eq %min, %c10, "minui(-1, 10) == 10" : index
  %max = arith.maxui %m1, %c10 : index
  tag.assert eq %max, %m1, "maxui(-1, 10) == -1" : index
  // (2^64 - 2) / 2 = 2^63 - 1 as unsigned.
  %m2 = arith.constant -2 : index
  %c2 = arith.constant 2 : index
  %big = arith.constant 9223372036854775807 : index
  %d = arith.divui %m2, %c2 : index
  tag.assert eq %d, %big, "divui(-2, 2) == 2^63 - 1" : index
  %r = arith.remui %m1, %c10 : index
  // 2^64 - 1 = 18446744073709551615, which is 5 mod 10.
  %c5 = arith.constant 5 : index
  tag.assert eq %r, %c5, "remui(-1, 10) == 5" : index
  // ceildivui(2^64 - 1, 2^63) = 2.
  %min64 = arith.constant -9223372036854775808 : index
  %cd = arith.ceildivui %m1, %min64 : index
  tag.assert eq %cd, %c2, "ceildivui(2^64 - 1, 2^63) == 2" : index
  // extsi of i1 true is -1; extui is 1.
  %t = arith.constant true
  %s = arith.extsi %t : i1 to i64
  %si = arith.index_cast %s : i64 to index
  tag.assert eq %si, %m1, "extsi true == -1" : index
  // trunci keeps the low bits: 300 as i8 is 44.
  %c300 = arith.constant 300 : i32
  %t8 = arith.trunci %c300 : i32 to i8
  %t8i = arith.index_cast %t8 : i8 to index
  %c44 = arith.constant 44 : index
  tag.assert eq %t8i, %c44, "trunci(300) to i8 == 44" : index
  tile.return
}

// -----

tile.kernel @signed_min_is_wrong() grid(1) {
  %c10 = arith.constant 10 : index
  %m1 = arith.constant -1 : index
  %min = arith.minui %m1, %c10 : index
  // expected-error @+3 {{assertion "minui is minsi" does not hold}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  tag.assert eq %min, %m1, "minui is minsi" : index
  tile.return
}
