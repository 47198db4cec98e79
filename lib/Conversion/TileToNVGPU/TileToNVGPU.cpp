//===- TileToNVGPU.cpp - tile + schedule to gpu + nvgpu (Hopper) ----------===//
//
// Part of the TileTag project.
//
// The NVIDIA Hopper target of the kernel lowering (TileToGPU/): TMA copies
// through tensor maps, wgmma with the 128-byte swizzle, mbarriers, named
// barriers for warp roles, setmaxnreg, fence.proxy.async; and the
// `tiletag-convert-to-nvgpu` pass.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Passes.h"

#include "TileTag/Conversion/Layouts.h"
#include "TileTag/Conversion/TileToGPU/KernelLowering.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tiletag::conversion {
#define GEN_PASS_DEF_CONVERTTILETONVGPUPASS
#include "TileTag/Conversion/Passes.h.inc"
} // namespace mlir::tiletag::conversion

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::conversion;

namespace {

constexpr int64_t kRingAlignment = 1024; // 128-byte swizzle atoms: 8 x 128 B

/// Elements of one 128-byte swizzle panel.
int64_t panelWidth(const Ring &ring) {
  return kSwizzleBytes / byteWidth(ring.type.getElementType());
}

/// A tensor-map kernel argument: one global operand seen through one box.
struct TensorMap {
  unsigned operand;         // index of the global memref argument
  SmallVector<int64_t> box; // memref order
  Type element;
  unsigned argument; // index of the gpu.func argument
};

class NVGPUTarget : public LoweringTarget {
public:
  StringRef name() const override { return "NVGPU"; }
  StringRef lowering() const override { return "the Hopper lowering"; }
  StringRef mmaUnit() const override { return "wgmma"; }
  int64_t waveSize() const override { return 32; }
  int64_t ringAlignment() const override { return kRingAlignment; }
  // sm_90's largest dynamic shared memory per CTA (227 KiB).
  int64_t maxSharedBytes() const override { return 227 * 1024; }
  // 228 KiB of shared memory per SM, 1 KiB of it reserved per CTA.
  int64_t sharedBytesPerProcessor() const override { return 228 * 1024; }
  // TMA's and wgmma's 128-byte swizzle.
  bool swizzles(const Ring &ring) const override {
    return fitsSwizzle128B(ring);
  }
  LogicalResult planAsyncCopies(KernelLowering &k) override;
  std::string whyNotMma(KernelLowering &k, tile::DotOp dot) override;
  bool readsInPlace(KernelLowering &k, tile::DotOp dot, unsigned i) override {
    return inPlaceOperand(k, dot, i) != nullptr;
  }
  void planSharedExtras(KernelLowering &k) override;
  void addArguments(KernelLowering &k, SmallVectorImpl<Type> &types) override;
  LogicalResult annotate(KernelLowering &k, gpu::GPUFuncOp func) override;
  void addABI(KernelLowering &k,
              SmallVectorImpl<NamedAttribute> &entries) override;
  void prologue(KernelLowering &k) override;
  LogicalResult enterRole(KernelLowering &k, schedule::RoleOp role) override;
  Value swizzledByte(KernelLowering &k, const Ring &ring,
                     ValueRange index) override {
    return swizzled128BByte(k, ring, index);
  }
  void partialBarrier(KernelLowering &k, const Group &group) override;
  std::string whyNotCluster(ArrayRef<int64_t> cluster) const override;
  // bar.sync / bar.arrive take ids 0 to 15.
  int64_t namedBarrierIds() const override { return 16; }
  void namedBarrier(KernelLowering &k, Value id, int64_t threads,
                    bool sync) override;
  void clusterBarrier(KernelLowering &k) override;
  void proxyFence(KernelLowering &k) override;
  FailureOr<Value> createBarriers(KernelLowering &k,
                                  schedule::MBarrierInitOp init) override;
  LogicalResult emitBarrierOp(KernelLowering &k, Operation *op,
                              Value barriers) override;
  LogicalResult emitAsyncCopy(KernelLowering &k, tile::CopyOp copy,
                              Value barriers, Value index) override;
  bool isCopyUnit(schedule::AsyncUnit unit) const override {
    return unit == schedule::AsyncUnit::tma;
  }
  bool isMmaUnit(schedule::AsyncUnit unit) const override {
    return unit == schedule::AsyncUnit::wgmma;
  }
  LogicalResult enterLoop(KernelLowering &k, scf::ForOp loop) override;
  FailureOr<Value> stageOperand(KernelLowering &k, tile::DotOp dot,
                                unsigned i);
  FailureOr<SmallVector<Value>> prepareMmaOperands(KernelLowering &k,
                                                   tile::DotOp dot) override;
  FailureOr<Value> emitMma(KernelLowering &k, tile::DotOp dot,
                           schedule::AsyncOp async, ArrayRef<Value> operands,
                           Value acc) override;
  Value zeroAccumulator(KernelLowering &k, RankedTensorType type) override;
  void forEachAccumulatorElement(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<void(Value v, Value row, Value col)> body) override {
    forEachAccumulatorRun(k, acc, type, 1,
                          [&](ValueRange values, Value row, Value col) {
                            body(values.front(), row, col);
                          });
  }
  void forEachAccumulatorRun(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<void(ValueRange values, Value row, Value col)> body)
      override {
    forEachAccumulatorRun(k, acc, type, 2, body);
  }
  bool mapsAccumulators() const override { return true; }
  bool reducesAccumulatorRows() const override { return true; }
  bool runsWarpGroups() const override { return true; }
  int64_t rowSlots(KernelLowering &k, int64_t rows) const override {
    // The accumulator layout of one warpgroup, per 64-row block.
    return k.group.size == kWarpgroupThreads && rows % 64 == 0
               ? layout::kWgmmaRowSlots * (rows / 64)
               : 0;
  }
  Value rowOfSlot(KernelLowering &k, int64_t slot) override;
  Value rowWriter(KernelLowering &k) override;
  LogicalResult reduceAccumulatorRows(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn,
      function_ref<Value(Value, Value)> combine,
      function_ref<void(Value row, Value value, Value writer)> body) override;
  FailureOr<Value> mapAccumulator(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn)
      override;
  LogicalResult emitCommitGroup(KernelLowering &k,
                                schedule::CommitGroupOp op) override;
  LogicalResult emitWaitGroup(KernelLowering &k,
                              schedule::WaitGroupOp op) override;

private:
  Value threadRow(KernelLowering &k);
  void forEachAccumulatorRun(
      KernelLowering &k, Value acc, RankedTensorType type, int64_t length,
      function_ref<void(ValueRange values, Value row, Value col)> body);
  Value accumulatorStruct(KernelLowering &k, Value acc, RankedTensorType type);
  LogicalResult forEachRegisterOf(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn,
      function_ref<void(int64_t block, int64_t reg, Value e, Value row)> body);
  tile::ReadOp slotInPlace(KernelLowering &k, Value tile);
  tile::ReadOp inPlaceOperand(KernelLowering &k, tile::DotOp dot, unsigned i);
  /// Whether wgmma reads `dot`'s B K-major: the transpose of a slot, in
  /// place. (A staged B is laid out as B, N-major, whatever computed it.)
  bool kMajorB(KernelLowering &k, tile::DotOp dot) {
    return dot.getRhs().getDefiningOp<tile::TransposeOp>() &&
           inPlaceOperand(k, dot, 1);
  }
  Value wgmmaDescriptor(KernelLowering &k, Value byte, ArrayRef<int64_t> shape,
                        Type et);
  FailureOr<SmallVector<Value>> packRegisterA(KernelLowering &k,
                                              tile::DotOp dot);
  FailureOr<Value> emitNvvmMma(KernelLowering &k, tile::DotOp dot,
                               int64_t pending, ArrayRef<Value> operands,
                               Value acc);
  nvgpu::TensorMapDescriptorType mapType(MLIRContext *ctx,
                                         ArrayRef<int64_t> box, Type element);

