//===- TileToAMDGPU.cpp - tile + schedule to gpu + amdgpu (CDNA) ----------===//
//
// Part of the TileTag project.
//
// The AMD CDNA target of the kernel lowering (TileToGPU/): dots on MFMA
// (v_mfma_f32_32x32x8 / 16x16x16 for bf16 and f16, 32x32x16 / 16x16x32 for
// CDNA3's fp8; wave64), loads with padding as buffer loads
// whose hardware bounds check gives the zero padding without a branch; and
// the `tiletag-convert-to-amdgpu` pass. Hopper's schedule constructs are
// translated (docs/Lowering.md):
//   - an mbarrier is one 64-bit LDS word, phase * 2^62 + pending arrivals *
//     2^32 + pending transaction bytes, changed only by atomic adds: the add
//     that brings both pending counts to zero completes the phase (it adds
//     2^62 and the arrival count back); a wait spins until the phase's
//     parity differs from the one it waits for, as try_wait.parity does;
//   - a TMA copy is copied element-parallel by its role's threads (loads
//     padded with zero are buffer loads), which then meet at the role's
//     barrier, and one of them counts its bytes on the mbarrier: a
//     synchronous copy completes within the window the async one had; a
//     TMA store is copied the same way, complete before its wait_group
//     (where the core meets the role's threads before they rewrite the
//     buffer);
//   - a warp role's barrier (a named barrier on Hopper) is a software
//     barrier in LDS between the role's waves;
//   - a wgmma region's dot runs on MFMA, synchronously; the async-proxy
//     fence and wait_group have nothing to order (MFMA reads registers and
//     is synchronous), and a role's register budget has no meaning (CDNA
//     allocates registers per kernel).
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
#include "llvm/ADT/StringSet.h"

namespace mlir::tiletag::conversion {
#define GEN_PASS_DEF_CONVERTTILETOAMDGPUPASS
#include "TileTag/Conversion/Passes.h.inc"
} // namespace mlir::tiletag::conversion

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::conversion;

namespace {

constexpr int64_t kWaveSize = 64;
constexpr int64_t kSimdsPerCU = 4;
/// An MFMA shape: its result blocks are mn x mn, it contracts k per
/// instruction with 16-bit inputs (2k with fp8), and each lane holds `regs`
/// f32 of a block; the layouts say which elements (CDNA3 ISA, checked in
/// LayoutsTest). Each lane supplies 8 bytes of A and of B (operandElements);
/// a coordinate is a part that depends on the lane plus one that depends on
/// the element or register.
struct MfmaShape {
  int64_t mn, k, regs;
  layout::Coord (*element)(int64_t lane, int64_t reg);
  layout::Coord (*operandA)(int64_t lane, int64_t i, int64_t perLane);
  layout::Coord (*operandB)(int64_t lane, int64_t i, int64_t perLane);
  /// The contracted extent of one instruction on `et` inputs.
  int64_t kOf(Type et) const { return k * operandElements(et) / 4; }
  /// The elements of one operand a lane supplies: 8 bytes of them.
  static int64_t operandElements(Type et) { return 8 / byteWidth(et); }
};
const MfmaShape kMfma16x16x16{16, 16, 4, layout::mfma16x16Element,
                              layout::mfma16x16OperandA,
                              layout::mfma16x16OperandB};
const MfmaShape kMfma32x32x8{32, 8, 16, layout::mfma32x32Element,
                             layout::mfma32x32OperandA,
                             layout::mfma32x32OperandB};

/// How a group's waves share the blocks of an MFMA accumulator: block b
/// goes to wave b mod waves, as its (b / waves)-th block. 32x32x8 where the
/// tile's 32x32 blocks divide among the waves (half the operand reads per
/// product of 16x16x16, at the same rate), else 16x16x16. The choice
/// depends on the accumulator's shape alone, so that every op on it (zero,
/// dot, epilogue) agrees.
struct MfmaTiling {
  int64_t m, n, waves;
  const MfmaShape *shape;
  MfmaTiling(int64_t m, int64_t n, int64_t waves) : m(m), n(n), waves(waves) {
    bool large = m % 32 == 0 && n % 32 == 0 && (m / 32) * (n / 32) % waves == 0;
    shape = large ? &kMfma32x32x8 : &kMfma16x16x16;
  }
  int64_t blocks() const { return (m / shape->mn) * (n / shape->mn); }
  int64_t blocksPerWave() const { return blocks() / waves; }
  int64_t registers() const { return blocksPerWave() * shape->regs; }
};

/// The group's wave, its lane, and the (row, column) of the block that is
/// the wave's `j`-th.
struct WaveBlock {
  Value lane, row, col;
};

class AMDGPUTarget : public LoweringTarget {
public:
  explicit AMDGPUTarget(StringRef chip) : chip(chip.str()) {}

