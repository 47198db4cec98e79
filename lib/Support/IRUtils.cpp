//===- IRUtils.cpp - Small IR helpers shared by TileTag passes ------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Support/IRUtils.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

void mlir::tiletag::eraseWithDeadOperands(RewriterBase &rewriter,
                                          ArrayRef<Operation *> ops) {
  llvm::SetVector<Operation *> doomed(ops.begin(), ops.end());
  SmallVector<Operation *> candidates;
  for (Operation *op : doomed)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && !doomed.contains(def))
        candidates.push_back(def);
  // Cut the uses among the doomed ops, then erase them in any order.
  for (Operation *op : doomed)
    op->dropAllReferences();
  for (Operation *op : doomed)
    rewriter.eraseOp(op);

  // `erased` is checked before an op is touched, since the worklist may hold
  // an op more than once.
  llvm::DenseSet<Operation *> erased;
  while (!candidates.empty()) {
    Operation *op = candidates.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        candidates.push_back(def);
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

void mlir::tiletag::inlineSingleBlockRegion(RewriterBase &rewriter,
                                            Operation *op, Region &region) {
  Block &block = region.front();
  Operation *terminator = block.getTerminator();
  SmallVector<Value> results(terminator->getOperands());
  rewriter.eraseOp(terminator);
  rewriter.inlineBlockBefore(&block, op);
  rewriter.replaceOp(op, results);
}
