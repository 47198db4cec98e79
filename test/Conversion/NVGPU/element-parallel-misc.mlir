// The element-parallel forms of the remaining tile ops, in a kernel without
// roles: a synchronous copy into a shared slot (not swizzled: 128-byte rows
// are needed for that), tile.read taking a copy into the workspace, a
// transpose read through, an scf.if whose branches fill one buffer, iota,
// tile.write into the other slot, and the copy back to global memory,
// clipped. schedule.barrier becomes gpu.barrier; each fill ends with one too.
// REQUIRES: ptxas
// RUN: tiletag-opt %s --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | tiletag-opt -canonicalize -cse | FileCheck %s
// RUN: tiletag-opt %s --tiletag-compile-cuda="verify=0 allow-unverified=1 format=isa output=%t.ptx" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// CHECK-LABEL: gpu.func @misc
// Global -> slot 0, padded.
// CHECK: %[[SMEM:.*]] = memref.view {{.*}} to memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: memref.load %arg0
// CHECK: memref.store %{{.*}}, %[[SMEM]]
// CHECK: gpu.barrier
// The read copies the slot out.
// CHECK: %[[T:.*]] = memref.view %arg3{{.*}} to memref<32x32xf32>
// CHECK: memref.load %[[SMEM]]
// CHECK: memref.store %{{.*}}, %[[T]][%[[I:.*]], %[[J:.*]]]
// CHECK: gpu.barrier
// Both branches write the result buffer; the then-branch reads transposed.
// CHECK: %[[R:.*]] = memref.view %arg3{{.*}} to memref<32x32xf32>
// CHECK: scf.if %arg2
// CHECK: memref.load %[[T]][%[[A:.*]], %[[B:.*]]]
// CHECK: memref.store %{{.*}}, %[[R]][%[[B]], %[[A]]]
// CHECK: arith.sitofp
// CHECK: memref.store %{{.*}}, %[[R]]
// CHECK: gpu.barrier
// tile.write, the barrier, then the clipped copy out.
// CHECK: memref.load %[[R]]
// CHECK: memref.store %{{.*}}, %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SMEM]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg1
tile.kernel @misc(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %flag: i1) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<2x32x32xf32, #gpu.address_space<workgroup>>
  tile.copy %X[%c0, %c0] -> %buf[%c0] padding(0.0 : f32)
      : memref<?x?xf32> -> memref<2x32x32xf32, #gpu.address_space<workgroup>>
  schedule.barrier cta
  %t = tile.read %buf[%c0] : memref<2x32x32xf32, #gpu.address_space<workgroup>> -> tensor<32x32xf32>
  %tt = tile.transpose %t perm [1, 0] : tensor<32x32xf32> -> tensor<32x32xf32>
  %r = scf.if %flag -> (tensor<32x32xf32>) {
    scf.yield %tt : tensor<32x32xf32>
  } else {
    %i = tile.iota dim 0 : tensor<32x32xindex>
    %f = arith.index_cast %i : tensor<32x32xindex> to tensor<32x32xi32>
    %g = arith.sitofp %f : tensor<32x32xi32> to tensor<32x32xf32>
    scf.yield %g : tensor<32x32xf32>
  }
  tile.write %r, %buf[%c1] : tensor<32x32xf32> -> memref<2x32x32xf32, #gpu.address_space<workgroup>>
  schedule.barrier cta
  tile.copy %buf[%c1] -> %Y[%c0, %c0]
      : memref<2x32x32xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  tile.return
}