  SmallVector<TensorMap> tensorMaps;
  DenseMap<Operation *, unsigned> copyMaps; // tile.copy -> tensorMaps index
  SmallVector<Value> descriptors; // per tensor map, as !nvgpu.tensormap
  // (wgmma dot, operand) -> shared memory of the operand staged for it.
  DenseMap<std::pair<Operation *, unsigned>, int64_t> stagingOffset;
  /// Operand `i` of `dot`'s staging memory (bytes from the aligned base),
  /// taken from k.sharedBytes at the first call.
  int64_t stagingByte(KernelLowering &k, tile::DotOp dot, unsigned i);
  // Staged operands that were staged once, before a loop they do not change
  // in.
  DenseSet<std::pair<Operation *, unsigned>> stagedBeforeLoop;
  // wgmma dot -> its A packed into 32-bit registers (two 16-bit elements
  // each) in the accumulator's layout, where A is taken from registers.
  DenseMap<Operation *, SmallVector<Value>> registerA;
  bool usesWgmma = false;
  // The kernel accesses what TMA stores write other than by TMA stores.
  bool storedMemoryReused = false;
};

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

LogicalResult NVGPUTarget::planAsyncCopies(KernelLowering &k) {
  LogicalResult status = success();
  tile::KernelOp kernel = k.kernel;
  unsigned numArgs = kernel.getNumArguments();
  DenseSet<Value> stored; // operands TMA stores write
  kernel.walk([&](tile::CopyOp copy) {
    auto async = copy->getParentOfType<schedule::AsyncOp>();
    if (!async || async.getUnit() != schedule::AsyncUnit::tma)
      return;
    auto arg = dyn_cast<BlockArgument>(copy.getGlobal());
    Ring *ring = k.ringOf(copy.getShared());
    if (!arg || arg.getOwner() != &kernel.getBody().front() || !ring) {
      status = k.fail(copy, "a TMA copy must move a tile between a kernel "
                            "operand and a tile.alloc_shared buffer");
      return;
    }
    if (!ring->swizzled) {
      status = k.fail(copy, "TMA copies need 2-D slots whose rows are a "
                            "multiple of 128 bytes (128-byte swizzle)");
      return;
    }
    if (!copy.getBounds().empty()) {
      status = k.fail(copy, "TMA copies clip at the operand's size; `bounds` "
                            "is not supported on them");
      return;
    }
    if (auto pad = llvm::dyn_cast_if_present<FloatAttr>(copy.getPaddingAttr());
        pad && !pad.getValue().isZero()) {
      status = k.fail(copy, "TMA fills out-of-range elements with zero; the "
                            "padding must be 0");
      return;
    }
    if (!copy.isGlobalToShared())
      stored.insert(arg);
    auto global = llvm::cast<MemRefType>(arg.getType());
    SmallVector<int64_t> box = tile::blockShape(ring->tile, global.getRank());
    box.back() = std::min(box.back(), panelWidth(*ring));
    for (auto [i, m] : llvm::enumerate(tensorMaps))
      if (m.operand == arg.getArgNumber() && m.box == box) {
        copyMaps[copy] = i;
        return;
      }
    copyMaps[copy] = tensorMaps.size();
    tensorMaps.push_back({arg.getArgNumber(), box, global.getElementType(),
                          numArgs + (unsigned)tensorMaps.size()});
  });
  // A wait for stores need only see their buffers read unless the kernel
  // accesses what they write otherwise (loads it, or stores to it).
  storedMemoryReused = false;
  for (Value operand : stored)
    for (Operation *user : operand.getUsers()) {
      auto copy = dyn_cast<tile::CopyOp>(user);
      if (!isa<memref::DimOp>(user) &&
          !(copy && !copy.isGlobalToShared() &&
            copy->getParentOfType<schedule::AsyncOp>()))
        storedMemoryReused = true;
    }
  return status;
}

/// The read that gives `tile` from a slot TMA fills in the 128-byte swizzle
/// (the layout wgmma's descriptors address), if it is one.
tile::ReadOp NVGPUTarget::slotInPlace(KernelLowering &k, Value tile) {
  auto read = tile.getDefiningOp<tile::ReadOp>();
  if (!read)
    return nullptr;
  Ring *ring = k.ringOf(read.getBuffer());
  bool filledByTma = llvm::any_of(copyMaps, [&](auto &entry) {
    return cast<tile::CopyOp>(entry.first).getDest() == read.getBuffer();
  });
  return ring && ring->swizzled && filledByTma ? read : nullptr;
}

/// The slot wgmma reads operand `i` of `dot` from in place: A or B as its
/// slot holds it (B's rows are K: trans-b), or B as the transpose of a slot
/// whose rows are N (attention's K^T: B K-major, the layout A has).
tile::ReadOp NVGPUTarget::inPlaceOperand(KernelLowering &k, tile::DotOp dot,
                                         unsigned i) {
  tile::ReadOp read = tile::slotReadOf(dot, i);
  return read ? slotInPlace(k, read) : nullptr;
}

std::string NVGPUTarget::whyNotMma(KernelLowering &k, tile::DotOp dot) {
  // A dot outside a wgmma region runs on wgmma synchronously (waited for at
  // once): the same refinement of its sequential meaning.
  auto async = dyn_cast<schedule::AsyncOp>(dot->getParentOp());
  if (async && async.getUnit() != schedule::AsyncUnit::wgmma)
    return "it runs on another unit";
  // One warpgroup issues it: a role of one warpgroup, or a one-warpgroup CTA.
  auto role = dot->getParentOfType<schedule::RoleOp>();
  int64_t warpgroups = 1;
  if (role)
    warpgroups = role.getWarpgroups().size();
  else if (auto launch = k.kernel->getAttrOfType<schedule::LaunchAttr>(
               schedule::ScheduleDialect::kLaunchAttrName))
    warpgroups = launch.getWarpgroups();
  if (warpgroups != 1)
    return "it is issued by " + std::to_string(warpgroups) +
           " warpgroups, not one";
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  Type et = lhsType.getElementType();
  Type rt = cast<RankedTensorType>(dot.getRhs().getType()).getElementType();
  for (Type t : {et, rt})
    if (!t.isBF16() && !t.isF16() && !isa<Float8E4M3FNType, Float8E5M2Type>(t))
      return "wgmma multiplies bf16, f16, f8E4M3FN or f8E5M2 inputs";
  std::string shape = layout::wgmmaShapeProblem(
      lhsType.getDimSize(0), lhsType.getDimSize(1),
      cast<RankedTensorType>(dot.getType()).getDimSize(1), byteWidth(et),
      kMajorB(k, dot));
  if (!shape.empty())
    return shape;
  // The commit and the wait that follow become the mma's own; a staged
  // operand is rewritten next time, so nothing may stay in flight then.
  int64_t pending = 0;
  if (async) {
    auto commit =
        dyn_cast_or_null<schedule::CommitGroupOp>(async->getNextNode());
    auto wait =
        commit ? dyn_cast_or_null<schedule::WaitGroupOp>(commit->getNextNode())
               : nullptr;
    if (!wait)
      return "its region is not followed by a commit and a wait";
    pending = wait.getPending();
  }
  bool staged = !inPlaceOperand(k, dot, 0) || !inPlaceOperand(k, dot, 1);
  if (staged && pending != 0)
    return "an operand is staged (not read in place from a TMA-filled "
           "slot) while a group stays in flight";
  return "";
}

/// wgmma's register form of A: 16-bit elements, whole 64 x 16 blocks.
static bool fitsRegisterA(RankedTensorType type) {
  Type et = type.getElementType();
  return (et.isBF16() || et.isF16()) && type.getDimSize(0) % 64 == 0 &&
         type.getDimSize(1) % 16 == 0;
}

/// Whether A of `dot` may reach wgmma from registers (packRegisterA): of
/// the register form's type and shape, and computed element-wise from a
/// dot's result of its shape. Whether it does is known only once the
/// accumulator's registers are (at the dot).
static bool mayComeFromRegisters(tile::DotOp dot) {
  auto type = cast<RankedTensorType>(dot.getLhs().getType());
  if (!fitsRegisterA(type))
    return false;
  SmallVector<Value> work = {dot.getLhs()};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !seen.insert(v).second)
      continue;
    if (isa<tile::DotOp>(def) &&
        cast<RankedTensorType>(v.getType()).getShape() == type.getShape())
      return true;
    if (auto async = dyn_cast<schedule::AsyncOp>(def)) {
      Operation *yield = async.getBody().front().getTerminator();
      work.push_back(yield->getOperand(cast<OpResult>(v).getResultNumber()));
      continue;
    }
    if (def->getNumRegions() || !isPure(def))
      continue;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        work.push_back(operand);
  }
  return false;
}

