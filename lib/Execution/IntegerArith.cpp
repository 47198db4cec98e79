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

std::optional<exec::IntegerOp> exec::decodeIntegerOp(Operation *op) {
  using Code = IntegerOp::Code;
  std::optional<Code> code =
      llvm::TypeSwitch<Operation *, std::optional<Code>>(op)
          .Case<arith::AddIOp>([](auto) { return Code::Add; })
          .Case<arith::SubIOp>([](auto) { return Code::Sub; })
          .Case<arith::MulIOp>([](auto) { return Code::Mul; })
          .Case<arith::DivUIOp>([](auto) { return Code::DivU; })
          .Case<arith::RemUIOp>([](auto) { return Code::RemU; })
          .Case<arith::CeilDivUIOp>([](auto) { return Code::CeilDivU; })
          .Case<arith::DivSIOp>([](auto) { return Code::DivS; })
          .Case<arith::RemSIOp>([](auto) { return Code::RemS; })
          .Case<arith::CeilDivSIOp>([](auto) { return Code::CeilDivS; })
          .Case<arith::FloorDivSIOp>([](auto) { return Code::FloorDivS; })
          .Case<arith::MinSIOp>([](auto) { return Code::MinS; })
          .Case<arith::MaxSIOp>([](auto) { return Code::MaxS; })
          .Case<arith::MinUIOp>([](auto) { return Code::MinU; })
          .Case<arith::MaxUIOp>([](auto) { return Code::MaxU; })
          .Case<arith::AndIOp>([](auto) { return Code::And; })
          .Case<arith::OrIOp>([](auto) { return Code::Or; })
          .Case<arith::XOrIOp>([](auto) { return Code::Xor; })
          .Case<arith::ShLIOp>([](auto) { return Code::Shl; })
          .Case<arith::ShRUIOp>([](auto) { return Code::ShrU; })
          .Case<arith::ShRSIOp>([](auto) { return Code::ShrS; })
          .Case<arith::CmpIOp>([](auto) { return Code::Cmp; })
          .Case<arith::SelectOp>([](auto) { return Code::Select; })
          .Case<arith::IndexCastOp, arith::ExtSIOp>(
              [](auto) { return Code::SignExtend; })
          .Case<arith::IndexCastUIOp, arith::ExtUIOp>(
              [](auto) { return Code::ZeroExtend; })
          .Case<arith::TruncIOp>([](auto) { return Code::Truncate; })
          .Default([](auto) { return std::nullopt; });
  if (!code)
    return std::nullopt;
  auto scalarInt = [](Value v) {
    Type t = v.getType();
    return !llvm::isa<ShapedType>(t) && integerWidth(t) > 0 &&
           integerWidth(t) <= 64;
  };
  if (!llvm::all_of(op->getOperands(), scalarInt) ||
      !llvm::all_of(op->getResults(), scalarInt))
    return std::nullopt;
  IntegerOp decoded{*code};
  decoded.width = integerWidth(op->getResult(0).getType());
  if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(op))
    decoded.predicate = cmp.getPredicate();
  if (auto i = llvm::dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op)) {
    decoded.nsw = i.hasNoSignedWrap();
    decoded.nuw = i.hasNoUnsignedWrap();
  }
  return decoded;
}

