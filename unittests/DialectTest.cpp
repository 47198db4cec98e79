//===- DialectTest.cpp - unit tests for the TileTag dialects --------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletag;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source`; returns null and records the diagnostics on failure.
  OwningOpRef<ModuleOp> parse(StringRef source) {
    diagnostics.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
      return success();
    });
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
  std::string diagnostics;
};

TEST_F(DialectTest, MemorySpaces) {
  Type f32 = Float32Type::get(&context);
  auto workgroup =
      gpu::AddressSpaceAttr::get(&context, gpu::AddressSpace::Workgroup);
  auto global = gpu::AddressSpaceAttr::get(&context, gpu::AddressSpace::Global);
  auto i64 = IntegerType::get(&context, 64);
  EXPECT_TRUE(tile::isGlobalMemory(MemRefType::get({4}, f32)));
  EXPECT_TRUE(
      tile::isGlobalMemory(MemRefType::get({4}, f32, AffineMap(), global)));
  EXPECT_TRUE(tile::isGlobalMemory(
      MemRefType::get({4}, f32, AffineMap(), IntegerAttr::get(i64, 1))));
  EXPECT_FALSE(
      tile::isGlobalMemory(MemRefType::get({4}, f32, AffineMap(), workgroup)));
  EXPECT_TRUE(
      tile::isSharedMemory(MemRefType::get({4}, f32, AffineMap(), workgroup)));
  EXPECT_TRUE(tile::isSharedMemory(
      MemRefType::get({4}, f32, AffineMap(), IntegerAttr::get(i64, 3))));
  EXPECT_FALSE(tile::isSharedMemory(MemRefType::get({4}, f32)));
  // Private memory is neither.
  auto priv = gpu::AddressSpaceAttr::get(&context, gpu::AddressSpace::Private);
  EXPECT_FALSE(
      tile::isGlobalMemory(MemRefType::get({4}, f32, AffineMap(), priv)));
  EXPECT_FALSE(
      tile::isSharedMemory(MemRefType::get({4}, f32, AffineMap(), priv)));
}

TEST_F(DialectTest, BlockAndSlotShapes) {
  // A 2-d tile of a rank-4 memref covers one element of each leading dim.
  EXPECT_EQ(tile::blockShape({128, 64}, 4),
            (SmallVector<int64_t>{1, 1, 128, 64}));
  EXPECT_EQ(tile::blockShape({32}, 1), (SmallVector<int64_t>{32}));
  auto ring = MemRefType::get({4, 2, 128, 64}, BFloat16Type::get(&context));
  EXPECT_EQ(tile::slotTileShape(ring, 1), (ArrayRef<int64_t>{2, 128, 64}));
  EXPECT_EQ(tile::slotTileShape(ring, 2), (ArrayRef<int64_t>{128, 64}));
}

TEST_F(DialectTest, KernelOperandNames) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    tile.kernel @k(%A: memref<?xf32> {tile.name = "A"}, %n: index) grid(1) {
      tile.return
    })mlir");
  ASSERT_TRUE(module) << diagnostics;
  auto kernel = *module->getOps<tile::KernelOp>().begin();
  EXPECT_EQ(kernel.getOperandName(0), "A");
  EXPECT_EQ(kernel.getOperandName(1), "arg1");
  EXPECT_EQ(kernel.getGrid(), 1u);
}

TEST_F(DialectTest, DotVerifierThroughBuilders) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto bf16 = builder.getBF16Type();
  auto f32 = builder.getF32Type();
  auto lhsType = RankedTensorType::get({64, 16}, bf16);
  auto rhsType = RankedTensorType::get({16, 32}, bf16);
  auto accType = RankedTensorType::get({64, 32}, f32);
  auto func = func::FuncOp::create(
      builder, loc, "f",
      builder.getFunctionType({lhsType, rhsType, accType}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  tile::DotOp::create(builder, loc, accType, body->getArgument(0),
                      body->getArgument(1), body->getArgument(2));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));

  // Swapping the operands breaks the contraction.
  builder.setInsertionPoint(body->getTerminator());
  tile::DotOp::create(builder, loc, accType, body->getArgument(1),
                      body->getArgument(0), body->getArgument(2));
  diagnostics.clear();
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(diagnostics.find("contraction sizes differ"), std::string::npos)
      << diagnostics;
}