/// Shared memory for operands staged for wgmma, after the rings.
void NVGPUTarget::planSharedExtras(KernelLowering &k) {
  for (Operation *op : k.mmaDots) {
    auto dot = cast<tile::DotOp>(op);
    for (unsigned i : {0u, 1u}) {
      if (inPlaceOperand(k, dot, i))
        continue;
      // Staging memory for an A that may come from registers is taken only
      // if it does not (stagingByte, at the dot).
      if (i == 0 && mayComeFromRegisters(dot)) {
        k.sharedLater = true;
        continue;
      }
      (void)stagingByte(k, dot, i);
    }
  }
}

int64_t NVGPUTarget::stagingByte(KernelLowering &k, tile::DotOp dot,
                                 unsigned i) {
  auto [it, inserted] = stagingOffset.try_emplace({dot, i}, 0);
  if (inserted) {
    auto type = cast<RankedTensorType>(dot->getOperand(i).getType());
    k.sharedBytes = llvm::alignTo(k.sharedBytes, kRingAlignment);
    it->second = k.sharedBytes;
    k.sharedBytes += type.getNumElements() * byteWidth(type.getElementType());
  }
  return it->second;
}

//===----------------------------------------------------------------------===//
// The kernel function
//===----------------------------------------------------------------------===//

