//===- Compile.cpp - C API: lowering and transform scripts ----------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Compile.h"

#include "TileTag/Conversion/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::tiletag;

MlirLogicalResult tiletagCompileCUDA(MlirModule module, MlirStringRef chip,
                                     MlirStringRef format,
                                     bool allowUnverified,
                                     MlirStringCallback callback,
                                     void *userData) {
  ModuleOp source = unwrap(module);
  if (unwrap(format) != "isa" && unwrap(format) != "bin") {
    emitError(source.getLoc())
        << "tiletagCompileCUDA: format must be 'isa' (PTX) or 'bin' (cubin), "
           "not '"
        << unwrap(format) << "'";
    return wrap(failure());
  }
  OwningOpRef<ModuleOp> copy(source.clone());
  conversion::CompileCUDAOptions options;
  options.chip = unwrap(chip).str();
  options.format = unwrap(format).str();
  options.allowUnverified = allowUnverified;
  PassManager pm(source.getContext(), ModuleOp::getOperationName());
  conversion::buildCompileCUDAPipeline(pm, options);
  if (failed(pm.run(*copy)))
    return wrap(failure());
  bool any = false;
  for (auto binary : copy->getOps<gpu::BinaryOp>()) {
    auto object = llvm::cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    callback(wrap(object.getObject().getValue()), userData);
    any = true;
  }
  if (!any) {
    emitError(source.getLoc()) << "tiletagCompileCUDA: the module has no "
                                  "kernels to compile";
    return wrap(failure());
  }
  return wrap(success());
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
