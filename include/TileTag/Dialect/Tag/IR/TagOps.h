//===- TagOps.h - tag dialect operations and attributes ---------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_IR_TAGOPS_H
#define TILETAG_DIALECT_TAG_IR_TAGOPS_H

#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tiletag::tag {
/// The ghost state that assertions "write", so that no pass erases them as
/// dead code or moves them across one another.
struct GhostResource : public SideEffects::Resource::Base<GhostResource> {
  StringRef getName() final { return "TagGhost"; }
};
} // namespace mlir::tiletag::tag

#include "TileTag/Dialect/Tag/IR/TagEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Tag/IR/TagAttrs.h.inc"

#define GET_OP_CLASSES
#include "TileTag/Dialect/Tag/IR/TagOps.h.inc"

#endif // TILETAG_DIALECT_TAG_IR_TAGOPS_H
