//===- TagOps.cpp - tag dialect operations --------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tag/IR/TagOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tiletag::tag;

static LogicalResult verifyTagName(Operation *op, StringRef name) {
  if (name.empty())
    return op->emitOpError() << "needs a non-empty tag name";
  return success();
}

LogicalResult AttachOp::verify() { return verifyTagName(*this, getName()); }

LogicalResult FieldOp::verify() {
  if (failed(verifyTagName(*this, getName())))
    return failure();
  if (getIndexAttr().getInt() < 0)
    return emitOpError() << "field index must be non-negative, got "
                         << getIndexAttr().getInt();
  return success();
}

LogicalResult AssertAffineOp::verify() {
  IntegerSet set = getCondition();
  unsigned expected = set.getNumDims() + set.getNumSymbols();
  if (getOperands().size() != expected)
    return emitOpError() << "the integer set has " << set.getNumDims()
                         << " dimensions and " << set.getNumSymbols()
                         << " symbols, so it needs " << expected
                         << " operands, but got " << getOperands().size();
  return success();
}

LogicalResult AssertCarriesOp::verify() {
  return verifyTagName(*this, getName());
}

#define GET_OP_CLASSES
#include "TileTag/Dialect/Tag/IR/TagOps.cpp.inc"
