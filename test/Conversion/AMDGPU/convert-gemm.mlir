// The plain GEMM on CDNA3: its dot runs on MFMA 32x32x8 -- the 128x128
// accumulator's 16 blocks of 32x32 shared by the CTA's 2 waves, 8 each (16
// f32 a lane each), kept in registers across the K loop -- and its padded tile loads are buffer loads
// whose out-of-range lanes read past the buffer (row index = rows), where the
// bounds check returns the zero padding; no branch.
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-verify --tiletag-convert-to-amdgpu | FileCheck %s

// CHECK: gpu.module @tiletag_kernels
// CHECK: gpu.func @gemm(
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>, tiletag.abi = {block = array<i64: 128, 1, 1>, grid_rank = 2 : i64, mfma = true, shared_bytes = 0 : i64
// CHECK: llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"
// CHECK: scf.for {{.*}} -> (vector<128xf32>)
// CHECK: memref.dim %arg0, %{{.*}} : memref<?x?xbf16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %dim_{{[0-9]+}} : index
// CHECK-NOT: scf.if
// CHECK: amdgpu.raw_buffer_load %arg0[%{{.*}}, %{{.*}}] : memref<?x?xbf16>, i32, i32 -> bf16
// CHECK-NOT: scf.if
// CHECK: amdgpu.raw_buffer_load %arg1[%{{.*}}, %{{.*}}] : memref<?x?xbf16>, i32, i32 -> bf16
// CHECK: scf.for {{.*}} -> (vector<128xf32>)
// CHECK-COUNT-8: amdgpu.mfma 32x32x8 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
