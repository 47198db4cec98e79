//===- RocmRunner.cpp - run lowered kernels on an AMD GPU (HSA) -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/RocmRunner.h"

#include "TileTag/Conversion/Passes.h"
#include "TileTag/Verification/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

#if TILETAG_HAVE_HSA_H
#include <hsa/hsa.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace {

/// The HSA runtime's entry points, from libhsa-runtime64.so.1 opened at run
/// time (no link dependency: tools run where ROCm is not installed).
struct Runtime {
#define TILETAG_HSA(fn) decltype(&fn) fn##_ = nullptr;
#define TILETAG_HSA_LIST(X)                                                    \
  X(hsa_init) X(hsa_status_string) X(hsa_iterate_agents) X(hsa_agent_get_info) \
      X(hsa_agent_iterate_regions) X(hsa_region_get_info)                      \
          X(hsa_memory_allocate) X(hsa_memory_free) X(hsa_memory_copy)         \
              X(hsa_code_object_reader_create_from_memory)                     \
                  X(hsa_executable_create_alt)                                 \
                      X(hsa_executable_load_agent_code_object)                 \
                          X(hsa_executable_freeze)                             \
                              X(hsa_executable_get_symbol_by_name)             \
                                  X(hsa_executable_symbol_get_info)            \
                                      X(hsa_queue_create)                      \
                                          X(hsa_queue_add_write_index_relaxed) \
                                              X(hsa_signal_create)             \
                                                  X(hsa_signal_store_relaxed)  \
                                                      X(hsa_signal_store_screlease) \
                                                          X(hsa_signal_wait_scacquire)
  TILETAG_HSA_LIST(TILETAG_HSA)
#undef TILETAG_HSA

  bool load(std::string &error) {
#define TILETAG_HSA(fn) {#fn, reinterpret_cast<void **>(&fn##_)},
    RuntimeSymbol symbols[] = {TILETAG_HSA_LIST(TILETAG_HSA)};
#undef TILETAG_HSA
    return succeeded(loadRuntime("libhsa-runtime64.so.1", symbols,
                                 "no AMD GPU: the ROCm runtime "
                                 "(libhsa-runtime64.so.1) cannot be opened",
                                 error));
  }

  bool ok(hsa_status_t s, const char *what, std::string &error) {
    if (s == HSA_STATUS_SUCCESS)
      return true;
    const char *msg = nullptr;
    hsa_status_string_(s, &msg);
    error = std::string(what) + ": " + (msg ? msg : "unknown HSA error");
    return false;
  }
};

/// The agent to run on, and where its memory comes from.
struct Device {
  hsa_agent_t agent{};
  bool found = false;
  std::string name;
  hsa_region_t kernargs{}, device{}, host{};
};

struct Kernel {
  uint64_t object = 0;
  uint32_t kernargBytes = 0, groupBytes = 0, privateBytes = 0;
};

class RocmProgramImpl : public RocmProgram {
public:
  Runtime hsa;
  Device dev;
  hsa_queue_t *queue = nullptr;
  hsa_signal_t done{};
  llvm::StringMap<KernelABI> abis;
  llvm::StringMap<Kernel> kernels;

  LogicalResult run(StringRef name, ArrayRef<RuntimeValue> operands,
                    ArrayRef<int64_t> grid, double &millis, std::string &error,
                    unsigned repeats) override;

  bool allocate(hsa_region_t region, size_t bytes, void *&p,
                SmallVectorImpl<void *> &owned, std::string &error) {
    if (!hsa.ok(hsa.hsa_memory_allocate_(region, std::max<size_t>(bytes, 16),
                                         &p),
                "hsa_memory_allocate", error))
      return false;
    owned.push_back(p);
    return true;
  }
  /// Host <-> device through a host-region staging buffer.
  bool copy(void *dst, const void *src, size_t bytes, bool toDevice,
            SmallVectorImpl<void *> &owned, std::string &error) {
    void *staging;
    if (!allocate(dev.host, bytes, staging, owned, error))
      return false;
    if (toDevice) {
      std::memcpy(staging, src, bytes);
      return hsa.ok(hsa.hsa_memory_copy_(dst, staging, bytes),
                    "hsa_memory_copy", error);
    }
    if (!hsa.ok(hsa.hsa_memory_copy_(staging, src, bytes), "hsa_memory_copy",
                error))
      return false;
    std::memcpy(dst, staging, bytes);
    return true;
  }
};

