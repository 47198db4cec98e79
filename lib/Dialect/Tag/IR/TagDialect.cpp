//===- TagDialect.cpp - The tag dialect -----------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletag::tag;

#include "TileTag/Dialect/Tag/IR/TagDialect.cpp.inc"
#include "TileTag/Dialect/Tag/IR/TagEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Tag/IR/TagAttrs.cpp.inc"

void TagDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileTag/Dialect/Tag/IR/TagAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "TileTag/Dialect/Tag/IR/TagOps.cpp.inc"
      >();
}

LogicalResult LabelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, AffineMap fields) {
  if (name.empty())
    return emitError() << "a tag needs a non-empty name";
  if (fields.getNumSymbols() != 0)
    return emitError() << "tag fields are affine in the operation's index "
                          "operands (dimensions); symbols are not allowed";
  return success();
}

LogicalResult TagDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == kVerifiedAttrName) {
    // Set by the checker: the hash of the kernel it proved.
    if (!llvm::isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kVerifiedAttrName
                             << "' is a proof stamp: the hash string of the "
                                "kernel the checker proved";
    return success();
  }
  if (attr.getName() != kLabelsAttrName)
    return op->emitError() << "unknown tag dialect attribute '"
                           << attr.getName().getValue()
                           << "'; the tag dialect defines '" << kLabelsAttrName
                           << "' and '" << kVerifiedAttrName << "'";
  auto labels = llvm::dyn_cast<ArrayAttr>(attr.getValue());
  if (!labels || labels.empty() || !llvm::all_of(labels, [](Attribute a) {
        return llvm::isa<LabelAttr>(a);
      }))
    return op->emitError() << "'" << kLabelsAttrName
                           << "' must be a non-empty array of #tag.label";
  if (op->getNumResults() == 0)
    return op->emitError() << "'" << kLabelsAttrName
                           << "' tags the operation's first result, but this "
                              "operation has no results";
  unsigned numIndexOperands =
      llvm::count_if(op->getOperandTypes(), [](Type t) { return t.isIndex(); });
  for (Attribute a : labels) {
    auto label = llvm::cast<LabelAttr>(a);
    if (label.getFields().getNumDims() != numIndexOperands)
      return op->emitError()
             << "tag \"" << label.getName() << "\" has a field map over "
             << label.getFields().getNumDims()
             << " dimensions, but the operation has " << numIndexOperands
             << " index operands (the map's dimensions are those operands, in "
                "order)";
  }
  return success();
}
