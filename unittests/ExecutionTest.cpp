//===- ExecutionTest.cpp - unit tests for the CPU oracle ------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Execution/Interpreter.h"
#include "TileTag/Execution/Npy.h"
#include "TileTag/Execution/Workloads.h"
#include "TileTag/InitAll.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

namespace {

class ExecutionTest : public ::testing::Test {
protected:
  ExecutionTest() : b(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }
  MLIRContext context;
  Builder b;
};

TEST_F(ExecutionTest, RoundingToFloatFormats) {
  // bf16 keeps 8 significant bits: ties go to the even neighbour.
  EXPECT_EQ(roundTo(b.getBF16Type(), 1.0), 1.0);
  EXPECT_EQ(roundTo(b.getBF16Type(), 1.0 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(roundTo(b.getBF16Type(), 1.0 + 3 * std::ldexp(1.0, -8)),
            1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(roundTo(b.getBF16Type(),
                    1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -20)),
            1.0 + std::ldexp(1.0, -7));
  EXPECT_TRUE(std::isnan(roundTo(b.getBF16Type(), NAN)));
  EXPECT_TRUE(std::isinf(roundTo(b.getBF16Type(), 1e39)));
  // f16: 11 significant bits, largest finite 65504.
  EXPECT_EQ(roundTo(b.getF16Type(), 1.0 / 3.0), 0.333251953125);
  EXPECT_EQ(roundTo(b.getF16Type(), 65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundTo(b.getF16Type(), 65536.0)));
  EXPECT_EQ(roundTo(b.getF32Type(), 0.1), static_cast<double>(0.1f));
  EXPECT_EQ(roundTo(b.getF64Type(), 0.1), 0.1);
}

TEST_F(ExecutionTest, RoundingToIntegers) {
  EXPECT_EQ(roundTo(b.getIntegerType(8), 200), -56);
  EXPECT_EQ(roundTo(b.getIntegerType(8), -129), 127);
  EXPECT_EQ(roundTo(b.getI1Type(), 3), 1);
  EXPECT_EQ(roundTo(b.getI1Type(), 2), 0);
  EXPECT_EQ(roundTo(b.getI32Type(), 4294967297.0), 1);
  EXPECT_EQ(roundTo(b.getIndexType(), 4294967297.0), 4294967297.0);
}

TEST_F(ExecutionTest, NpyRoundTrip) {
  SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tiletag-npy", dir));
  for (Type type :
       {Type(b.getF32Type()), Type(b.getF64Type()), Type(b.getI32Type()),
        Type(b.getI1Type()), Type(b.getIndexType())}) {
    Array a(type, {2, 3});
    for (int64_t i = 0; i < a.size(); ++i)
      a.data[i] = roundTo(type, i * 0.75 - 1);
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "a.npy");
    std::string error;
    ASSERT_TRUE(succeeded(writeNpy(path, a, error))) << error;
    std::optional<Array> back = readNpy(path, type, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->shape, a.shape);
    EXPECT_EQ(back->data, a.data);
  }
  // Values are rounded to the operand's type on the way in.
  Array wide(b.getF64Type(), {1}, 1.0 + std::ldexp(1.0, -9));
  SmallString<128> path(dir);
  llvm::sys::path::append(path, "w.npy");
  std::string error;
  ASSERT_TRUE(succeeded(writeNpy(path, wide, error)));
  EXPECT_EQ(readNpy(path, b.getBF16Type(), error)->data[0], 1.0);
  llvm::sys::fs::remove_directories(dir);
}

TEST_F(ExecutionTest, BlockAddressingPaddingAndClipping) {
  // A 4x4 tile of a 6x5 memref at block [1, 1]: rows 4..7, columns 4..7.
  // Rows 6, 7 and columns 5..7 are out of range: padded with -1 on load,
  // skipped on store (into Y), and `combine add` adds.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    tile.kernel @k(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) grid(1) {
      %c1 = arith.constant 1 : index
      %t = tile.load %X[%c1, %c1] padding(-1.0 : f32) : memref<?x?xf32> -> tensor<4x4xf32>
      tile.store %t, %Y[%c1, %c1] : tensor<4x4xf32> -> memref<?x?xf32>
      tile.store %t, %Y[%c1, %c1] combine add : tensor<4x4xf32> -> memref<?x?xf32>
      %r = tile.reduce sum %t axis 1 : tensor<4x4xf32> -> tensor<4xf32>
      %z = tile.broadcast %r dims [0] : tensor<4xf32> -> tensor<4x4xf32>
      %c0 = arith.constant 0 : index
      tile.store %z, %Y[%c0, %c0] : tensor<4x4xf32> -> memref<?x?xf32>
      tile.return
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<tile::KernelOp>().begin();
  auto x = std::make_shared<Array>(b.getF32Type(), ArrayRef<int64_t>{6, 5});
  for (int64_t i = 0; i < x->size(); ++i)
    x->data[i] = i;
  auto y =
      std::make_shared<Array>(b.getF32Type(), ArrayRef<int64_t>{6, 5}, 0.0);
  ASSERT_TRUE(succeeded(runKernel(kernel, {x, y}, {1})));
  // Y[4, 4] = 2 * X[4, 4] = 48 and Y[5, 4] = 2 * 29 = 58; nothing else of
  // the block exists.
  EXPECT_EQ(y->data[4 * 5 + 4], 48);
  EXPECT_EQ(y->data[5 * 5 + 4], 58);
  EXPECT_EQ(y->data[4 * 5 + 3], 0);
  // Row sums of the loaded tile: [24, -1, -1, -1] -> 21, [29, ...] -> 26,
  // padded rows -> -4; broadcast along rows into Y[0..3, 0..3].
  EXPECT_EQ(y->data[0], 21);
  EXPECT_EQ(y->data[1], 26);
  EXPECT_EQ(y->data[2], -4);
  EXPECT_EQ(y->data[5 + 3], -4);
}

TEST_F(ExecutionTest, ProgramsRunInRowMajorOrder) {
  // Each program appends its linear id after the previous one's: the final
  // memory holds the last program of the row-major order.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    tile.kernel @k(%X: memref<?xindex>) grid(2) {
      %c0 = arith.constant 0 : index
      %c10 = arith.constant 10 : index
      %i = tile.program_id 0
      %j = tile.program_id 1
      %n = tile.num_programs 1
      %old = memref.load %X[%c0] : memref<?xindex>
      %row = arith.muli %i, %n : index
      %id = arith.addi %row, %j : index
      %shift = arith.muli %old, %c10 : index
      %new = arith.addi %shift, %id : index
      memref.store %new, %X[%c0] : memref<?xindex>
      tile.return
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<tile::KernelOp>().begin();
  auto x = std::make_shared<Array>(b.getIndexType(), ArrayRef<int64_t>{1}, 0.0);
  ASSERT_TRUE(succeeded(runKernel(kernel, {x}, {2, 3})));
  EXPECT_EQ(x->data[0], 12345); // ids 0,1,2,3,4,5 in order
  // Replaying one program: only (1, 2).
  x->data[0] = 0;
  ASSERT_TRUE(succeeded(runKernel(kernel, {x}, {2, 3}, {1, 2})));
  EXPECT_EQ(x->data[0], 5);
}

TEST_F(ExecutionTest, WorkloadReferences) {
  ASSERT_TRUE(lookupWorkload("gemm"));
  EXPECT_FALSE(lookupWorkload("conv"));
  NamedBuffers in;
  in["A"] = std::make_shared<Array>(b.getF32Type(), ArrayRef<int64_t>{2, 2});
  in["B"] = std::make_shared<Array>(b.getF32Type(), ArrayRef<int64_t>{2, 1});
  in["A"]->data = {1, 2, 3, 4};
  in["B"]->data = {5, 6};
  auto out = lookupWorkload("gemm")->reference(in, {});
  EXPECT_EQ(out["C"], (std::vector<double>{17, 39}));
}

} // namespace