hsa_status_t findAgent(hsa_agent_t agent, void *data) {
  auto *self = static_cast<std::pair<Runtime *, Device *> *>(data);
  Runtime &hsa = *self->first;
  Device &dev = *self->second;
  hsa_device_type_t type;
  if (hsa.hsa_agent_get_info_(agent, HSA_AGENT_INFO_DEVICE, &type) !=
          HSA_STATUS_SUCCESS ||
      type != HSA_DEVICE_TYPE_GPU || dev.found)
    return HSA_STATUS_SUCCESS;
  char name[64] = {};
  hsa.hsa_agent_get_info_(agent, HSA_AGENT_INFO_NAME, name);
  dev.agent = agent;
  dev.name = name;
  dev.found = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t findRegions(hsa_region_t region, void *data) {
  auto *self = static_cast<std::pair<Runtime *, Device *> *>(data);
  Runtime &hsa = *self->first;
  Device &dev = *self->second;
  hsa_region_segment_t segment;
  hsa.hsa_region_get_info_(region, HSA_REGION_INFO_SEGMENT, &segment);
  if (segment != HSA_REGION_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  bool allocatable = false;
  hsa.hsa_region_get_info_(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED,
                           &allocatable);
  if (!allocatable)
    return HSA_STATUS_SUCCESS;
  uint32_t flags = 0;
  hsa.hsa_region_get_info_(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
  if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG)
    dev.kernargs = region;
  if (flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED)
    dev.device = region;
  else if (flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED)
    dev.host = region;
  return HSA_STATUS_SUCCESS;
}

LogicalResult RocmProgramImpl::run(StringRef name,
                                   ArrayRef<RuntimeValue> operands,
                                   ArrayRef<int64_t> grid, double &millis,
                                   std::string &error, unsigned repeats) {
  auto abiIt = abis.find(name);
  auto kernelIt = kernels.find(name);
  if (abiIt == abis.end() || kernelIt == kernels.end()) {
    error = "no compiled kernel @" + name.str();
    return failure();
  }
  const KernelABI &abi = abiIt->second;
  const Kernel &kernel = kernelIt->second;
  SmallVector<void *> owned;
  llvm::scope_exit cleanup([&] {
    for (void *p : owned)
      hsa.hsa_memory_free_(p);
  });

  SmallVector<uint64_t> addresses(operands.size(), 0);
  for (auto [i, v] : llvm::enumerate(operands)) {
    const Buffer *buffer = std::get_if<Buffer>(&v);
    if (!buffer)
      continue;
    std::vector<char> bytes = toDeviceBytes(**buffer);
    // Buffer loads take 32-bit byte offsets.
    if (bytes.size() > INT32_MAX) {
      error = "operand " + std::to_string(i) + " has " +
              std::to_string(bytes.size()) +
              " bytes; the AMDGPU lowering's buffer loads address 2 GiB";
      return failure();
    }
    void *p;
    if (!allocate(dev.device, bytes.size(), p, owned, error) ||
        !copy(p, bytes.data(), bytes.size(), /*toDevice=*/true, owned, error))
      return failure();
    addresses[i] = reinterpret_cast<uint64_t>(p);
  }
  int64_t programs = programCount(grid);
  void *workspace = nullptr;
  if (abi.workspaceBytes &&
      !allocate(dev.device, abi.workspaceBytes * programs, workspace, owned,
                error))
    return failure();

  // Explicit kernel arguments at their natural alignment; the hidden ones
  // after them (the code object's kernarg size) stay zero: the lowering
  // reads the grid from the dispatch packet.
  std::vector<Param> params;
  if (failed(packParams(abi, operands, addresses, {},
                        reinterpret_cast<uint64_t>(workspace),
                        abi.workspaceBytes * programs, params, error)))
    return failure();
  std::vector<char> kernargs(std::max<uint32_t>(kernel.kernargBytes, 8), 0);
  size_t offset = 0;
  for (const Param &p : params) {
    offset = llvm::alignTo(offset, p.bytes);
    if (offset + p.bytes > kernargs.size())
      kernargs.resize(offset + p.bytes, 0);
    std::memcpy(kernargs.data() + offset, &p.bits, p.bytes);
    offset += p.bytes;
  }
  void *kernargAddress;
  if (!allocate(dev.kernargs, kernargs.size(), kernargAddress, owned, error))
    return failure();
  std::memcpy(kernargAddress, kernargs.data(), kernargs.size());

  std::array<uint32_t, 3> workgroups = gridExtents(grid);
  auto launch = [&] {
    hsa.hsa_signal_store_screlease_(done, 1);
    uint64_t index = hsa.hsa_queue_add_write_index_relaxed_(queue, 1);
    auto *packet = static_cast<hsa_kernel_dispatch_packet_t *>(
                       queue->base_address) +
                   (index & (queue->size - 1));
    std::memset(reinterpret_cast<char *>(packet) + 4, 0, sizeof(*packet) - 4);
    packet->workgroup_size_x = abi.block[0];
    packet->workgroup_size_y = abi.block[1];
    packet->workgroup_size_z = abi.block[2];
    // Grid sizes count work-items.
    packet->grid_size_x = workgroups[0] * abi.block[0];
    packet->grid_size_y = workgroups[1] * abi.block[1];
    packet->grid_size_z = workgroups[2] * abi.block[2];
    packet->private_segment_size = kernel.privateBytes;
    packet->group_segment_size = kernel.groupBytes + abi.sharedBytes;
    packet->kernel_object = kernel.object;
    packet->kernarg_address = kernargAddress;
    packet->completion_signal = done;
    uint16_t header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (1 << HSA_PACKET_HEADER_BARRIER) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    uint16_t setup = 3 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    // The header goes last, atomically: it hands the packet to the GPU.
    __atomic_store_n(reinterpret_cast<uint32_t *>(packet),
                     header | (uint32_t(setup) << 16), __ATOMIC_RELEASE);
    hsa.hsa_signal_store_relaxed_(queue->doorbell_signal, index);
    while (hsa.hsa_signal_wait_scacquire_(done, HSA_SIGNAL_CONDITION_LT, 1,
                                          UINT64_MAX,
                                          HSA_WAIT_STATE_BLOCKED) != 0) {
    }
    return true;
  };
  if (!timedLaunch(launch, millis) ||
      failed(copyBuffersBack(operands, [&](size_t i, void *bytes, size_t n) {
        return copy(bytes, reinterpret_cast<void *>(addresses[i]), n,
                    /*toDevice=*/false, owned, error);
      })))
    return failure();
  return timeRepeats(repeats, launch, millis);
}

} // namespace

std::unique_ptr<RocmProgram>
RocmProgram::create(ModuleOp source, StringRef chip, std::string &error) {
  auto impl = std::make_unique<RocmProgramImpl>();
  // The GPU first: without one there is nothing to compile for.
  Runtime &hsa = impl->hsa;
  if (!hsa.load(error))
    return nullptr;
  if (!hsa.ok(hsa.hsa_init_(), "no AMD GPU: hsa_init", error))
    return nullptr;
  std::pair<Runtime *, Device *> self(&hsa, &impl->dev);
  hsa.hsa_iterate_agents_(findAgent, &self);
  if (!impl->dev.found) {
    error = "no AMD GPU: the ROCm runtime finds no GPU agent";
    return nullptr;
  }
  if (impl->dev.name != chip) {
    error = "the AMD GPU is a " + impl->dev.name + ", not a " + chip.str() +
            " (--chip)";
    return nullptr;
  }
  hsa.hsa_agent_iterate_regions_(impl->dev.agent, findRegions, &self);

  // Lower, to read what each kernel needs, then finish to an HSACO.
  OwningOpRef<ModuleOp> module(source.clone());
  PassManager lower(source.getContext());
  lower.addPass(verify::createVerifyPass());
  lower.addPass(conversion::createConvertTileToAMDGPUPass(
      conversion::ConvertTileToAMDGPUPassOptions{false, chip.str()}));
  if (failed(lower.run(*module))) {
    error = "the kernels could not be proved or lowered (see above)";
    return nullptr;
  }
  if (failed(readKernelABIs(*module, impl->abis, error)))
    return nullptr;
  PassManager finish(source.getContext());
  conversion::CompileROCMOptions options;
  options.chip = chip.str();
  conversion::buildROCMBinaryPipeline(finish, options);
  if (failed(finish.run(*module))) {
    error = "the lowered kernels did not compile to an HSACO (see above)";
    return nullptr;
  }
  std::string hsaco;
  module->walk([&](gpu::BinaryOp binary) {
    hsaco = cast<gpu::ObjectAttr>(binary.getObjects()[0])
                .getObject()
                .getValue()
                .str();
  });

  hsa_code_object_reader_t reader;
  hsa_executable_t executable;
  if (!hsa.ok(hsa.hsa_code_object_reader_create_from_memory_(
                  hsaco.data(), hsaco.size(), &reader),
              "hsa_code_object_reader_create_from_memory", error) ||
      !hsa.ok(hsa.hsa_executable_create_alt_(
                  HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                  nullptr, &executable),
              "hsa_executable_create_alt", error) ||
      !hsa.ok(hsa.hsa_executable_load_agent_code_object_(
                  executable, impl->dev.agent, reader, nullptr, nullptr),
              "hsa_executable_load_agent_code_object", error) ||
      !hsa.ok(hsa.hsa_executable_freeze_(executable, nullptr),
              "hsa_executable_freeze", error))
    return nullptr;
  for (auto &entry : impl->abis) {
    hsa_executable_symbol_t symbol;
    std::string symbolName = entry.getKey().str() + ".kd";
    Kernel k;
    if (!hsa.ok(hsa.hsa_executable_get_symbol_by_name_(
                    executable, symbolName.c_str(), &impl->dev.agent, &symbol),
                "hsa_executable_get_symbol_by_name", error) ||
        !hsa.ok(hsa.hsa_executable_symbol_get_info_(
                    symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k.object),
                "hsa_executable_symbol_get_info", error))
      return nullptr;
    hsa.hsa_executable_symbol_get_info_(
        symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
        &k.kernargBytes);
    hsa.hsa_executable_symbol_get_info_(
        symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
        &k.groupBytes);
    hsa.hsa_executable_symbol_get_info_(
        symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
        &k.privateBytes);
    impl->kernels[entry.getKey()] = k;
  }
  if (!hsa.ok(hsa.hsa_queue_create_(impl->dev.agent, 1024,
                                    HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                                    UINT32_MAX, UINT32_MAX, &impl->queue),
              "hsa_queue_create", error) ||
      !hsa.ok(hsa.hsa_signal_create_(1, 0, nullptr, &impl->done),
              "hsa_signal_create", error))
    return nullptr;
  return impl;
}

#else // !TILETAG_HAVE_HSA_H

std::unique_ptr<RocmProgram> RocmProgram::create(ModuleOp, StringRef,
                                                 std::string &error) {
  error = "this build of TileTag has no ROCm support (hsa/hsa.h was not "
          "found at configure time; Debian's libhsa-runtime-dev has it)";
  return nullptr;
}

#endif
