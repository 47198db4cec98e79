//===- Passes.h - tag dialect passes ----------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_TRANSFORMS_PASSES_H
#define TILETAG_DIALECT_TAG_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::tag {

#define GEN_PASS_DECL
#include "TileTag/Dialect/Tag/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/Dialect/Tag/Transforms/Passes.h.inc"

} // namespace mlir::tiletag::tag

#endif // TILETAG_DIALECT_TAG_TRANSFORMS_PASSES_H
