//===- CompileCUDA.cpp - tile IR to PTX / cubin ---------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Passes.h"

#include "TileTag/Dialect/Tag/Transforms/Passes.h"
#include "TileTag/Verification/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tiletag;

void conversion::buildCompileCUDAPipeline(OpPassManager &pm,
                                          const CompileCUDAOptions &options) {
  if (options.verify) {
    pm.addPass(verify::createVerifyPass());
  }
  pm.addPass(createConvertTileToNVGPUPass(
      ConvertTileToNVGPUPassOptions{options.allowUnverified, options.chip,
                                    options.reportFallbacks}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = options.format;
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  if (!options.output.empty())
    pm.addPass(
        createWriteGPUBinaryPass(WriteGPUBinaryPassOptions{options.output}));
}

void conversion::registerCompileCUDAPipeline() {
  PassPipelineRegistration<CompileCUDAOptions>(
      "tiletag-compile-cuda",
      "Compile tile kernels for NVIDIA Hopper: prove tags and schedule, lower "
      "to gpu + nvgpu (TMA, mbarrier, wgmma, warp roles), then NVVM, PTX and "
      "cubin (ptxas). Example: "
      "--tiletag-compile-cuda=\"chip=sm_90a format=isa output=gemm.ptx\"",
      buildCompileCUDAPipeline);
}
