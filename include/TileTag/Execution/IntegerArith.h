//===- IntegerArith.h - exact semantics of scalar integer ops ---*- C++ -*-===//
//
// Part of the TileTag project.
//
// The oracle's meaning of scalar `arith` integer operations, exactly as MLIR
// defines them: two's complement at the type's width (`index` is 64 bits),
// wrap-around for plain add/sub/mul, truncating `divsi`/`remsi`, unsigned
// compares and division. Undefined behaviour and poison (division by zero,
// signed division overflow, a shift by the width or more, a violated
// nsw/nuw flag) are reported, never given a value. The symbolic model of the
// checkers is held to this by a differential test.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_INTEGERARITH_H
#define TILETAG_EXECUTION_INTEGERARITH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APInt.h"

#include <optional>
#include <string>

namespace mlir::tiletag::exec {

/// The bit width of an integer or index type (`index`: 64), or 0.
unsigned integerWidth(Type type);

/// A scalar integer operation decoded once, for walkers that evaluate the
/// same op many times (the cost model visits each millions of times).
struct IntegerOp {
  enum class Code : uint8_t {
    Add, Sub, Mul, DivU, RemU, CeilDivU, DivS, RemS, CeilDivS, FloorDivS,
    MinS, MaxS, MinU, MaxU, And, Or, Xor, Shl, ShrU, ShrS, Cmp, Select,
    SignExtend, ZeroExtend, Truncate,
  };
  Code code;
  arith::CmpIPredicate predicate = arith::CmpIPredicate::eq; // of a Cmp
  bool nsw = false, nuw = false;
  unsigned width = 0; // of the result
};

/// `op` decoded, if it is a scalar integer operation: every operand and
/// result is an integer or index scalar (i1 included) of at most 64 bits.
std::optional<IntegerOp> decodeIntegerOp(Operation *op);

/// The result of `op` on `operands` (each at its operand's width). On
/// undefined behaviour or poison, fails and says why in `undefined`.
FailureOr<llvm::APInt> evaluateIntegerOp(const IntegerOp &op,
                                         ArrayRef<llvm::APInt> operands,
                                         std::string &undefined);

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_INTEGERARITH_H
