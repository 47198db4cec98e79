//===- Fp8DecodeTest.cpp - the lowering's fp8 -> f32 decoder --------------===//
//
// Part of the TileTag project.
//
// conversion::decodeFp8ToF32 widens fp8 elements with integer arithmetic
// where a target has no fp8 conversion (the SIMT dot, arith.extf). Built on
// a constant it folds to a constant: every one of the 256 codes of each
// fp8 type must give APFloat's value of that code (NaN for NaN, the
// infinities of f8E5M2, both zeros).
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/TileToGPU/KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

void checkEveryCode(MLIRContext &ctx, FloatType type) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  for (int64_t code = 0; code < 256; ++code) {
    llvm::APFloat expected(sem, llvm::APInt(8, code));
    Value in = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type, expected));
    Value out = tiletag::conversion::decodeFp8ToF32(b, loc, in);
    FloatAttr folded;
    ASSERT_TRUE(matchPattern(out, m_Constant(&folded)))
        << "code " << code << " did not fold";
    ASSERT_TRUE(out.getType().isF32());
    bool lost;
    expected.convert(llvm::APFloat::IEEEsingle(),
                     llvm::APFloat::rmNearestTiesToEven, &lost);
    EXPECT_FALSE(lost); // every fp8 value is an f32
    llvm::APFloat got = folded.getValue();
    if (expected.isNaN()) {
      EXPECT_TRUE(got.isNaN()) << "code " << code;
      continue;
    }
    EXPECT_TRUE(got.bitwiseIsEqual(expected))
        << "code " << code << ": got " << got.convertToFloat()
        << ", expected " << expected.convertToFloat();
  }
}

TEST(Fp8DecodeTest, EveryCodeOfEveryType) {
  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect>();
  Builder b(&ctx);
  checkEveryCode(ctx, b.getType<Float8E4M3FNType>());
  checkEveryCode(ctx, b.getType<Float8E5M2Type>());
  checkEveryCode(ctx, b.getType<Float8E4M3FNUZType>());
  checkEveryCode(ctx, b.getType<Float8E5M2FNUZType>());
}

} // namespace
