//===- CudaRunner.cpp - run lowered kernels on a CUDA GPU -----------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/CudaRunner.h"

#include "TileTag/Conversion/Passes.h"
#include "TileTag/Verification/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Program.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;


#if TILETAG_HAVE_CUDA_H
#include <cuda.h>

#include <algorithm>

namespace {

/// The driver entry points, from libcuda.so.1 opened at run time.
struct Driver {
#define TILETAG_CU(fn) decltype(&fn) fn##_ = nullptr;
#define TILETAG_CU_LIST(X)                                                     \
  X(cuInit)                                                                    \
  X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent)                \
      X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleGetFunction)           \
          X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree)   \
              X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD8)                    \
                  X(cuTensorMapEncodeTiled) X(cuGetErrorString)
  TILETAG_CU_LIST(TILETAG_CU)
#undef TILETAG_CU

  bool load(std::string &error) {
#define TILETAG_CU(fn) {#fn, reinterpret_cast<void **>(&fn##_)},
    RuntimeSymbol symbols[] = {TILETAG_CU_LIST(TILETAG_CU)};
#undef TILETAG_CU
    return succeeded(loadRuntime(
        "libcuda.so.1", symbols,
        "no CUDA driver (libcuda.so.1 cannot be opened)", error));
  }

  bool ok(CUresult r, const char *what, std::string &error) {
    if (r == CUDA_SUCCESS)
      return true;
    const char *msg = nullptr;
    cuGetErrorString_(r, &msg);
    error = std::string(what) + ": " + (msg ? msg : "unknown CUDA error");
    return false;
  }
};

class CudaProgramImpl : public CudaProgram {
public:
  Driver cu;
  CUmodule module = nullptr;
  llvm::StringMap<KernelABI> kernels;
  llvm::StringMap<CUfunction> functions;

  LogicalResult run(StringRef name, ArrayRef<RuntimeValue> operands,
                    ArrayRef<int64_t> grid, double &millis, std::string &error,
                    unsigned repeats) override;
};

LogicalResult CudaProgramImpl::run(StringRef name,
                                   ArrayRef<RuntimeValue> operands,
                                   ArrayRef<int64_t> grid, double &millis,
                                   std::string &error, unsigned repeats) {
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    error = "no compiled kernel @" + name.str();
    return failure();
  }
  KernelABI &info = it->second;
  CUfunction function = functions.lookup(name);
  SmallVector<CUdeviceptr> allocations;
  llvm::scope_exit cleanup([&] {
    for (CUdeviceptr p : allocations)
      cu.cuMemFree_(p);
  });
  auto alloc = [&](size_t bytes, CUdeviceptr &p) {
    if (!cu.ok(cu.cuMemAlloc_(&p, std::max<size_t>(bytes, 16)), "cuMemAlloc",
               error))
      return false;
    allocations.push_back(p);
    return true;
  };

  // Memref operands: device copies of the buffers.
  SmallVector<CUdeviceptr> devicePtrs(operands.size(), 0);
  for (auto [i, v] : llvm::enumerate(operands)) {
    const Buffer *buffer = std::get_if<Buffer>(&v);
    if (!buffer)
      continue;
    std::vector<char> bytes = toDeviceBytes(**buffer);
    if (!alloc(bytes.size(), devicePtrs[i]) ||
        !cu.ok(cu.cuMemcpyHtoD_(devicePtrs[i], bytes.data(), bytes.size()),
               "cuMemcpyHtoD", error))
      return failure();
  }

  // Tensor maps, in device memory.
  SmallVector<CUdeviceptr> mapPtrs;
  for (KernelABI::TensorMap &m : info.tensorMaps) {
    const Array &a = **std::get_if<Buffer>(&operands[m.operand]);
    int64_t rank = a.rank(), width = deviceBytes(a.elementType);
    CUtensorMapDataType dtype;
    if (a.elementType.isBF16())
      dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    else if (a.elementType.isF16())
      dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    else if (a.elementType.isF32())
      dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    else if (width == 1) // fp8: TMA moves bytes
      dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    else {
      error = "TMA operands must be bf16, f16, f32 or 8-bit";
      return failure();
    }
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elementStrides[5];
    int64_t stride = width;
    for (int64_t d = 0; d < rank; ++d) {
      dims[d] = a.shape[rank - 1 - d];
      box[d] = m.box[rank - 1 - d];
      elementStrides[d] = 1;
      if (d > 0)
        strides[d - 1] = stride;
      stride *= a.shape[rank - 1 - d];
    }
    if (rank > 1 && strides[0] % 16) {
      error = "TMA needs rows that are a multiple of 16 bytes; operand " +
              std::to_string(m.operand) + " has rows of " +
              std::to_string(strides[0]) + " bytes";
      return failure();
    }
    CUtensorMap map;
    if (!cu.ok(cu.cuTensorMapEncodeTiled_(
                   &map, dtype, rank,
                   reinterpret_cast<void *>(devicePtrs[m.operand]), dims,
                   strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_128B,
                   CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               "cuTensorMapEncodeTiled", error))
      return failure();
    CUdeviceptr p;
    if (!alloc(sizeof(map), p) ||
        !cu.ok(cu.cuMemcpyHtoD_(p, &map, sizeof(map)), "cuMemcpyHtoD", error))
      return failure();
    mapPtrs.push_back(p);
  }

  int64_t programs = programCount(grid);
  CUdeviceptr workspace = 0;
  if (info.workspaceBytes && !alloc(info.workspaceBytes * programs, workspace))
    return failure();

  std::vector<Param> packed;
  SmallVector<uint64_t> addresses(devicePtrs.begin(), devicePtrs.end());
  SmallVector<uint64_t> maps(mapPtrs.begin(), mapPtrs.end());
  if (failed(packParams(info, operands, addresses, maps, workspace,
                        info.workspaceBytes * programs, packed, error)))
    return failure();
  // cuLaunchKernel reads each parameter's size from the kernel: 8 bytes of
  // storage each, the value in the low bytes.
  std::vector<uint64_t> storage;
  for (const Param &p : packed)
    storage.push_back(p.bits);
  std::vector<void *> params;
  for (uint64_t &s : storage)
    params.push_back(&s);

  if (info.sharedBytes &&
      !cu.ok(cu.cuFuncSetAttribute_(
                 function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                 info.sharedBytes),
             "cuFuncSetAttribute", error))
    return failure();
  std::array<uint32_t, 3> g = gridExtents(grid);
  for (auto [d, size] : llvm::enumerate(info.cluster))
    if (g[d] % size != 0) {
      error = "the grid's extent " + std::to_string(g[d]) +
              " along dimension " + std::to_string(d) +
              " is not a multiple of the cluster's " + std::to_string(size) +
              ": the GPU refuses such a launch";
      return failure();
    }
  // One launch, returning once the kernel has completed.
  auto launch = [&] {
    return cu.ok(cu.cuLaunchKernel_(function, g[0], g[1], g[2], info.block[0],
                                    info.block[1], info.block[2],
                                    info.sharedBytes, nullptr, params.data(),
                                    nullptr),
                 "cuLaunchKernel", error) &&
           cu.ok(cu.cuCtxSynchronize_(), "kernel execution", error);
  };
  if (!timedLaunch(launch, millis) ||
      failed(copyBuffersBack(operands, [&](size_t i, void *bytes, size_t n) {
        return cu.ok(cu.cuMemcpyDtoH_(bytes, devicePtrs[i], n),
                     "cuMemcpyDtoH", error);
      })))
    return failure();
  return timeRepeats(repeats, launch, millis);
}

} // namespace

