//===- Interpreter.h - the sequential meaning of tile kernels ---*- C++ -*-===//
//
// Part of the TileTag project.
//
// Executes a tile kernel on the CPU with its sequential meaning: every program
// of the grid one after another, each body top to bottom, schedule
// annotations and tags ignored. Tile operations are coarse (a tile.dot is a
// whole matrix product), so interpreting them costs little over compiled
// code; bench/ measures the ratio against a plain C++ loop.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_INTERPRETER_H
#define TILETAG_EXECUTION_INTERPRETER_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <variant>
#include <vector>

namespace mlir::tiletag::exec {

/// Rounds `value` to what `type` can hold: floats to the nearest value of the
/// format (ties to even), integers wrapped to their width (i1 to 0 or 1).
double roundTo(Type type, double value);

/// A dense row-major array. Every element type is held as double: floats are
/// kept rounded to their format, integers and indices are exact up to 2^53.
/// Scalars of integer or index type also keep their exact value, so that
/// index arithmetic follows MLIR's 64-bit semantics (IntegerArith.h).
struct Array {
  Type elementType;
  SmallVector<int64_t> shape;
  std::vector<double> data;
  std::optional<llvm::APInt> exact;

  Array() = default;
  Array(Type elementType, ArrayRef<int64_t> shape, double fill = 0.0);
  int64_t size() const { return static_cast<int64_t>(data.size()); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// The row-major position of `index`, which must be in range.
  int64_t linear(ArrayRef<int64_t> index) const;
};

/// A memref's contents, shared by every program that sees it.
using Buffer = std::shared_ptr<Array>;

/// A runtime value: a tensor (rank 0 for scalars), a memref, or nothing (the
/// value of an annotation that has no meaning when run sequentially).
using RuntimeValue = std::variant<std::monostate, Array, Buffer>;

/// Runs `kernel` over `grid`, in row-major order of program ids, with
/// `operands` bound to its arguments (buffers for memrefs, rank-0 arrays for
/// scalars). Where `onlyProgram` fixes a coordinate, only programs with that
/// coordinate run (used to replay one program of a counterexample). The
/// programs of a thread-block cluster whose code has cluster barriers run
/// together, round by round between the barriers (a replay runs the whole
/// cluster of the program it selects). Failures
/// (an unchecked access out of range, an unsupported op) are reported as
/// diagnostics at the op, with the program id in a note.
LogicalResult runKernel(tile::KernelOp kernel, ArrayRef<RuntimeValue> operands,
                        ArrayRef<int64_t> grid,
                        ArrayRef<std::optional<int64_t>> onlyProgram = {});

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_INTERPRETER_H
