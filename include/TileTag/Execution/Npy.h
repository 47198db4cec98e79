//===- Npy.h - read and write NumPy .npy arrays -----------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_NPY_H
#define TILETAG_EXECUTION_NPY_H

#include "TileTag/Execution/Interpreter.h"

#include <string>

namespace mlir::tiletag::exec {

/// Reads a little-endian, C-ordered .npy file (version 1 to 3; float16/32/64,
/// signed and unsigned integers, bool) and converts its values to
/// `elementType`, rounding as the type requires. On failure returns
/// std::nullopt with the reason in `error`.
std::optional<Array> readNpy(StringRef path, Type elementType,
                             std::string &error);

/// Writes `array` as a .npy file: f64 as float64, other floats as float32
/// (NumPy has no bfloat16), i1 as bool, integers of up to 32 bits as int32,
/// wider integers and index as int64.
LogicalResult writeNpy(StringRef path, const Array &array, std::string &error);

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_NPY_H
