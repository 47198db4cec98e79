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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tiletag::conversion {
#define GEN_PASS_DEF_WRITEGPUBINARYPASS
#include "TileTag/Conversion/Passes.h.inc"
} // namespace mlir::tiletag::conversion

using namespace mlir;
using namespace mlir::tiletag;

namespace {
struct WriteGPUBinaryPass
    : public conversion::impl::WriteGPUBinaryPassBase<WriteGPUBinaryPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<gpu::BinaryOp> binaries(getOperation().getOps<gpu::BinaryOp>());
    if (binaries.empty()) {
      getOperation().emitError()
          << "no gpu.binary to write; run gpu-module-to-binary first";
      return signalPassFailure();
    }
    for (gpu::BinaryOp binary : binaries) {
      std::string file = path;
      if (binaries.size() > 1) {
        StringRef ext = llvm::sys::path::extension(path);
        file = (StringRef(path).drop_back(ext.size()) + "." +
                binary.getSymName() + ext)
                   .str();
      }
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      std::error_code ec;
      llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_None);
      if (ec) {
        binary.emitError() << "cannot write '" << file << "': " << ec.message();
        return signalPassFailure();
      }
      os << object.getObject().getValue();
    }
  }
};
} // namespace

void conversion::buildCompileCUDAPipeline(OpPassManager &pm,
                                          const CompileCUDAOptions &options) {
  if (options.verify) {
    pm.addPass(verify::createVerifyPass());
  }
  pm.addPass(createConvertTileToNVGPUPass(
      ConvertTileToNVGPUPassOptions{options.allowUnverified, options.chip}));
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

void conversion::registerConversionPipelines() {
  PassPipelineRegistration<CompileCUDAOptions>(
      "tiletag-compile-cuda",
      "Compile tile kernels for NVIDIA Hopper: prove tags and schedule, lower "
      "to gpu + nvgpu (TMA, mbarrier, wgmma, warp roles), then NVVM, PTX and "
      "cubin (ptxas). Example: "
      "--tiletag-compile-cuda=\"chip=sm_90a format=isa output=gemm.ptx\"",
      buildCompileCUDAPipeline);
}