  StringRef name() const override { return "AMDGPU"; }
  StringRef lowering() const override { return "the AMDGPU lowering"; }
  StringRef mmaUnit() const override { return "MFMA"; }
  int64_t waveSize() const override { return kWaveSize; }
  // 128-byte alignment keeps a swizzled slot's rows on the banks the
  // swizzle assigns them (32 banks of 4 bytes).
  int64_t ringAlignment() const override { return kSwizzleBytes; }
  // 64 KiB of LDS per workgroup on CDNA2 and CDNA3, and per CU.
  int64_t maxSharedBytes() const override { return 64 * 1024; }
  int64_t sharedBytesPerProcessor() const override { return 64 * 1024; }
  // LDS slots of two dimensions take the 128-byte XOR swizzle: rows of a
  // 128-byte multiple as on Hopper, shorter rows (a 32-deep bf16 K slot:
  // 64 bytes) as row-major 128-byte lines. The 16 rows an MFMA A operand
  // reads at one column fall on 2 words per bank instead of 16 (or 8)
  // (LayoutsTest.LdsBanksOfMfmaOperandA).
  bool swizzles(const Ring &ring) const override {
    return fitsSwizzle128B(ring) || shortRowsSwizzle(ring);
  }
  static bool shortRowsSwizzle(const Ring &ring) {
    int64_t rowBytes =
        ring.tile.back() * byteWidth(ring.type.getElementType());
    return ring.tile.size() == 2 && rowBytes < kSwizzleBytes &&
           kSwizzleBytes % rowBytes == 0 &&
           ring.slotBytes() % kSwizzleBytes == 0;
  }
  // Copies run element-parallel: nothing to plan.
  LogicalResult planAsyncCopies(KernelLowering &) override { return success(); }
  std::string whyNotMma(KernelLowering &k, tile::DotOp dot) override;
  // MFMA reads a slot's elements into registers at the dot, before anything
  // after it can release the slot: in place, from LDS.
  bool readsInPlace(KernelLowering &k, tile::DotOp dot, unsigned i) override {
    auto read = dot->getOperand(i).getDefiningOp<tile::ReadOp>();
    return read && k.ringOf(read.getBuffer());
  }
  void planSharedExtras(KernelLowering &k) override;
  void addArguments(KernelLowering &, SmallVectorImpl<Type> &) override {}
  // The waves of `occupancy` programs over the CU's 4 SIMDs, as the
  // register allocator's target (amdgpu-waves-per-eu).
  LogicalResult annotate(KernelLowering &k, gpu::GPUFuncOp func) override {
    if (k.occupancy)
      func->setAttr("rocdl.waves_per_eu",
                    k.b.getI32IntegerAttr(llvm::divideCeil(
                        k.occupancy * k.threads / kWaveSize, kSimdsPerCU)));
    return success();
  }
  void addABI(KernelLowering &k,
              SmallVectorImpl<NamedAttribute> &entries) override {
    entries.push_back(k.b.getNamedAttr("mfma", k.b.getBoolAttr(usesMfma)));
  }
  void prologue(KernelLowering &) override {}
  // CDNA allocates registers per kernel: a role's budget has no meaning.
  LogicalResult enterRole(KernelLowering &, schedule::RoleOp) override {
    return success();
  }
  Value swizzledByte(KernelLowering &k, const Ring &ring,
                     ValueRange index) override {
    if (fitsSwizzle128B(ring))
      return swizzled128BByte(k, ring, index);
    // The swizzle of the row-major byte offset: the XOR changes only bits
    // 4-6, so the slot's 128-byte lines keep their bytes.
    OpBuilder &b = k.b;
    Location loc = k.loc;
    int64_t width = byteWidth(ring.type.getElementType());
    Value row = arith::MulIOp::create(b, loc, index[0],
                                      k.idx(ring.tile[1] * width));
    Value off = arith::AddIOp::create(
        b, loc, row, arith::MulIOp::create(b, loc, index[1], k.idx(width)));
    return swizzle128BOffset(k, off);
  }
  void partialBarrier(KernelLowering &k, const Group &group) override;
  std::string whyNotCluster(ArrayRef<int64_t>) const override {
    return "CDNA has no thread-block clusters; launch the kernel without a "
           "cluster";
  }
  void clusterBarrier(KernelLowering &) override {
    llvm_unreachable("clusters are refused (whyNotCluster)");
  }
  // No async proxy: MFMA reads registers, loads and stores are generic.
  void proxyFence(KernelLowering &) override {}
  FailureOr<Value> createBarriers(KernelLowering &k,
                                  schedule::MBarrierInitOp init) override;
  LogicalResult emitBarrierOp(KernelLowering &k, Operation *op,
                              Value barriers) override;
  LogicalResult emitAsyncCopy(KernelLowering &k, tile::CopyOp copy,
                              Value barriers, Value index) override;
  bool copiesByOneThread() const override { return false; }
  bool isCopyUnit(schedule::AsyncUnit unit) const override {
    return unit == schedule::AsyncUnit::tma;
  }
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
  bool mapsAccumulators() const override { return true; }
  FailureOr<Value> mapAccumulator(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn)
      override;
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
  /// A view of `words` 64-bit LDS words from byte `offset` (from the aligned
  /// base) on.
  Value ldsWords(KernelLowering &k, Value offset, int64_t words);
  /// An atomic add of `delta` to word `index` of `words`; the old value.
  Value atomicAdd(KernelLowering &k, Value words, Value index, Value delta);
  /// Adds `delta` to an mbarrier word and completes the phase if that
  /// brought its pending arrivals and bytes to zero.
  void countOnBarrier(KernelLowering &k, Value barriers, Value index,
                      int64_t delta);
  MfmaTiling tiling(KernelLowering &k, RankedTensorType type) const {
    return MfmaTiling(type.getDimSize(0), type.getDimSize(1),
                      k.group.size / kWaveSize);
  }
  WaveBlock waveBlock(KernelLowering &k, const MfmaTiling &t, int64_t j);
  std::optional<Value> rowFragment(KernelLowering &k, Value tile, Value row,
                                   Value col, VectorType type);