nvgpu::TensorMapDescriptorType
NVGPUTarget::mapType(MLIRContext *ctx, ArrayRef<int64_t> box, Type element) {
  auto space3 = IntegerAttr::get(IntegerType::get(ctx, 64), 3);
  return nvgpu::TensorMapDescriptorType::get(
      ctx, MemRefType::get(box, element, MemRefLayoutAttrInterface(), space3),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

// Tensor maps arrive as pointers (the runner's CUtensorMap in device
// memory): the GPU-to-NVVM signature conversion does not know nvgpu types.
void NVGPUTarget::addArguments(KernelLowering &k,
                               SmallVectorImpl<Type> &types) {
  for (size_t i = 0; i < tensorMaps.size(); ++i)
    types.push_back(LLVM::LLVMPointerType::get(k.b.getContext()));
}

LogicalResult NVGPUTarget::annotate(KernelLowering &k, gpu::GPUFuncOp func) {
  // The roles' register budgets (setmaxnreg) hold while they run: resident
  // programs share the SM's 64 Ki registers.
  int64_t budget = 0;
  for (schedule::RoleOp role : k.roles)
    if (std::optional<uint64_t> regs = k.registerBudget(role))
      budget += *regs * kWarpgroupThreads * role.getWarpgroups().size();
  constexpr int64_t kRegistersPerSM = 64 * 1024;
  if (k.occupancy && k.occupancy * budget > kRegistersPerSM)
    return k.fail(k.kernel,
                  "occupancy " + std::to_string(k.occupancy) + ": " +
                      std::to_string(k.occupancy) + " programs whose roles "
                      "hold " + std::to_string(budget) +
                      " registers (setmaxnreg) exceed the " +
                      std::to_string(kRegistersPerSM) + " of one SM");
  // At least `occupancy` CTAs per multiprocessor (.minnctapersm; 1 without
  // one): with the thread count, ptxas then knows the register count at
  // entry, which setmaxnreg needs, and keeps registers to that many CTAs.
  func->setAttr("nvvm.minctasm",
                k.b.getI32IntegerAttr(std::max<int64_t>(1, k.occupancy)));
  // A cluster shape fixed at compile time (.reqnctapercluster): a plain
  // launch then runs the grid in clusters of it.
  if (!k.cluster.empty())
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  k.b.getDenseI32ArrayAttr(SmallVector<int32_t>(
                      k.cluster.begin(), k.cluster.end())));
  return success();
}

void NVGPUTarget::addABI(KernelLowering &k,
                         SmallVectorImpl<NamedAttribute> &entries) {
  OpBuilder &b = k.b;
  SmallVector<Attribute> maps;
  for (TensorMap &m : tensorMaps)
    maps.push_back(b.getDictionaryAttr({
        b.getNamedAttr("operand", b.getI64IntegerAttr(m.operand)),
        b.getNamedAttr("box", b.getDenseI64ArrayAttr(m.box)),
        b.getNamedAttr("swizzle", b.getI64IntegerAttr(kSwizzleBytes)),
    }));
  entries.push_back(b.getNamedAttr("tensor_maps", b.getArrayAttr(maps)));
  entries.push_back(b.getNamedAttr("wgmma", b.getBoolAttr(usesWgmma)));
}

void NVGPUTarget::prologue(KernelLowering &k) {
  for (TensorMap &m : tensorMaps)
    descriptors.push_back(
        UnrealizedConversionCastOp::create(
            k.b, k.loc, mapType(k.b.getContext(), m.box, m.element),
            k.func.getArgument(m.argument))
            .getResult(0));
}

LogicalResult NVGPUTarget::enterRole(KernelLowering &k, schedule::RoleOp role) {
  if (std::optional<uint64_t> regs = k.registerBudget(role)) {
    auto action = *regs <= 128 ? NVVM::SetMaxRegisterAction::decrease
                               : NVVM::SetMaxRegisterAction::increase;
    NVVM::SetMaxRegisterOp::create(
        k.b, k.loc, k.b.getI32IntegerAttr(*regs),
        NVVM::SetMaxRegisterActionAttr::get(k.b.getContext(), action));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory and synchronization
//===----------------------------------------------------------------------===//

/// A named barrier (bar.sync id, threads) per role; a warp's barrier
/// (bar.warp.sync, which orders its lanes' memory accesses) for the warp
/// that runs an iteration of a warp-mapped loop.
void NVGPUTarget::partialBarrier(KernelLowering &k, const Group &group) {
  if (group.base) {
    assert(group.size == 32 && "a group known at run time is a warp");
    NVVM::SyncWarpOp::create(
        k.b, k.loc, arith::ConstantIntOp::create(k.b, k.loc, -1, 32));
    return;
  }
  namedBarrier(k, arith::ConstantIntOp::create(k.b, k.loc, group.barrierId, 32),
               group.size, /*sync=*/true);
}

void NVGPUTarget::namedBarrier(KernelLowering &k, Value id, int64_t threads,
                               bool sync) {
  Value n = arith::ConstantIntOp::create(k.b, k.loc, threads, 32);
  if (sync)
    NVVM::BarrierOp::create(k.b, k.loc, TypeRange{}, id, n,
                            NVVM::BarrierReductionAttr(), Value());
  else
    NVVM::BarrierArriveOp::create(k.b, k.loc, id, n);
}

std::string NVGPUTarget::whyNotCluster(ArrayRef<int64_t> cluster) const {
  // Larger clusters (up to 16) need the launch's non-portable opt-in, which
  // no runner here asks for.
  constexpr int64_t kPortableClusterSize = 8;
  int64_t programs = 1;
  for (int64_t size : cluster)
    programs *= size;
  if (programs <= kPortableClusterSize)
    return "";
  return "a cluster of " + std::to_string(programs) + " programs exceeds the " +
         std::to_string(kPortableClusterSize) +
         " every Hopper GPU launches (larger ones need a non-portable "
         "launch)";
}

void NVGPUTarget::clusterBarrier(KernelLowering &k) {
  // Every thread of the cluster arrives (release) and waits (acquire): the
  // writes of every program before it are visible to all after it. Uniform
  // across the program, as the checker proves (.aligned).
  UnitAttr aligned = k.b.getUnitAttr();
  NVVM::ClusterArriveOp::create(k.b, k.loc, aligned);
  NVVM::ClusterWaitOp::create(k.b, k.loc, aligned);
}

void NVGPUTarget::proxyFence(KernelLowering &k) {
  MLIRContext *ctx = k.b.getContext();
  NVVM::FenceProxyOp::create(
      k.b, k.loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

FailureOr<Value> NVGPUTarget::createBarriers(KernelLowering &k,
                                             schedule::MBarrierInitOp init) {
  OpBuilder &b = k.b;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto type = cast<schedule::MBarrierType>(init.getType());
  auto groupType =
      nvgpu::MBarrierGroupType::get(b.getContext(), space, type.getSize());
  Value barriers = nvgpu::MBarrierCreateOp::create(b, k.loc, groupType);
  auto branch = scf::IfOp::create(b, k.loc, k.electOne());
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(branch.thenBlock());
  for (int64_t i = 0; i < type.getSize(); ++i)
    nvgpu::MBarrierInitOp::create(b, k.loc, barriers, k.idx(init.getCount()),
                                  k.idx(i), Value());
  return barriers;
}

LogicalResult NVGPUTarget::emitBarrierOp(KernelLowering &k, Operation *op,
                                         Value barriers) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  if (auto wait = dyn_cast<schedule::MBarrierWaitOp>(op)) {
    Value parity = k.scalar(wait.getParity());
    if (parity.getType().isIndex())
      parity = arith::IndexCastOp::create(b, loc, b.getI64Type(), parity);
    parity = arith::TruncIOp::create(b, loc, b.getI1Type(), parity);
    // Ticks bound one try before it retries (the loop waits as long as needed).
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity,
                                           k.idx(10000000),
                                           k.scalar(wait.getIndex()));
    return success();
  }
  if (auto arrive = dyn_cast<schedule::MBarrierArriveOp>(op)) {
    nvgpu::MBarrierArriveOp::create(
        b, loc, nvgpu::MBarrierTokenType::get(b.getContext()), barriers,
        k.scalar(arrive.getIndex()));
    return success();
  }
  auto expect = cast<schedule::MBarrierArriveExpectTxOp>(op);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers,
                                          k.idx(expect.getBytes()),
                                          k.scalar(expect.getIndex()), Value());
  return success();
}

LogicalResult NVGPUTarget::emitWaitGroup(KernelLowering &k,
                                         schedule::WaitGroupOp wait) {
  if (wait.getUnit() == schedule::AsyncUnit::wgmma && !k.mmaDots.empty())
    NVVM::WgmmaWaitGroupSyncOp::create(
        k.b, k.loc, k.b.getI64IntegerAttr(wait.getPending()));
  if (wait.getUnit() == schedule::AsyncUnit::tma && k.asyncStores) {
    // TMA loads complete on mbarriers: a tma wait retires stores. `.read`
    // waits until their buffers are read, enough unless the kernel
    // accesses the memory they write.
    auto branch = scf::IfOp::create(k.b, k.loc, k.electOne());
    OpBuilder::InsertionGuard guard(k.b);
    k.b.setInsertionPointToStart(branch.thenBlock());
    NVVM::CpAsyncBulkWaitGroupOp::create(
        k.b, k.loc, static_cast<uint32_t>(wait.getPending()),
        storedMemoryReused ? UnitAttr() : k.b.getUnitAttr());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TMA and wgmma
//===----------------------------------------------------------------------===//

LogicalResult NVGPUTarget::emitAsyncCopy(KernelLowering &k, tile::CopyOp copy,
                                         Value barriers, Value barrierIndex) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  TensorMap &map = tensorMaps[copyMaps.lookup(copy)];
  Ring *ring = k.ringOf(copy.getShared());
  auto global = cast<MemRefType>(copy.getGlobal().getType());
  SmallVector<Value> blockIdx = k.lowered(copy.getBlockIndices());
  SmallVector<Value> slotIdx = k.lowered(copy.getSlotIndices());
  SmallVector<Value> offsets = k.lowered(copy.getOffsets());
  SmallVector<Value> zeros(ring->tile.size(), k.idx(0));
  SmallVector<Value> origin = globalPosition(
      b, loc, copy.getGlobal(), ring->tile, blockIdx, offsets, zeros);
  Value slot = k.slotIndex(*ring, slotIdx);
  Value descriptor = descriptors[copyMaps.lookup(copy)];
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  int64_t pw = panelWidth(*ring), rows = ring->tile[0];
  int64_t panels = ring->tile[1] / pw;
  Value dyn = k.dynamicShared();
  for (int64_t p = 0; p < panels; ++p) {
    // Coordinates are innermost first.
    SmallVector<Value> coords;
    for (int64_t d = global.getRank() - 1; d >= 0; --d) {
      Value c = origin[d];
      if (d == global.getRank() - 1 && p)
        c = arith::AddIOp::create(b, loc, c, k.idx(p * pw));
      coords.push_back(c);
    }
    Value byte = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, k.ringBase, k.idx(ring->offset)),
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, slot, k.idx(ring->slotBytes())),
            k.idx(p * rows * kSwizzleBytes)));
    auto panelType = MemRefType::get(map.box, map.element,
                                     MemRefLayoutAttrInterface(), space);
    Value panel =
        memref::ViewOp::create(b, loc, panelType, dyn, byte, ValueRange{});
    if (copy.isGlobalToShared())
      nvgpu::TmaAsyncLoadOp::create(b, loc, panel, barriers, descriptor,
                                    coords, barrierIndex, Value(), Value());
    else
      nvgpu::TmaAsyncStoreOp::create(b, loc, panel, descriptor, coords,
                                     Value());
  }
  return success();
}

