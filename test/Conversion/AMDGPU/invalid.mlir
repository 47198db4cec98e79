// Kernels the AMDGPU lowering refuses, with the construct and the chip named
// at the op. The kernels are not proved (allow-unverified): each warning
// says so.
// RUN: tiletag-opt %s -split-input-file -verify-diagnostics "--tiletag-convert-to-amdgpu=allow-unverified"

// CDNA has no thread-block clusters.
// expected-warning @+2 {{allow-unverified}}
// expected-error @+1 {{cannot be lowered to AMDGPU: CDNA has no thread-block clusters; launch the kernel without a cluster}}
tile.kernel @cluster(%X: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2, 1, 1]>} {
  schedule.barrier cluster
  tile.return
}

// -----

// A dot the schedule puts on the matrix unit that MFMA cannot serve is
// refused, not run element by element.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @f32_dot(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %b = tile.load %B[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = schedule.async wgmma {
    // expected-error @below {{cannot be lowered to AMDGPU: the schedule runs this tile.dot on wgmma, which cannot serve it: MFMA multiplies bf16, f16 or fp8 inputs into f32 here}}
    %r = tile.dot %a, %b, %zero : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    schedule.yield %r : tensor<64x64xf32>
  } : tensor<64x64xf32>
  schedule.commit_group wgmma
  schedule.wait_group wgmma pending 0
  tile.store %d, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// 16x16 blocks are shared among the group's waves.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @odd_blocks(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<16x16xbf16>
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<16x48xbf16>
  %zero = arith.constant dense<0.0> : tensor<16x48xf32>
  %d = schedule.async mfma {
    // expected-error @below {{the schedule runs this tile.dot on mfma, which cannot serve it: its 3 16x16x16 blocks do not divide among the group's 2 waves}}
    %r = tile.dot %a, %b, %zero : tensor<16x16xbf16>, tensor<16x48xbf16> -> tensor<16x48xf32>
    schedule.yield %r : tensor<16x48xf32>
  } : tensor<16x48xf32>
  tile.store %d, %C[%c0, %c0] : tensor<16x48xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// gfx942's MFMA multiplies the FNUZ fp8 encodings; the OCP ones (Hopper's,
// gfx950's) have no MFMA here.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @ocp_fp8(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] padding(0.0 : f8E4M3FN) : memref<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %b = tile.load %B[%c0, %c0] padding(0.0 : f8E4M3FN) : memref<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = schedule.async mfma {
    // expected-error @below {{the schedule runs this tile.dot on mfma, which cannot serve it: gfx942's MFMA multiplies the FNUZ fp8 types (f8E4M3FNUZ, f8E5M2FNUZ), not f8E4M3FN}}
    %r = tile.dot %a, %b, %zero : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    schedule.yield %r : tensor<64x64xf32>
  } : tensor<64x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// fp8 values are loaded, copied, multiplied and widened; rounding to fp8
// is refused at the op that asks for it.
tile.kernel @round_to_fp8(%A: memref<?x?xf8E4M3FNUZ>, %B: memref<?x?xf8E4M3FNUZ>, %C: memref<?x?xf8E4M3FNUZ>) grid(1) {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] padding(0.0 : f8E4M3FNUZ) : memref<?x?xf8E4M3FNUZ> -> tensor<64x64xf8E4M3FNUZ>
  %b = tile.load %B[%c0, %c0] padding(0.0 : f8E4M3FNUZ) : memref<?x?xf8E4M3FNUZ> -> tensor<64x64xf8E4M3FNUZ>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x64xf8E4M3FNUZ>, tensor<64x64xf8E4M3FNUZ> -> tensor<64x64xf32>
  // expected-error @below {{'arith.truncf' on 'f8E4M3FNUZ' values is not lowered: fp8 values are loaded, copied, multiplied (tile.dot) and widened to f32 (arith.extf) here; keep results in f32, bf16 or f16}}
  %q = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf8E4M3FNUZ>
  tile.store %q, %C[%c0, %c0] : tensor<64x64xf8E4M3FNUZ> -> memref<?x?xf8E4M3FNUZ>
  tile.return
}

// -----

// A warp-mapped loop runs each iteration on a 32-thread warp; a CDNA wave
// has 64 lanes, so the AMD lowering runs no such group.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @warp_loop(%X: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{loops mapped to `warp` are not implemented by the AMDGPU lowering yet}}
  scf.for %w = %c0 to %c4 step %c1 {
    %t = tile.load %X[%w] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%w] : tensor<32xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<warp>}
  tile.return
}

// -----

// CDNA has no named barriers (s_barrier waits for the whole workgroup).
// expected-warning @+1 {{allow-unverified}}
tile.kernel @named(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{cannot be lowered to AMDGPU: the AMDGPU lowering has no named barriers; use mbarriers in shared memory (without `named`)}}
  %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  schedule.role "one" warpgroups [0] {
    schedule.mbarrier.arrive %order[%c0] : !schedule.mbarrier<1>
  }
  schedule.role "two" warpgroups [1] {
    schedule.mbarrier.sync %order[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  tile.return
}