  std::string chip;
  bool usesMfma = false;
  // LDS of the mbarriers (per mbarrier.init: byte offset from the aligned
  // base) and of the roles' barriers (a counter and a generation each).
  DenseMap<Operation *, int64_t> barrierOffsets;
  int64_t roleBarrierOffset = 0;
  // Per lowered mbarrier array: its words, size and arrival count.
  struct Barriers {
    int64_t size, count;
  };
  DenseMap<Value, Barriers> barrierArrays;
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

std::string AMDGPUTarget::whyNotMma(KernelLowering &k, tile::DotOp dot) {
  auto async = dyn_cast<schedule::AsyncOp>(dot->getParentOp());
  if (async && !isMmaUnit(async.getUnit()))
    return "it runs on another unit";
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(dot.getRhs().getType());
  auto type = cast<RankedTensorType>(dot.getType());
  Type et = lhsType.getElementType();
  if (rhsType.getElementType() != et || !type.getElementType().isF32())
    return "MFMA multiplies two inputs of one type into f32 here";
  if (isFp8(et)) {
    // CDNA3 multiplies the FNUZ encodings (no infinities, one NaN); CDNA2
    // has no fp8 MFMA.
    if (chip == "gfx90a")
      return "gfx90a (CDNA2) has no fp8 MFMA";
    if (!isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(et)) {
      std::string name;
      llvm::raw_string_ostream os(name);
      os << et;
      return chip + "'s MFMA multiplies the FNUZ fp8 types (f8E4M3FNUZ, "
                    "f8E5M2FNUZ), not " +
             name;
    }
  } else if (!et.isBF16() && !et.isF16()) {
    return "MFMA multiplies bf16, f16 or fp8 inputs into f32 here";
  }
  int64_t m = type.getDimSize(0), n = type.getDimSize(1),
          kk = lhsType.getDimSize(1);
  if (std::string why = layout::mfmaShapeProblem(m, kk, n, byteWidth(et));
      !why.empty())
    return why;
  MfmaTiling t(m, n,
               warpgroupsOf(k.kernel, dot) * kWarpgroupThreads / kWaveSize);
  int64_t kInstr = t.shape->kOf(et);
  std::string shape = std::to_string(t.shape->mn) + "x" +
                      std::to_string(t.shape->mn) + "x" +
                      std::to_string(kInstr);
  if (m % t.shape->mn || n % t.shape->mn || kk % kInstr)
    return "its " + std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(kk) + " shape is not made of " + shape +
           " blocks, the MFMA shape its result's blocks divide among the "
           "group's waves in";
  if (t.blocks() % t.waves)
    return "its " + std::to_string(t.blocks()) + " " + shape +
           " blocks do not divide among the group's " +
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
    if (k.tiles.lookup(v).kind == TileRep::Lazy &&
        failed(k.materialize(v, "an MFMA operand computed element-wise, "
                                "formed once")))
      return failure();
  }
  return SmallVector<Value>{};
}

WaveBlock AMDGPUTarget::waveBlock(KernelLowering &k, const MfmaTiling &t,
                                  int64_t j) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value local = k.threadInGroup();
  Value wave = arith::DivUIOp::create(b, loc, local, k.idx(kWaveSize));
  Value lane = arith::RemUIOp::create(b, loc, local, k.idx(kWaveSize));
  Value block = arith::AddIOp::create(b, loc, wave, k.idx(j * t.waves));
  int64_t mn = t.shape->mn;
  Value blocksN = k.idx(t.n / mn);
  Value row = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, block, blocksN), k.idx(mn));
  Value col = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, block, blocksN), k.idx(mn));
  return {lane, row, col};
}