std::unique_ptr<CudaProgram>
CudaProgram::create(ModuleOp source, StringRef chip, std::string &error) {
  auto impl = std::make_unique<CudaProgramImpl>();
  // Lower first, to read what each kernel needs, then finish to a cubin.
  OwningOpRef<ModuleOp> module(source.clone());
  PassManager lower(source.getContext());
  lower.addPass(verify::createVerifyPass());
  lower.addPass(conversion::createConvertTileToNVGPUPass(
      conversion::ConvertTileToNVGPUPassOptions{false, chip.str()}));
  if (failed(lower.run(*module))) {
    error = "the kernels could not be proved or lowered (see above)";
    return nullptr;
  }
  if (failed(readKernelABIs(*module, impl->kernels, error)))
    return nullptr;
  // gpu-module-to-binary runs ptxas from PATH: fall back on the toolkit's.
  if (!llvm::sys::findProgramByName("ptxas")) {
    const char *home = std::getenv("CUDA_HOME");
    std::string bin = std::string(home ? home : "/usr/local/cuda") + "/bin";
    const char *path = std::getenv("PATH");
    setenv("PATH", (bin + ":" + (path ? path : "")).c_str(), 1);
  }
  PassManager finish(source.getContext());
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = chip.str();
  nvvm.cubinFeatures = "+ptx80";
  nvvm.cubinFormat = "bin";
  nvvm.optLevel = 3;
  finish.addPass(createCanonicalizerPass());
  gpu::buildLowerToNVVMPassPipeline(finish, nvvm);
  if (failed(finish.run(*module))) {
    error = "the lowered kernels did not compile to a cubin (see above)";
    return nullptr;
  }
  std::string cubin;
  module->walk([&](gpu::BinaryOp binary) {
    cubin = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                .getObject()
                .getValue()
                .str();
  });

  Driver &cu = impl->cu;
  if (!cu.load(error))
    return nullptr;
  CUdevice device;
  CUcontext context;
  if (!cu.ok(cu.cuInit_(0), "cuInit", error) ||
      !cu.ok(cu.cuDeviceGet_(&device, 0), "cuDeviceGet", error) ||
      !cu.ok(cu.cuDevicePrimaryCtxRetain_(&context, device),
             "cuDevicePrimaryCtxRetain", error) ||
      !cu.ok(cu.cuCtxSetCurrent_(context), "cuCtxSetCurrent", error) ||
      !cu.ok(cu.cuModuleLoadData_(&impl->module, cubin.data()),
             "cuModuleLoadData", error))
    return nullptr;
  for (auto &entry : impl->kernels)
    if (!cu.ok(cu.cuModuleGetFunction_(&impl->functions[entry.getKey()],
                                       impl->module,
                                       entry.getKey().str().c_str()),
               "cuModuleGetFunction", error))
      return nullptr;
  return impl;
}

#else // !TILETAG_HAVE_CUDA_H

std::unique_ptr<CudaProgram> CudaProgram::create(ModuleOp, StringRef,
                                                 std::string &error) {
  error = "this build of TileTag has no CUDA support (cuda.h was not found "
          "at configure time)";
  return nullptr;
}

#endif
