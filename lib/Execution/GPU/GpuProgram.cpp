//===- GpuProgram.cpp - what the GPU runners share ------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/GpuProgram.h"

#include "TileTag/Conversion/TileToGPU/KernelLowering.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <dlfcn.h>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

exec::GpuProgram::~GpuProgram() = default;

LogicalResult exec::loadRuntime(const char *soname,
                                ArrayRef<RuntimeSymbol> symbols,
                                StringRef unavailable, std::string &error) {
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error = unavailable.str();
    return failure();
  }
  for (const RuntimeSymbol &s : symbols) {
    *s.slot = dlsym(lib, s.name);
    if (!*s.slot) {
      error = std::string(soname) + " lacks " + s.name;
      return failure();
    }
  }
  return success();
}

bool exec::timedLaunch(function_ref<bool()> launchAndWait, double &millis) {
  auto start = std::chrono::steady_clock::now();
  if (!launchAndWait())
    return false;
  millis = std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
               .count();
  return true;
}

LogicalResult exec::timeRepeats(unsigned repeats,
                                function_ref<bool()> launchAndWait,
                                double &millis) {
  if (!repeats)
    return success();
  std::vector<double> times(repeats);
  for (double &ms : times)
    if (!timedLaunch(launchAndWait, ms))
      return failure();
  std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
  millis = times[repeats / 2];
  return success();
}

LogicalResult exec::readKernelABIs(ModuleOp lowered,
                                   llvm::StringMap<KernelABI> &abis,
                                   std::string &error) {
  WalkResult walk = lowered.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return WalkResult::advance();
    auto abi = func->getAttrOfType<DictionaryAttr>(conversion::kABIAttrName);
    auto block = abi ? abi.getAs<DenseI64ArrayAttr>("block") : nullptr;
    auto shared = abi ? abi.getAs<IntegerAttr>("shared_bytes") : nullptr;
    auto workspace = abi ? abi.getAs<IntegerAttr>("workspace_bytes") : nullptr;
    if (!block || block.size() != 3 || !shared || !workspace) {
      error = "internal: the lowered @" + func.getName().str() +
              " has no well-formed tiletag.abi";
      return WalkResult::interrupt();
    }
    KernelABI info;
    info.params.assign(func.getArgumentTypes().begin(),
                       func.getArgumentTypes().end());
    info.block.assign(block.asArrayRef().begin(), block.asArrayRef().end());
    info.sharedBytes = shared.getInt();
    info.workspaceBytes = workspace.getInt();
    if (auto maps = abi.getAs<ArrayAttr>("tensor_maps")) {
      for (Attribute a : maps) {
        auto dict = cast<DictionaryAttr>(a);
        KernelABI::TensorMap m;
        m.operand = dict.getAs<IntegerAttr>("operand").getInt();
        auto box = dict.getAs<DenseI64ArrayAttr>("box").asArrayRef();
        m.box.assign(box.begin(), box.end());
        info.tensorMaps.push_back(m);
      }
    }
    if (auto cluster = abi.getAs<DenseI64ArrayAttr>("cluster"))
      info.cluster.assign(cluster.asArrayRef().begin(),
                          cluster.asArrayRef().end());
    abis[func.getName()] = std::move(info);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

uint64_t exec::toDeviceBits(Type type, double v) {
  if (auto f = dyn_cast<FloatType>(type)) {
    llvm::APFloat x(v);
    bool lost;
    x.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return x.bitcastToAPInt().getZExtValue();
  }
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}

double exec::fromDeviceBits(Type type, uint64_t bits) {
  if (auto f = dyn_cast<FloatType>(type)) {
    llvm::APFloat x(f.getFloatSemantics(), llvm::APInt(f.getWidth(), bits));
    bool lost;
    x.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return x.convertToDouble();
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (width == 1)
    return bits & 1;
  return static_cast<double>(llvm::SignExtend64(bits, width));
}

int64_t exec::deviceBytes(Type type) {
  return type.isIndex() ? 8 : std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

std::vector<char> exec::toDeviceBytes(const Array &a) {
  int64_t width = deviceBytes(a.elementType);
  std::vector<char> bytes(a.size() * width);
  for (int64_t e = 0; e < a.size(); ++e) {
    uint64_t bits = toDeviceBits(a.elementType, a.data[e]);
    std::memcpy(bytes.data() + e * width, &bits, width);
  }
  return bytes;
}

void exec::fromDeviceBytes(Array &a, const std::vector<char> &bytes) {
  int64_t width = deviceBytes(a.elementType);
  for (int64_t e = 0; e < a.size(); ++e) {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes.data() + e * width, width);
    a.data[e] = fromDeviceBits(a.elementType, bits);
  }
}

LogicalResult exec::packParams(const KernelABI &abi,
                               ArrayRef<RuntimeValue> operands,
                               ArrayRef<uint64_t> addresses,
                               ArrayRef<uint64_t> extra, uint64_t workspace,
                               int64_t workspaceBytes,
                               std::vector<Param> &params, std::string &error) {
  params.clear();
  auto memref = [&](uint64_t address, ArrayRef<int64_t> shape) {
    params.push_back({address, 8});
    params.push_back({address, 8});
    params.push_back({0, 8});
    for (int64_t s : shape)
      params.push_back({static_cast<uint64_t>(s), 8});
    SmallVector<int64_t> strides(shape.size());
    int64_t stride = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape[d];
    }
    for (int64_t s : strides)
      params.push_back({static_cast<uint64_t>(s), 8});
  };
  for (auto [i, v] : llvm::enumerate(operands)) {
    if (const Buffer *buffer = std::get_if<Buffer>(&v)) {
      memref(addresses[i], (*buffer)->shape);
    } else if (const Array *scalar = std::get_if<Array>(&v)) {
      params.push_back({toDeviceBits(scalar->elementType, scalar->data[0]),
                        static_cast<unsigned>(
                            deviceBytes(scalar->elementType))});
    } else {
      error = "operand " + std::to_string(i) + " has no value";
      return failure();
    }
  }
  for (uint64_t p : extra)
    params.push_back({p, 8});
  memref(workspace, {workspaceBytes});
  // The packing above follows the operands; the signature the lowering made
  // must agree, parameter for parameter.
  size_t expected = 0;
  for (Type t : abi.params)
    expected += isa<MemRefType>(t) ? 3 + 2 * cast<MemRefType>(t).getRank() : 1;
  if (expected != params.size()) {
    error = "internal: the kernel takes " + std::to_string(expected) +
            " parameters, the runner packed " + std::to_string(params.size());
    return failure();
  }
  return success();
}

LogicalResult exec::copyBuffersBack(
    ArrayRef<RuntimeValue> operands,
    function_ref<bool(size_t i, void *bytes, size_t size)> read) {
  for (auto [i, v] : llvm::enumerate(operands)) {
    const Buffer *buffer = std::get_if<Buffer>(&v);
    if (!buffer)
      continue;
    Array &a = **buffer;
    std::vector<char> bytes(a.size() * deviceBytes(a.elementType));
    if (!read(i, bytes.data(), bytes.size()))
      return failure();
    fromDeviceBytes(a, bytes);
  }
  return success();
}

int64_t exec::programCount(ArrayRef<int64_t> grid) {
  int64_t programs = 1;
  for (int64_t g : grid)
    programs *= g;
  return programs;
}

std::array<uint32_t, 3> exec::gridExtents(ArrayRef<int64_t> grid) {
  std::array<uint32_t, 3> extents = {1, 1, 1};
  for (auto [d, n] : llvm::enumerate(grid))
    extents[d] = static_cast<uint32_t>(n);
  return extents;
}
