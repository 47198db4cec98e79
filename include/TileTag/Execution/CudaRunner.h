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

#include "TileTag/Execution/GpuProgram.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::tiletag::exec {

class CudaProgram : public GpuProgram {
public:
  /// Compiles every kernel of `module` (which is not modified) for `chip`.
  /// Returns null and sets `error` when compilation fails or there is no
  /// usable GPU (no libcuda, no device, built without CUDA headers).
  static std::unique_ptr<CudaProgram> create(ModuleOp module, StringRef chip,
                                             std::string &error);
};

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_CUDARUNNER_H
