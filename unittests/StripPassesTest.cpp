//===- StripPassesTest.cpp - unit tests for the strip passes --------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Schedule/Transforms/Passes.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tag/Transforms/Passes.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/InitAll.h"
#include "TileTag/Support/IRUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletag;

namespace {

constexpr StringLiteral kKernel = R"mlir(
  tile.kernel @k(%A: memref<?x?xf32> {tile.name = "A"}) grid(1)
      attributes {schedule.launch = #schedule.launch<warpgroups = 2>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %unused = arith.constant 7 : index
    %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
    %p = tile.program_id 0
    %slot = arith.remui %p, %c2 : index
    %t = tile.load %A[%p, %c0] : memref<?x?xf32> -> tensor<8x8xf32>
    %r = schedule.role "consumer" warpgroups [1] {
      schedule.mbarrier.wait %b[%slot], %c1 : !schedule.mbarrier<2>, index
      %u = tag.attach %t as "T"(%p) : tensor<8x8xf32>
      %f = tag.field %u["A", 0] : tensor<8x8xf32>
      %g = arith.addi %f, %c1 : index
      tag.assert le %g, %c2 : index
      schedule.yield %u : tensor<8x8xf32>
    } : tensor<8x8xf32>
    tile.store %r, %A[%p, %c0] : tensor<8x8xf32> -> memref<?x?xf32>
    tile.return
  })mlir";

class StripPassesTest : public ::testing::Test {
protected:
  StripPassesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kKernel, &context);
  }

  /// Counts the operations of dialect `Dialect` in the module.
  template <typename Dialect> int count() {
    int n = 0;
    module->walk(
        [&](Operation *op) { n += llvm::isa<Dialect>(op->getDialect()); });
    return n;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(StripPassesTest, StripBothLeavesTheComputation) {
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(schedule::createStripSchedulePass());
  pm.addPass(tag::createStripTagsPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_EQ(count<schedule::ScheduleDialect>(), 0);
  EXPECT_EQ(count<tag::TagDialect>(), 0);
  // The load, the store and the program id survive; the slot arithmetic that
  // only fed the wait is gone, the user's unused constant stays.
  int loads = 0, stores = 0, remui = 0, sevens = 0;
  module->walk([&](Operation *op) {
    loads += llvm::isa<tile::LoadOp>(op);
    stores += llvm::isa<tile::StoreOp>(op);
    remui += llvm::isa<arith::RemUIOp>(op);
    if (auto c = llvm::dyn_cast<arith::ConstantIndexOp>(op))
      sevens += c.value() == 7;
  });
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(stores, 1);
  EXPECT_EQ(remui, 0);
  EXPECT_EQ(sevens, 1);
  auto kernel = *module->getOps<tile::KernelOp>().begin();
  EXPECT_FALSE(kernel->hasAttr(schedule::ScheduleDialect::kLaunchAttrName));
}

TEST_F(StripPassesTest, StripScheduleKeepsTags) {
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(schedule::createStripSchedulePass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_EQ(count<schedule::ScheduleDialect>(), 0);
  EXPECT_EQ(count<tag::TagDialect>(), 3);
}

TEST_F(StripPassesTest, EraseWithDeadOperandsStopsAtLiveValues) {
  ASSERT_TRUE(module);
  IRRewriter rewriter(&context);
  SmallVector<Operation *> waits;
  module->walk([&](schedule::MBarrierWaitOp op) { waits.push_back(op); });
  ASSERT_EQ(waits.size(), 1u);
  eraseWithDeadOperands(rewriter, waits);
  // %slot died with the wait. The barrier init lost its last user, but it has
  // an effect (it initializes shared memory), so only the strip pass, which
  // knows it is an annotation, may erase it.
  int remui = 0, inits = 0;
  module->walk([&](Operation *op) {
    remui += llvm::isa<arith::RemUIOp>(op);
    inits += llvm::isa<schedule::MBarrierInitOp>(op);
  });
  EXPECT_EQ(remui, 0);
  EXPECT_EQ(inits, 1);
}

} // namespace
