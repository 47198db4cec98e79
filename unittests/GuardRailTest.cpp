//===- GuardRailTest.cpp - broken rewrites never verify -------------------===//
//
// Part of the TileTag project.
//
// Test-only variants of the pipelining rewrites, each with a bug an
// optimizing agent makes: a wait misplaced, a release skipped, a slot index
// shifted by one, the last K block dropped, the store to a swapped block.
// Each is applied to what examples/scripts/gemm.mlir makes of the plain GEMM;
// the checkers must reject every one, with a counterexample. They live here,
// registered nowhere else, so that no user script can reach them.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/InitAll.h"
#include "TileTag/Verification/CheckKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletag;

namespace {

class GuardRailTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    OwningOpRef<ModuleOp> script = parseSourceFile<ModuleOp>(
        TILETAG_SOURCE_DIR "/examples/scripts/gemm.mlir", &context);
    pipelined = parseSourceFile<ModuleOp>(
        TILETAG_SOURCE_DIR "/examples/naive/gemm.mlir", &context);
    ASSERT_TRUE(script && pipelined);
    Operation *entry = transform::detail::findTransformEntryPoint(
        script.get(), script.get());
    ASSERT_NE(entry, nullptr);
    ASSERT_TRUE(succeeded(transform::applyTransformNamedSequence(
        pipelined.get(), entry, script.get(), transform::TransformOptions())));
  }

  /// A copy of the pipelined module with `breakIt` applied to @gemm, and
  /// the checkers' verdict on it.
  verify::KernelVerdict checkBroken(
      llvm::function_ref<void(tile::KernelOp, OpBuilder &)> breakIt) {
    broken = pipelined->clone();
    tile::KernelOp kernel;
    broken->walk([&](tile::KernelOp k) {
      if (k.getSymName() == "gemm")
        kernel = k;
    });
    OpBuilder builder(&context);
    breakIt(kernel, builder);
    // The broken variant is valid IR: only its meaning is wrong.
    EXPECT_TRUE(succeeded(mlir::verify(broken.get())));
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    return verify::checkKernel(kernel, verify::CheckOptions());
  }

  static const verify::ObligationVerdict *
  firstFailure(const verify::KernelVerdict &v) {
    for (const verify::ObligationVerdict &o : v.obligations)
      if (o.status == verify::ObligationVerdict::Failed)
        return &o;
    return nullptr;
  }

  template <typename OpT>
  static SmallVector<OpT> opsOf(tile::KernelOp kernel) {
    SmallVector<OpT> ops;
    kernel.walk([&](OpT op) { ops.push_back(op); });
    return ops;
  }

  void expectRejected(const verify::KernelVerdict &v) {
    EXPECT_FALSE(v.proved());
    const verify::ObligationVerdict *failure = firstFailure(v);
    ASSERT_NE(failure, nullptr) << "rejected only as unknown";
    ASSERT_TRUE(failure->counterexample.has_value()) << failure->what;
    EXPECT_NE(failure->counterexample->replay.find("tiletag-run"),
              std::string::npos);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> pipelined, broken;
};

TEST_F(GuardRailTest, TheRewriteItselfVerifies) {
  verify::KernelVerdict v = checkBroken([](tile::KernelOp, OpBuilder &) {});
  EXPECT_TRUE(v.proved());
}

// The consumer reads the slot before it waits for the TMA copy.
TEST_F(GuardRailTest, MisplacedWait) {
  expectRejected(checkBroken([&](tile::KernelOp k, OpBuilder &) {
    auto reads = opsOf<tile::ReadOp>(k);
    for (schedule::MBarrierWaitOp wait : opsOf<schedule::MBarrierWaitOp>(k))
      if (wait->getParentOfType<schedule::RoleOp>().getName() == "consumer")
        wait->moveAfter(reads.front());
  }));
}

// The consumer never hands the slot back: the producer's wait for the
// release of round r - 1 waits for a phase that never completes.
TEST_F(GuardRailTest, SkippedRelease) {
  expectRejected(checkBroken([&](tile::KernelOp k, OpBuilder &) {
    for (schedule::MBarrierArriveOp a : opsOf<schedule::MBarrierArriveOp>(k))
      a->erase();
  }));
}

// The producer fills slot n + 1 while the consumer reads slot n.
TEST_F(GuardRailTest, SlotShiftedByOne) {
  expectRejected(checkBroken([&](tile::KernelOp k, OpBuilder &b) {
    for (tile::CopyOp copy : opsOf<tile::CopyOp>(k)) {
      // Index arithmetic runs outside the TMA region (only copies run on
      // the TMA unit).
      b.setInsertionPoint(copy->getParentOfType<schedule::AsyncOp>());
      Location loc = copy.getLoc();
      Value slot = copy.getDestIndices().front();
      Value next = arith::AddIOp::create(
          b, loc, slot, arith::ConstantIndexOp::create(b, loc, 1));
      Value wrapped = arith::RemUIOp::create(
          b, loc, next, arith::ConstantIndexOp::create(b, loc, 4));
      copy.getDestIndicesMutable().assign(wrapped);
    }
  }));
}

// The K loop stops before the ragged last block (K / 64 instead of
// K ceildiv 64).
TEST_F(GuardRailTest, LastKBlockDropped) {
  expectRejected(checkBroken([&](tile::KernelOp k, OpBuilder &b) {
    for (arith::CeilDivUIOp c : opsOf<arith::CeilDivUIOp>(k)) {
      b.setInsertionPoint(c);
      Value floor =
          arith::DivUIOp::create(b, c.getLoc(), c.getLhs(), c.getRhs());
      c.getResult().replaceAllUsesWith(floor);
      c->erase();
    }
  }));
}

// The epilogue stores block (pn, pm) instead of (pm, pn).
TEST_F(GuardRailTest, StoreToSwappedBlock) {
  expectRejected(checkBroken([&](tile::KernelOp k, OpBuilder &) {
    for (tile::StoreOp store : opsOf<tile::StoreOp>(k)) {
      SmallVector<Value> indices(store.getIndices());
      std::swap(indices[0], indices[1]);
      store.getIndicesMutable().assign(indices);
    }
  }));
}

} // namespace
