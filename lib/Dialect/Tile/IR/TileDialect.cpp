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

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != kNameAttrName)
    return op->emitError() << "unknown tile dialect argument attribute '"
                           << attr.getName().getValue() << "'; the tile dialect "
                           << "defines '" << kNameAttrName << "'";
  auto name = llvm::dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << kNameAttrName
                           << "' of argument #" << argIndex
                           << " must be a non-empty string";
  if (!llvm::isa<KernelOp>(op))
    return op->emitError() << "'" << kNameAttrName
                           << "' names operands of a tile.kernel";
  return success();
}
