//===- TileDialect.cpp - The tile dialect ---------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileDialect.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tiletag::tile;

#include "TileTag/Dialect/Tile/IR/TileDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TileTag/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}