/// A TMA store's bulk group: committed and waited for by the thread that
/// issued it (the group's first, as emitAsync elects).
LogicalResult NVGPUTarget::emitCommitGroup(KernelLowering &k,
                                           schedule::CommitGroupOp commit) {
  if (commit.getUnit() != schedule::AsyncUnit::tma || !k.asyncStores)
    return success();
  auto branch = scf::IfOp::create(k.b, k.loc, k.electOne());
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(branch.thenBlock());
  NVVM::CpAsyncBulkCommitGroupOp::create(k.b, k.loc);
  return success();
}

/// Stages operand `i` of `dot` into its own swizzled shared memory (by the
/// group; the caller fences and meets): from the registers where it is
/// computed from an accumulator (attention's P), else element by element.
/// Returns its byte from the aligned base.
FailureOr<Value> NVGPUTarget::stageOperand(KernelLowering &k, tile::DotOp dot,
                                           unsigned i) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value operand = dot->getOperand(i);
  auto type = cast<RankedTensorType>(operand.getType());
  Type et = type.getElementType();
  int64_t offset = stagingByte(k, dot, i);
  Value base = arith::AddIOp::create(b, loc, k.ringBase, k.idx(offset));
  Ring staged;
  staged.type = MemRefType::get(type.getShape(), et);
  staged.offset = offset;
  staged.tile.assign(type.getShape().begin(), type.getShape().end());
  staged.swizzled = true;
  if (Value acc = k.registerEpilogueSource(operand)) {
    if (failed(k.forEachEpilogueRun(
            operand, acc, [&](ArrayRef<Value> elements, Value row, Value col) {
              k.storeRunToSlot(staged, k.idx(0), elements, row, col);
            })))
      return failure();
    return base;
  }
  if (failed(k.prepare(operand)))
    return failure();
  auto viewType = MemRefType::get({type.getNumElements()}, et,
                                  MemRefLayoutAttrInterface(), space);
  LogicalResult status = success();
  k.forEachElement(
      type.getShape(),
      [&](ValueRange index) -> LogicalResult {
        FailureOr<Value> e = k.element(operand, index);
        if (failed(e))
          return failure();
        Value view = memref::ViewOp::create(b, loc, viewType,
                                            k.dynamicShared(), base,
                                            ValueRange{});
        memref::StoreOp::create(b, loc, *e, view,
                                k.sharedElementIndex(staged, k.idx(0), index));
        return success();
      },
      status);
  if (failed(status))
    return failure();
  return base;
}

/// A staged operand of a wgmma dot in `loop` that the loop does not change
/// (attention's queries, loaded before the key loop) is staged once here,
/// not at every iteration: its staging memory is its own, and nothing else
/// writes it.
LogicalResult NVGPUTarget::enterLoop(KernelLowering &k, scf::ForOp loop) {
  bool any = false;
  for (Operation *op : k.mmaDots) {
    auto dot = cast<tile::DotOp>(op);
    if (!loop->isProperAncestor(dot) || !k.inCurrentRole(dot))
      continue;
    for (unsigned i : {0u, 1u}) {
      Value operand = dot->getOperand(i);
      if (!loop.isDefinedOutsideOfLoop(operand) || inPlaceOperand(k, dot, i) ||
          stagedBeforeLoop.contains({dot, i}) || !k.tiles.count(operand))
        continue;
      if (failed(stageOperand(k, dot, i)))
        return failure();
      k.reportFallback(dot, Twine(i == 0 ? "A" : "B") +
                                " is copied into shared memory for wgmma "
                                "once, before the loop it does not change "
                                "in (it is not a slot a TMA copy fills)");
      stagedBeforeLoop.insert({dot, i});
      any = true;
    }
  }
  if (any) {
    proxyFence(k);
    k.groupBarrier();
  }
  return success();
}

