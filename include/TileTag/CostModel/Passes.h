//===- Passes.h - cost model passes -----------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_COSTMODEL_PASSES_H
#define TILETAG_COSTMODEL_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::cost {

#define GEN_PASS_DECL
#include "TileTag/CostModel/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/CostModel/Passes.h.inc"

} // namespace mlir::tiletag::cost

#endif // TILETAG_COSTMODEL_PASSES_H
