// `report-fallbacks` on the AMDGPU lowering: a dot MFMA cannot serve runs on
// the SIMT cores, and an MFMA operand computed element-wise is formed once in
// the workspace; each is a remark at its op. Without the option, nothing.
// RUN: tiletag-opt %s -split-input-file -verify-diagnostics "--tiletag-convert-to-amdgpu=report-fallbacks" -o /dev/null
// (The other run hides the expected-* lines, which -split-input-file checks.)
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt -split-input-file --tiletag-convert-to-amdgpu -o /dev/null 2>&1 | FileCheck %s --allow-empty
// CHECK-NOT: remark

tile.kernel @simt_dot(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @+2 {{tile.dot runs element by element on the SIMT cores, not on MFMA: MFMA multiplies bf16, f16 or fp8 inputs into f32 here}}
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the result of a tile.dot computed element by element}}
  %d = tile.dot %a, %b, %z : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

tile.kernel @formed_operand(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{held in the global workspace (2048 bytes per program): the loaded tile}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<32x32xbf16>
  // expected-remark @+1 {{held in the global workspace (2048 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<32x32xbf16>
  // expected-remark @+1 {{held in the global workspace (2048 bytes per program): an MFMA operand computed element-wise, formed once}}
  %nb = arith.negf %b : tensor<32x32xbf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %nb, %z : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
  tile.store %d, %C[%c0, %c0] : tensor<32x32xf32> -> memref<?x?xf32>
  tile.return
}
