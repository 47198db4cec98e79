//===- downstream-opt.cpp - a compiler that embeds TileTag ----------------===//
//
// Part of the TileTag project: the test of TileTag's installed CMake
// package (test/Downstream/downstream.test).
//
// An mlir-opt of its own with TileTag's dialects and passes registered, and
// one pass of its own that works on TileTag's IR through its C++ API.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

using namespace mlir;

namespace {
/// Reports every kernel with the number of tile.load ops it has.
struct CountLoadsPass
    : public PassWrapper<CountLoadsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountLoadsPass)
  StringRef getArgument() const override { return "downstream-count-loads"; }
  StringRef getDescription() const override {
    return "Remark, per tile.kernel, how many tile.load ops it has";
  }
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<tiletag::tile::KernelOp>()) {
      unsigned loads = 0;
      kernel.walk([&](tiletag::tile::LoadOp) { ++loads; });
      emitRemark(kernel.getLoc())
          << "@" << kernel.getSymName() << ": " << loads << " tile.load";
    }
  }
};
} // namespace

int main(int argc, char **argv) {
  DialectRegistry registry;
  tiletag::registerAllDialects(registry);
  tiletag::registerAllPasses();
  PassRegistration<CountLoadsPass>();
  return asMainReturnCode(
      MlirOptMain(argc, argv, "downstream-opt: a compiler embedding TileTag\n",
                  registry));
}
