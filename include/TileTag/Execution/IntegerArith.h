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

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APInt.h"

#include <string>

namespace mlir::tiletag::exec {

/// The bit width of an integer or index type (`index`: 64), or 0.
unsigned integerWidth(Type type);

/// True if `op` is a scalar integer operation evaluateIntegerOp handles:
/// every operand and result is an integer or index scalar (i1 included).
bool isScalarIntegerOp(Operation *op);

/// The result of `op` on `operands` (each at its operand's width). On
/// undefined behaviour or poison, fails and says why in `undefined`.
FailureOr<llvm::APInt> evaluateIntegerOp(Operation *op,
                                         ArrayRef<llvm::APInt> operands,
                                         std::string &undefined);

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_INTEGERARITH_H