/// Each operand: its slot in place, its staging memory where it was staged
/// before the loop, or staged now by the group, with the writes made visible
/// to the async proxy wgmma reads through. Returns the byte (from the
/// aligned base) where each operand's tile starts.
FailureOr<SmallVector<Value>>
NVGPUTarget::prepareMmaOperands(KernelLowering &k, tile::DotOp dot) {
  bool anyStaged = false;
  auto operandBase = [&](unsigned i) -> FailureOr<Value> {
    if (i == 0) {
      FailureOr<SmallVector<Value>> packed = packRegisterA(k, dot);
      if (failed(packed))
        return failure();
      if (!packed->empty()) {
        registerA[dot] = std::move(*packed);
        return k.idx(0); // no shared memory: the registers above
      }
    }
    if (tile::ReadOp read = inPlaceOperand(k, dot, i)) {
      Ring *ring = k.ringOf(read.getBuffer());
      return k.slotByte(*ring, k.slotIndex(*ring, k.lowered(read.getIndices())));
    }
    if (stagedBeforeLoop.contains({dot, i}))
      return arith::AddIOp::create(k.b, k.loc, k.ringBase,
                                   k.idx(stagingByte(k, dot, i)))
          .getResult();
    anyStaged = true;
    k.stagedAtDot.insert({dot, i});
    k.reportFallback(dot, Twine(i == 0 ? "A" : "B") +
                              " is copied into shared memory for wgmma by "
                              "the warpgroup (it is not a slot a TMA copy "
                              "fills, which wgmma reads in place)");
    return stageOperand(k, dot, i);
  };
  FailureOr<Value> baseA = operandBase(0);
  FailureOr<Value> baseB = operandBase(1);
  if (failed(baseA) || failed(baseB))
    return failure();
  if (anyStaged) {
    proxyFence(k);
    k.groupBarrier();
  }
  return SmallVector<Value>{*baseA, *baseB};
}

Value NVGPUTarget::zeroAccumulator(KernelLowering &k, RankedTensorType type) {
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      k.b.getContext(), VectorType::get(type.getShape(), k.b.getF32Type()));
  return nvgpu::WarpgroupMmaInitAccumulatorOp::create(k.b, k.loc, accType);
}

/// A wgmma descriptor for the tile of `shape` at `byte` (from the aligned
/// base), 128-byte swizzled. Only the swizzle of the tensor-map type matters
/// to it (and its box's rows, the leading-byte offset); the value is any of
/// the kernel's tensor maps.
Value NVGPUTarget::wgmmaDescriptor(KernelLowering &k, Value byte,
                                   ArrayRef<int64_t> shape, Type et) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  MLIRContext *ctx = b.getContext();
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto space3 = IntegerAttr::get(b.getI64Type(), 3);
  Value view = memref::ViewOp::create(
      b, loc, MemRefType::get(shape, et, MemRefLayoutAttrInterface(), space),
      k.dynamicShared(), byte, ValueRange{});
  // The map's box is one 128-byte panel wide.
  SmallVector<int64_t> box = {shape[0], kSwizzleBytes / byteWidth(et)};
  Value ptr =
      tensorMaps.empty()
          ? LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(ctx))
                .getResult()
          : k.func.getArgument(tensorMaps.front().argument);
  Value map =
      UnrealizedConversionCastOp::create(b, loc, mapType(ctx, box, et), ptr)
          .getResult(0);
  auto descType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, MemRefType::get(shape, et, MemRefLayoutAttrInterface(), space3));
  return nvgpu::WarpgroupGenerateDescriptorOp::create(b, loc, descType, view,
                                                      map);
}

FailureOr<Value> NVGPUTarget::emitMma(KernelLowering &k, tile::DotOp dot,
                                      schedule::AsyncOp async,
                                      ArrayRef<Value> operands, Value acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  MLIRContext *ctx = b.getContext();
  auto descriptor = [&](Value byte, ArrayRef<int64_t> shape, Type et) {
    return wgmmaDescriptor(k, byte, shape, et);
  };

  auto type = cast<RankedTensorType>(dot.getType());
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get(type.getShape(), b.getF32Type()));
  int64_t pending = 0;
  if (async) {
    auto commit = cast<schedule::CommitGroupOp>(async->getNextNode());
    auto wait = cast<schedule::WaitGroupOp>(commit->getNextNode());
    k.consumed.insert(commit);
    k.consumed.insert(wait);
    pending = wait.getPending();
  }
  usesWgmma = true;
  if (kMajorB(k, dot) || registerA.count(dot))
    return emitNvvmMma(k, dot, pending, operands, acc);
  // One wgmma group per 128-byte panel of the contracted extent: A's panel
  // p is its own [M, panel] tile, p M 128 bytes in; B's rows of panel p are
  // a [panel, N] tile p panel 128 bytes in (B has one column panel when
  // there are several: layout::wgmmaShapeProblem).
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  Type inputType = lhsType.getElementType();
  int64_t m = lhsType.getDimSize(0), n = type.getDimSize(1);
  int64_t panel = kSwizzleBytes / byteWidth(inputType);
  Value d = acc;
  for (int64_t p = 0, e = lhsType.getDimSize(1) / panel; p < e; ++p) {
    Value a = descriptor(
        arith::AddIOp::create(b, loc, operands[0], k.idx(p * m * kSwizzleBytes)),
        {m, panel}, inputType);
    Value bt = descriptor(arith::AddIOp::create(
                              b, loc, operands[1],
                              k.idx(p * panel * kSwizzleBytes)),
                          {panel, n}, inputType);
    d = nvgpu::WarpgroupMmaOp::create(b, loc, accType, a, bt,
                                      b.getI64IntegerAttr(pending), UnitAttr(),
                                      /*transposeB=*/b.getUnitAttr(), d);
  }
  return d;
}

/// A computed element-wise from a wgmma accumulator of its own shape that
/// this warpgroup holds in registers (attention's P = exp(S - m)): wgmma
/// takes it from registers, packed two 16-bit elements to a register in the
/// order the accumulator holds them (layout::wgmmaAccumulatorRegisterOfA),
/// not through shared memory. Empty where A is not such a tile.
FailureOr<SmallVector<Value>> NVGPUTarget::packRegisterA(KernelLowering &k,
                                                        tile::DotOp dot) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value a = dot.getLhs();
  auto type = cast<RankedTensorType>(a.getType());
  Type et = type.getElementType();
  Value acc = k.registerEpilogueSource(a);
  if (!acc || !fitsRegisterA(type) ||
      cast<RankedTensorType>(acc.getType()).getShape() != type.getShape())
    return SmallVector<Value>();
  SmallVector<Value> packed;
  auto pairType = VectorType::get({2}, et);
  if (failed(k.forEachEpilogueRun(
          a, acc, [&](ArrayRef<Value> elements, Value, Value) {
            assert(elements.size() == 2 && "runs of two columns");
            Value pair = LLVM::PoisonOp::create(b, loc, pairType);
            for (auto [j, e] : llvm::enumerate(elements))
              pair = LLVM::InsertElementOp::create(
                  b, loc, pair, e,
                  LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                           b.getI32IntegerAttr(j)));
            packed.push_back(
                LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair));
          })))
    return failure();
  return packed;
}

