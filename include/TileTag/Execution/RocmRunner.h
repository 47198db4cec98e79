//===- RocmRunner.h - run lowered kernels on an AMD GPU ---------*- C++ -*-===//
//
// Part of the TileTag project.
//
// Compiles a module's tile kernels for CDNA (--tiletag-compile-rocm), loads
// the HSA code object with the ROCm runtime (libhsa-runtime64 is opened at
// run time, so tools built with this library run where ROCm is not
// installed), and launches kernels through an AQL queue on the same buffers
// the CPU oracle uses.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_ROCMRUNNER_H
#define TILETAG_EXECUTION_ROCMRUNNER_H

#include "TileTag/Execution/GpuProgram.h"

#include <memory>
#include <string>

namespace mlir::tiletag::exec {

class RocmProgram : public GpuProgram {
public:
  /// Compiles every kernel of `module` (which is not modified) for `chip`
  /// (the GPU's own name, e.g. gfx942). Returns null and sets `error` when
  /// there is no usable AMD GPU (no ROCm runtime, no GPU agent, another
  /// chip, built without the HSA headers) or compilation fails.
  static std::unique_ptr<RocmProgram> create(ModuleOp module, StringRef chip,
                                             std::string &error);
};

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_ROCMRUNNER_H
