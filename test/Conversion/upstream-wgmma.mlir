// tiletag-opt drives the upstream NVGPU -> NVVM -> PTX path that the Hopper
// lowering builds on: a warpgroup MMA becomes wgmma.mma_async PTX for
// sm_90a, and ptxas (through gpu-module-to-binary, format=bin) accepts it.
// REQUIRES: ptxas
// RUN: tiletag-opt %s -gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90a cubin-features=+ptx80 cubin-format=isa" | FileCheck %s --check-prefix=PTX
// RUN: tiletag-opt %s -gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90a cubin-features=+ptx80 cubin-format=bin" | FileCheck %s --check-prefix=BIN
// PTX: wgmma.fence.sync.aligned
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned
// BIN: gpu.binary @kernels {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">, {{.*}}bin = "{{.}}7FELF

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma(%descA: i64, %descB: i64, %out: memref<64x128xf32>) kernel {
      %a = builtin.unrealized_conversion_cast %descA : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<64x16xf16, 3>>
      %b = builtin.unrealized_conversion_cast %descB : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<16x128xf16, 3>>
      %acc = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>
      %d = nvgpu.warpgroup.mma %a, %b, %acc : !nvgpu.warpgroup.descriptor<tensor = memref<64x16xf16, 3>>, !nvgpu.warpgroup.descriptor<tensor = memref<16x128xf16, 3>>, !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>> -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>
      nvgpu.warpgroup.mma.store %d, %out : !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>> to memref<64x128xf32>
      gpu.return
    }
  }
}
