//===- IRUtils.h - Small IR helpers shared by TileTag passes ----*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_SUPPORT_IRUTILS_H
#define TILETAG_SUPPORT_IRUTILS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tiletag {

/// Erases every operation of `ops` (their results may be used only by one
/// another), then every operation that defined one of their operands and is
/// now trivially dead, transitively. Strip passes use it so that index
/// arithmetic computed only for an annotation disappears with it, while
/// unrelated dead code of the user's stays.
void eraseWithDeadOperands(RewriterBase &rewriter, ArrayRef<Operation *> ops);

/// Moves the single block of `region` in front of `op`, replaces the results
/// of `op` with the operands of the block's terminator, and erases the
/// terminator and `op`. Used to dissolve role and async regions.
void inlineSingleBlockRegion(RewriterBase &rewriter, Operation *op,
                             Region &region);

} // namespace mlir::tiletag

#endif // TILETAG_SUPPORT_IRUTILS_H