Value AMDGPUTarget::zeroAccumulator(KernelLowering &k, RankedTensorType type) {
  auto vecType =
      VectorType::get({tiling(k, type).registers()}, k.b.getF32Type());
  return arith::ConstantOp::create(
      k.b, k.loc, DenseElementsAttr::get(vecType, k.b.getF32FloatAttr(0.0)));
}

/// Lane l of the wave supplies, per MFMA step, p elements of A and of B (p
/// = 4 of 16 bits, 8 of fp8; layout::mfma16x16OperandA/B,
/// mfma32x32OperandA/B): row l mod mn of A and column l mod mn of B, at
/// contracted index p (l / mn) + i. Each is a part that depends on the lane
/// plus one that depends on i (checked in LayoutsTest), so only the first
/// is computed at run time.
FailureOr<Value> AMDGPUTarget::emitMma(KernelLowering &k, tile::DotOp dot,
                                       schedule::AsyncOp, ArrayRef<Value>,
                                       Value acc) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto type = cast<RankedTensorType>(dot.getType());
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  Type et = lhsType.getElementType();
  MfmaTiling t = tiling(k, type);
  const MfmaShape &shape = *t.shape;
  int64_t perLane = MfmaShape::operandElements(et);
  int64_t kInstr = shape.kOf(et);
  auto fragType = VectorType::get({perLane}, et);
  auto blockType = VectorType::get({shape.regs}, b.getF32Type());

  auto loop = scf::ForOp::create(b, loc, k.idx(0),
                                 k.idx(lhsType.getDimSize(1) / kInstr),
                                 k.idx(1), ValueRange{acc});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kBase =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), k.idx(kInstr));
  Value result = loop.getRegionIterArgs()[0];
  for (int64_t j = 0; j < t.blocksPerWave(); ++j) {
    WaveBlock wb = waveBlock(k, t, j);
    Value laneMn = arith::RemUIOp::create(b, loc, wb.lane, k.idx(shape.mn));
    Value laneK = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, wb.lane, k.idx(shape.mn)),
        k.idx(perLane));
    Value aRow = arith::AddIOp::create(b, loc, wb.row, laneMn);
    Value aCol = arith::AddIOp::create(b, loc, kBase, laneK);
    Value bRow = aCol;
    Value bCol = arith::AddIOp::create(b, loc, wb.col, laneMn);
    // A lane's A elements lie along a row (operandA(0, i) = (0, i)): one
    // 8-byte read where the slot's layout keeps them together.
    std::optional<Value> aFrag = rowFragment(k, dot.getLhs(), aRow, aCol,
                                             fragType);
    SmallVector<Value> aElems, bElems;
    for (int64_t i = 0; i < perLane; ++i) {
      layout::Coord offA = shape.operandA(0, i, perLane);
      layout::Coord offB = shape.operandB(0, i, perLane);
      if (!aFrag) {
        FailureOr<Value> a = k.element(
            dot.getLhs(),
            {arith::AddIOp::create(b, loc, aRow, k.idx(offA.row)).getResult(),
             arith::AddIOp::create(b, loc, aCol, k.idx(offA.col))
                 .getResult()});
        if (failed(a))
          return failure();
        aElems.push_back(*a);
      }
      FailureOr<Value> bv = k.element(
          dot.getRhs(),
          {arith::AddIOp::create(b, loc, bRow, k.idx(offB.row)).getResult(),
           arith::AddIOp::create(b, loc, bCol, k.idx(offB.col)).getResult()});
      if (failed(bv))
        return failure();
      bElems.push_back(*bv);
    }
    if (!aFrag)
      aFrag = vector::FromElementsOp::create(b, loc, fragType, aElems);
    Value bFrag = vector::FromElementsOp::create(b, loc, fragType, bElems);
    // The block's registers in and out of the accumulator vector (shuffles
    // lower straight to LLVM).
    SmallVector<int64_t> take, put;
    for (int64_t r = 0; r < shape.regs; ++r)
      take.push_back(j * shape.regs + r);
    for (int64_t r = 0; r < t.registers(); ++r)
      put.push_back(r / shape.regs == j ? t.registers() + r % shape.regs : r);
    Value c = vector::ShuffleOp::create(b, loc, result, result, take);
    Value d = amdgpu::MFMAOp::create(b, loc, blockType, shape.mn, shape.mn,
                                     kInstr, /*blocks=*/1, *aFrag, bFrag, c);
    result = vector::ShuffleOp::create(b, loc, result, d, put);
  }
  scf::YieldOp::create(b, loc, result);
  usesMfma = true;
  b.setInsertionPointAfter(loop);
  // Every lane read operand elements. A workspace buffer is written again
  // when its op runs next (the next iteration's load): no wave may still be
  // reading it then. A ring slot is released by an arrival, which waits for
  // the whole group first.
  if (!readsInPlace(k, dot, 0) || !readsInPlace(k, dot, 1))
    k.groupBarrier();
  else
    k.simtSinceBarrier = true;
  return loop.getResult(0);
}

