//===- Compile.cpp - C API: lowering and transform scripts ----------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Compile.h"

#include "TileTag/Conversion/Passes.h"
#include "TileTag/Verification/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::tiletag;

/// Runs `build`'s pipeline on a copy of `module` and hands each binary to
/// `callback`.
static MlirLogicalResult
compileCopy(MlirModule module, StringRef what, StringRef format,
            StringRef formats,
            function_ref<void(OpPassManager &)> build,
            MlirStringCallback callback, void *userData) {
  ModuleOp source = unwrap(module);
  if (format != "isa" && format != "bin") {
    emitError(source.getLoc())
        << what << ": format must be " << formats << ", not '" << format
        << "'";
    return wrap(failure());
  }
  OwningOpRef<ModuleOp> copy(source.clone());
  PassManager pm(source.getContext(), ModuleOp::getOperationName());
  build(pm);
  if (failed(pm.run(*copy)))
    return wrap(failure());
  bool any = false;
  for (auto binary : copy->getOps<gpu::BinaryOp>()) {
    auto object = llvm::cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    callback(wrap(object.getObject().getValue()), userData);
    any = true;
  }
  if (!any) {
    emitError(source.getLoc())
        << what << ": the module has no kernels to compile";
    return wrap(failure());
  }
  return wrap(success());
}

MlirLogicalResult tiletagCompileCUDA(MlirModule module, MlirStringRef chip,
                                     MlirStringRef format,
                                     bool allowUnverified,
                                     MlirStringCallback callback,
                                     void *userData) {
  conversion::CompileCUDAOptions options;
  options.chip = unwrap(chip).str();
  options.format = unwrap(format).str();
  options.allowUnverified = allowUnverified;
  return compileCopy(
      module, "tiletagCompileCUDA", unwrap(format),
      "'isa' (PTX) or 'bin' (cubin)",
      [&](OpPassManager &pm) {
        conversion::buildCompileCUDAPipeline(pm, options);
      },
      callback, userData);
}

MlirLogicalResult tiletagCompileROCM(MlirModule module, MlirStringRef chip,
                                     MlirStringRef format,
                                     bool allowUnverified,
                                     MlirStringCallback callback,
                                     void *userData) {
  conversion::CompileROCMOptions options;
  options.chip = unwrap(chip).str();
  options.format = unwrap(format).str();
  options.allowUnverified = allowUnverified;
  return compileCopy(
      module, "tiletagCompileROCM", unwrap(format),
      "'isa' (AMDGPU assembly) or 'bin' (HSACO)",
      [&](OpPassManager &pm) {
        conversion::buildCompileROCMPipeline(pm, options);
      },
      callback, userData);
}

MlirLogicalResult tiletagReportFallbacks(MlirModule module,
                                         MlirStringRef chip) {
  ModuleOp source = unwrap(module);
  StringRef name = unwrap(chip);
  PassManager pm(source.getContext(), ModuleOp::getOperationName());
  pm.addPass(verify::createVerifyPass());
  if (name.starts_with("gfx"))
    pm.addPass(conversion::createConvertTileToAMDGPUPass(
        conversion::ConvertTileToAMDGPUPassOptions{
            /*allowUnverified=*/false, name.str(), /*reportFallbacks=*/true}));
  else
    pm.addPass(conversion::createConvertTileToNVGPUPass(
        conversion::ConvertTileToNVGPUPassOptions{
            /*allowUnverified=*/false, name.str(), /*reportFallbacks=*/true}));
  OwningOpRef<ModuleOp> copy(source.clone());
  return wrap(pm.run(*copy));
}

MlirLogicalResult tiletagApplyTransformScript(MlirModule payload,
                                              MlirModule script) {
  ModuleOp scriptModule = unwrap(script);
  Operation *entry = transform::detail::findTransformEntryPoint(
      scriptModule, scriptModule,
      transform::TransformDialect::kTransformEntryPointSymbolName);
  if (!entry)
    return wrap(failure());
  return wrap(transform::applyTransformNamedSequence(
      unwrap(payload), entry, scriptModule, transform::TransformOptions()));
}
