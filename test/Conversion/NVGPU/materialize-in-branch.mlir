// A tile of an enclosing block that code in a branch or a loop body first
// copies to the workspace (here a SIMT dot's operand, formed once) is copied
// only where that code runs: a reader after the branch, or after a loop that
// may run no iteration, copies it again rather than read a buffer nobody
// wrote. Buffers: the load, %e in the branch (loop), the dot there, %e after
// it, the second dot: 5 x 1024 bytes.
// RUN: tiletag-opt %s -split-input-file --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s

// CHECK-LABEL: gpu.func @branch
// CHECK-SAME: workspace_bytes = 5120
// CHECK: scf.if
// CHECK: memref.store {{.*}}, %arg1[
// CHECK: }
// CHECK: %[[E:view_[0-9]+]] = memref.view %arg3
// CHECK: memref.store {{.*}}, %[[E]][
// CHECK: memref.store {{.*}}, %arg2[
tile.kernel @branch(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %Z: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %p = tile.program_id 0
  %first = arith.cmpi eq, %p, %c0 : index
  %a = tile.load %X[%p, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x16xf32>
  %e = arith.addf %a, %a : tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  scf.if %first {
    %d = tile.dot %e, %e, %z : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    tile.store %d, %Y[%p, %c0] : tensor<16x16xf32> -> memref<?x?xf32>
  }
  %d2 = tile.dot %e, %e, %z : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d2, %Z[%p, %c0] : tensor<16x16xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// CHECK-LABEL: gpu.func @loop
// CHECK-SAME: workspace_bytes = 5120
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %arg1[
// CHECK: %[[E:view_[0-9]+]] = memref.view %arg4
// CHECK: memref.store {{.*}}, %[[E]][
// CHECK: memref.store {{.*}}, %arg2[
tile.kernel @loop(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %Z: memref<?x?xf32>, %n: index) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %a = tile.load %X[%p, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x16xf32>
  %e = arith.addf %a, %a : tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %d = tile.dot %e, %e, %z : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    tile.store %d, %Y[%p, %i] : tensor<16x16xf32> -> memref<?x?xf32>
  }
  %d2 = tile.dot %e, %e, %z : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d2, %Z[%p, %c0] : tensor<16x16xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// The loop carries a tile of the enclosing block in a buffer: its yield
// copies %e there only where an iteration runs, so the dot after the loop
// forms %e again. Buffers: the load, %e at the yield, the carried buffer,
// %e after the loop, the dot: 5 x 1024 bytes.
// CHECK-LABEL: gpu.func @yield
// CHECK-SAME: workspace_bytes = 5120
// CHECK: scf.for {{.*}} = %c0 to %arg3 step
// CHECK: memref.store {{.*}}, %arg2[
tile.kernel @yield(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %Z: memref<?x?xf32>, %n: index) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %a = tile.load %X[%p, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x16xf32>
  %e = arith.addf %a, %a : tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %a) -> (tensor<16x16xf32>) {
    tile.store %t, %Y[%p, %i] : tensor<16x16xf32> -> memref<?x?xf32>
    scf.yield %e : tensor<16x16xf32>
  }
  %d2 = tile.dot %e, %e, %z : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d2, %Z[%p, %c0] : tensor<16x16xf32> -> memref<?x?xf32>
  tile.return
}
