//===- TileToAMDGPU.cpp - tile + schedule to gpu + amdgpu (CDNA) ----------===//
//
// Part of the TileTag project.
//
// The AMD CDNA target of the kernel lowering (TileToGPU/): dots on MFMA
// (v_mfma_f32_16x16x16 bf16/f16, wave64), loads with padding as buffer loads
// whose hardware bounds check gives the zero padding without a branch; and
// the `tiletag-convert-to-amdgpu` pass. Schedule constructs that only Hopper
// has (TMA copies, mbarriers, warp roles, clusters) are refused with the
// construct named until their translation exists; the async-proxy fence has
// nothing to order here (no async proxy: MFMA reads registers) and is
// dropped, and a wgmma region runs its dot on MFMA, synchronously.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Passes.h"

#include "TileTag/Conversion/Layouts.h"
#include "TileTag/Conversion/TileToGPU/KernelLowering.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tiletag::conversion {
#define GEN_PASS_DEF_CONVERTTILETOAMDGPUPASS
#include "TileTag/Conversion/Passes.h.inc"
} // namespace mlir::tiletag::conversion

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::conversion;

namespace {

constexpr int64_t kWaveSize = 64;
constexpr int64_t kMfmaTile = 16; // v_mfma_f32_16x16x16: 16x16 blocks, K 16
constexpr int64_t kMfmaRegs = 4;  // result registers per lane and block

/// How a group's waves share the 16x16 blocks of an MFMA accumulator: block
/// b goes to wave b mod waves, as its (b / waves)-th block; each lane holds
/// 4 f32 per block (layout::mfma16x16Element).
struct MfmaTiling {
  int64_t m, n, waves;
  int64_t blocks() const { return (m / kMfmaTile) * (n / kMfmaTile); }
  int64_t blocksPerWave() const { return blocks() / waves; }
  int64_t registers() const { return blocksPerWave() * kMfmaRegs; }
};

/// The group's wave, its lane, and the (row, column) of the 16x16 block that
/// is the wave's `j`-th.
struct WaveBlock {
  Value lane, row, col;
};

class AMDGPUTarget : public LoweringTarget {
public:
  explicit AMDGPUTarget(StringRef chip) : chip(chip.str()) {}

