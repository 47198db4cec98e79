//===- InitAll.cpp - register every TileTag dialect and pass --------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/InitAll.h"

#include "TileTag/Config.h"
#include "TileTag/CostModel/Passes.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Schedule/Transforms/Passes.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tag/Transforms/Passes.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Dialect/Tile/Transforms/Passes.h"
#if TILETAG_ENABLE_VERIFICATION
#include "TileTag/Conversion/Passes.h"
#include "TileTag/Conversion/TileToGPU/KernelLowering.h"
#include "TileTag/CostModel/CostModel.h"
#include "TileTag/TransformOps/TileTagTransformOps.h"
#include "TileTag/Verification/Passes.h"
#endif

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tiletag::registerTileTagDialects(DialectRegistry &registry) {
  registry
      .insert<tile::TileDialect, tag::TagDialect, schedule::ScheduleDialect>();
#if TILETAG_ENABLE_VERIFICATION
  registerTransformDialectExtension(registry);
#endif
}

void mlir::tiletag::registerAllDialects(DialectRegistry &registry) {
  registerTileTagDialects(registry);
  registry.insert<amdgpu::AMDGPUDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect,
                  ROCDL::ROCDLDialect, scf::SCFDialect, tensor::TensorDialect,
                  transform::TransformDialect, vector::VectorDialect>();
  // Interfaces and transform-dialect extensions of the upstream dialects
  // (bufferization models, conversion-to-LLVM interfaces, GPU targets, ...);
  // each attaches only when its dialect is loaded.
  mlir::registerAllExtensions(registry);
  // What gpu-module-to-binary needs: the NVVM and ROCDL targets (PTX/cubin,
  // gfx ISA/HSACO) and the translations to LLVM IR.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

#if TILETAG_ENABLE_VERIFICATION
namespace mlir::tiletag {
/// The cost model follows the lowering of the chip it models (its workspace
/// traffic, the dots it keeps off the matrix unit), as the lowering would
/// plan it.
static void registerLoweringPlanners() {
  auto planner = [](std::function<std::unique_ptr<conversion::LoweringTarget>()>
                        makeTarget) {
    return [makeTarget](tile::KernelOp kernel)
               -> FailureOr<cost::LoweringPlan> {
      // What the lowerings build (--tiletag-estimate loads them first).
      MLIRContext *ctx = kernel.getContext();
      if (!ctx->getLoadedDialect<nvgpu::NVGPUDialect>() ||
          !ctx->getLoadedDialect<amdgpu::AMDGPUDialect>())
        ctx->loadDialect<amdgpu::AMDGPUDialect, arith::ArithDialect,
                         gpu::GPUDialect, LLVM::LLVMDialect, math::MathDialect,
                         memref::MemRefDialect, NVVM::NVVMDialect,
                         nvgpu::NVGPUDialect, scf::SCFDialect,
                         vector::VectorDialect>();
      std::unique_ptr<conversion::LoweringTarget> target = makeTarget();
      cost::LoweringPlan plan;
      if (failed(conversion::planLowering(kernel, *target, plan.workspace,
                                          plan.elementwiseDots,
                                          plan.stagedAtDot,
                                          plan.sharedBytes)))
        return failure();
      return plan;
    };
  };
  cost::registerLoweringPlanner(
      "sm_90a", planner([] { return conversion::createNVGPUTarget(); }));
  for (StringRef chip : {"gfx90a", "gfx940", "gfx941", "gfx942"})
    cost::registerLoweringPlanner(chip, planner([chip] {
                                     return conversion::createAMDGPUTarget(chip);
                                   }));
}
} // namespace mlir::tiletag
#endif

void mlir::tiletag::registerTileTagPasses() {
  tile::registerTileTagTilePasses();
  tag::registerTileTagTagPasses();
  schedule::registerTileTagSchedulePasses();
  cost::registerTileTagCostModelPasses();
#if TILETAG_ENABLE_VERIFICATION
  verify::registerTileTagVerificationPasses();
  conversion::registerTileTagConversionPasses();
  conversion::registerCompileCUDAPipeline();
  conversion::registerCompileROCMPipeline();
  registerLoweringPlanners();
#endif
}

void mlir::tiletag::registerAllPasses() {
  registerTileTagPasses();
  mlir::registerAllPasses();
}
