// Only proved kernels are lowered, and only the IR a proof was made for.
// RUN: tiletag-opt %s -split-input-file -verify-diagnostics --tiletag-convert-to-nvgpu

// The schedule was never proved.
// expected-error @+1 {{its schedule annotations were not proved; run --tiletag-verify first (or pass allow-unverified)}}
tile.kernel @unproved(%X: memref<?x?xf32>) grid(1) {
  schedule.barrier cta
  tile.return
}

// -----

// Tags that were not proved are refused the same way.
// expected-error @+1 {{its tags were not proved}}
tile.kernel @unproved_tags(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) {
  %c0 = arith.constant 0 : index
  %t = tile.load %X[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  tag.assert_carries %t, "X"(%c0, %c0), "block 0" : tensor<64x64xf32>
  tile.store %t, %X[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// A loop mapping is a schedule annotation: without a proof it is refused.
// expected-error @+1 {{its schedule annotations were not proved}}
tile.kernel @unproved_map(%X: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %w = %c0 to %c4 step %c1 {
    %t = tile.load %X[%w] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%w] : tensor<32xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<warp>}
  tile.return
}
