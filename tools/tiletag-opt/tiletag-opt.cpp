//===- tiletag-opt.cpp - the TileTag optimizer driver ---------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tiletag::registerAllDialects(registry);
  mlir::tiletag::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "TileTag optimizer: tile kernels with proven-safe GPU schedules\n",
      registry));
}
