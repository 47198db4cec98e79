//===- Passes.h - schedule dialect passes -----------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_TRANSFORMS_PASSES_H
#define TILETAG_DIALECT_SCHEDULE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::schedule {

#define GEN_PASS_DECL
#include "TileTag/Dialect/Schedule/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/Dialect/Schedule/Transforms/Passes.h.inc"

} // namespace mlir::tiletag::schedule

#endif // TILETAG_DIALECT_SCHEDULE_TRANSFORMS_PASSES_H
