// tiletag-opt drives the upstream AMDGPU -> ROCDL -> gfx942 ISA path that
// the CDNA3 lowering builds on: an MFMA becomes v_mfma_f32_16x16x16_f16.
// (ISA text needs no device libraries; HSACO linking is left to the AMD
// lowering.)
// RUN: tiletag-opt %s --convert-amdgpu-to-rocdl=chipset=gfx942 --convert-gpu-to-rocdl=runtime=HIP --gpu-module-to-binary=format=isa | FileCheck %s
// CHECK: gpu.binary @kernels
// CHECK-SAME: v_mfma_f32_16x16x16_f16

module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @mfma(%a: vector<4xf16>, %b: vector<4xf16>, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %d = amdgpu.mfma 16x16x16 %a * %b + %zero blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      vector.store %d, %out[%c0] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }
}
