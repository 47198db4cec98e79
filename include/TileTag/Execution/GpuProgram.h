//===- GpuProgram.h - lowered kernels on a GPU ------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
// What the GPU runners share: the interface tiletag-run drives
// (GpuProgram), the kernel interface the lowerings record on each gpu.func
// (`tiletag.abi`), how operand values become device bits, and how the
// operands become the lowered kernel's parameters (each memref expanded to
// allocated and aligned pointer, offset, sizes, strides, as the LLVM
// lowering of gpu.func has them).
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_EXECUTION_GPUPROGRAM_H
#define TILETAG_EXECUTION_GPUPROGRAM_H

#include "TileTag/Execution/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::tiletag::exec {

/// Compiled kernels, loaded on a GPU.
class GpuProgram {
public:
  virtual ~GpuProgram();

  /// Runs kernel `name` over `grid` with `operands` as for runKernel: memref
  /// buffers are copied to the device, then back. `millis` is the kernel
  /// time alone (launch to completion). With `repeats`, the kernel then runs
  /// that many more times on the same device buffers (the outputs copied
  /// back are the first run's) and `millis` is the median of those runs.
  virtual LogicalResult run(StringRef name, ArrayRef<RuntimeValue> operands,
                            ArrayRef<int64_t> grid, double &millis,
                            std::string &error, unsigned repeats = 0) = 0;
};

/// One lowered kernel's interface (its gpu.func's `tiletag.abi`).
struct KernelABI {
  SmallVector<Type> params; // the gpu.func's argument types
  SmallVector<int64_t> block;
  int64_t sharedBytes = 0, workspaceBytes = 0;
  /// Hopper: one tensor map per (operand, box), after the operands.
  struct TensorMap {
    unsigned operand;
    SmallVector<int64_t> box;
  };
  SmallVector<TensorMap> tensorMaps;
  /// Programs per cluster along x, y, z; empty without clusters.
  SmallVector<int64_t> cluster;
};

/// The interface of every kernel of a lowered module, by name; fails with
/// `error` on a gpu.func kernel without a well-formed `tiletag.abi`.
LogicalResult readKernelABIs(ModuleOp lowered,
                             llvm::StringMap<KernelABI> &abis,
                             std::string &error);

/// An element's bits on the device (floats rounded to nearest even), and
/// back; the bytes of one element.
uint64_t toDeviceBits(Type type, double v);
double fromDeviceBits(Type type, uint64_t bits);
int64_t deviceBytes(Type type);

/// One parameter of a lowered kernel: its bits and its size in bytes.
struct Param {
  uint64_t bits;
  unsigned bytes;
};

/// The parameters of a kernel with interface `abi`: the operands (a memref
/// at device address `addresses[i]`, a scalar by value), then `extra`
/// pointers (tensor maps), then the workspace at `workspace`. Fails with
/// `error` when the packing and the lowered signature disagree.
LogicalResult packParams(const KernelABI &abi,
                         ArrayRef<RuntimeValue> operands,
                         ArrayRef<uint64_t> addresses,
                         ArrayRef<uint64_t> extra, uint64_t workspace,
                         int64_t workspaceBytes, std::vector<Param> &params,
                         std::string &error);

/// An entry point of a GPU runtime library and where to keep it.
struct RuntimeSymbol {
  const char *name;
  void **slot;
};
/// Opens `soname` (at run time: tools run where the runtime is not
/// installed) and resolves `symbols`. Sets `error` to `unavailable` when the
/// library cannot be opened, or names the missing entry point.
LogicalResult loadRuntime(const char *soname, ArrayRef<RuntimeSymbol> symbols,
                          StringRef unavailable, std::string &error);

/// Runs `launchAndWait` (a launch that returns once the kernel has
/// completed) and sets `millis` to its wall time; false if it fails.
bool timedLaunch(function_ref<bool()> launchAndWait, double &millis);

/// With `repeats`, launches `repeats` more times and sets `millis` to the
/// median time; fails as soon as a launch does.
LogicalResult timeRepeats(unsigned repeats,
                          function_ref<bool()> launchAndWait, double &millis);

/// Device bytes of a buffer operand, and copying them back.
std::vector<char> toDeviceBytes(const Array &a);
void fromDeviceBytes(Array &a, const std::vector<char> &bytes);

/// Copies every memref operand back from the device: `read(i, bytes,
/// size)` fills `bytes` from operand i's device copy; fails as soon as a
/// read does.
LogicalResult
copyBuffersBack(ArrayRef<RuntimeValue> operands,
                function_ref<bool(size_t i, void *bytes, size_t size)> read);

/// The programs a launch of `grid` runs, and its extents in 3 dimensions.
int64_t programCount(ArrayRef<int64_t> grid);
std::array<uint32_t, 3> gridExtents(ArrayRef<int64_t> grid);

} // namespace mlir::tiletag::exec

#endif // TILETAG_EXECUTION_GPUPROGRAM_H
