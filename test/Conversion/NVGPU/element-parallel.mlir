// Tile ops outside TMA and wgmma run element-parallel on the group's threads
// (here the CTA's 128), with a slice of the global workspace per program:
// a load fills a workspace tile (padding where out of range), a reduction
// folds each output element over its axis with the element-wise producers
// fused in (subf, exp), loop-carried tiles live in a loop-owned buffer that
// the yield overwrites after the next value is complete, and a barrier
// separates each fill from its readers.
// REQUIRES: z3
// RUN: tiletag-opt %examples/softmax.mlir --tiletag-verify --tiletag-convert-to-nvgpu | tiletag-opt -canonicalize -cse | FileCheck %s

// CHECK-LABEL: gpu.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[Y:.*]]: memref<?x?xf32>, %[[WS:.*]]: memref<?xi8>) kernel
// CHECK-SAME: tiletag.abi = {{.*}}workspace_bytes = 49536 : i64}
// CHECK: %[[SLICE:.*]] = arith.muli %{{.*}}, %c49536
// The running max, initialized to -inf by the group.
// CHECK: %[[M:.*]] = memref.view %[[WS]][%[[SLICE]]][] : memref<?xi8> to memref<16xf32>
// CHECK: scf.for %{{.*}} = %thread_id_x to %c16 step %c128
// CHECK: memref.store %cst{{.*}}, %[[M]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %c0
// The loaded block: padded with -inf out of range.
// CHECK: %[[XT:.*]] = memref.view %[[WS]]{{.*}} to memref<16x256xf32>
// CHECK: scf.for %{{.*}} = %thread_id_x to %c4096 step %c128
// CHECK: scf.if
// CHECK: memref.load %[[X]]
// CHECK: else
// CHECK: scf.yield %cst
// CHECK: memref.store %{{.*}}, %[[XT]]
// CHECK: gpu.barrier
// The row max: one fold per row.
// CHECK: scf.for %{{.*}} = %thread_id_x to %c16 step %c128
// CHECK: scf.for %{{.*}} = %c1 to %c256 step %c1 iter_args
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// Next value formed, then copied into the carried buffer.
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[M]]
// CHECK: gpu.barrier
// The sum of exp(x - max) fuses the element-wise ops into the fold.
// CHECK: scf.for %{{.*}} = %c1 to %c256 step %c1 iter_args
// CHECK: memref.load %[[M]]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// The result is stored clipped to Y.
// CHECK: memref.store %{{.*}}, %[[Y]]