/// The p elements (row, col .. col + p - 1) of `tile` that fill 8 bytes (p
/// = 4 of 16 bits, 8 of fp8), col a multiple of p, as one 8-byte LDS read
/// where the tile is a ring slot whose rows hold a multiple of p:
/// row-major, or under the 128-byte XOR swizzle, which moves whole 16-byte
/// chunks, the p stay together and 8-byte aligned. Nothing otherwise (read
/// them one by one).
std::optional<Value> AMDGPUTarget::rowFragment(KernelLowering &k, Value tile,
                                               Value row, Value col,
                                               VectorType type) {
  auto it = k.tiles.find(tile);
  if (it == k.tiles.end() || it->second.kind != TileRep::Shared)
    return std::nullopt;
  Ring &ring = *it->second.ring;
  int64_t p = type.getNumElements();
  if (ring.tile.size() != 2 ||
      byteWidth(ring.type.getElementType()) * p != 8 ||
      ring.type.getElementType() != type.getElementType() ||
      ring.tile[1] % p != 0)
    return std::nullopt;
  Value view = k.sharedView(ring, type.getElementType());
  Value at = k.sharedElementIndex(ring, it->second.value, {row, col});
  return vector::LoadOp::create(k.b, k.loc, type, view, ValueRange{at},
                                /*nontemporal=*/false, llvm::MaybeAlign(8))
      .getResult();
}

