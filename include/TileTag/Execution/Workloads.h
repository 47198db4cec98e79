//===- Workloads.h - float64 references of the shipped workloads -*- C++
//-*-===//
//
// Part of the TileTag project.
//
// Each workload TileTag ships (GEMM, split-k GEMM, attention, MoE grouped
// GEMM, softmax, layernorm) has a plain float64 reference written apart from
// any kernel, so that `tiletag-run --check` compares a kernel against an
// independent statement of what it must compute.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_WORKLOADS_H
#define TILETAG_EXECUTION_WORKLOADS_H

#include "TileTag/Execution/Interpreter.h"

#include "llvm/ADT/StringMap.h"

#include <functional>
#include <random>
#include <string>

namespace mlir::tiletag::exec {

/// The memref operands of a run, by operand name.
using NamedBuffers = llvm::StringMap<Buffer>;
/// The scalar operands of a run, by operand name.
using NamedScalars = llvm::StringMap<double>;

struct Workload {
  std::string name;
  /// Operands the workload computes: zeroed before the run, then compared.
  std::vector<std::string> outputs;
  /// Scratch operands (e.g. split-k partial sums): zeroed before the run.
  std::vector<std::string> scratch;
  /// Values of scalar operands unless the user sets them.
  std::vector<std::pair<std::string, double>> scalarDefaults;
  /// Tolerance: |x - ref| <= atol + rtol * |ref| for every element.
  double rtol = 0, atol = 0;
  /// Fills inputs that random values cannot stand for (MoE offsets).
  std::function<void(NamedBuffers &, std::mt19937_64 &)> prepare;
  /// The float64 reference of every output, row-major.
  std::function<llvm::StringMap<std::vector<double>>(const NamedBuffers &,
                                                     const NamedScalars &)>
      reference;
};

/// The workload called `name`, or null.
const Workload *lookupWorkload(StringRef name);

/// The names of all workloads, for messages.
std::string workloadNames();

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_WORKLOADS_H