  StringRef name() const override { return "AMDGPU"; }
  StringRef lowering() const override { return "the AMDGPU lowering"; }
  int64_t waveSize() const override { return kWaveSize; }
  // LDS slots are row-major; 16-byte alignment lets ds_read_b128 serve them.
  int64_t ringAlignment() const override { return 16; }
  bool swizzles(const Ring &) const override { return false; }
  LogicalResult planAsyncCopies(KernelLowering &k) override;
  std::string whyNotMma(KernelLowering &k, tile::DotOp dot) override;
  bool readsInPlace(KernelLowering &, Value) override { return false; }
  void planSharedExtras(KernelLowering &) override {}
  void addArguments(KernelLowering &, SmallVectorImpl<Type> &) override {}
  void annotate(KernelLowering &k, gpu::GPUFuncOp func, bool done) override {
    if (done)
      func->setAttr("tiletag.mfma", k.b.getBoolAttr(usesMfma));
  }
  void prologue(KernelLowering &) override {}
  LogicalResult enterRole(KernelLowering &k, schedule::RoleOp role) override {
    return k.fail(role, refusal("warp roles (schedule.role)"));
  }
  Value swizzledByte(KernelLowering &, const Ring &, ValueRange) override {
    llvm_unreachable("AMDGPU slots are not swizzled");
  }
  void partialBarrier(KernelLowering &, const Group &) override {
    llvm_unreachable("AMDGPU kernels have no warp roles");
  }
  // No async proxy: MFMA reads registers, loads and stores are generic.
  void proxyFence(KernelLowering &) override {}
  FailureOr<Value> createBarriers(KernelLowering &k,
                                  schedule::MBarrierInitOp init) override {
    return k.fail(init, refusal("mbarriers (schedule.mbarrier.init)"));
  }
  LogicalResult emitBarrierOp(KernelLowering &k, Operation *op,
                              Value) override {
    return k.fail(op, refusal("mbarriers"));
  }
  LogicalResult emitAsyncCopy(KernelLowering &k, tile::CopyOp copy, Value,
                              Value) override {
    return k.fail(copy, refusal("TMA copies (schedule.async tma)"));
  }
  bool isCopyUnit(schedule::AsyncUnit) const override { return false; }
  // A wgmma region's dot runs on MFMA: synchronously, which refines the
  // region's meaning as the Hopper lowering's synchronous dots do.
  bool isMmaUnit(schedule::AsyncUnit unit) const override {
    return unit == schedule::AsyncUnit::mfma ||
           unit == schedule::AsyncUnit::wgmma;
  }
  FailureOr<SmallVector<Value>> prepareMmaOperands(KernelLowering &k,
                                                   tile::DotOp dot) override;
  FailureOr<Value> emitMma(KernelLowering &k, tile::DotOp dot,
                           schedule::AsyncOp async, ArrayRef<Value> operands,
                           Value acc) override;
  Value zeroAccumulator(KernelLowering &k, RankedTensorType type) override;
  void forEachAccumulatorElement(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<void(Value v, Value row, Value col)> body) override;
  // MFMA results are ordered by the hardware's dependency checks: nothing
  // is in flight at a wait.
  LogicalResult emitWaitGroup(KernelLowering &,
                              schedule::WaitGroupOp) override {
    return success();
  }
  Value maskedLoad(KernelLowering &k, Value memref, ArrayRef<Value> pos,
                   Value inRange, TypedAttr padding) override;
  Value gridDim(KernelLowering &k, gpu::Dimension dim) override;

private:
  std::string refusal(StringRef construct) const {
    return (construct + " are Hopper constructs with no lowering for " + chip +
            " yet; lower this kernel for sm_90a, or schedule it without them")
        .str();
  }
  MfmaTiling tiling(KernelLowering &k, RankedTensorType type) const {
    return {type.getDimSize(0), type.getDimSize(1), k.group.size / kWaveSize};
  }
  WaveBlock waveBlock(KernelLowering &k, const MfmaTiling &t, int64_t j);

  std::string chip;
  bool usesMfma = false;
};

/// Warpgroups of the group that runs `op`: its role's, or the CTA's.
int64_t warpgroupsOf(tile::KernelOp kernel, Operation *op) {
  if (auto role = op->getParentOfType<schedule::RoleOp>())
    return role.getWarpgroups().size();
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName))
    return launch.getWarpgroups();
  return 1;
}