/// A wgmma group the upstream nvgpu.warpgroup.mma cannot express: B K-major
/// (a transposed slot: N rows of K, laid out as A's slot is, read without
/// trans-b), or A from registers (packRegisterA). Per 64-row block i of A,
/// 128-byte panel p of K and 16-deep step s: A at p M + 64 i rows of 128
/// bytes and s 32 bytes into them, or registers 4 (p 4 + s) .. + 3 of block
/// i; B K-major at p N rows and s 32 bytes in, or N-major (rows of K, 128
/// bytes each) 16 (p 4 + s) rows in. One fence before, one commit and one
/// wait (the group's depth) after.
FailureOr<Value> NVGPUTarget::emitNvvmMma(KernelLowering &k, tile::DotOp dot,
                                          int64_t pending,
                                          ArrayRef<Value> operands,
                                          Value acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(dot.getType());
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  Type et = lhsType.getElementType();
  int64_t m = lhsType.getDimSize(0), kk = lhsType.getDimSize(1),
          n = type.getDimSize(1);
  int64_t panel = kSwizzleBytes / byteWidth(et);
  // The K of one wgmma: 32 bytes of each row (16 16-bit or 32 fp8 elements).
  constexpr int64_t stepBytes = 32;
  int64_t kStep = stepBytes / byteWidth(et);
  bool bKMajor = kMajorB(k, dot);
  auto fromRegisters = registerA.find(dot);
  // The descriptor of the tile of `rows` rows of one panel at `byte` (its
  // leading-byte offset, `rows` 128-byte rows, is what steps an N-major B
  // from one panel of columns to the next), as the i64 NVVM takes.
  auto descriptor = [&](Value base, int64_t byte, int64_t rows) -> Value {
    Value at = arith::AddIOp::create(b, loc, base, k.idx(byte));
    Value desc = wgmmaDescriptor(k, at, {rows, panel}, et);
    return UnrealizedConversionCastOp::create(b, loc, b.getI64Type(), desc)
        .getResult(0);
  };
  auto wgmmaType = [](Type t) {
    if (t.isBF16())
      return NVVM::WGMMATypes::bf16;
    if (t.isF16())
      return NVVM::WGMMATypes::f16;
    return isa<Float8E4M3FNType>(t) ? NVVM::WGMMATypes::e4m3
                                    : NVVM::WGMMATypes::e5m2;
  };
  Type bt = cast<RankedTensorType>(dot.getRhs().getType()).getElementType();
  Value blocks = accumulatorStruct(k, acc, type);
  int64_t pairsPerBlock = kk / 2 / 2; // of A's source accumulator registers
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t i = 0; i < m / 64; ++i) {
    Value d = LLVM::ExtractValueOp::create(b, loc, blocks, i);
    for (int64_t p = 0; p < kk / panel; ++p)
      for (int64_t s = 0; s < panel / kStep; ++s) {
        int64_t step = p * (panel / kStep) + s;
        Value bDesc =
            bKMajor
                ? descriptor(operands[1], p * n * kSwizzleBytes + s * stepBytes,
                             n)
                : descriptor(operands[1], step * kStep * kSwizzleBytes, panel);
        if (fromRegisters == registerA.end()) {
          Value aDesc = descriptor(
              operands[0], (p * m + i * 64) * kSwizzleBytes + s * stepBytes,
              64);
          d = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, d.getType(), d, aDesc, bDesc,
              NVVM::MMAShapeAttr::get(ctx, 64, n, kStep), wgmmaType(et),
              wgmmaType(bt), NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
              NVVM::MMALayout::row,
              bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
              NVVM::MMAIntOverflowAttr());
          continue;
        }
        // NVVM's wgmma takes A by descriptor only: the register form as
        // PTX, the accumulator tied in and out, scale-d a predicate that
        // is true (accumulate).
        int64_t regs = layout::wgmmaAccumulatorRegisters(n);
        std::string ptx;
        llvm::raw_string_ostream os(ptx);
        os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << regs + 5
           << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << n << "k16.f32."
           << (et.isBF16() ? "bf16.bf16" : "f16.f16") << " {";
        for (int64_t r = 0; r < regs; ++r)
          os << (r ? ", $" : "$") << r;
        os << "}, {$" << regs << ", $" << regs + 1 << ", $" << regs + 2
           << ", $" << regs + 3 << "}, $" << regs + 4 << ", p, 1, 1, "
           << (bKMajor ? 0 : 1) << ";\n}";
        std::string constraints;
        for (int64_t r = 0; r < regs; ++r)
          constraints += "=f,";
        constraints += "r,r,r,r,l,r";
        SmallVector<Value> inputs;
        for (int64_t r = 0; r < 4; ++r)
          inputs.push_back(fromRegisters->second[i * pairsPerBlock + 4 * step +
                                                 r]);
        inputs.push_back(bDesc);
        inputs.push_back(LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                                  b.getI32IntegerAttr(1)));
        for (int64_t r = 0; r < regs; ++r) {
          constraints += "," + std::to_string(r);
          inputs.push_back(LLVM::ExtractValueOp::create(b, loc, d, r));
        }
        d = LLVM::InlineAsmOp::create(
                b, loc, d.getType(), inputs, ptx, constraints,
                /*has_side_effects=*/true, /*is_align_stack=*/false,
                LLVM::tailcallkind::TailCallKind::None,
                LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
                ArrayAttr())
                .getResult(0);
      }
    blocks = LLVM::InsertValueOp::create(b, loc, blocks, d, i);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get(type.getShape(), b.getF32Type()));
  return UnrealizedConversionCastOp::create(b, loc, accType, blocks)
      .getResult(0);
}

/// Calls `body` with each run of `length` (1 or 2) registers of a wgmma
/// accumulator held by the group's warpgroup and the (row, column) of its
/// first: registers 2i and 2i + 1 hold adjacent columns of one row. (The
/// upstream nvgpu.warpgroup.mma.store derives rows from the CTA-wide thread
/// id, which is wrong for any warpgroup but the first.) Thread t of the
/// warpgroup holds, in register r of each 64-row block, the element the
/// layout library gives: it is the sum of a part that depends on t alone and
/// one that depends on r alone (checked in LayoutsTest), so only the first is
/// computed at run time.
void NVGPUTarget::forEachAccumulatorRun(
    KernelLowering &k, Value acc, RankedTensorType type, int64_t length,
    function_ref<void(ValueRange values, Value row, Value col)> body) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  int64_t m = type.getDimSize(0), n = type.getDimSize(1);
  int64_t regs = layout::wgmmaAccumulatorRegisters(n);
  Value st = accumulatorStruct(k, acc, type);
  Value t = k.threadInGroup();
  Value lane = arith::RemUIOp::create(b, loc, t, k.idx(32));
  Value rowBase = threadRow(k);
  Value colBase = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, k.idx(4)), k.idx(2));
  for (int64_t i = 0; i < m / 64; ++i) {
    Value block = LLVM::ExtractValueOp::create(b, loc, st, i);
    for (int64_t r = 0; r < regs; r += length) {
      layout::Coord off = layout::wgmmaAccumulatorElement(0, r);
      SmallVector<Value, 2> values;
      for (int64_t j = 0; j < length; ++j) {
        assert(layout::wgmmaAccumulatorElement(0, r + j).row == off.row &&
               layout::wgmmaAccumulatorElement(0, r + j).col == off.col + j &&
               "a run is adjacent columns of one row");
        values.push_back(LLVM::ExtractValueOp::create(b, loc, block, r + j));
      }
      Value row =
          arith::AddIOp::create(b, loc, rowBase, k.idx(64 * i + off.row));
      Value col = arith::AddIOp::create(b, loc, colBase, k.idx(off.col));
      k.rowSlot[row] =
          layout::kWgmmaRowSlots * i + layout::wgmmaRowSlotOfRegister(r);
      body(values, row, col);
    }
  }
}