/// Register r of the wave's j-th block holds the block's element
/// (4 (l / mn), l mod mn) + element(0, r) (layout::mfma16x16Element,
/// mfma32x32Element).
void AMDGPUTarget::forEachAccumulatorElement(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<void(Value v, Value row, Value col)> body) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  MfmaTiling t = tiling(k, type);
  const MfmaShape &shape = *t.shape;
  for (int64_t j = 0; j < t.blocksPerWave(); ++j) {
    WaveBlock wb = waveBlock(k, t, j);
    Value rowBase = arith::AddIOp::create(
        b, loc, wb.row,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, wb.lane, k.idx(shape.mn)),
            k.idx(4)));
    Value colBase = arith::AddIOp::create(
        b, loc, wb.col,
        arith::RemUIOp::create(b, loc, wb.lane, k.idx(shape.mn)));
    for (int64_t r = 0; r < shape.regs; ++r) {
      layout::Coord off = shape.element(0, r);
      Value v = vector::ExtractOp::create(
          b, loc, acc, ArrayRef<int64_t>{j * shape.regs + r});
      body(v, arith::AddIOp::create(b, loc, rowBase, k.idx(off.row)),
           arith::AddIOp::create(b, loc, colBase, k.idx(off.col)));
    }
  }
}

/// Element by element, in forEachAccumulatorElement's order (which is the
/// register vector's), into a copy of the vector.
FailureOr<Value> AMDGPUTarget::mapAccumulator(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn) {
  Value out = acc;
  int64_t next = 0;
  LogicalResult status = success();
  forEachAccumulatorElement(k, acc, type, [&](Value v, Value row, Value col) {
    int64_t position = next++;
    if (failed(status))
      return;
    FailureOr<Value> e = fn(v, row, col);
    if (failed(e)) {
      status = failure();
      return;
    }
    out = vector::InsertOp::create(k.b, k.loc, *e, out,
                                   ArrayRef<int64_t>{position});
  });
  if (failed(status))
    return failure();
  return out;
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
                  et.isInteger(32) || et.isInteger(16) || et.isInteger(8) ||
                  isFp8(et);
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

//===----------------------------------------------------------------------===//
// mbarriers, role barriers and TMA copies in LDS
//===----------------------------------------------------------------------===//

constexpr int64_t kArrival = int64_t(1) << 32; // one pending arrival
constexpr int64_t kPhase = int64_t(1) << 62;   // one completed phase

void AMDGPUTarget::planSharedExtras(KernelLowering &k) {
  k.kernel.walk([&](schedule::MBarrierInitOp init) {
    k.sharedBytes = llvm::alignTo(k.sharedBytes, 8);
    barrierOffsets[init] = k.sharedBytes;
    k.sharedBytes += 8 * cast<schedule::MBarrierType>(init.getType()).getSize();
  });
  llvm::StringSet<> roles;
  k.kernel.walk([&](schedule::RoleOp role) { roles.insert(role.getName()); });
  if (!roles.empty()) {
    k.sharedBytes = llvm::alignTo(k.sharedBytes, 8);
    roleBarrierOffset = k.sharedBytes;
    // Role barriers are numbered from 1 (Group::barrierId).
    k.sharedBytes += 16 * (roles.size() + 1);
  }
}

Value AMDGPUTarget::ldsWords(KernelLowering &k, Value offset, int64_t words) {
  auto space = gpu::AddressSpaceAttr::get(k.b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({words}, k.b.getI64Type(),
                              MemRefLayoutAttrInterface(), space);
  return memref::ViewOp::create(k.b, k.loc, type, k.dynamicShared(), offset,
                                ValueRange{});
}

Value AMDGPUTarget::atomicAdd(KernelLowering &k, Value words, Value index,
                              Value delta) {
  return memref::AtomicRMWOp::create(k.b, k.loc, arith::AtomicRMWKind::addi,
                                     delta, words, ValueRange{index});
}

FailureOr<Value> AMDGPUTarget::createBarriers(KernelLowering &k,
                                              schedule::MBarrierInitOp init) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto type = cast<schedule::MBarrierType>(init.getType());
  Value offset = arith::AddIOp::create(b, loc, k.ringBase,
                                       k.idx(barrierOffsets.lookup(init)));
  Value words = ldsWords(k, offset, type.getSize());
  barrierArrays[words] = {type.getSize(), (int64_t)init.getCount()};
  // Phase 0, `count` arrivals and no bytes pending.
  auto branch = scf::IfOp::create(b, loc, k.electOne());
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(branch.thenBlock());
  Value initial = arith::ConstantIntOp::create(
      b, loc, b.getI64Type(), (int64_t)init.getCount() * kArrival);
  for (int64_t i = 0; i < type.getSize(); ++i)
    memref::StoreOp::create(b, loc, initial, words, ValueRange{k.idx(i)});
  return words;
}

/// The low part (pending arrivals and bytes) of a word is zero iff
/// (word + 2^61) mod 2^62 is 2^61: the counts stay far below 2^61 in
/// magnitude, so the sum never carries into or borrows from the phase
/// other than by a completion.
void AMDGPUTarget::countOnBarrier(KernelLowering &k, Value barriers,
                                  Value index, int64_t delta) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type i64 = b.getI64Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value old = atomicAdd(k, barriers, index, c(delta));
  Value now = arith::AddIOp::create(b, loc, old, c(delta));
  Value low = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, now, c(kPhase / 2)), c(kPhase - 1));
  Value done = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                                     c(kPhase / 2));
  auto branch = scf::IfOp::create(b, loc, done);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  atomicAdd(k, barriers, index,
            c(kPhase + barrierArrays.lookup(barriers).count * kArrival));
}

