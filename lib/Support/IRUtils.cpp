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
  // Candidates: the definers of the erased ops' operands, and their parents
  // (an `scf.if` whose region held only a barrier is dead once it is gone).
  SmallVector<Operation *> candidates;
  auto addCandidates = [&](Operation *op) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && !op->isAncestor(def) && !doomed.contains(def))
          candidates.push_back(def);
    });
    if (Operation *parent = op->getParentOp();
        parent && !doomed.contains(parent))
      candidates.push_back(parent);
  };
  for (Operation *op : doomed)
    addCandidates(op);
  // Every op that goes away, nested ones included: a candidate or a doomed
  // op inside an erased region must not be touched again (it is freed).
  llvm::DenseSet<Operation *> erased;
  auto markErased = [&](Operation *op) {
    op->walk([&](Operation *nested) { erased.insert(nested); });
  };
  SmallVector<Operation *> outermost;
  for (Operation *op : doomed) {
    bool nested = false;
    for (Operation *p = op->getParentOp(); p && !nested; p = p->getParentOp())
      nested = doomed.contains(p);
    if (!nested)
      outermost.push_back(op);
  }
  // Cut the uses among the doomed ops, then erase them in any order.
  for (Operation *op : doomed)
    op->dropAllReferences();
  for (Operation *op : outermost) {
    markErased(op);
    rewriter.eraseOp(op);
  }

  while (!candidates.empty()) {
    Operation *op = candidates.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    addCandidates(op);
    markErased(op);
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
