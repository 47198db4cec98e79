// Bitwise andi/ori/xori with a constant operand are followed exactly, bit
// by bit. Claims true for every value are proved; false ones get a
// counterexample. Of two variables they are not followed: any value, so a
// claim about one is not proved.
// RUN: tiletag-opt --split-input-file --verify-diagnostics --tiletag-verify-tags %s -o /dev/null

tile.kernel @identities(%x: index {tile.name = "x"}, %z: i8 {tile.name = "z"}) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %m1 = arith.constant -1 : index
  %m2 = arith.constant -2 : index
  %x5 = arith.xori %x, %c5 : index
  %back = arith.xori %c5, %x5 : index
  tag.assert eq %back, %x, "(x ^ 5) ^ 5 == x" : index
  %low = arith.andi %c7, %x : index
  %rem = arith.remui %x, %c8 : index
  tag.assert eq %low, %rem, "7 & x == x mod 8" : index
  // Clearing the low bit and setting it again gives x | 1.
  %even = arith.andi %x, %m2 : index
  %odd = arith.ori %even, %c1 : index
  %set = arith.ori %x, %c1 : index
  tag.assert eq %odd, %set, "(x & -2) | 1 == x | 1" : index
  %all = arith.andi %x, %m1 : index
  tag.assert eq %all, %x, "x & -1 == x" : index
  %not = arith.xori %x, %m1 : index
  %notnot = arith.xori %not, %m1 : index
  tag.assert eq %notnot, %x, "~~x == x" : index
  // On i8, -128 | 1 is -127: the sign bit is kept.
  %cmin = arith.constant -128 : i8
  %one8 = arith.constant 1 : i8
  %neg = arith.ori %cmin, %one8 : i8
  %neg_i = arith.index_cast %neg : i8 to index
  %cm127 = arith.constant -127 : index
  tag.assert eq %neg_i, %cm127, "-128 | 1 == -127 on i8" : index
  // z & 127 clears the sign bit of any i8.
  %c127 = arith.constant 127 : i8
  %pos = arith.andi %z, %c127 : i8
  %zero8 = arith.constant 0 : i8
  %nonneg = arith.cmpi sge, %pos, %zero8 : i8
  %nonneg_i = arith.index_castui %nonneg : i1 to index
  tag.assert eq %nonneg_i, %c1, "z & 127 >= 0" : index
  tile.return
}

// -----

tile.kernel @xor_is_not_or(%x: index {tile.name = "x"}) grid(1) {
  %c1 = arith.constant 1 : index
  %a = arith.xori %x, %c1 : index
  %b = arith.ori %x, %c1 : index
  // expected-error @+3 {{assertion "x ^ 1 == x | 1" does not hold}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  tag.assert eq %a, %b, "x ^ 1 == x | 1" : index
  tile.return
}

// -----

tile.kernel @two_variables(%x: index {tile.name = "x"}, %y: index {tile.name = "y"}) grid(1) {
  %xy = arith.xori %x, %y : index
  %back = arith.xori %xy, %y : index
  // expected-error @+3 {{assertion "(x ^ y) ^ y == x" does not hold}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  tag.assert eq %back, %x, "(x ^ y) ^ y == x" : index
  tile.return
}
