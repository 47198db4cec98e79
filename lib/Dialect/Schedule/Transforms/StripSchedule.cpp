//===- StripSchedule.cpp - erase schedule annotations ---------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Schedule/Transforms/Passes.h"
#include "TileTag/Support/IRUtils.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tiletag::schedule {
#define GEN_PASS_DEF_STRIPSCHEDULEPASS
#include "TileTag/Dialect/Schedule/Transforms/Passes.h.inc"
} // namespace mlir::tiletag::schedule

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::schedule;

namespace {

struct StripSchedulePass
    : public schedule::impl::StripSchedulePassBase<StripSchedulePass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    IRRewriter rewriter(root->getContext());

    // Regions first, innermost first (post-order), so that the synchronization
    // inside them is visible to the erasure below.
    SmallVector<Operation *> regionOps;
    root->walk([&](Operation *op) {
      if (llvm::isa<RoleOp, AsyncOp>(op))
        regionOps.push_back(op);
    });
    for (Operation *op : regionOps) {
      rewriter.setInsertionPoint(op);
      inlineSingleBlockRegion(rewriter, op, op->getRegion(0));
    }

    SmallVector<Operation *> doomed;
    bool leaked = false;
    root->walk([&](Operation *op) {
      for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
        if (attr.getName().getValue().starts_with("schedule."))
          op->removeDiscardableAttr(attr.getName());
      if (!llvm::isa<ScheduleDialect>(op->getDialect()))
        return;
      doomed.push_back(op);
      for (Operation *user : op->getUsers())
        if (!llvm::isa<ScheduleDialect>(user->getDialect())) {
          user->emitError() << "uses a value of the schedule dialect, which "
                               "--tiletag-strip-schedule erases";
          leaked = true;
        }
    });
    if (leaked)
      return signalPassFailure();
    eraseWithDeadOperands(rewriter, doomed);
  }
};

} // namespace
