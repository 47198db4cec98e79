// The tag stamp of a launch chain's first kernel covers the kernels its
// launch runs after it: changing the reduction kernel after the proof (its
// loop skips slice 0) makes the first kernel's stamp stale, and the lowering
// refuses it (line 2 of the printed module: the first kernel).
// REQUIRES: z3
// RUN: tiletag-opt %S/../../Verification/chain/splitk-chain.mlir --tiletag-verify | tiletag-opt --tiletag-convert-to-nvgpu | FileCheck %s --check-prefix=LOWERED
// RUN: tiletag-opt %S/../../Verification/chain/splitk-chain.mlir --tiletag-verify | sed -e 's/scf.for %%arg0 = %%c0 to %%dim step %%c1 iter_args(%%arg1 = %%cst) -> (tensor<128x128xf32>) {$/scf.for %%arg0 = %%c1 to %%dim step %%c1 iter_args(%%arg1 = %%cst) -> (tensor<128x128xf32>) {/' | not tiletag-opt --tiletag-convert-to-nvgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// LOWERED: gpu.func @gemm_splitk(
// LOWERED: gpu.func @gemm_splitk_reduce(
// STALE: <stdin>:2:3: error: the proof of its tags is stale: the kernel changed after it was verified