/// Refuses, at the op, the schedule constructs that only Hopper has.
LogicalResult AMDGPUTarget::planAsyncCopies(KernelLowering &k) {
  WalkResult walk = k.kernel.walk([&](Operation *op) {
    std::string construct;
    if (isa<schedule::RoleOp>(op))
      construct = "warp roles (schedule.role)";
    else if (isa<schedule::MBarrierInitOp>(op))
      construct = "mbarriers (schedule.mbarrier.init)";
    else if (auto async = dyn_cast<schedule::AsyncOp>(op);
             async && async.getUnit() == schedule::AsyncUnit::tma)
      construct = "TMA copies (schedule.async tma)";
    else if (auto barrier = dyn_cast<schedule::BarrierOp>(op);
             barrier && barrier.getScope() == schedule::BarrierScope::cluster)
      construct = "cluster barriers (schedule.barrier cluster)";
    if (construct.empty())
      return WalkResult::advance();
    (void)k.fail(op, refusal(construct));
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

std::string AMDGPUTarget::whyNotMma(KernelLowering &k, tile::DotOp dot) {
  auto async = dyn_cast<schedule::AsyncOp>(dot->getParentOp());
  if (async && !isMmaUnit(async.getUnit()))
    return "it runs on another unit";
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(dot.getRhs().getType());
  auto type = cast<RankedTensorType>(dot.getType());
  Type et = lhsType.getElementType();
  if ((!et.isBF16() && !et.isF16()) || rhsType.getElementType() != et ||
      !type.getElementType().isF32())
    return "MFMA multiplies bf16 or f16 inputs into f32 here";
  int64_t m = type.getDimSize(0), n = type.getDimSize(1),
          kk = lhsType.getDimSize(1);
  if (m % kMfmaTile || n % kMfmaTile || kk % kMfmaTile)
    return "its " + std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(kk) + " shape is not made of 16x16x16 MFMA blocks";
  MfmaTiling t{m, n, warpgroupsOf(k.kernel, dot) * kWarpgroupThreads /
                         kWaveSize};
  if (t.blocks() % t.waves)
    return "its " + std::to_string(t.blocks()) +
           " 16x16 blocks do not divide among the group's " +
           std::to_string(t.waves) + " waves";
  return "";
}

/// Operands are read element by element where they are held (a workspace
/// buffer, an LDS slot); computed operands are formed once first.
FailureOr<SmallVector<Value>>
AMDGPUTarget::prepareMmaOperands(KernelLowering &k, tile::DotOp dot) {
  for (Value v : {dot.getLhs(), dot.getRhs()}) {
    if (failed(k.prepare(v)))
      return failure();
    if (k.tiles.lookup(v).kind == TileRep::Lazy && failed(k.materialize(v)))
      return failure();
  }
  return SmallVector<Value>{};
}

WaveBlock AMDGPUTarget::waveBlock(KernelLowering &k, const MfmaTiling &t,
                                  int64_t j) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value local = arith::SubIOp::create(b, loc, k.tid, k.idx(k.group.first));
  Value wave = arith::DivUIOp::create(b, loc, local, k.idx(kWaveSize));
  Value lane = arith::RemUIOp::create(b, loc, local, k.idx(kWaveSize));
  Value block = arith::AddIOp::create(b, loc, wave, k.idx(j * t.waves));
  Value blocksN = k.idx(t.n / kMfmaTile);
  Value row = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, block, blocksN),
      k.idx(kMfmaTile));
  Value col = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, block, blocksN),
      k.idx(kMfmaTile));
  return {lane, row, col};
}

Value AMDGPUTarget::zeroAccumulator(KernelLowering &k, RankedTensorType type) {
  auto vecType =
      VectorType::get({tiling(k, type).registers()}, k.b.getF32Type());
  return arith::ConstantOp::create(
      k.b, k.loc, DenseElementsAttr::get(vecType, k.b.getF32FloatAttr(0.0)));
}

