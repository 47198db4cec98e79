//===- StripTags.cpp - erase tags and assertions --------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tag/Transforms/Passes.h"
#include "TileTag/Support/IRUtils.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tiletag::tag {
#define GEN_PASS_DEF_STRIPTAGSPASS
#include "TileTag/Dialect/Tag/Transforms/Passes.h.inc"
} // namespace mlir::tiletag::tag

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::tag;

namespace {

bool isTagOp(Operation *op) { return llvm::isa<TagDialect>(op->getDialect()); }

/// Ghost values may flow only into tag ops and into effect-free, region-free
/// operations (index arithmetic) whose results stay ghost.
bool isGhostUser(Operation *op) {
  return isTagOp(op) || (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
                         op->getNumResults() > 0);
}

struct StripTagsPass : public tag::impl::StripTagsPassBase<StripTagsPass> {
  void runOnOperation() override {
    Operation *root = getOperation();

    // Everything computed from a tag field is ghost; check that none of it
    // reaches the real computation before erasing anything.
    llvm::SetVector<Operation *> ghost;
    bool leaked = false;
    root->walk([&](FieldOp field) {
      SmallVector<Operation *> worklist{field};
      while (!worklist.empty()) {
        Operation *op = worklist.pop_back_val();
        if (!ghost.insert(op))
          continue;
        for (Operation *user : op->getUsers()) {
          if (!isGhostUser(user)) {
            InFlightDiagnostic diag =
                user->emitError()
                << "uses a tag field, which is ghost state that "
                   "--tiletag-strip-tags erases; tag fields may feed only "
                   "assertions and index arithmetic for them";
            diag.attachNote(field.getLoc()) << "the tag field is read here";
            leaked = true;
            continue;
          }
          worklist.push_back(user);
        }
      }
    });
    if (leaked)
      return signalPassFailure();

    IRRewriter rewriter(root->getContext());
    SmallVector<Operation *> doomed(ghost.begin(), ghost.end());
    // Contracts are specification too: the reference kernels they name go
    // with them.
    root->walk([&](Operation *op) {
      auto ref = op->getAttrOfType<FlatSymbolRefAttr>(
          TagDialect::kContractAttrName);
      if (!ref)
        return;
      if (Operation *reference =
              SymbolTable::lookupNearestSymbolFrom(op, ref.getAttr());
          reference && !llvm::is_contained(doomed, reference))
        doomed.push_back(reference);
    });
    root->walk([&](Operation *op) {
      op->removeDiscardableAttr(TagDialect::kLabelsAttrName);
      op->removeDiscardableAttr(TagDialect::kContractAttrName);
      op->removeDiscardableAttr(TagDialect::kProgramMapAttrName);
      if (isTagOp(op) && !ghost.contains(op))
        doomed.push_back(op);
      if (auto attach = llvm::dyn_cast<AttachOp>(op))
        rewriter.replaceAllUsesWith(attach.getResult(), attach.getValue());
    });
    eraseWithDeadOperands(rewriter, doomed);
  }
};

} // namespace