/// Row slot s of the calling thread: slot s mod 2 of 64-row block s / 2,
/// computed as forEachAccumulatorRun computes a register's row.
Value NVGPUTarget::rowOfSlot(KernelLowering &k, int64_t slot) {
  int64_t perBlock = layout::kWgmmaRowSlots;
  Value row = arith::AddIOp::create(
      k.b, k.loc, threadRow(k),
      k.idx(64 * (slot / perBlock) +
            layout::wgmmaRowOfSlot(0, slot % perBlock)));
  k.rowSlot[row] = slot;
  return row;
}

/// The thread's part of its accumulator rows (wgmmaAccumulatorElement(t,
/// 0).row: 16 per warp, lane / 4 in it); each register adds a constant.
Value NVGPUTarget::threadRow(KernelLowering &k) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value t = k.threadInGroup();
  Value warp = arith::DivUIOp::create(b, loc, t, k.idx(32));
  Value lane = arith::RemUIOp::create(b, loc, t, k.idx(32));
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, k.idx(16)),
      arith::DivUIOp::create(b, loc, lane, k.idx(4)));
}

/// Of the four lanes that hold a row (lane / 4 alike), lane mod 4 = 0.
Value NVGPUTarget::rowWriter(KernelLowering &k) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value t = k.threadInGroup();
  Value lane = arith::RemUIOp::create(b, loc, t, k.idx(32));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               arith::RemUIOp::create(b, loc, lane, k.idx(4)),
                               k.idx(0));
}

/// The registers of wgmma accumulator `acc`: a struct per 64-row block of
/// the warpgroup's registers (the form the NVVM lowering gives it).
Value NVGPUTarget::accumulatorStruct(KernelLowering &k, Value acc,
                                     RankedTensorType type) {
  MLIRContext *ctx = k.b.getContext();
  int64_t regs = layout::wgmmaAccumulatorRegisters(type.getDimSize(1));
  auto inner = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(regs, k.b.getF32Type()));
  auto outer = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(type.getDimSize(0) / 64, inner));
  return UnrealizedConversionCastOp::create(k.b, k.loc, outer, acc)
      .getResult(0);
}

/// Calls `fn` on each register of `acc` (with its row and column), then
/// `body` with the register's block and index in it and what `fn` gave.
LogicalResult NVGPUTarget::forEachRegisterOf(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn,
    function_ref<void(int64_t block, int64_t reg, Value e, Value row)> body) {
  int64_t regs = layout::wgmmaAccumulatorRegisters(type.getDimSize(1));
  int64_t next = 0;
  LogicalResult status = success();
  forEachAccumulatorRun(
      k, acc, type, 1, [&](ValueRange values, Value row, Value col) {
        int64_t block = next / regs, reg = next % regs;
        ++next;
        if (failed(status))
          return;
        FailureOr<Value> e = fn(values.front(), row, col);
        if (failed(e)) {
          status = failure();
          return;
        }
        body(block, reg, *e, row);
      });
  return status;
}

/// Register by register into a copy of the accumulator's struct.
FailureOr<Value> NVGPUTarget::mapAccumulator(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn) {
  Value out = accumulatorStruct(k, acc, type);
  if (failed(forEachRegisterOf(
          k, acc, type, fn, [&](int64_t block, int64_t reg, Value e, Value) {
            out = LLVM::InsertValueOp::create(k.b, k.loc, out, e,
                                              ArrayRef<int64_t>{block, reg});
          })))
    return failure();
  return UnrealizedConversionCastOp::create(k.b, k.loc, acc.getType(), out)
      .getResult(0);
}

/// A thread holds, in each 64-row block, two rows (lane / 4 and 8 below it,
/// in its warp's 16) and in each a quarter of the columns; the four lanes
/// lane / 4 shares hold the rest. Each row is folded over the thread's
/// registers, then across those lanes (shuffles by xor 1 and 2); the lane
/// of the four with lane mod 4 = 0 writes it.
LogicalResult NVGPUTarget::reduceAccumulatorRows(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn,
    function_ref<Value(Value, Value)> combine,
    function_ref<void(Value row, Value value, Value writer)> body) {
  // Per (block, row of the two): the row's index and the running fold.
  SmallVector<std::pair<Value, Value>> rows(layout::kWgmmaRowSlots *
                                            (type.getDimSize(0) / 64));
  LogicalResult status = forEachRegisterOf(
      k, acc, type, fn, [&](int64_t block, int64_t reg, Value e, Value row) {
        auto &[index, fold] = rows[layout::kWgmmaRowSlots * block +
                                   layout::wgmmaRowSlotOfRegister(reg)];
        if (!fold) {
          index = row;
          fold = e;
        } else {
          fold = combine(fold, e);
        }
      });
  if (failed(status))
    return failure();
  Value writer = rowWriter(k);
  for (auto &[index, fold] : rows)
    body(index, k.foldAcrossLanes(fold, {1, 2}, combine), writer);
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

} // namespace

std::unique_ptr<LoweringTarget> conversion::createNVGPUTarget() {
  return std::make_unique<NVGPUTarget>();
}

namespace {
struct ConvertTileToNVGPUPass
    : public conversion::impl::ConvertTileToNVGPUPassBase<
          ConvertTileToNVGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.getOps<tile::KernelOp>().empty() && chip != "sm_90a") {
      module.emitError() << "the Hopper lowering targets sm_90a (wgmma, TMA "
                            "and setmaxnreg need its architecture-specific "
                            "features), not '"
                         << chip << "'";
      return signalPassFailure();
    }
    if (failed(lowerKernels(module, allowUnverified, reportFallbacks,
                            [] { return std::make_unique<NVGPUTarget>(); })))
      return signalPassFailure();
  }
};

} // namespace