/// Lane l of the wave supplies, per 16x16x16 step, A[l mod 16][4 (l / 16) +
/// i] and B[4 (l / 16) + i][l mod 16] (layout::mfma16x16OperandA/B): each
/// is a part that depends on the lane plus one that depends on i (checked
/// in LayoutsTest), so only the first is computed at run time.
FailureOr<Value> AMDGPUTarget::emitMma(KernelLowering &k, tile::DotOp dot,
                                       schedule::AsyncOp, ArrayRef<Value>,
                                       Value acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto type = cast<RankedTensorType>(dot.getType());
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  Type et = lhsType.getElementType();
  MfmaTiling t = tiling(k, type);
  auto fragType = VectorType::get({4}, et);
  auto blockType = VectorType::get({kMfmaRegs}, b.getF32Type());

  auto loop = scf::ForOp::create(b, loc, k.idx(0),
                                 k.idx(lhsType.getDimSize(1) / kMfmaTile),
                                 k.idx(1), ValueRange{acc});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kBase =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), k.idx(kMfmaTile));
  Value result = loop.getRegionIterArgs()[0];
  for (int64_t j = 0; j < t.blocksPerWave(); ++j) {
    WaveBlock wb = waveBlock(k, t, j);
    Value lane16 = arith::RemUIOp::create(b, loc, wb.lane, k.idx(16));
    Value quad4 = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, wb.lane, k.idx(16)), k.idx(4));
    Value aRow = arith::AddIOp::create(b, loc, wb.row, lane16);
    Value aCol = arith::AddIOp::create(b, loc, kBase, quad4);
    Value bRow = aCol;
    Value bCol = arith::AddIOp::create(b, loc, wb.col, lane16);
    SmallVector<Value> aElems, bElems;
    for (int64_t i = 0; i < 4; ++i) {
      layout::Coord offA = layout::mfma16x16OperandA(0, i);
      layout::Coord offB = layout::mfma16x16OperandB(0, i);
      FailureOr<Value> a = k.element(
          dot.getLhs(),
          {arith::AddIOp::create(b, loc, aRow, k.idx(offA.row)).getResult(),
           arith::AddIOp::create(b, loc, aCol, k.idx(offA.col)).getResult()});
      FailureOr<Value> bv = k.element(
          dot.getRhs(),
          {arith::AddIOp::create(b, loc, bRow, k.idx(offB.row)).getResult(),
           arith::AddIOp::create(b, loc, bCol, k.idx(offB.col)).getResult()});
      if (failed(a) || failed(bv))
        return failure();
      aElems.push_back(*a);
      bElems.push_back(*bv);
    }
    Value aFrag = vector::FromElementsOp::create(b, loc, fragType, aElems);
    Value bFrag = vector::FromElementsOp::create(b, loc, fragType, bElems);
    // The block's 4 registers in and out of the accumulator vector
    // (shuffles lower straight to LLVM).
    SmallVector<int64_t> take, put;
    for (int64_t r = 0; r < kMfmaRegs; ++r)
      take.push_back(j * kMfmaRegs + r);
    for (int64_t r = 0; r < t.registers(); ++r)
      put.push_back(r / kMfmaRegs == j ? t.registers() + r % kMfmaRegs : r);
    Value c = vector::ShuffleOp::create(b, loc, result, result, take);
    Value d = amdgpu::MFMAOp::create(b, loc, blockType, kMfmaTile, kMfmaTile,
                                     kMfmaTile, /*blocks=*/1, aFrag, bFrag, c);
    result = vector::ShuffleOp::create(b, loc, result, d, put);
  }
  scf::YieldOp::create(b, loc, result);
  usesMfma = true;
  return loop.getResult(0);
}

/// Register r of the wave's j-th block holds element (4 (l / 16) + r,
/// l mod 16) of the block (layout::mfma16x16Element).
void AMDGPUTarget::forEachAccumulatorElement(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<void(Value v, Value row, Value col)> body) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  MfmaTiling t = tiling(k, type);
  for (int64_t j = 0; j < t.blocksPerWave(); ++j) {
    WaveBlock wb = waveBlock(k, t, j);
    Value rowBase = arith::AddIOp::create(
        b, loc, wb.row,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, wb.lane, k.idx(16)),
            k.idx(4)));
    Value colBase = arith::AddIOp::create(
        b, loc, wb.col, arith::RemUIOp::create(b, loc, wb.lane, k.idx(16)));
    for (int64_t r = 0; r < kMfmaRegs; ++r) {
      layout::Coord off = layout::mfma16x16Element(0, r);
      Value v = vector::ExtractOp::create(b, loc, acc,
                                          ArrayRef<int64_t>{j * kMfmaRegs + r});
      body(v, arith::AddIOp::create(b, loc, rowBase, k.idx(off.row)),
           arith::AddIOp::create(b, loc, colBase, k.idx(off.col)));
    }
  }
}

