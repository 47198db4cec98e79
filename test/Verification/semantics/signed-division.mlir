// arith.divsi and arith.remsi truncate toward zero (MLIR's definition), unlike
// Z3's div and mod: -7 / 2 is -3 with remainder -1, never -4 and 1.
// RUN: tiletag-opt --split-input-file --verify-diagnostics --tiletag-verify-tags %s -o /dev/null

tile.kernel @truncating(%x: index {tile.name = "x"}) grid(1) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %m3 = arith.constant -3 : index
  %m1 = arith.constant -1 : index
  %neg7 = arith.subi %c0, %c7 : index
  %q = arith.divsi %neg7, %c2 : index
  %r = arith.remsi %neg7, %c2 : index
  tag.assert eq %q, %m3, "divsi truncates" : index
  tag.assert eq %r, %m1, "remsi takes the sign of the dividend" : index
  // floordivsi and ceildivsi round down and up.
  %m4 = arith.constant -4 : index
  %f = arith.floordivsi %neg7, %c2 : index
  %c = arith.ceildivsi %neg7, %c2 : index
  tag.assert eq %f, %m4, "floordivsi rounds down" : index
  tag.assert eq %c, %m3, "ceildivsi rounds up" : index
  tile.return
}

// -----

tile.kernel @floor_is_wrong() grid(1) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %m4 = arith.constant -4 : index
  %neg7 = arith.subi %c0, %c7 : index
  %q = arith.divsi %neg7, %c2 : index
  // expected-error @+3 {{assertion "divsi(-7, 2) == -4" does not hold}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  tag.assert eq %q, %m4, "divsi(-7, 2) == -4" : index
  tile.return
}

// -----

tile.kernel @mod_is_wrong() grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %neg7 = arith.subi %c0, %c7 : index
  %r = arith.remsi %neg7, %c2 : index
  // expected-error @+3 {{assertion "remsi(-7, 2) == 1" does not hold}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  tag.assert eq %r, %c1, "remsi(-7, 2) == 1" : index
  tile.return
}

// -----

// The same for a symbolic dividend: divsi(x, 4) * 4 + remsi(x, 4) == x.
tile.kernel @identity(%x: index {tile.name = "x"}) grid(1) {
  %c4 = arith.constant 4 : index
  %q = arith.divsi %x, %c4 : index
  %r = arith.remsi %x, %c4 : index
  %q4 = arith.muli %q, %c4 : index
  %back = arith.addi %q4, %r : index
  tag.assert eq %back, %x, "division identity" : index
  tile.return
}
