//===- CompileROCM.cpp - tile IR to AMDGPU assembly / HSACO ---------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Passes.h"

#include "TileTag/Verification/Passes.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/ArithToAMDGPU/ArithToAMDGPU.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

namespace mlir::tiletag::conversion {
#define GEN_PASS_DEF_LINKHSACOPASS
#include "TileTag/Conversion/Passes.h.inc"
} // namespace mlir::tiletag::conversion

using namespace mlir;
using namespace mlir::tiletag;

namespace {

/// Assembles and links one object's AMDGPU assembly; the HSACO's bytes.
FailureOr<std::string> linkHSACO(StringRef isa, ROCDL::ROCDLTargetAttr target,
                                 StringRef linker,
                                 function_ref<InFlightDiagnostic()> emitError) {
  FailureOr<SmallVector<char, 0>> object =
      ROCDL::assembleIsa(isa, target.getTriple(), target.getChip(),
                         target.getFeatures(), emitError);
  if (failed(object))
    return failure();
  SmallString<128> objectPath, hsacoPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tiletag-kernel", "o", fd,
                                         objectPath) ||
      llvm::sys::fs::createTemporaryFile("tiletag-kernel", "hsaco",
                                         hsacoPath)) {
    emitError() << "cannot create temporary files for the HSACO link";
    return failure();
  }
  llvm::FileRemover removeObject(objectPath), removeHsaco(hsacoPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object->data(), object->size());
  }
  std::string error;
  StringRef args[] = {linker, "-shared", objectPath, "-o", hsacoPath};
  if (llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                &error) != 0) {
    emitError() << "linking the HSACO with '" << linker << "' failed"
                << (error.empty() ? "" : ": ") << error;
    return failure();
  }
  auto buffer = llvm::MemoryBuffer::getFile(hsacoPath);
  if (!buffer) {
    emitError() << "cannot read the linked HSACO";
    return failure();
  }
  return (*buffer)->getBuffer().str();
}

struct LinkHSACOPass
    : public conversion::impl::LinkHSACOPassBase<LinkHSACOPass> {
  using Base::Base;
  void runOnOperation() override {
    std::string ld = linker.empty() ? TILETAG_LLVM_TOOLS_DIR "/ld.lld"
                                    : std::string(linker);
    WalkResult walk = getOperation().walk([&](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute a : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(a);
        auto target = dyn_cast<ROCDL::ROCDLTargetAttr>(object.getTarget());
        if (!target || object.getFormat() != gpu::CompilationTarget::Assembly) {
          objects.push_back(object);
          continue;
        }
        FailureOr<std::string> hsaco =
            linkHSACO(object.getObject().getValue(), target, ld,
                      [&] { return binary.emitError(); });
        if (failed(hsaco))
          return WalkResult::interrupt();
        objects.push_back(gpu::ObjectAttr::get(
            &getContext(), target, gpu::CompilationTarget::Binary,
            StringAttr::get(&getContext(), *hsaco), object.getProperties(),
            object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void conversion::buildCompileROCMPipeline(OpPassManager &pm,
                                          const CompileROCMOptions &options) {
  if (options.verify)
    pm.addPass(verify::createVerifyPass());
  pm.addPass(createConvertTileToAMDGPUPass(
      ConvertTileToAMDGPUPassOptions{options.allowUnverified, options.chip,
                                    options.reportFallbacks}));
  buildROCMBinaryPipeline(pm, options);
}

void conversion::buildROCMBinaryPipeline(OpPassManager &pm,
                                         const CompileROCMOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  GpuROCDLAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.optLevel = options.optLevel;
  pm.addPass(createGpuROCDLAttachTarget(attach));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Math to LLVM intrinsics, which the AMDGPU back end expands itself: no
  // ROCm device library is needed.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  ConvertAMDGPUToROCDLPassOptions amdgpu;
  amdgpu.chipset = options.chip;
  kernels.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  rocdl.runtime = gpu::amd::Runtime::HIP;
  kernels.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget =
      options.format == "bin" ? std::string("isa") : options.format.getValue();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (options.format == "bin")
    pm.addPass(createLinkHSACOPass());
  if (!options.output.empty())
    pm.addPass(
        createWriteGPUBinaryPass(WriteGPUBinaryPassOptions{options.output}));
}

void conversion::registerCompileROCMPipeline() {
  PassPipelineRegistration<CompileROCMOptions>(
      "tiletag-compile-rocm",
      "Compile tile kernels for AMD CDNA (gfx942, gfx90a): prove tags and "
      "schedule, lower to gpu + amdgpu (MFMA, buffer loads), then ROCDL, "
      "AMDGPU assembly and an HSA code object (ld.lld). Example: "
      "--tiletag-compile-rocm=\"chip=gfx942 format=isa output=gemm.s\"",
      buildCompileROCMPipeline);
}
