// RUN: tiletag-opt %s --split-input-file --tiletag-strip-tags --verify-diagnostics

// A tag field is ghost state: erasing it must not change the computation.
tile.kernel @leak(%A: memref<?xindex>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.iota dim 0 : tensor<16xindex>
  // expected-note @+1 {{the tag field is read here}}
  %k = tag.field %t["A", 0] : tensor<16xindex>
  %k1 = arith.addi %k, %c1 : index
  // expected-error @+1 {{uses a tag field, which is ghost state that --tiletag-strip-tags erases}}
  memref.store %k1, %A[%c0] : memref<?xindex>
  tile.return
}

// -----

tile.kernel @leak_loop() grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.iota dim 0 : tensor<16xindex>
  // expected-note @+1 {{the tag field is read here}}
  %k = tag.field %t["A", 0] : tensor<16xindex>
  // expected-error @+1 {{uses a tag field}}
  scf.for %i = %c0 to %k step %c1 {
  }
  tile.return
}
