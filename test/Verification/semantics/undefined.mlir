// Undefined behaviour is a proof obligation, reported like a failed assertion
// with a counterexample and the flags that replay it.
// RUN: tiletag-opt --split-input-file --verify-diagnostics --tiletag-verify-tags %s -o /dev/null

tile.kernel @dim_past_rank(%A: memref<?x?xf32> {tile.name = "A"}) grid(1) {
  %c2 = arith.constant 2 : index
  // expected-error @+3 {{the dimension index of the memref.dim can be at or past the rank 2 (undefined)}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  %d = memref.dim %A, %c2 : memref<?x?xf32>
  tile.return
}

// -----

tile.kernel @division_by_zero(%A: memref<?x?xf32> {tile.name = "A"}, %n: index {tile.name = "n"}) grid(1) {
  %c0 = arith.constant 0 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  // expected-error @+3 {{the divisor of the arith.divui can be zero (undefined)}}
  // expected-note @+2 {{A.dim0 = 0;}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  %q = arith.divui %n, %M : index
  tile.return
}

// -----

// Guarded, the same division is defined.
tile.kernel @guarded_division(%A: memref<?x?xf32> {tile.name = "A"}, %n: index {tile.name = "n"}) grid(1) {
  %c0 = arith.constant 0 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %nonzero = arith.cmpi ne, %M, %c0 : index
  scf.if %nonzero {
    %q = arith.divui %n, %M : index
    %r = arith.remsi %n, %M : index
  }
  tile.return
}

// -----

tile.kernel @zero_step(%s: index {tile.name = "s"}) grid(1) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @+3 {{the loop step can be zero or negative (undefined)}}
  // expected-note @+2 {{ s = }}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  scf.for %i = %c0 to %c8 step %s {
  }
  tile.return
}

// -----

// Bytes: an operand fits in memory (below 2^63 bytes), so its size reaches
// 2^63 - 1 only with one-byte elements.
tile.kernel @signed_overflow(%A: memref<?xi8> {tile.name = "A"}) grid(1) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?xi8>
  %c1 = arith.constant 1 : index
  // expected-error @+3 {{the arith.addi can wrap around (signed overflow)}}
  // expected-note @+2 {{A.dim0 = 9223372036854775807}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  %n1 = arith.addi %n, %c1 : index
  tile.return
}

// -----

tile.kernel @min_by_minus_one(%x: i32 {tile.name = "x"}) grid(1) {
  %m1 = arith.constant -1 : i32
  // expected-error @+3 {{the arith.divsi can divide the minimum value by -1 (undefined overflow)}}
  // expected-note @+2 {{x = -2147483648}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  %q = arith.divsi %x, %m1 : i32
  tile.return
}

// -----

tile.kernel @wide_shift(%x: i32 {tile.name = "x"}, %n: i32 {tile.name = "n"}) grid(1) {
  // expected-error @+3 {{the shift amount of the arith.shli can reach the bit width (poison)}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  %y = arith.shli %x, %n : i32
  tile.return
}

// -----

tile.kernel @load_out_of_bounds(%A: memref<?xi32> {tile.name = "A"}) grid(1) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?xi32>
  // expected-error @+3 {{the memref.load can access an element out of bounds (undefined)}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{replay on the CPU: tiletag-run}}
  %v = memref.load %A[%n] : memref<?xi32>
  tile.return
}
