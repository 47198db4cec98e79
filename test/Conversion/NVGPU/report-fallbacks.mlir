// `report-fallbacks`: a remark at each op the Hopper lowering runs on a
// slower path than the target offers, with what it costs and why. Without
// the option the lowering says nothing of them; the shipped pipelined GEMM
// takes none.
// RUN: tiletag-opt %s -split-input-file -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified report-fallbacks" -o /dev/null
// (The other runs hide the expected-* lines, which -split-input-file checks.)
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt -split-input-file --tiletag-convert-to-nvgpu=allow-unverified -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: tiletag-opt %S/../../../examples/gemm.mlir --tiletag-verify "--tiletag-convert-to-nvgpu=report-fallbacks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt -split-input-file "--tiletag-compile-cuda=verify=0 allow-unverified=1 report-fallbacks=1 format=isa" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// QUIET-NOT: remark
// PIPELINE: remark: tile.dot runs element by element on the SIMT cores, not on wgmma: wgmma multiplies bf16, f16, f8E4M3FN or f8E5M2 inputs

// An f32 dot has no wgmma: it runs on the SIMT cores, its loaded operands and
// its result in the workspace.
tile.kernel @simt_dot(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile (an async copy into a tile.alloc_shared ring would keep it on chip)}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @+2 {{tile.dot runs element by element on the SIMT cores, not on wgmma: wgmma multiplies bf16, f16, f8E4M3FN or f8E5M2 inputs}}
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the result of a tile.dot computed element by element}}
  %d = tile.dot %a, %b, %z : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// A bf16 dot runs on wgmma, but operands that no TMA copy put in a swizzled
// slot are copied into shared memory first; an operand computed element-wise
// (the negation) is formed there from its loaded input. The accumulator
// operand, loaded, is added to the product through the workspace.
tile.kernel @staged(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
  %nb = arith.negf %b : tensor<64x128xbf16>
  // expected-remark @+1 {{held in the global workspace (65536 bytes per program): the loaded tile}}
  %acc = tile.load %C[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128x128xf32>
  // expected-remark @+3 {{A is copied into shared memory for wgmma by the warpgroup (it is not a slot a TMA copy fills, which wgmma reads in place)}}
  // expected-remark @+2 {{B is copied into shared memory for wgmma}}
  // expected-remark @+1 {{held in the global workspace (65536 bytes per program): the product, to which the accumulator operand is added element by element (it is not zero, an accumulator in registers, or computed from one register by register)}}
  %d = tile.dot %a, %nb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %C[%c0, %c0] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// A transpose of a wgmma result reads the accumulator out of its registers
// through the workspace (a plain or element-wise store would not).
tile.kernel @acc_transposed(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-remark @+3 {{A is copied into shared memory}}
  // expected-remark @+2 {{B is copied into shared memory}}
  // expected-remark @+1 {{held in the global workspace (65536 bytes per program): an accumulator read other than register by register}}
  %d = tile.dot %a, %b, %z : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %t = tile.transpose %d perm [1, 0] : tensor<128x128xf32> -> tensor<128x128xf32>
  tile.store %t, %C[%c0, %c0] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// Tiles carried by a loop other than accumulators, results of an scf.if, a
// reduction's result and a slot read other than by the matrix unit are held
// in the workspace.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @held(%X: memref<?x?xf32>, %Y: memref<?xf32>, %n: index, %flag: i1) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x32x32xf32, #gpu.address_space<workgroup>>
  tile.copy %X[%c0, %c0] -> %buf[%c0] padding(0.0 : f32)
      : memref<?x?xf32> -> memref<1x32x32xf32, #gpu.address_space<workgroup>>
  schedule.barrier cta
  // expected-remark @+1 {{held in the global workspace (4096 bytes per program): a copy of the slot for readers other than the matrix unit}}
  %t = tile.read %buf[%c0] : memref<1x32x32xf32, #gpu.address_space<workgroup>> -> tensor<32x32xf32>
  %init = arith.constant dense<0.0> : tensor<32xf32>
  // expected-remark @+1 {{held in the global workspace (128 bytes per program): loop-carried tile #0 (only matrix-unit accumulators are carried in registers)}}
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> (tensor<32xf32>) {
    // expected-remark @+1 {{held in the global workspace (128 bytes per program): the reduction's result}}
    %r = tile.reduce sum %t axis 1 : tensor<32x32xf32> -> tensor<32xf32>
    // expected-remark @+1 {{held in the global workspace (128 bytes per program): a tile the loop carries, formed before the carried buffer is overwritten}}
    %s2 = arith.addf %s, %r : tensor<32xf32>
    scf.yield %s2 : tensor<32xf32>
  }
  // expected-remark @+1 {{held in the global workspace (128 bytes per program): tile result #0 of the scf.if}}
  %out = scf.if %flag -> (tensor<32xf32>) {
    scf.yield %sum : tensor<32xf32>
  } else {
    scf.yield %init : tensor<32xf32>
  }
  tile.store %out, %Y[%c0] : tensor<32xf32> -> memref<?xf32>
  tile.return
}

// -----

// A transposed slot as B (attention's K^T) is K-major: wgmma reads it in
// place (test/Conversion/NVGPU/wgmma-kmajor.mlir), nothing is copied.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @transposed_slot(%A: memref<?x?xbf16>, %K: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 8192 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %K[%c0, %c0] -> %ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  // expected-remark @+1 {{held in the global workspace (16384 bytes per program): the loaded tile}}
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  %k = tile.read %ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  // expected-remark @+1 {{A is copied into shared memory}}
  %s = tile.dot %a, %kt, %z : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  schedule.mbarrier.arrive %empty[%c0] : !schedule.mbarrier<1>
  tile.store %s, %C[%c0, %c0] : tensor<128x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// A transposed slot as A (which wgmma reads K-major only) is staged for
// wgmma straight from the slot when nothing between the read and the dot
// can let the slot be refilled: no copy through the workspace.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @transposed_slot_a(%B: memref<?x?xbf16>, %K: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 8192 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %K[%c0, %c0] -> %ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  // expected-remark @+1 {{held in the global workspace (8192 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  %k = tile.read %ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @+2 {{A is copied into shared memory}}
  // expected-remark @+1 {{B is copied into shared memory}}
  %s = tile.dot %kt, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  schedule.mbarrier.arrive %empty[%c0] : !schedule.mbarrier<1>
  tile.store %s, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// The same with the slot released before the dot: the read takes a copy.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @transposed_slot_released(%B: memref<?x?xbf16>, %K: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 8192 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    tile.copy %K[%c0, %c0] -> %ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  // expected-remark @+1 {{held in the global workspace (8192 bytes per program): the loaded tile}}
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
  schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<1>, index
  // expected-remark @+1 {{held in the global workspace (8192 bytes per program): a copy of the slot for readers other than the matrix unit}}
  %k = tile.read %ring[%c0] : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
  %kt = tile.transpose %k perm [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  schedule.mbarrier.arrive %empty[%c0] : !schedule.mbarrier<1>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @+2 {{A is copied into shared memory}}
  // expected-remark @+1 {{B is copied into shared memory}}
  %s = tile.dot %kt, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.store %s, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
