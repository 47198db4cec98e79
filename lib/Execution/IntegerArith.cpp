//===- IntegerArith.cpp - exact semantics of scalar integer ops -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/IntegerArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletag;
using llvm::APInt;

unsigned exec::integerWidth(Type type) {
  if (type.isIndex())
    return 64;
  if (auto it = llvm::dyn_cast<IntegerType>(type))
    return it.getWidth();
  return 0;
}

bool exec::isScalarIntegerOp(Operation *op) {
  if (!llvm::isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp,
                 arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
                 arith::CeilDivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
                 arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
                 arith::MaxUIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
                 arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp, arith::CmpIOp,
                 arith::SelectOp, arith::IndexCastOp, arith::IndexCastUIOp,
                 arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op))
    return false;
  auto scalarInt = [](Value v) {
    Type t = v.getType();
    return !llvm::isa<ShapedType>(t) && integerWidth(t) > 0 &&
           integerWidth(t) <= 64;
  };
  return llvm::all_of(op->getOperands(), scalarInt) &&
         llvm::all_of(op->getResults(), scalarInt);
}

namespace {
/// The overflow flags of an op that has them.
struct Flags {
  bool nsw = false, nuw = false;
};
Flags flagsOf(Operation *op) {
  if (auto i = llvm::dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op))
    return {i.hasNoSignedWrap(), i.hasNoUnsignedWrap()};
  return {};
}
} // namespace

FailureOr<APInt> exec::evaluateIntegerOp(Operation *op,
                                         ArrayRef<APInt> operands,
                                         std::string &undefined) {
  unsigned width = integerWidth(op->getResult(0).getType());
  auto fail = [&](StringRef why) -> FailureOr<APInt> {
    undefined = why.str();
    return failure();
  };
  auto a = [&]() -> const APInt & { return operands[0]; };
  auto b = [&]() -> const APInt & { return operands[1]; };
  // Signed division: undefined for a zero divisor and for MIN / -1.
  auto signedDivision = [&]() -> LogicalResult {
    if (b().isZero()) {
      undefined = "integer division by zero";
      return failure();
    }
    if (a().isMinSignedValue() && b().isAllOnes()) {
      undefined = "signed division overflows (the minimum value by -1)";
      return failure();
    }
    return success();
  };
  auto withFlags = [&](APInt value, bool signedOverflow,
                       bool unsignedOverflow) -> FailureOr<APInt> {
    Flags f = flagsOf(op);
    if (f.nsw && signedOverflow)
      return fail("the result overflows a signed integer (nsw: poison)");
    if (f.nuw && unsignedOverflow)
      return fail("the result overflows an unsigned integer (nuw: poison)");
    return value;
  };
  auto shiftAmountOk = [&]() { return b().ult(width); };

  return llvm::TypeSwitch<Operation *, FailureOr<APInt>>(op)
      .Case<arith::AddIOp>([&](Operation *) {
        bool so, uo;
        APInt r = a().sadd_ov(b(), so);
        (void)a().uadd_ov(b(), uo);
        return withFlags(r, so, uo);
      })
      .Case<arith::SubIOp>([&](Operation *) {
        bool so, uo;
        APInt r = a().ssub_ov(b(), so);
        (void)a().usub_ov(b(), uo);
        return withFlags(r, so, uo);
      })
      .Case<arith::MulIOp>([&](Operation *) {
        bool so, uo;
        APInt r = a().smul_ov(b(), so);
        (void)a().umul_ov(b(), uo);
        return withFlags(r, so, uo);
      })
      .Case<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(
          [&](Operation *o) -> FailureOr<APInt> {
            if (b().isZero())
              return fail("integer division by zero");
            if (isa<arith::DivUIOp>(o))
              return a().udiv(b());
            if (isa<arith::RemUIOp>(o))
              return a().urem(b());
            return llvm::APIntOps::RoundingUDiv(a(), b(), APInt::Rounding::UP);
          })
      .Case<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
            arith::FloorDivSIOp>([&](Operation *o) -> FailureOr<APInt> {
        if (failed(signedDivision()))
          return failure();
        if (isa<arith::DivSIOp>(o))
          return a().sdiv(b());
        if (isa<arith::RemSIOp>(o))
          return a().srem(b());
        return llvm::APIntOps::RoundingSDiv(
            a(), b(),
            isa<arith::CeilDivSIOp>(o) ? APInt::Rounding::UP
                                       : APInt::Rounding::DOWN);
      })
      .Case<arith::MinSIOp>(
          [&](Operation *) { return a().slt(b()) ? a() : b(); })
      .Case<arith::MaxSIOp>(
          [&](Operation *) { return a().sgt(b()) ? a() : b(); })
      .Case<arith::MinUIOp>(
          [&](Operation *) { return a().ult(b()) ? a() : b(); })
      .Case<arith::MaxUIOp>(
          [&](Operation *) { return a().ugt(b()) ? a() : b(); })
      .Case<arith::AndIOp>([&](Operation *) { return a() & b(); })
      .Case<arith::OrIOp>([&](Operation *) { return a() | b(); })
      .Case<arith::XOrIOp>([&](Operation *) { return a() ^ b(); })
      .Case<arith::ShLIOp>([&](Operation *) -> FailureOr<APInt> {
        if (!shiftAmountOk())
          return fail("a shift by the bit width or more (poison)");
        bool so, uo;
        APInt r = a().sshl_ov(b(), so);
        (void)a().ushl_ov(b(), uo);
        return withFlags(r, so, uo);
      })
      .Case<arith::ShRUIOp, arith::ShRSIOp>(
          [&](Operation *o) -> FailureOr<APInt> {
            if (!shiftAmountOk())
              return fail("a shift by the bit width or more (poison)");
            unsigned n = b().getZExtValue();
            return isa<arith::ShRUIOp>(o) ? a().lshr(n) : a().ashr(n);
          })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        bool r = false;
        switch (c.getPredicate()) {
        case arith::CmpIPredicate::eq:
          r = a() == b();
          break;
        case arith::CmpIPredicate::ne:
          r = a() != b();
          break;
        case arith::CmpIPredicate::slt:
          r = a().slt(b());
          break;
        case arith::CmpIPredicate::sle:
          r = a().sle(b());
          break;
        case arith::CmpIPredicate::sgt:
          r = a().sgt(b());
          break;
        case arith::CmpIPredicate::sge:
          r = a().sge(b());
          break;
        case arith::CmpIPredicate::ult:
          r = a().ult(b());
          break;
        case arith::CmpIPredicate::ule:
          r = a().ule(b());
          break;
        case arith::CmpIPredicate::ugt:
          r = a().ugt(b());
          break;
        case arith::CmpIPredicate::uge:
          r = a().uge(b());
          break;
        }
        return APInt(1, r);
      })
      .Case<arith::SelectOp>(
          [&](Operation *) { return operands[0].isOne() ? operands[1] : operands[2]; })
      .Case<arith::IndexCastOp, arith::ExtSIOp>(
          [&](Operation *) { return a().sextOrTrunc(width); })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>(
          [&](Operation *) { return a().zextOrTrunc(width); })
      .Case<arith::TruncIOp>([&](Operation *) {
        APInt r = a().trunc(width);
        return withFlags(r, r.sext(a().getBitWidth()) != a(),
                         r.zext(a().getBitWidth()) != a());
      })
      .Default([&](Operation *) { return fail("not an integer operation"); });
}