TEST_F(DialectTest, LaunchAttrChecks) {
  std::string message;
  auto emitError = [&]() { return mlir::emitError(UnknownLoc::get(&context)); };
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(schedule::LaunchAttr::getChecked(emitError, &context, int64_t{3},
                                               ArrayRef<int64_t>{2, 1},
                                               int64_t{0}));
  EXPECT_FALSE(schedule::LaunchAttr::getChecked(emitError, &context, int64_t{0},
                                                ArrayRef<int64_t>{}, int64_t{0}));
  EXPECT_NE(message.find("warpgroups must be 1 to 8"), std::string::npos);
  EXPECT_FALSE(schedule::LaunchAttr::getChecked(emitError, &context, int64_t{1},
                                                ArrayRef<int64_t>{8, 4},
                                                int64_t{0}));
  EXPECT_NE(message.find("at most 16 programs"), std::string::npos);
  EXPECT_TRUE(schedule::LaunchAttr::getChecked(emitError, &context, int64_t{2},
                                               ArrayRef<int64_t>{}, int64_t{2}));
  EXPECT_FALSE(schedule::LaunchAttr::getChecked(emitError, &context, int64_t{1},
                                                ArrayRef<int64_t>{}, int64_t{33}));
  EXPECT_NE(message.find("occupancy must be 1 to 32"), std::string::npos);
  EXPECT_FALSE(
      schedule::MBarrierType::getChecked(emitError, &context, int64_t{0}));
}

TEST_F(DialectTest, LaunchAttrChecksBuiltAttributes) {
  // The parser only lets sizes into the expressions; C++ builders are
  // checked too.
  std::string message;
  auto emitError = [&]() { return mlir::emitError(UnknownLoc::get(&context)); };
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  Builder b(&context);
  auto m = b.getStringAttr("M");
  AffineExpr d0 = getAffineDimExpr(0, &context),
             s0 = getAffineSymbolExpr(0, &context);
  EXPECT_FALSE(tile::LaunchAttr::getChecked(
      emitError, &context, ArrayRef<StringAttr>{m}, ArrayRef<int64_t>{4},
      ArrayRef<AffineExpr>{d0}, {}, {}, StringAttr(), {}));
  EXPECT_NE(message.find("grid extents are affine in the sizes only"),
            std::string::npos);
  auto shape = AffineMap::get(1, 1, {d0}, &context);
  EXPECT_FALSE(tile::LaunchAttr::getChecked(
      emitError, &context, ArrayRef<StringAttr>{m}, ArrayRef<int64_t>{4},
      ArrayRef<AffineExpr>{s0}, ArrayRef<StringAttr>{m},
      ArrayRef<AffineMap>{shape}, StringAttr(), {}));
  EXPECT_NE(message.find("operand shapes are affine in the sizes only"),
            std::string::npos);
}

TEST_F(DialectTest, LabelAttrFields) {
  auto map = AffineMap::get(2, 0,
                            {getAffineDimExpr(0, &context),
                             getAffineDimExpr(1, &context).floorDiv(2)},
                            &context);
  auto label = tag::LabelAttr::get(&context, "A", map);
  EXPECT_EQ(label.getName(), "A");
  EXPECT_EQ(label.getFields().getNumResults(), 2u);
  // Fields evaluate on the operation's index operands.
  SmallVector<int64_t> fields = label.getFields().compose({6, 9});
  EXPECT_EQ(fields, (SmallVector<int64_t>{6, 4}));
}

} // namespace
