//===- Dialects.cpp - C API: registration ---------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Dialects.h"

#include "TileTag/Config.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/InitAll.h"
#include "TileTag/TransformOps/TileTagTransformOps.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile,
                                      mlir::tiletag::tile::TileDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tag, tag, mlir::tiletag::tag::TagDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Schedule, schedule,
                                      mlir::tiletag::schedule::ScheduleDialect)

MlirStringRef tiletagGetVersion(void) {
  return mlirStringRefCreateFromCString(TILETAG_VERSION);
}

void tiletagRegisterDialects(MlirDialectRegistry registry) {
  tiletag::registerTileTagDialects(*unwrap(registry));
}

void tiletagRegisterTransformExtension(MlirDialectRegistry registry) {
  tiletag::registerTransformDialectExtension(*unwrap(registry));
}

void tiletagRegisterAllDialects(MlirDialectRegistry registry) {
  tiletag::registerAllDialects(*unwrap(registry));
}

void tiletagRegisterPasses(void) { tiletag::registerTileTagPasses(); }

void tiletagRegisterAllPasses(void) { tiletag::registerAllPasses(); }

MlirContext tiletagContextCreate(void) {
  DialectRegistry registry;
  tiletag::registerAllDialects(registry);
  auto *context = new MLIRContext(registry);
  return wrap(context);
}

MlirModule tiletagModuleCreateParse(MlirContext context, MlirStringRef source,
                                    MlirStringRef sourceName) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      unwrap(source), unwrap(context), unwrap(sourceName));
  return wrap(module.release());
}
