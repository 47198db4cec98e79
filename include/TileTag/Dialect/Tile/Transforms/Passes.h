//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILETAG_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::tile {

#define GEN_PASS_DECL
#include "TileTag/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::tiletag::tile

#endif // TILETAG_DIALECT_TILE_TRANSFORMS_PASSES_H
