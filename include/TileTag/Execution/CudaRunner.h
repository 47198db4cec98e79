//===- CudaRunner.h - run lowered kernels on a CUDA GPU ---------*- C++ -*-===//
//
// Part of the TileTag project.
//
// Compiles a module's tile kernels for Hopper (--tiletag-compile-cuda), loads
// the cubin with the CUDA driver API (libcuda is opened at run time, so tools
// built with this library run where there is no driver), builds the tensor
// maps the lowering asked for, and launches kernels on the same buffers the
// CPU oracle uses.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_CUDARUNNER_H
#define TILETAG_EXECUTION_CUDARUNNER_H

#include "TileTag/Execution/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::tiletag::exec {

class CudaProgram {
public:
  /// Compiles every kernel of `module` (which is not modified) for `chip`.
  /// Returns null and sets `error` when compilation fails or there is no
  /// usable GPU (no libcuda, no device, built without CUDA headers).
  static std::unique_ptr<CudaProgram> create(ModuleOp module, StringRef chip,
                                             std::string &error);
  virtual ~CudaProgram();

  /// Runs kernel `name` over `grid` with `operands` as for runKernel: memref
  /// buffers are copied to the device, then back. `millis` is the kernel
  /// time alone (launch to completion). With `repeats`, the kernel then runs
  /// that many more times on the same device buffers (the outputs copied
  /// back are the first run's) and `millis` is the median of those runs.
  virtual LogicalResult run(StringRef name, ArrayRef<RuntimeValue> operands,
                            ArrayRef<int64_t> grid, double &millis,
                            std::string &error, unsigned repeats = 0) = 0;
};

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_CUDARUNNER_H