LogicalResult AMDGPUTarget::emitBarrierOp(KernelLowering &k, Operation *op,
                                          Value barriers) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type i64 = b.getI64Type();
  if (auto arrive = dyn_cast<schedule::MBarrierArriveOp>(op)) {
    countOnBarrier(k, barriers, k.scalar(arrive.getIndex()), -kArrival);
    return success();
  }
  if (auto expect = dyn_cast<schedule::MBarrierArriveExpectTxOp>(op)) {
    countOnBarrier(k, barriers, k.scalar(expect.getIndex()),
                   -kArrival + (int64_t)expect.getBytes());
    return success();
  }
  // Every thread spins until the phase's parity differs from `parity`.
  auto wait = cast<schedule::MBarrierWaitOp>(op);
  Value parity = k.scalar(wait.getParity());
  if (parity.getType().isIndex())
    parity = arith::IndexCastOp::create(b, loc, i64, parity);
  else if (parity.getType() != i64)
    parity = arith::ExtUIOp::create(b, loc, i64, parity);
  Value one = arith::ConstantIntOp::create(b, loc, i64, 1);
  parity = arith::AndIOp::create(b, loc, parity, one);
  Value index = k.scalar(wait.getIndex());
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore());
    Value word = atomicAdd(k, barriers, index,
                           arith::ConstantIntOp::create(b, loc, i64, 0));
    Value phase = arith::ShRUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, word, arith::ConstantIntOp::create(b, loc, i64, kPhase / 2)),
        arith::ConstantIntOp::create(b, loc, i64, 62));
    Value pending = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, phase, one), parity);
    scf::ConditionOp::create(b, loc, pending, ValueRange{});
    (void)before;
    b.createBlock(&loop.getAfter());
    scf::YieldOp::create(b, loc, ValueRange{});
  }
  return success();
}

