//===- TagDialect.h - The tag dialect ---------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_IR_TAGDIALECT_H
#define TILETAG_DIALECT_TAG_IR_TAGDIALECT_H

#include "mlir/IR/Dialect.h"

#include "TileTag/Dialect/Tag/IR/TagDialect.h.inc"

#endif // TILETAG_DIALECT_TAG_IR_TAGDIALECT_H
