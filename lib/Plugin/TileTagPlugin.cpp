//===- TileTagPlugin.cpp - TileTag as an mlir-opt plugin ------------------===//
//
// Part of the TileTag project.
//
// Loaded by an mlir-opt built on the same libMLIR.so (Debian's mlir-opt-22):
//   mlir-opt --load-dialect-plugin=TileTagPlugin.so \
//            --load-pass-plugin=TileTagPlugin.so ...
// registers the tile, tag and schedule dialects (with the transform.tiletag
// extension) and TileTag's passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Config.h"
#include "TileTag/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TileTag", TILETAG_VERSION,
          [](DialectRegistry *registry) {
            tiletag::registerTileTagDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TileTag", TILETAG_VERSION,
          []() { tiletag::registerTileTagPasses(); }};
}