/// A software barrier between the role's waves: lane 0 of each wave counts
/// its wave in (its atomics release and acquire for the wave, whose lanes
/// issue their memory operations in order); the last wave resets the count
/// and advances the generation the others wait on.
void AMDGPUTarget::partialBarrier(KernelLowering &k, const Group &group) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type i64 = b.getI64Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  int64_t waves = group.size / kWaveSize;
  Value words = ldsWords(
      k,
      arith::AddIOp::create(b, loc, k.ringBase,
                            k.idx(roleBarrierOffset + 16 * group.barrierId)),
      2);
  Value counter = k.idx(0), generation = k.idx(1);
  Value lane = arith::RemUIOp::create(
      b, loc, k.threadInGroup(group),
      k.idx(kWaveSize));
  auto first = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, k.idx(0)));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(first.thenBlock());
  Value gen = atomicAdd(k, words, generation, c(0));
  Value arrived = atomicAdd(k, words, counter, c(1));
  auto last = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, arrived,
                            c(waves - 1)),
      /*withElseRegion=*/true);
  b.setInsertionPointToStart(last.thenBlock());
  atomicAdd(k, words, counter, c(-waves));
  atomicAdd(k, words, generation, c(1));
  b.setInsertionPointToStart(last.elseBlock());
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  b.createBlock(&loop.getBefore());
  Value now = atomicAdd(k, words, generation, c(0));
  scf::ConditionOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, now, gen),
      ValueRange{});
  b.createBlock(&loop.getAfter());
  scf::YieldOp::create(b, loc, ValueRange{});
}

/// The role's threads copy the tile; a load's then meet, and one of them
/// counts its bytes on the mbarrier (a TMA copy counts the whole box,
/// padding included). A store is complete when the copy is: the core meets
/// the group at its wait_group.
LogicalResult AMDGPUTarget::emitAsyncCopy(KernelLowering &k, tile::CopyOp copy,
                                          Value barriers, Value index) {
  if (failed(k.emitCopy(copy)))
    return failure();
  if (!copy.isGlobalToShared())
    return success();
  k.groupBarrier();
  auto branch = scf::IfOp::create(k.b, k.loc, k.electOne());
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(branch.thenBlock());
  countOnBarrier(k, barriers, index, -k.ringOf(copy.getDest())->slotBytes());
  return success();
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
    if (failed(lowerKernels(module, allowUnverified, reportFallbacks, [&] {
          return std::make_unique<AMDGPUTarget>(target);
        })))
      return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<LoweringTarget> conversion::createAMDGPUTarget(StringRef chip) {
  return std::make_unique<AMDGPUTarget>(chip);
}