/// A zero-padded load of a kernel operand is a buffer load: lanes out of
/// range read at the buffer's end, where the bounds check returns zero. The
/// offset is 32-bit: operands up to 2 GiB.
Value AMDGPUTarget::maskedLoad(KernelLowering &k, Value memref,
                               ArrayRef<Value> pos, Value inRange,
                               TypedAttr padding) {
  auto type = cast<MemRefType>(memref.getType());
  Type et = type.getElementType();
  bool zero = false;
  if (auto f = dyn_cast<FloatAttr>(padding))
    zero = f.getValue().isZero() && !f.getValue().isNegative();
  else if (auto i = dyn_cast<IntegerAttr>(padding))
    zero = i.getValue().isZero();
  bool loadable = et.isF32() || et.isF16() || et.isBF16() ||
                  et.isInteger(32) || et.isInteger(16) || et.isInteger(8);
  if (!zero || !loadable || !isa<BlockArgument>(memref) ||
      !type.getLayout().isIdentity() || type.getMemorySpace())
    return Value();
  OpBuilder &b = k.b;
  Location loc = k.loc;
  SmallVector<Value> indices;
  for (auto [d, p] : llvm::enumerate(pos)) {
    // Out of range: row `size(0)` is the first byte past the buffer.
    Value at = p;
    if (d == 0)
      at = arith::SelectOp::create(
          b, loc, inRange, p, memref::DimOp::create(b, loc, memref, 0));
    else
      at = arith::SelectOp::create(b, loc, inRange, p, k.idx(0));
    indices.push_back(
        arith::IndexCastOp::create(b, loc, b.getI32Type(), at).getResult());
  }
  return amdgpu::RawBufferLoadOp::create(b, loc, et, memref, indices,
                                         b.getBoolAttr(true), IntegerAttr(),
                                         Value());
}

/// Workgroups along `dim`, from the HSA dispatch packet
/// (hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z as u16 at bytes 4, 6,
/// 8; grid_size_x/y/z, in work-items, as u32 at bytes 12, 16, 20). gpu's own
/// grid_dim lowers to a ROCm device-library call (__ockl_get_num_groups),
/// which would need the device libraries at link time.
Value AMDGPUTarget::gridDim(KernelLowering &k, gpu::Dimension dim) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto constantPtr = LLVM::LLVMPointerType::get(b.getContext(), 4);
  Value packet = LLVM::CallIntrinsicOp::create(
                     b, loc, constantPtr,
                     b.getStringAttr("llvm.amdgcn.dispatch.ptr"), ValueRange{})
                     .getResult(0);
  auto field = [&](int64_t byte, Type type, unsigned align) -> Value {
    Value at = LLVM::GEPOp::create(b, loc, constantPtr, b.getI8Type(), packet,
                                   ArrayRef<LLVM::GEPArg>{byte});
    return LLVM::LoadOp::create(b, loc, type, at, align, false, false,
                                /*isInvariant=*/true);
  };
  int64_t d = static_cast<int64_t>(dim);
  Value workgroup = arith::ExtUIOp::create(
      b, loc, b.getI32Type(), field(4 + 2 * d, b.getI16Type(), 2));
  Value grid = field(12 + 4 * d, b.getI32Type(), 4);
  Value groups = arith::CeilDivUIOp::create(b, loc, grid, workgroup);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), groups);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

bool isSupportedChip(StringRef chip) {
  return llvm::is_contained({"gfx90a", "gfx940", "gfx941", "gfx942"}, chip);
}

struct ConvertTileToAMDGPUPass
    : public conversion::impl::ConvertTileToAMDGPUPassBase<
          ConvertTileToAMDGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.getOps<tile::KernelOp>().empty() && !isSupportedChip(chip)) {
      module.emitError() << "the AMDGPU lowering targets CDNA2 and CDNA3 "
                            "(gfx90a, gfx940, gfx941, gfx942: wave64 and "
                            "bf16 MFMA), not '"
                         << chip << "'";
      return signalPassFailure();
    }
    std::string target = chip;
    if (failed(lowerKernels(module, allowUnverified, [&] {
          return std::make_unique<AMDGPUTarget>(target);
        })))
      return signalPassFailure();
  }
};

} // namespace
