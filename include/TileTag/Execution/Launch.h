//===- Launch.h - what a tile.launch runs, at which sizes -------*- C++ -*-===//
//
// Part of the TileTag project.
//
// A kernel with a `tile.launch` attribute can be run without further
// information: the attribute names its problem sizes (with defaults), the
// grid and every memref operand's shape as expressions of the sizes, the
// workload it is checked against and the kernels that run after it. A
// LaunchPlan is that launch at given sizes; tiletag-run, the C API and the
// Python package all run kernels through it, so they agree on sizes, grids,
// operand shapes and limits.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_LAUNCH_H
#define TILETAG_EXECUTION_LAUNCH_H

#include "TileTag/Execution/Workloads.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir::tiletag::exec {

/// Limits that keep a mistyped size from exhausting the machine.
constexpr int64_t kMaxElements = int64_t{1} << 31;
constexpr int64_t kMaxPrograms = int64_t{1} << 24;

/// The kernel's `tile.launch`, or null.
tile::LaunchAttr launchOf(tile::KernelOp kernel);

/// The kernels of `module` that start a launch of their own: those with a
/// `tile.launch` that no kernel runs `then` and that are no kernel's
/// contract (`tag.contract`: a specification, not a job).
SmallVector<tile::KernelOp> launchHeads(ModuleOp module);

/// One operand of a launch: its name (`tile.name`) and type (a memref or a
/// scalar type), as the first kernel of the chain that has it declares it.
struct LaunchOperand {
  std::string name;
  Type type;
  bool isBuffer() const { return llvm::isa<MemRefType>(type); }
};

/// A launch at given sizes: `head`, then the kernels its `then` names.
struct LaunchPlan {
  SmallVector<tile::KernelOp> kernels;
  /// Every size of the chain (the first declaration's default wins).
  SmallVector<std::string> sizeNames;
  SmallVector<int64_t> sizeValues;
  /// The chain's operands by name, in the order they first appear.
  SmallVector<LaunchOperand> operands;
  /// The workload the head's `check` names, and that workload (null when
  /// there is no `check` or it names no workload TileTag has).
  std::string workloadName;
  const Workload *workload = nullptr;
  /// The workload, or an error saying why there is none.
  llvm::Expected<const Workload *> checkedWorkload() const;

  /// The chain of `head` at its default sizes. Fails on a kernel without a
  /// `tile.launch`, a `then` that names no kernel or does not end, or an
  /// operand whose types differ between kernels.
  static llvm::Expected<LaunchPlan> create(tile::KernelOp head);

  bool hasSize(StringRef name) const;
  /// Sets a size; fails on an unknown name or a negative value.
  llvm::Error setSize(StringRef name, int64_t value);
  /// Sets every size that some memref operand's shape has as a whole entry
  /// (`A = [M, K]` gives M and K) from `shapes` (by operand name), except the
  /// sizes in `fixed`; then checks that every given shape is the one the
  /// launch gives at those sizes.
  llvm::Error inferSizes(const llvm::StringMap<SmallVector<int64_t>> &shapes,
                         ArrayRef<std::string> fixed = {});

  /// The size values in the order `kernel`'s launch declares its sizes.
  SmallVector<int64_t> sizesOf(tile::KernelOp kernel) const;
  /// `kernel`'s grid at these sizes; fails past kMaxPrograms programs.
  llvm::Expected<SmallVector<int64_t>> gridOf(tile::KernelOp kernel) const;
  /// The shape of memref operand `name` at these sizes; fails on a negative
  /// extent or an operand the launch gives no shape.
  llvm::Expected<SmallVector<int64_t>> shapeOf(StringRef name) const;
  /// Every memref operand's shape at these sizes; fails past kMaxElements
  /// elements in all.
  llvm::Expected<llvm::StringMap<SmallVector<int64_t>>> shapes() const;
  /// "M=256, N=256, K=320".
  std::string sizeText() const;
  /// "@a then @b".
  std::string kernelNames() const;
};

/// Runs `kernels` (the plan's, or another version of them with the same
/// operands) on the CPU oracle with `buffers` and `scalars` bound by name.
/// `onlyProgram` restricts the first kernel to programs with those
/// coordinates. Returns false when a kernel failed at run time (reported as a
/// diagnostic at its op), an error when the launch cannot be made.
llvm::Expected<bool> runOnCPU(const LaunchPlan &plan,
                              ArrayRef<tile::KernelOp> kernels,
                              const NamedBuffers &buffers,
                              const NamedScalars &scalars,
                              ArrayRef<std::optional<int64_t>> onlyProgram = {});

/// The operands of `kernel`: its buffers and rank-0 arrays of its scalars.
SmallVector<RuntimeValue> bindOperands(tile::KernelOp kernel,
                                       const NamedBuffers &buffers,
                                       const NamedScalars &scalars);

/// How far an array is from what it should be.
struct Comparison {
  int64_t elements = 0;
  /// Elements with |got - want| > atol + rtol * |want| (NaN only matches NaN).
  int64_t mismatches = 0;
  /// The row-major index of the element furthest out of tolerance, and its
  /// values (-1 when there are no elements).
  int64_t worst = -1;
  double got = 0, want = 0;
  double maxAbsDiff = 0;
  double rtol = 0, atol = 0;
  bool matches() const { return mismatches == 0; }
};
Comparison compareArrays(const Array &got, ArrayRef<double> want, double rtol,
                         double atol);

/// "[2, 17]": the index of row-major position `flat` in `shape`.
std::string indexString(ArrayRef<int64_t> shape, int64_t flat);

/// A deep copy of every buffer, so that two runs start from the same inputs.
NamedBuffers copyBuffers(const NamedBuffers &buffers);

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_LAUNCH_H