FailureOr<APInt> exec::evaluateIntegerOp(const IntegerOp &op,
                                         ArrayRef<APInt> operands,
                                         std::string &undefined) {
  using Code = IntegerOp::Code;
  unsigned width = op.width;
  auto fail = [&](StringRef why) -> FailureOr<APInt> {
    undefined = why.str();
    return failure();
  };
  const APInt &a = operands[0];
  auto b = [&]() -> const APInt & { return operands[1]; };
  auto withFlags = [&](APInt value, bool signedOverflow,
                       bool unsignedOverflow) -> FailureOr<APInt> {
    if (op.nsw && signedOverflow)
      return fail("the result overflows a signed integer (nsw: poison)");
    if (op.nuw && unsignedOverflow)
      return fail("the result overflows an unsigned integer (nuw: poison)");
    return value;
  };
  bool so, uo;
  switch (op.code) {
  case Code::Add: {
    APInt r = a.sadd_ov(b(), so);
    (void)a.uadd_ov(b(), uo);
    return withFlags(r, so, uo);
  }
  case Code::Sub: {
    APInt r = a.ssub_ov(b(), so);
    (void)a.usub_ov(b(), uo);
    return withFlags(r, so, uo);
  }
  case Code::Mul: {
    APInt r = a.smul_ov(b(), so);
    (void)a.umul_ov(b(), uo);
    return withFlags(r, so, uo);
  }
  case Code::DivU:
  case Code::RemU:
  case Code::CeilDivU:
    if (b().isZero())
      return fail("integer division by zero");
    if (op.code == Code::DivU)
      return a.udiv(b());
    if (op.code == Code::RemU)
      return a.urem(b());
    return llvm::APIntOps::RoundingUDiv(a, b(), APInt::Rounding::UP);
  case Code::DivS:
  case Code::RemS:
  case Code::CeilDivS:
  case Code::FloorDivS:
    // Undefined for a zero divisor and for MIN / -1.
    if (b().isZero())
      return fail("integer division by zero");
    if (a.isMinSignedValue() && b().isAllOnes())
      return fail("signed division overflows (the minimum value by -1)");
    if (op.code == Code::DivS)
      return a.sdiv(b());
    if (op.code == Code::RemS)
      return a.srem(b());
    return llvm::APIntOps::RoundingSDiv(a, b(),
                                        op.code == Code::CeilDivS
                                            ? APInt::Rounding::UP
                                            : APInt::Rounding::DOWN);
  case Code::MinS:
    return a.slt(b()) ? a : b();
  case Code::MaxS:
    return a.sgt(b()) ? a : b();
  case Code::MinU:
    return a.ult(b()) ? a : b();
  case Code::MaxU:
    return a.ugt(b()) ? a : b();
  case Code::And:
    return a & b();
  case Code::Or:
    return a | b();
  case Code::Xor:
    return a ^ b();
  case Code::Shl: {
    if (!b().ult(width))
      return fail("a shift by the bit width or more (poison)");
    APInt r = a.sshl_ov(b(), so);
    (void)a.ushl_ov(b(), uo);
    return withFlags(r, so, uo);
  }
  case Code::ShrU:
  case Code::ShrS: {
    if (!b().ult(width))
      return fail("a shift by the bit width or more (poison)");
    unsigned n = b().getZExtValue();
    return op.code == Code::ShrU ? a.lshr(n) : a.ashr(n);
  }
  case Code::Cmp: {
    bool r = false;
    switch (op.predicate) {
    case arith::CmpIPredicate::eq:
      r = a == b();
      break;
    case arith::CmpIPredicate::ne:
      r = a != b();
      break;
    case arith::CmpIPredicate::slt:
      r = a.slt(b());
      break;
    case arith::CmpIPredicate::sle:
      r = a.sle(b());
      break;
    case arith::CmpIPredicate::sgt:
      r = a.sgt(b());
      break;
    case arith::CmpIPredicate::sge:
      r = a.sge(b());
      break;
    case arith::CmpIPredicate::ult:
      r = a.ult(b());
      break;
    case arith::CmpIPredicate::ule:
      r = a.ule(b());
      break;
    case arith::CmpIPredicate::ugt:
      r = a.ugt(b());
      break;
    case arith::CmpIPredicate::uge:
      r = a.uge(b());
      break;
    }
    return APInt(1, r);
  }
  case Code::Select:
    return operands[0].isOne() ? operands[1] : operands[2];
  case Code::SignExtend:
    return a.sextOrTrunc(width);
  case Code::ZeroExtend:
    return a.zextOrTrunc(width);
  case Code::Truncate: {
    APInt r = a.trunc(width);
    return withFlags(r, r.sext(a.getBitWidth()) != a,
                     r.zext(a.getBitWidth()) != a);
  }
  }
  llvm_unreachable("every integer op code is handled");
}
