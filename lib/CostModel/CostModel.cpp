//===- CostModel.cpp - analytic time estimate of a tile kernel ------------===//
//
// Part of the TileTag project.
//
// Each program of the grid is walked once with its index arithmetic
// evaluated exactly (IntegerArith.h, the oracle's semantics) and its tile
// operations counted per loop: tensor-core FLOPs, CUDA-core and special-
// function element operations, bytes loaded by threads or by TMA, bytes
// stored. A loop's time follows from how its loads overlap its compute:
// loads a producer (or a prefetch into another ring slot) issues ahead are
// hidden behind the compute up to the ring's depth; loads the computing
// threads wait for cost a memory round trip per iteration. Programs are then
// placed on the SMs' CTA slots in launch order (wave quantization and
// uneven programs included), and the kernel takes at least the time DRAM
// needs for what misses an LRU model of L2 fed with every program's reads
// in time order.
//
//===----------------------------------------------------------------------===//

#include "TileTag/CostModel/CostModel.h"

#include "TileTag/Conversion/Layouts.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Execution/IntegerArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <limits>
#include <list>
#include <mutex>
#include <queue>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::cost;

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

/// NVIDIA H200 SXM (GH100, the H100's arithmetic; HBM3e). The peak rates are
/// the vendor's datasheet figures (989 dense bf16 TFLOP/s at 1.83 GHz on 132
/// SMs: 4096 FLOP per SM and cycle; 3.9 TFLOP/s of special functions: 16 per
/// SM and cycle; 4.8 TB/s HBM3e). The efficiencies are set so that the
/// model's figure for a CUTLASS-class 128x256 warp-specialized GEMM at 8192^3
/// lands on the 769-798 TFLOP/s torch.matmul reaches on this GPU
/// (../device KINDS.md readings); bench/results/calibration-h200.json holds
/// them for calibration against bench/gpu measurements.
static const TargetModel kH200 = [] {
  TargetModel m;
  m.chip = "sm_90a";
  m.device = "NVIDIA H200 SXM";
  m.sms = 132;
  m.clockGHz = 1.83;
  m.tensorFlopsPerCycle = 4096;
  // wgmma's fp8 (1979 TFLOP/s dense): twice the bf16 rate. (Dots the
  // lowering keeps off it, f8E4M3FNUZ say, are charged on the lanes.)
  m.fp8TensorFlopsPerCycle = 8192;
  m.cudaOpsPerCycle = 128;
  m.sfuOpsPerCycle = 16;
  m.l2BytesPerCycle = 64 * 0.85;
  m.dramBytesPerSecond = 4.8e12 * 0.9;
  m.l2Bytes = 50.0 * 1024 * 1024;
  m.memoryLatencyCycles = 800;
  m.sharedBytesPerSM = 228 * 1024;
  m.sharedBytesPerCTA = 227 * 1024;
  m.registersPerSM = 65536;
  m.threadsPerSM = 2048;
  m.ctasPerSM = 32;
  m.launchMicroseconds = 3;
  m.tensorEfficiencySync = 0.55;
  m.tensorEfficiencyAsync = 0.72;
  m.tensorEfficiencyCooperative = 0.85;
  // The lowering stores an accumulator element by element (st.global.b32):
  // a warp's instruction covers 8 rows of 4 lanes (a wgmma fragment), 8
  // lines for 32 elements, or 64 where each lane stores its column pair
  // (fragmentElementsPerLane); other tiles, 32 consecutive elements a line.
  // One line a cycle through the SM's store path.
  m.storeLinesPerCycle = 1;
  m.storeLinesPerAccumulatorElement = 8.0 / 32;
  m.storeLinesPerElement = 1.0 / 32;
  // The same fragment written to shared memory, a column pair per lane
  // (st.shared.v2.f32 / .b32 for bf16): lane l holds row l / 4, columns
  // 2 (l mod 4) and the next.
  m.fragmentRowsPerStore = 8;
  m.fragmentLanesPerRow = 4;
  m.fragmentColumnStride = 2;
  m.fragmentElementsPerLane = 2;
  m.sharedWavefrontsPerCycle = 1;
  m.defaultRegistersPerThread = 128;
  m.source = "datasheet";
  return m;
}();

/// AMD Instinct MI300X (CDNA3, gfx942): 304 CUs at 2.1 GHz, 1307 dense
/// bf16 TFLOP/s (2048 FLOP per CU and cycle), 5.3 TB/s HBM3, 256 MiB
/// Infinity Cache (the last level the model's L2 stands for), 64 KiB LDS
/// and 512 KiB of vector registers (128 Ki 32-bit, VGPRs and AGPRs
/// together) per CU, 8 waves of 64 per SIMD. The efficiencies are set so
/// that a cooperative MFMA GEMM at 8192^3 lands near the 613-639 TFLOP/s
/// hipBLASLt reaches (about half the dense peak); no MI300X measurement of
/// TileTag's kernels stands behind them.
static const TargetModel kMI300X = [] {
  TargetModel m;
  m.chip = "gfx942";
  m.device = "AMD Instinct MI300X";
  m.sms = 304;
  m.clockGHz = 2.1;
  m.tensorFlopsPerCycle = 2048;
  // 2615 dense fp8 TFLOP/s (v_mfma_f32_32x32x16_fp8_fp8: twice the bf16
  // rate).
  m.fp8TensorFlopsPerCycle = 4096;
  // 4 SIMDs of 16 lanes: a wave64 instruction takes 4 cycles. (The 128
  // FP32 lanes a cycle of the datasheet's vector peak need packed FP32,
  // which the lowering's address and element work does not use.)
  m.cudaOpsPerCycle = 64;
  m.sfuOpsPerCycle = 16;
  m.l2BytesPerCycle = 64 * 0.85;
  m.dramBytesPerSecond = 5.3e12 * 0.85;
  m.l2Bytes = 256.0 * 1024 * 1024;
  m.memoryLatencyCycles = 900;
  m.sharedBytesPerSM = 64 * 1024;
  m.sharedBytesPerCTA = 64 * 1024;
  m.registersPerSM = 128 * 1024;
  m.threadsPerSM = 2048;
  m.ctasPerSM = 16;
  m.launchMicroseconds = 4;
  m.tensorEfficiencySync = 0.35;
  m.tensorEfficiencyAsync = 0.45;
  m.tensorEfficiencyCooperative = 0.52;
  m.stagesDotOperands = false;
  // The lowering's MFMA loop (test/Conversion/AMDGPU/convert-mfma.test's
  // kernel, 32x32x8): 111 VALU and 28 LDS-read instructions of 64 lanes per
  // 8 MFMAs of 16384 FLOP, for addresses, swizzle and the reads (A 8 bytes
  // a lane, B element by element); `bench/amd/metadata.py --mfma-loops`
  // counts them.
  m.mmaOperandOpsPerFlop = (111.0 + 28.0) * 64 / (8 * 16384);
  // The fp8 loop (32x32x16, A 8 bytes a lane, B byte by byte) of
  // examples/scripts/cdna/gemm.mlir applied to examples/naive/gemm_fp8.mlir
  // (`bench/amd/metadata.py --mfma-loops` on the result): 309 VALU and 96
  // LDS reads per 16 MFMAs of 32768 FLOP.
  m.fp8MmaOperandOpsPerFlop = (309.0 + 96.0) * 64 / (16 * 32768);
  // A wave's dword store from a 32x32 MFMA accumulator covers 32 columns
  // of 2 rows (2 lines for 64 elements), as it does from other tiles; the
  // vector memory path moves 64 bytes a cycle.
  m.storeLinesPerCycle = 0.5;
  m.storeLinesPerAccumulatorElement = 2.0 / 64;
  m.storeLinesPerElement = 2.0 / 64;
  m.fragmentRowsPerStore = 2;
  m.fragmentLanesPerRow = 32;
  m.fragmentColumnStride = 1;
  m.sharedWavefrontsPerCycle = 1;
  m.defaultRegistersPerThread = 128;
  m.source = "datasheet";
  return m;
}();

/// AMD Instinct MI250X, one of its two dies (CDNA2, gfx90a): 110 CUs at 1.7
/// GHz, 191.5 dense bf16 TFLOP/s (1024 FLOP per CU and cycle), 1.6 TB/s
/// HBM2e, 8 MiB L2, 64 KiB LDS and 512 KiB of registers per CU.
static const TargetModel kMI250X = [] {
  TargetModel m = kMI300X;
  m.chip = "gfx90a";
  m.device = "AMD Instinct MI250X (one die)";
  m.sms = 110;
  m.clockGHz = 1.7;
  m.tensorFlopsPerCycle = 1024;
  m.fp8TensorFlopsPerCycle = 0; // CDNA2 has no fp8 MFMA
  m.dramBytesPerSecond = 1.6e12 * 0.85;
  m.l2Bytes = 8.0 * 1024 * 1024;
  return m;
}();

const TargetModel *cost::lookupTarget(StringRef chip) {
  for (const TargetModel *m : {&kH200, &kMI300X, &kMI250X})
    if (chip == m->chip)
      return m;
  return nullptr;
}

std::string cost::targetNames() {
  return kH200.chip + ", " + kMI300X.chip + ", " + kMI250X.chip;
}

LogicalResult cost::applyCalibration(TargetModel &model, StringRef path,
                                     std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = (path + ": " + buffer.getError().message()).str();
    return failure();
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = (path + ": " + llvm::toString(parsed.takeError())).str();
    return failure();
  }
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object) {
    error = (path + ": expected a JSON object").str();
    return failure();
  }
  llvm::StringMap<double *> reals = {
      {"clockGHz", &model.clockGHz},
      {"tensorFlopsPerCycle", &model.tensorFlopsPerCycle},
      {"fp8TensorFlopsPerCycle", &model.fp8TensorFlopsPerCycle},
      {"cudaOpsPerCycle", &model.cudaOpsPerCycle},
      {"sfuOpsPerCycle", &model.sfuOpsPerCycle},
      {"l2BytesPerCycle", &model.l2BytesPerCycle},
      {"dramBytesPerSecond", &model.dramBytesPerSecond},
      {"l2Bytes", &model.l2Bytes},
      {"memoryLatencyCycles", &model.memoryLatencyCycles},
      {"launchMicroseconds", &model.launchMicroseconds},
      {"tensorEfficiencySync", &model.tensorEfficiencySync},
      {"tensorEfficiencyAsync", &model.tensorEfficiencyAsync},
      {"tensorEfficiencyCooperative", &model.tensorEfficiencyCooperative},
      {"mmaOperandOpsPerFlop", &model.mmaOperandOpsPerFlop},
      {"fp8MmaOperandOpsPerFlop", &model.fp8MmaOperandOpsPerFlop},
      {"storeLinesPerCycle", &model.storeLinesPerCycle},
      {"storeLinesPerAccumulatorElement",
       &model.storeLinesPerAccumulatorElement},
      {"storeLinesPerElement", &model.storeLinesPerElement},
      {"sharedWavefrontsPerCycle", &model.sharedWavefrontsPerCycle}};
  llvm::StringMap<int64_t *> integers = {
      {"sms", &model.sms},
      {"sharedBytesPerSM", &model.sharedBytesPerSM},
      {"sharedBytesPerCTA", &model.sharedBytesPerCTA},
      {"registersPerSM", &model.registersPerSM},
      {"threadsPerSM", &model.threadsPerSM},
      {"ctasPerSM", &model.ctasPerSM},
      {"defaultRegistersPerThread", &model.defaultRegistersPerThread}};
  for (const auto &[key, value] : *object) {
    StringRef name = key;
    if (name == "chip") {
      if (value.getAsString() != StringRef(model.chip)) {
        error = (path + ": calibration for chip '" +
                 value.getAsString().value_or("?") + "', not '" + model.chip +
                 "'")
                    .str();
        return failure();
      }
      continue;
    }
    if (name == "source" || name == "note" || name == "device") {
      if (name == "source" && value.getAsString())
        model.source = value.getAsString()->str();
      continue;
    }
    std::optional<double> number = value.getAsNumber();
    if (auto it = reals.find(name); it != reals.end() && number && *number > 0) {
      *it->second = *number;
      continue;
    }
    if (auto it = integers.find(name);
        it != integers.end() && number && *number >= 1 &&
        *number == static_cast<double>(static_cast<int64_t>(*number))) {
      *it->second = static_cast<int64_t>(*number);
      continue;
    }
    error = (path + ": field '" + name + "' " +
             (reals.count(name) || integers.count(name)
                  ? "needs a positive number"
                  : "is not a field of the model"))
                .str();
    return failure();
  }
  if (model.source == "datasheet")
    model.source = path.str();
  return success();
}

//===----------------------------------------------------------------------===//
// Counting one program
//===----------------------------------------------------------------------===//

namespace {

/// A unit that runs dots apart from the issuing threads' other work:
/// Hopper's wgmma, or CDNA's MFMA pipeline, which keeps multiplying while
/// the wave issues its next LDS reads.
bool isMatrixUnit(schedule::AsyncUnit unit) {
  return unit == schedule::AsyncUnit::wgmma ||
         unit == schedule::AsyncUnit::mfma;
}

/// What the iterations of one loop (or the straight-line code outside every
/// loop) of one program do, in total.
struct LoopCounts {
  double iterations = 0;
  double flops = 0, fp8Flops = 0; // matrix-unit FLOPs (all, of fp8 dots)
  // Matrix-unit time in bf16 FLOPs (an fp8 FLOP costs less where the chip
  // has a faster fp8 rate), waited for at once or in flight.
  double flopsSync = 0, flopsAsync = 0;
  double cudaOps = 0, sfuOps = 0;
  double threadLoadBytes = 0; // loads the computing threads wait for
  double prefetchBytes = 0;   // TMA copies issued ahead of their use
  double storeBytes = 0;
  double storeLines = 0;      // lines global store instructions touch
  // Written to the lowering's global workspace and read back (waited for).
  double workspaceBytes = 0;
  // TMA stores whose group stays in flight past the wait after them: they
  // move their bytes while the program goes on (the next tile's K loop).
  double storeBytesInFlight = 0;
  double sharedWavefronts = 0; // register-to-shared writes of accumulators
  int64_t ringSlots = 0;      // depth of the rings prefetched into
  int64_t tightestMmaWait = INT64_MAX;
  // Iterations that run at once: the threads or warps of a loop mapped to
  // them (each waits for its own loads, at the same time as the others).
  double concurrency = 1;
};

/// Whether `v` may differ between the runs of `user` that the innermost
/// loop around `user` makes (true outside loops: each run counts once).
static bool changesInInnermostLoop(Value v, Operation *user) {
  auto loop = user->getParentOfType<scf::ForOp>();
  return !loop || !loop.isDefinedOutsideOfLoop(v);
}

/// Whether the TMA store `copy` may still be in flight after the first
/// `wait_group tma` after it in its block (one with `pending` at least 1),
/// or after the block (no such wait there).
static bool storeStaysInFlight(tile::CopyOp copy) {
  auto async = copy->getParentOfType<schedule::AsyncOp>();
  if (!async || async.getUnit() != schedule::AsyncUnit::tma)
    return false;
  for (Operation *op = async->getNextNode(); op; op = op->getNextNode())
    if (auto wait = dyn_cast<schedule::WaitGroupOp>(op);
        wait && wait.getUnit() == schedule::AsyncUnit::tma)
      return wait.getPending() >= 1;
  return true;
}

/// The facts about a kernel that do not depend on the program.
struct KernelFacts {
  llvm::SmallPtrSet<Operation *, 4> rolesWithDots;
  int64_t consumerRoles = 0;
  int64_t warpgroups = 1;
  int64_t occupancy = 0; // programs per SM asked for (schedule.launch)
  int64_t sharedBytes = 0;
  std::optional<int64_t> roleRegisters; // sum over warpgroups, per thread
  /// Matrix-unit time of an fp8 FLOP relative to a bf16 one, or 0 where
  /// the chip's lowering multiplies fp8 on the vector lanes.
  double fp8MmaCost = 0;
  /// The target's store lines per element (TargetModel).
  double storeLinesPerAccumulatorElement = 0, storeLinesPerElement = 0;
  /// The target's accumulator fragment, as one store covers it.
  int64_t fragmentRowsPerStore = 0, fragmentLanesPerRow = 0,
          fragmentColumnStride = 0, fragmentElementsPerLane = 1;
  /// The chip's lowering of the kernel (registerLoweringPlanner), where
  /// `planned`.
  LoweringPlan lowering;
  bool planned = false;

  /// Whether the lowering computes `dot` element by element on the vector
  /// lanes: as planned, or without a plan, where the chip has no fp8
  /// matrix multiply and the dot is fp8.
  bool onVectorLanes(tile::DotOp dot) const {
    if (planned)
      return lowering.elementwiseDots.contains(dot);
    return tile::isFp8(dot.getLhs().getType().getElementType()) &&
           fp8MmaCost == 0;
  }
};

/// Shared-memory wavefronts of one store instruction writing an accumulator
/// fragment (`perLane` adjacent elements per lane) into a slot of `rows` rows
/// of `rowBytes` (`rows` 0: not 2-D):
/// per bank, the distinct 4-byte words its lanes hit. The slot is laid out
/// as the lowerings lay it out: rows of a multiple of 128 bytes in 128-byte
/// column panels, each row's 16-byte chunks XORed with the row mod 8 (the
/// TMA's 128-byte swizzle); other rows row-major.
static int64_t fragmentStoreWavefronts(const KernelFacts &facts,
                                       int64_t rows, int64_t rowBytes,
                                       int64_t elementBytes, int64_t perLane) {
  constexpr int64_t kSwizzle = 128;
  bool swizzled = rows > 0 && rowBytes % kSwizzle == 0;
  llvm::DenseMap<int64_t, llvm::SmallDenseSet<int64_t, 8>> wordsByBank;
  for (int64_t row = 0; row < facts.fragmentRowsPerStore; ++row)
    for (int64_t lane = 0; lane < facts.fragmentLanesPerRow; ++lane)
      for (int64_t e = 0; e < perLane * elementBytes; e += 4) {
        int64_t column = lane * facts.fragmentColumnStride * elementBytes + e;
        int64_t byte = row * rowBytes + column;
        if (swizzled)
          byte = column / kSwizzle * kSwizzle * rows +
                 layout::swizzle128B(row * kSwizzle + column % kSwizzle);
        int64_t word = byte / 4;
        wordsByBank[word % 32].insert(word);
      }
  size_t most = 1;
  for (auto &entry : wordsByBank)
    most = std::max<size_t>(most, entry.second.size());
  return static_cast<int64_t>(most);
}

/// Whether `v` is (computed element-wise from) a dot's result, which the
/// lowerings keep in the matrix unit's accumulator layout: through loop
/// and region results, and ops on tensors of its shape.
bool fromMatrixUnit(Value v) {
  // Element types may change on the way (a cast keeps the layout).
  auto sameShape = [shape = cast<ShapedType>(v.getType()).getShape()](Value x) {
    auto t = dyn_cast<ShapedType>(x.getType());
    return t && t.getShape() == shape;
  };
  llvm::SmallPtrSet<Value, 16> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second || !sameShape(x))
      continue;
    Operation *def = x.getDefiningOp();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      // A loop-carried value: its initial value and what the body yields.
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
          loop && arg.getArgNumber() >= 1) {
        unsigned i = arg.getArgNumber() - 1;
        work.push_back(loop.getInitArgs()[i]);
        work.push_back(loop.getBody()->getTerminator()->getOperand(i));
      }
      continue;
    }
    if (!def)
      continue;
    if (isa<tile::DotOp>(def))
      return true;
    auto result = cast<OpResult>(x);
    if (def->getNumRegions()) {
      // scf.for, scf.if, schedule.role, schedule.async: what they yield.
      for (Region &region : def->getRegions())
        for (Block &block : region)
          if (Operation *term = block.getTerminator();
              term && term->getNumOperands() > result.getResultNumber())
            work.push_back(term->getOperand(result.getResultNumber()));
      continue;
    }
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// A tile's identity in global memory, for the L2 model.
using TileKey = llvm::hash_code;

/// An L2 that evicts the least recently read tile, fed with the programs'
/// global tile reads in time order; a read of a tile not in it comes from
/// DRAM. This is what makes the tile order (launch order, a persistent
/// loop's order, rasterization) matter: programs that run together and
/// read the same tiles read them from DRAM once.
class LeastRecentlyUsedL2 {
public:
  explicit LeastRecentlyUsedL2(double capacity) : capacity(capacity) {}

  /// A read at `cycle` (from the kernel's start) of tile `key`.
  void read(double cycle, TileKey key, double bytes) {
    pending.push({cycle, nextSeq++, bytes, key});
  }

  /// No read still to come is earlier than `cycle` (programs start in
  /// order): the reads before it take effect, in time order. Only the
  /// reads of programs still running are held.
  void settle(double cycle) {
    while (!pending.empty() && pending.top().cycle < cycle) {
      access(pending.top());
      pending.pop();
    }
  }

  /// The bytes read from DRAM, all reads settled.
  double missedBytes() {
    settle(std::numeric_limits<double>::infinity());
    return missed;
  }

private:
  struct Read {
    double cycle;
    uint64_t seq; // ties in the order the reads came
    double bytes;
    TileKey key;
    bool operator>(const Read &o) const {
      return std::tie(cycle, seq) > std::tie(o.cycle, o.seq);
    }
  };

  void access(const Read &r) {
    if (auto it = cached.find(r.key); it != cached.end()) {
      recent.splice(recent.begin(), recent, it->second);
      return;
    }
    missed += r.bytes;
    recent.emplace_front(r.key, r.bytes);
    cached[r.key] = recent.begin();
    held += r.bytes;
    while (held > capacity && !recent.empty()) {
      held -= recent.back().second;
      cached.erase(recent.back().first);
      recent.pop_back();
    }
  }

  double capacity, held = 0, missed = 0;
  uint64_t nextSeq = 0;
  std::priority_queue<Read, std::vector<Read>, std::greater<Read>> pending;
  /// Most recently read first.
  std::list<std::pair<TileKey, double>> recent;
  llvm::DenseMap<TileKey, std::list<std::pair<TileKey, double>>::iterator>
      cached;
};

class ProgramWalker {
public:
  ProgramWalker(tile::KernelOp kernel, const KernelFacts &facts,
                const llvm::DenseMap<Value, SmallVector<int64_t>> &shapes,
                const llvm::DenseMap<Value, int64_t> &scalars,
                ArrayRef<int64_t> grid, int64_t evenSplitExtent,
                int64_t &budget)
      : kernel(kernel), facts(facts), shapes(shapes), grid(grid),
        evenSplitExtent(evenSplitExtent), budget(budget) {
    // Every value of the kernel gets a slot; slot 0 stands for values
    // defined outside it, never known.
    widths.push_back(64);
    auto number = [&](Value v) {
      slots[v] = widths.size();
      unsigned width = exec::integerWidth(v.getType());
      widths.push_back(width ? width : 64);
    };
    SmallVector<Block *> blocks;
    kernel->walk([&](Block *block) {
      blockIndex[block] = blocks.size();
      blocks.push_back(block);
      for (BlockArgument arg : block->getArguments())
        number(arg);
      for (Operation &op : *block)
        for (Value result : op.getResults())
          number(result);
    });
    values.resize(widths.size());
    blockSteps.resize(blocks.size());
    for (auto [block, steps] : llvm::zip(blocks, blockSteps))
      for (Operation &op : *block)
        steps.push_back(stepOf(op));
    for (auto [arg, v] : scalars)
      scalarSlots.push_back({slotOf(arg), v});
  }

  /// Walks the program `pid`; fills `loops` (key null: outside loops) and
  /// the tiles it touches.
  LogicalResult run(ArrayRef<int64_t> pid,
                    llvm::MapVector<Operation *, LoopCounts> &loops,
                    std::vector<std::pair<TileKey, double>> &tiles) {
    programId = pid;
    this->loops = &loops;
    this->tiles = &tiles;
    known.assign(widths.size(), false);
    for (auto [slot, v] : scalarSlots)
      set(slot, v);
    loops[nullptr].iterations = 1;
    loopIndex = loops.find(nullptr) - loops.begin();
    return walkBlock(blockIndex.lookup(&kernel.getBody().front()));
  }

  std::vector<std::string> assumptions;
  llvm::SmallPtrSet<Operation *, 4> prefetching;

private:
  tile::KernelOp kernel;
  const KernelFacts &facts;
  const llvm::DenseMap<Value, SmallVector<int64_t>> &shapes;
  ArrayRef<int64_t> grid;
  int64_t evenSplitExtent;
  int64_t &budget;

  /// The integer values of the program being walked, by slot. A value
  /// keeps what it was last given (a later unknown does not erase it),
  /// except an iteration argument a loop yields unknown.
  llvm::DenseMap<Value, unsigned> slots;
  std::vector<unsigned> widths;
  std::vector<llvm::APInt> values;
  std::vector<bool> known;
  SmallVector<std::pair<unsigned, int64_t>> scalarSlots;

  ArrayRef<int64_t> programId;
  llvm::MapVector<Operation *, LoopCounts> *loops = nullptr;
  std::vector<std::pair<TileKey, double>> *tiles = nullptr;
  Operation *loop = nullptr;       // innermost loop being walked
  size_t loopIndex = 0;            // its entry in `loops` (entries move)
  Operation *role = nullptr;       // innermost schedule.role
  std::optional<schedule::AsyncUnit> async;
  /// Ring slots read and prefetched in the current iteration.
  llvm::DenseSet<llvm::hash_code> slotsRead, slotsCopied;

  /// What the walk does with an op, decided once per op together with the
  /// work it adds on every visit where that does not depend on values and
  /// the slots of the values it reads: a block is walked once per iteration
  /// of every program (tens of millions of visits at 8192^3).
  enum class Kind : uint8_t {
    IntegerConstant,
    Constant,
    ScalarInteger,
    Dot,
    Load,
    Store,
    Reduce,
    Elementwise, // tile work the model counts per element, no regions
    ProgramId,
    NumPrograms,
    Dim,
    ScalarLoad, // memref.load of an offset
    For,
    If,
    Role,
    Async,
    WaitGroup,
    Copy,
    Read,
    Other, // counted per element, and its regions walked once
  };
  struct Step {
    Operation *op = nullptr;
    Kind kind = Kind::Other;
    llvm::APInt constant;          // of an IntegerConstant
    std::optional<exec::IntegerOp> integer; // of a ScalarInteger
    double flops = 0, cudaOps = 0, sfuOps = 0, bytes = 0;
    double storeLines = 0; // Store: lines its instructions touch
    double sharedWavefronts = 0; // Elementwise: a write to shared memory
    double tensorWork = 0; // Dot: flops in bf16 matrix-unit FLOPs
    /// Bytes the lowering stores to its global workspace and reads back at
    /// each run, with the threads' instructions and store lines for them.
    double workspaceBytes = 0, workspaceOps = 0, workspaceLines = 0;
    bool fp8Mma = false;   // Dot: fp8 inputs on the matrix unit
    SmallVector<unsigned, 4> operands; // slots of the op's operands
    SmallVector<unsigned, 2> results;  // slots of its results
    /// Load, Copy: the global tile for the footprint (the memref, slots of
    /// its indices and offsets, a hash of the tile's shape).
    const void *memref = nullptr;
    SmallVector<unsigned, 4> tileIndices;
    llvm::hash_code shapeHash = 0;
    /// Copy, Read: the ring and the slots of the ring-slot indices.
    const void *ring = nullptr;
    SmallVector<unsigned, 2> ringIndices;
    bool toShared = false;   // Copy: global to shared
    bool inFlight = false;   // Copy to global: see LoopCounts
    int64_t ringDepth = 0;   // Copy: slots of the ring
    /// ProgramId, NumPrograms: the dimension; WaitGroup: groups pending.
    int64_t number = 0;
    std::optional<schedule::AsyncUnit> unit; // Async, WaitGroup
    /// The blocks of its regions (For: the body; If: then, else).
    SmallVector<unsigned, 2> blocks;
  };
  /// The steps of every block of the kernel, by block number.
  std::vector<std::vector<Step>> blockSteps;
  llvm::DenseMap<Block *, unsigned> blockIndex;

  unsigned slotOf(Value v) const { return slots.lookup(v); }

  SmallVector<unsigned, 4> slotsOf(ValueRange range) const {
    SmallVector<unsigned, 4> out;
    for (Value v : range)
      out.push_back(slotOf(v));
    return out;
  }

  void setTile(Step &step, Value memref, ValueRange indices,
               ValueRange offsets, ArrayRef<int64_t> shape) {
    step.memref = memref.getAsOpaquePointer();
    step.tileIndices = slotsOf(indices);
    step.tileIndices.append(slotsOf(offsets));
    step.shapeHash = llvm::hash_combine_range(shape.begin(), shape.end());
  }

  Step stepOf(Operation &op) {
    Step step;
    step.op = &op;
    step.operands = slotsOf(op.getOperands());
    for (Value result : op.getResults())
      step.results.push_back(slotOf(result));
    for (Region &region : op.getRegions())
      for (Block &block : region)
        step.blocks.push_back(blockIndex.lookup(&block));
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      step.kind = Kind::Constant;
      if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
        step.kind = Kind::IntegerConstant;
        step.constant = i.getValue();
      }
    } else if ((step.integer = exec::decodeIntegerOp(&op))) {
      step.kind = Kind::ScalarInteger;
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      step.kind = Kind::Dot;
      auto lhs = cast<ShapedType>(dot.getLhs().getType());
      auto rhs = cast<ShapedType>(dot.getRhs().getType());
      double flops =
          2.0 * lhs.getDimSize(0) * lhs.getDimSize(1) * rhs.getDimSize(1);
      bool fp8 = tile::isFp8(lhs.getElementType());
      bool onLanes = facts.onVectorLanes(dot);
      if (onLanes) {
        // The lowering multiplies element by element: per multiply-add (two
        // FLOPs) it loads both operand elements and, for fp8, widens each
        // (conversion::decodeFp8ToF32: about 20 instructions).
        constexpr double kFp8DecodeOps = 20;
        step.cudaOps += flops / 2 * (3 + (fp8 ? 2 * kFp8DecodeOps : 0));
      } else if (!fp8) {
        step.flops = step.tensorWork = flops;
      } else {
        step.flops = flops;
        step.tensorWork = flops * facts.fp8MmaCost;
        step.fp8Mma = true;
      }
      // An operand the lowering stages is stored into shared memory by the
      // threads, element by element, before the MMA reads it. Without a
      // plan: one that is not a ring slot, unless the innermost loop around
      // the dot does not change it (the Hopper lowering's enterLoop stages
      // that once, before the loop).
      for (unsigned i : {0u, 1u})
        if (Value operand = dot->getOperand(i);
            facts.planned ? facts.lowering.stagedAtDot.contains({dot, i})
                          : !onLanes && !tile::slotReadOf(dot, i) &&
                                changesInInnermostLoop(operand, dot))
          step.cudaOps += static_cast<double>(
              cast<ShapedType>(operand.getType()).getNumElements());
    } else if (auto load = dyn_cast<tile::LoadOp>(op)) {
      step.kind = Kind::Load;
      step.bytes = bytesOf(load.getType());
      // The threads load element by element.
      step.cudaOps = static_cast<double>(load.getType().getNumElements());
      setTile(step, load.getSource(), load.getIndices(), load.getOffsets(),
              load.getType().getShape());
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      step.kind = Kind::Store;
      auto type = cast<ShapedType>(store.getValue().getType());
      step.bytes = bytesOf(type);
      double perElement = facts.storeLinesPerElement;
      if (fromMatrixUnit(store.getValue())) {
        // A lane's adjacent columns go out as one vector store (its lines
        // as wide as the run), unless the store combines (atomic adds) or
        // the run would not fit in 16 bytes or a row. The model assumes
        // the run aligned in memory, which the lowering checks at run time.
        int64_t elementBytes = std::max<int64_t>(
            1, type.getElementTypeBitWidth() / 8);
        int64_t perLane = facts.fragmentElementsPerLane;
        if (store.getCombine() ||
            !layout::isVectorRun(perLane * elementBytes,
                                 type.getShape().back() * elementBytes))
          perLane = 1;
        perElement = facts.storeLinesPerAccumulatorElement /
                     static_cast<double>(perLane);
      }
      step.storeLines = static_cast<double>(type.getNumElements()) * perElement;
    } else if (auto write = dyn_cast<tile::WriteOp>(op);
               write && fromMatrixUnit(write.getValue()) &&
               facts.fragmentRowsPerStore > 0) {
      // An accumulator from registers into shared memory, an element per
      // lane and store, the wavefronts its bank conflicts cost.
      step.kind = Kind::Elementwise;
      auto type = cast<ShapedType>(write.getValue().getType());
      auto buffer = cast<MemRefType>(write.getBuffer().getType());
      int64_t elementBytes =
          std::max<int64_t>(1, buffer.getElementTypeBitWidth() / 8);
      double n = static_cast<double>(type.getNumElements());
      int64_t rowBytes = type.getShape().back() * elementBytes;
      // A lane's run of adjacent columns is one vector store where it fits
      // in 16 bytes and in a row, as the lowerings emit it.
      int64_t perLane = facts.fragmentElementsPerLane;
      if (!layout::isVectorRun(perLane * elementBytes, rowBytes))
        perLane = 1;
      int64_t lanes = facts.fragmentRowsPerStore * facts.fragmentLanesPerRow;
      step.cudaOps = n;
      step.sharedWavefronts =
          n / static_cast<double>(lanes * perLane) *
          static_cast<double>(fragmentStoreWavefronts(
              facts, type.getRank() == 2 ? type.getShape().front() : 0,
              rowBytes, elementBytes, perLane));
    } else if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      step.kind = Kind::Reduce;
      step.cudaOps = static_cast<double>(
          cast<ShapedType>(reduce.getInput().getType()).getNumElements());
    } else if (auto copy = dyn_cast<tile::CopyOp>(op)) {
      step.kind = Kind::Copy;
      step.toShared = copy.isGlobalToShared();
      Value shared = copy.getShared();
      auto sharedType = cast<MemRefType>(shared.getType());
      ValueRange slot = copy.getSlotIndices();
      ArrayRef<int64_t> shape = copy.getTileShape();
      step.bytes =
          static_cast<double>(
              std::max<unsigned>(1, sharedType.getElementTypeBitWidth() / 8)) *
          static_cast<double>(ShapedType::getNumElements(shape));
      if (!step.toShared)
        step.inFlight = storeStaysInFlight(copy);
      if (step.toShared) {
        setTile(step, copy.getGlobal(), copy.getBlockIndices(),
                copy.getOffsets(), shape);
        step.ring = shared.getAsOpaquePointer();
        step.ringIndices = slotsOf(slot);
        step.ringDepth = ShapedType::getNumElements(
            sharedType.getShape().take_front(slot.size()));
      }
    } else if (auto read = dyn_cast<tile::ReadOp>(op)) {
      step.kind = Kind::Read;
      step.ring = read.getBuffer().getAsOpaquePointer();
      step.ringIndices = slotsOf(read.getIndices());
    } else if (auto p = dyn_cast<tile::ProgramIdOp>(op)) {
      step.kind = Kind::ProgramId;
      step.number = p.getDim();
    } else if (auto p = dyn_cast<tile::NumProgramsOp>(op)) {
      step.kind = Kind::NumPrograms;
      step.number = p.getDim();
    } else if (isa<memref::DimOp>(op)) {
      step.kind = Kind::Dim;
    } else if (isa<memref::LoadOp>(op)) {
      step.kind = Kind::ScalarLoad;
    } else if (isa<scf::ForOp>(op)) {
      step.kind = Kind::For;
    } else if (isa<scf::IfOp>(op)) {
      step.kind = Kind::If;
    } else if (isa<schedule::RoleOp>(op)) {
      step.kind = Kind::Role;
    } else if (auto a = dyn_cast<schedule::AsyncOp>(op)) {
      step.kind = Kind::Async;
      step.unit = a.getUnit();
    } else if (auto w = dyn_cast<schedule::WaitGroupOp>(op)) {
      step.kind = Kind::WaitGroup;
      step.unit = w.getUnit();
      step.number = w.getPending();
    } else {
      // Element-wise work on tiles: one lane-operation per element. Region
      // ops the model does not know also run their regions once (Other).
      step.kind = op.getNumRegions() ? Kind::Other : Kind::Elementwise;
      for (Type t : op.getResultTypes())
        if (auto shaped = dyn_cast<RankedTensorType>(t)) {
          if (isa<tile::BroadcastOp>(op) ||
              op.getDialect()->getNamespace() == "tag")
            continue;
          double n = static_cast<double>(shaped.getNumElements());
          (isSpecialFunction(&op) ? step.sfuOps : step.cudaOps) += n;
        }
    }
    if (auto it = facts.lowering.workspace.find(&op);
        it != facts.lowering.workspace.end()) {
      // Stored by the threads element-parallel, then loaded back.
      auto [bytes, elements] = it->second;
      step.workspaceBytes = static_cast<double>(bytes);
      step.workspaceOps = 2.0 * static_cast<double>(elements);
      step.workspaceLines =
          static_cast<double>(elements) * facts.storeLinesPerElement;
    }
    return step;
  }

  LoopCounts &counts() { return (loops->begin() + loopIndex)->second; }

  void assume(std::string text) {
    if (llvm::find(assumptions, text) == assumptions.end())
      assumptions.push_back(std::move(text));
  }

  std::optional<int64_t> value(unsigned slot) const {
    if (!known[slot])
      return std::nullopt;
    return values[slot].getSExtValue();
  }

  void set(unsigned slot, int64_t x) {
    if (!slot)
      return;
    values[slot] = llvm::APInt(widths[slot], static_cast<uint64_t>(x),
                               /*isSigned=*/true, /*implicitTrunc=*/true);
    known[slot] = true;
  }

  void set(unsigned slot, const llvm::APInt &x) {
    if (!slot)
      return;
    values[slot] = x;
    known[slot] = true;
  }

  /// Copies the known values of `from` into `to`, pairwise.
  void setAll(ArrayRef<unsigned> to, ArrayRef<unsigned> from) {
    for (auto [dst, src] : llvm::zip(to, from))
      if (auto x = value(src))
        set(dst, *x);
  }

  LogicalResult indexOf(Operation *op, unsigned slot, int64_t &out) {
    std::optional<int64_t> x = value(slot);
    if (!x)
      return mlir::emitError(op->getLoc())
             << "cost model: cannot evaluate this index value for the "
                "estimate (it depends on data the model does not know)";
    out = *x;
    return success();
  }

  static double bytesOf(ShapedType type) {
    return static_cast<double>(type.getNumElements()) *
           std::max<unsigned>(1, type.getElementTypeBitWidth() / 8);
  }

  /// The identity of a value-indexed place: `base` and the values of
  /// `indices` (an unknown one as INT64_MIN).
  llvm::hash_code keyOf(const void *base, ArrayRef<unsigned> indices) const {
    llvm::hash_code h = llvm::hash_value(base);
    for (unsigned slot : indices) {
      std::optional<int64_t> x = value(slot);
      h = llvm::hash_combine(h, x ? *x : INT64_MIN);
    }
    return h;
  }

  /// Records a global tile access for the wave footprint.
  void touch(const Step &step) {
    tiles->push_back({llvm::hash_combine(keyOf(step.memref, step.tileIndices),
                                         step.shapeHash),
                      step.bytes});
  }

  static bool isSpecialFunction(Operation *op) {
    return isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
               math::SqrtOp, math::RsqrtOp, math::TanhOp, math::ErfOp>(op);
  }

  LogicalResult walkBlock(unsigned block) {
    for (const Step &step : blockSteps[block])
      if (failed(walk(step)))
        return failure();
    return success();
  }

  /// The slots a block's terminator yields.
  ArrayRef<unsigned> yielded(unsigned block) {
    const std::vector<Step> &steps = blockSteps[block];
    return steps.empty() ? ArrayRef<unsigned>() : steps.back().operands;
  }

  LogicalResult walkLoop(const Step &step) {
    auto forOp = cast<scf::ForOp>(step.op);
    int64_t lb, ub, stride;
    if (failed(indexOf(forOp, step.operands[0], lb)) ||
        failed(indexOf(forOp, step.operands[1], ub)) ||
        failed(indexOf(forOp, step.operands[2], stride)))
      return failure();
    if (stride <= 0)
      return mlir::emitError(forOp.getLoc(),
                             "cost model: the loop's step is not positive");
    Operation *outer = loop;
    size_t outerIndex = loopIndex;
    loop = forOp;
    // A loop that runs no iteration still has its entry.
    loopIndex = loops->insert({forOp, LoopCounts()}).first - loops->begin();
    if (auto map = forOp->getAttrOfType<schedule::ParallelLevelAttr>(
            schedule::ScheduleDialect::kMapAttrName)) {
      auto role = forOp->getParentOfType<schedule::RoleOp>();
      int64_t threads =
          128 * (role ? static_cast<int64_t>(role.getWarpgroups().size())
                      : facts.warpgroups);
      if (map.getValue() == schedule::ParallelLevel::thread)
        counts().concurrency = threads;
      else if (map.getValue() == schedule::ParallelLevel::warp)
        counts().concurrency = threads / 32;
    }
    unsigned body = step.blocks[0];
    unsigned inductionVar = slotOf(forOp.getInductionVar());
    SmallVector<unsigned, 4> iterArgs = slotsOf(forOp.getRegionIterArgs());
    ArrayRef<unsigned> inits = ArrayRef(step.operands).drop_front(3);
    ArrayRef<unsigned> nexts = yielded(body);
    setAll(iterArgs, inits);
    for (int64_t iv = lb; iv < ub; iv += stride) {
      if (--budget < 0)
        return mlir::emitError(
            forOp.getLoc(),
            "cost model: too many loop iterations to walk at these sizes");
      set(inductionVar, iv);
      slotsRead.clear();
      slotsCopied.clear();
      counts().iterations += 1;
      if (failed(walkBlock(body)))
        return failure();
      // A TMA copy into a slot this iteration does not read fills a later
      // iteration's operands: the loop prefetches.
      for (llvm::hash_code slot : slotsCopied)
        if (!slotsRead.contains(slot))
          prefetching.insert(forOp);
      // Yielded values are all read before any iteration argument is set.
      SmallVector<std::optional<int64_t>, 4> next;
      for (unsigned slot : nexts)
        next.push_back(value(slot));
      for (auto [arg, x] : llvm::zip(iterArgs, next)) {
        if (x)
          set(arg, *x);
        else
          known[arg] = false;
      }
    }
    setAll(step.results, iterArgs);
    loop = outer;
    loopIndex = outerIndex;
    return success();
  }

  LogicalResult walkRegionWithYield(unsigned body, ArrayRef<unsigned> results) {
    if (failed(walkBlock(body)))
      return failure();
    setAll(results, yielded(body));
    return success();
  }

  LogicalResult walk(const Step &step) {
    if (step.workspaceBytes > 0) {
      counts().workspaceBytes += step.workspaceBytes;
      counts().cudaOps += step.workspaceOps;
      counts().storeLines += step.workspaceLines;
    }
    Operation &op = *step.op;
    if (--budget < 0)
      return mlir::emitError(
          op.getLoc(), "cost model: too many operations to walk at these sizes");
    switch (step.kind) {
    case Kind::IntegerConstant:
      set(step.results[0], step.constant);
      return success();
    case Kind::Constant:
      return success();
    case Kind::ScalarInteger: {
      SmallVector<llvm::APInt, 3> operands;
      for (unsigned slot : step.operands) {
        if (!known[slot])
          return success(); // stays unknown; an error only where it is used
        operands.push_back(values[slot]);
      }
      std::string undefined;
      FailureOr<llvm::APInt> result =
          exec::evaluateIntegerOp(*step.integer, operands, undefined);
      if (succeeded(result))
        set(step.results[0], *result);
      return success();
    }
    case Kind::Dot:
      counts().flops += step.flops;
      if (step.fp8Mma)
        counts().fp8Flops += step.flops;
      if (async && isMatrixUnit(*async))
        counts().flopsAsync += step.tensorWork;
      else
        counts().flopsSync += step.tensorWork;
      counts().cudaOps += step.cudaOps;
      return success();
    case Kind::Load:
      counts().threadLoadBytes += step.bytes;
      counts().cudaOps += step.cudaOps;
      touch(step);
      return success();
    case Kind::Store:
      counts().storeBytes += step.bytes;
      counts().storeLines += step.storeLines;
      return success();
    case Kind::Reduce:
    case Kind::Elementwise:
      counts().cudaOps += step.cudaOps;
      counts().sfuOps += step.sfuOps;
      counts().sharedWavefronts += step.sharedWavefronts;
      return success();
    case Kind::ProgramId:
      set(step.results[0], programId[step.number]);
      return success();
    case Kind::NumPrograms:
      set(step.results[0], grid[step.number]);
      return success();
    case Kind::Dim: {
      auto dim = cast<memref::DimOp>(op);
      auto shape = shapes.find(dim.getSource());
      std::optional<int64_t> d = dim.getConstantIndex();
      if (!d)
        d = value(step.operands[1]);
      if (shape == shapes.end() || !d || *d < 0 ||
          *d >= static_cast<int64_t>(shape->second.size()))
        return success();
      set(step.results[0], shape->second[*d]);
      return success();
    }
    case Kind::ScalarLoad: {
      auto load = cast<memref::LoadOp>(op);
      auto arg = dyn_cast<BlockArgument>(load.getMemRef());
      if (!arg || load.getIndices().size() != 1 ||
          !exec::integerWidth(load.getType()))
        return success();
      if (!kernel.getArgAttr(arg.getArgNumber(),
                             tile::TileDialect::kNondecreasingAttrName))
        return success();
      int64_t index;
      if (failed(indexOf(load, step.operands[1], index)))
        return failure();
      int64_t parts = shapes.lookup(arg).front() - 1;
      set(step.results[0], parts > 0 ? index * evenSplitExtent / parts : 0);
      assume("sorted offsets split the rows evenly (" +
             std::to_string(evenSplitExtent) + " rows in " +
             std::to_string(std::max<int64_t>(parts, 0)) + " parts)");
      return success();
    }
    case Kind::For:
      return walkLoop(step);
    case Kind::If: {
      std::optional<int64_t> cond = value(step.operands[0]);
      if (!cond) {
        assume("a condition on data is taken as true");
        cond = 1;
      }
      if (*cond)
        return walkRegionWithYield(step.blocks[0], step.results);
      if (step.blocks.size() < 2)
        return success();
      return walkRegionWithYield(step.blocks[1], step.results);
    }
    case Kind::Role: {
      Operation *outer = role;
      role = &op;
      LogicalResult result = walkRegionWithYield(step.blocks[0], step.results);
      role = outer;
      return result;
    }
    case Kind::Async: {
      auto outer = async;
      async = step.unit;
      LogicalResult result = walkRegionWithYield(step.blocks[0], step.results);
      async = outer;
      return result;
    }
    case Kind::WaitGroup:
      if (step.unit && isMatrixUnit(*step.unit) && loop)
        counts().tightestMmaWait =
            std::min(counts().tightestMmaWait, step.number);
      return success();
    case Kind::Copy: {
      if (!step.toShared) {
        counts().storeBytes += step.bytes;
        if (step.inFlight)
          counts().storeBytesInFlight += step.bytes;
        return success();
      }
      touch(step);
      bool ahead = async == schedule::AsyncUnit::tma &&
                   (!role || !facts.rolesWithDots.contains(role));
      if (async == schedule::AsyncUnit::tma) {
        slotsCopied.insert(keyOf(step.ring, step.ringIndices));
        counts().ringSlots = std::max(counts().ringSlots, step.ringDepth);
      }
      if (ahead && loop)
        prefetching.insert(loop);
      if (async == schedule::AsyncUnit::tma)
        counts().prefetchBytes += step.bytes;
      else
        counts().threadLoadBytes += step.bytes;
      return success();
    }
    case Kind::Read:
      slotsRead.insert(keyOf(step.ring, step.ringIndices));
      return success();
    case Kind::Other:
      counts().cudaOps += step.cudaOps;
      counts().sfuOps += step.sfuOps;
      for (unsigned block : step.blocks)
        if (failed(walkBlock(block)))
          return failure();
      return success();
    }
    llvm_unreachable("every kind of step is handled");
  }
};

KernelFacts kernelFacts(tile::KernelOp kernel, const TargetModel &model,
                        std::optional<LoweringPlan> plan) {
  KernelFacts facts;
  if (plan) {
    facts.lowering = std::move(*plan);
    facts.planned = true;
  }
  facts.storeLinesPerAccumulatorElement = model.storeLinesPerAccumulatorElement;
  facts.storeLinesPerElement = model.storeLinesPerElement;
  facts.fragmentRowsPerStore = model.fragmentRowsPerStore;
  facts.fragmentLanesPerRow = model.fragmentLanesPerRow;
  facts.fragmentColumnStride = model.fragmentColumnStride;
  facts.fragmentElementsPerLane = model.fragmentElementsPerLane;
  if (model.fp8TensorFlopsPerCycle > 0)
    facts.fp8MmaCost = model.tensorFlopsPerCycle / model.fp8TensorFlopsPerCycle;
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName)) {
    facts.warpgroups = launch.getWarpgroups();
    facts.occupancy = launch.getOccupancy();
  }
  llvm::DenseMap<int64_t, int64_t> regsOfWarpgroup;
  kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<tile::AllocSharedOp>(op)) {
      MemRefType t = alloc.getType();
      facts.sharedBytes +=
          t.getNumElements() * std::max<unsigned>(1, t.getElementTypeBitWidth() / 8);
    } else if (auto init = dyn_cast<schedule::MBarrierInitOp>(op)) {
      if (!init.getNamed()) // hardware barriers take no shared memory
        facts.sharedBytes += 8 * init.getType().getSize();
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      if (auto r = dot->getParentOfType<schedule::RoleOp>())
        facts.rolesWithDots.insert(r);
      // Staging space for operands that are not ring slots (as the Hopper
      // lowering lays it out: 1024-byte aligned, one area per operand).
      for (unsigned i : {0u, 1u})
        if (Value operand = dot->getOperand(i);
            model.stagesDotOperands && !facts.onVectorLanes(dot) &&
            !tile::slotReadOf(dot, i)) {
          auto type = cast<ShapedType>(operand.getType());
          facts.sharedBytes = llvm::alignTo(facts.sharedBytes, 1024) +
                              type.getNumElements() *
                                  std::max<unsigned>(
                                      1, type.getElementTypeBitWidth() / 8);
        }
    } else if (auto r = dyn_cast<schedule::RoleOp>(op)) {
      if (std::optional<uint64_t> regs = r.getRegs())
        for (int64_t wg : r.getWarpgroups())
          regsOfWarpgroup[wg] = static_cast<int64_t>(*regs);
    }
  });
  // The lowering's own figure where it planned the kernel (what it stages
  // and what stays in registers is known only there).
  if (facts.planned)
    facts.sharedBytes = facts.lowering.sharedBytes;
  llvm::DenseSet<StringRef> consumers;
  for (Operation *r : facts.rolesWithDots)
    consumers.insert(cast<schedule::RoleOp>(r).getName());
  facts.consumerRoles = consumers.size();
  if (!regsOfWarpgroup.empty() &&
      static_cast<int64_t>(regsOfWarpgroup.size()) == facts.warpgroups) {
    int64_t sum = 0;
    for (auto [wg, regs] : regsOfWarpgroup)
      sum += regs;
    facts.roleRegisters = sum / facts.warpgroups;
  }
  return facts;
}

/// The cycles one program spends in one loop on its own, and the cycles
/// the SM's shared units (tensor cores, L2 port, CUDA cores) are busy with it.
struct LoopTime {
  double alone = 0;
  double tensor = 0, memory = 0, cuda = 0;
  /// The term that dominates `alone`, and what limits `memory`.
  StringRef bound, memoryBound;
};

/// The largest of `terms` (value, name).
static StringRef largest(ArrayRef<std::pair<double, StringRef>> terms) {
  return std::max_element(terms.begin(), terms.end(),
                          [](auto &a, auto &b) { return a.first < b.first; })
      ->second;
}

LoopTime loopTime(const LoopCounts &c, bool prefetching, int64_t consumerRoles,
                  const TargetModel &m) {
  LoopTime t;
  bool inFlight = c.tightestMmaWait >= 1 && c.flopsAsync > 0;
  double asyncEff = consumerRoles >= 2 ? m.tensorEfficiencyCooperative
                    : inFlight         ? m.tensorEfficiencyAsync
                                       : m.tensorEfficiencySync;
  double tensorPeak = m.tensorFlopsPerCycle;
  t.tensor = c.flopsSync / (tensorPeak * m.tensorEfficiencySync) +
             c.flopsAsync / (tensorPeak * asyncEff);
  t.cuda = (c.cudaOps + (c.flops - c.fp8Flops) * m.mmaOperandOpsPerFlop +
            c.fp8Flops * m.fp8MmaOperandOpsPerFlop) /
               m.cudaOpsPerCycle +
           c.sfuOps / m.sfuOpsPerCycle +
           (m.sharedWavefrontsPerCycle > 0
                ? c.sharedWavefronts / m.sharedWavefrontsPerCycle
                : 0);
  // Element-wise work overlaps dots that are in flight, or that another
  // consumer warpgroup issues.
  bool overlap = inFlight || consumerRoles >= 2;
  double compute = overlap ? std::max(t.tensor, t.cuda) : t.tensor + t.cuda;
  // Workspace bytes are stored and loaded back through L2, the load waited
  // for like the threads' own loads.
  double waitedLoadBytes = c.threadLoadBytes + c.workspaceBytes;
  double loadBytes = waitedLoadBytes + c.prefetchBytes;
  double storeBytes = c.storeBytes + c.workspaceBytes;
  // Stores from registers take the store path a line at a time; a TMA
  // store moves whole lines (its bytes count as bandwidth only).
  double storeInstructions =
      m.storeLinesPerCycle > 0 ? c.storeLines / m.storeLinesPerCycle : 0;
  t.memory = std::max((loadBytes + storeBytes) / m.l2BytesPerCycle,
                      storeInstructions);
  // The program itself waits for all but the stores left in flight (the
  // SM's L2 port, `memory`, carries them all).
  double memoryWaited =
      std::max((loadBytes + storeBytes - c.storeBytesInFlight) /
                   m.l2BytesPerCycle,
               storeInstructions);
  StringRef memoryBound = storeInstructions * m.l2BytesPerCycle >
                                 loadBytes + storeBytes
                             ? "global store instructions"
                             : "L2 bandwidth";
  t.memoryBound = memoryBound;
  double latency = m.memoryLatencyCycles;
  // Round trips one after another: concurrent iterations overlap theirs.
  double trips = c.iterations / c.concurrency;
  if (waitedLoadBytes == 0 && c.prefetchBytes > 0 && prefetching) {
    // Copies run up to (slots - 1) iterations ahead of their use.
    double ahead = std::max<int64_t>(c.ringSlots - 1, 1);
    double exposed = c.iterations * latency / ahead;
    t.alone = std::max({compute, memoryWaited, exposed}) + latency;
    t.bound = largest({{t.tensor, "tensor"},
                       {t.cuda, "CUDA cores"},
                       {t.memory, memoryBound},
                       {exposed, "memory latency"}});
  } else if (loadBytes > 0) {
    // Each iteration waits for its own loads.
    t.alone = compute + memoryWaited + trips * latency;
    t.bound = largest({{t.tensor, "tensor"},
                       {t.cuda, "CUDA cores"},
                       {t.memory, memoryBound},
                       {trips * latency, "memory latency"}});
  } else {
    t.alone = compute + memoryWaited;
    t.bound = largest({{t.tensor, "tensor"},
                       {t.cuda, "CUDA cores"},
                       {t.memory, memoryBound}});
  }
  return t;
}

} // namespace

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

static std::mutex plannersMutex;
static llvm::StringMap<LoweringPlanner> &planners() {
  static llvm::StringMap<LoweringPlanner> byChip;
  return byChip;
}

void cost::registerLoweringPlanner(StringRef chip, LoweringPlanner planner) {
  std::lock_guard<std::mutex> lock(plannersMutex);
  planners()[chip] = std::move(planner);
}

FailureOr<Estimate> cost::estimateKernel(tile::KernelOp kernel,
                                         const TargetModel &m,
                                         const EstimateOptions &options) {
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>("tile.launch");
  if (!launch)
    return mlir::emitError(kernel.getLoc(), "cost model: the kernel has no 'tile.launch' "
                            "(sizes, grid and shapes) to estimate it at");
  if (options.sizes.size() != launch.getSizeNames().size())
    return mlir::emitError(kernel.getLoc(), "cost model: expected ")
           << launch.getSizeNames().size() << " sizes";
  Estimate est;
  est.kernel = kernel.getSymName().str();
  SmallVector<int64_t> grid = launch.evaluateGrid(options.sizes);
  int64_t programs = 1;
  for (int64_t g : grid)
    programs *= std::max<int64_t>(g, 0);
  est.programs = programs;

  // Operand shapes at these sizes; rows an even split divides (MoE offsets).
  llvm::DenseMap<Value, SmallVector<int64_t>> shapes;
  int64_t evenSplitExtent = 0;
  llvm::DenseMap<Value, int64_t> scalars;
  for (BlockArgument arg : kernel.getArguments()) {
    auto name = kernel.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    "tile.name");
    if (exec::integerWidth(arg.getType())) {
      std::string label = name ? name.getValue().str()
                               : "#" + std::to_string(arg.getArgNumber());
      auto it = options.scalars.find(label);
      scalars[arg] = it == options.scalars.end() ? 0 : it->second;
      if (it == options.scalars.end())
        est.assumptions.push_back("operand '" + label +
                                  "' not given: 0 assumed");
      continue;
    }
    if (!isa<MemRefType>(arg.getType()))
      continue;
    std::optional<SmallVector<int64_t>> shape =
        name ? launch.evaluateShape(name.getValue(), options.sizes)
             : std::nullopt;
    if (!shape)
      return mlir::emitError(kernel.getLoc(), "cost model: operand #")
             << arg.getArgNumber() << " has no shape in 'tile.launch'";
    if (!evenSplitExtent && !shape->empty())
      evenSplitExtent = shape->front();
    shapes[arg] = *shape;
  }

  LoweringPlanner planner;
  {
    std::lock_guard<std::mutex> lock(plannersMutex);
    planner = planners().lookup(m.chip);
  }
  std::optional<LoweringPlan> plan;
  if (!planner) {
    est.assumptions.push_back("no " + m.chip +
                              " lowering in this build: its global-workspace "
                              "traffic is not charged, and its dots are "
                              "taken to run on the matrix unit");
  } else if (FailureOr<LoweringPlan> planned = planner(kernel);
             failed(planned)) {
    est.assumptions.push_back("the " + m.chip +
                              " lowering refuses this kernel: no "
                              "global-workspace traffic charged, and its "
                              "dots are taken to run on the matrix unit");
  } else {
    plan = std::move(*planned);
  }
  KernelFacts facts = kernelFacts(kernel, m, std::move(plan));
  est.threadsPerCTA = 128 * facts.warpgroups;
  est.sharedBytes = facts.sharedBytes;
  if (options.registersPerThread) {
    est.registersPerThread = *options.registersPerThread;
  } else if (facts.roleRegisters) {
    est.registersPerThread = *facts.roleRegisters;
    est.assumptions.push_back("registers per thread from the roles' budgets");
  } else {
    est.registersPerThread = m.defaultRegistersPerThread;
    est.assumptions.push_back(
        "registers per thread not given (ptxas): " +
        std::to_string(m.defaultRegistersPerThread) + " assumed");
  }
  // Asked for `occupancy` programs per SM, the register allocator keeps
  // each thread to its share (code that needs more spills: the agent
  // measures it on the compiled kernel and passes its registers).
  if (facts.occupancy && !options.registersPerThread) {
    int64_t share =
        m.registersPerSM / (facts.occupancy * est.threadsPerCTA) / 8 * 8;
    if (share < est.registersPerThread) {
      est.registersPerThread = share;
      est.assumptions.push_back("registers per thread capped at " +
                                std::to_string(share) + " by occupancy " +
                                std::to_string(facts.occupancy));
    }
  }
  if (est.sharedBytes > m.sharedBytesPerCTA)
    return mlir::emitError(kernel.getLoc(), "cost model: ")
           << est.sharedBytes << " bytes of shared memory per program exceed "
           << m.sharedBytesPerCTA << " on " << m.chip;
  int64_t byRegs = m.registersPerSM /
                   std::max<int64_t>(1, est.registersPerThread * est.threadsPerCTA);
  int64_t byShared = est.sharedBytes
                         ? m.sharedBytesPerSM / (est.sharedBytes + 1024)
                         : m.ctasPerSM;
  int64_t byThreads = m.threadsPerSM / est.threadsPerCTA;
  est.ctasPerSM = std::min({byRegs, byShared, byThreads, m.ctasPerSM});
  if (est.ctasPerSM < 1)
    return mlir::emitError(kernel.getLoc(), "cost model: a program needs more registers (")
           << est.registersPerThread << " x " << est.threadsPerCTA
           << " threads) than an SM has";
  int64_t slots = m.sms * est.ctasPerSM;
  est.waves = static_cast<double>(programs) / static_cast<double>(slots);

  // Programs in launch order (dimension 0 fastest). Beyond 16384 programs,
  // every s-th is walked and stands for s.
  int64_t stride = std::max<int64_t>(1, (programs + 16383) / 16384);
  if (stride > 1)
    est.assumptions.push_back("every " + std::to_string(stride) +
                              "th program walked, standing for its "
                              "neighbours");
  int64_t budget = 400'000'000;
  ProgramWalker walker(kernel, facts, shapes, scalars, grid, evenSplitExtent,
                       budget);
  std::priority_queue<double, std::vector<double>, std::greater<double>> free;
  for (int64_t s = 0; s < slots; ++s)
    free.push(0);
  double makespan = 0;
  llvm::StringMap<double> boundCycles;
  // A walked program stands for `stride` programs reading other tiles: it
  // sees 1/stride of L2 (and its misses count `stride` times).
  LeastRecentlyUsedL2 l2(m.l2Bytes / static_cast<double>(stride));
  SmallVector<int64_t> pid(grid.size(), 0);
  for (int64_t linear = 0; linear < programs; linear += stride) {
    int64_t rest = linear;
    for (size_t d = 0; d < grid.size(); ++d) {
      pid[d] = rest % grid[d];
      rest /= grid[d];
    }
    llvm::MapVector<Operation *, LoopCounts> loops;
    std::vector<std::pair<TileKey, double>> tiles;
    walker.prefetching.clear();
    if (failed(walker.run(pid, loops, tiles)))
      return failure();
    double alone = 0, tensor = 0, memory = 0, cuda = 0, flops = 0;
    llvm::StringMap<double> aloneBy, memoryBy;
    for (auto &[loopOp, counts] : loops) {
      LoopTime t = loopTime(counts, walker.prefetching.contains(loopOp),
                            facts.consumerRoles, m);
      alone += t.alone;
      aloneBy[t.bound] += t.alone;
      tensor += t.tensor;
      memory += t.memory;
      memoryBy[t.memoryBound] += t.memory;
      cuda += t.cuda;
      flops += counts.flops;
      est.bytesLoaded += (counts.threadLoadBytes + counts.prefetchBytes) * stride;
      est.bytesStored += counts.storeBytes * stride;
    }
    est.flops += flops * stride;
    // Co-resident programs share the SM's tensor cores, L2 port and lanes.
    double k = static_cast<double>(est.ctasPerSM);
    double slotTime = std::max({alone, k * tensor, k * memory, k * cuda});
    if (alone >= slotTime)
      for (auto &entry : aloneBy)
        boundCycles[entry.getKey()] += entry.getValue() * stride;
    else
      boundCycles[largest({{k * tensor, "tensor"},
                           {k * memory,
                            memoryBy.lookup("global store instructions") >
                                    memoryBy.lookup("L2 bandwidth")
                                ? "global store instructions"
                                : "L2 bandwidth"},
                           {k * cuda, "CUDA cores"}})] += slotTime * stride;
    // The program's reads (a tile's bytes follow from its key: operand,
    // offsets, shape), spread evenly over its time.
    double programStart = free.top();
    l2.settle(programStart);
    for (auto [i, tile] : llvm::enumerate(tiles))
      l2.read(programStart + slotTime * (static_cast<double>(i) + 0.5) /
                                 static_cast<double>(tiles.size()),
              tile.first, tile.second);
    for (int64_t r = 0; r < stride; ++r) {
      double start = free.top();
      free.pop();
      free.push(start + slotTime);
      makespan = std::max(makespan, start + slotTime);
    }
  }
  est.dramBytes =
      l2.missedBytes() * static_cast<double>(stride) + est.bytesStored;
  est.assumptions.insert(est.assumptions.end(),
                         walker.assumptions.begin(), walker.assumptions.end());

  double clock = m.clockGHz * 1e9;
  double computeSeconds = makespan / clock;
  double dramSeconds = est.dramBytes / m.dramBytesPerSecond;
  double seconds = std::max(computeSeconds, dramSeconds);
  est.timeMicroseconds = seconds * 1e6 + m.launchMicroseconds;
  est.tflops = est.flops / (est.timeMicroseconds * 1e-6) / 1e12;
  if (dramSeconds > computeSeconds) {
    est.boundBy = "DRAM bandwidth";
  } else {
    double most = -1;
    for (auto &entry : boundCycles)
      if (entry.getValue() > most) {
        most = entry.getValue();
        est.boundBy = entry.getKey().str();
      }
  }
  if (est.waves < 1)
    est.boundBy += ", occupancy (less than one wave)";
  est.assumptions.push_back(
      "programs in launch order, each reading its tiles evenly over its "
      "time; L2 keeps the tiles read most recently (least recently used "
      "evicted)");
  // Not modeled: say so rather than count them as free silently.
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName);
      launch && !launch.getCluster().empty())
    est.assumptions.push_back(
        "clusters place programs as single programs would (no SM left idle "
        "by cluster placement), and cluster barriers take no time");
  return est;
}

SmallVector<int64_t> cost::launchSizes(tile::KernelOp kernel,
                                       const llvm::StringMap<int64_t> &given,
                                       llvm::StringSet<> &used) {
  SmallVector<int64_t> sizes;
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch)
    return sizes;
  for (auto [name, fallback] :
       llvm::zip(launch.getSizeNames(), launch.getSizeDefaults())) {
    auto it = given.find(name.getValue());
    sizes.push_back(it == given.end() ? fallback : it->second);
    if (it != given.end())
      used.insert(name.getValue());
  }
  return sizes;
}

llvm::json::Object Estimate::toJSON(const TargetModel &m) const {
  llvm::json::Array notes;
  for (const std::string &a : assumptions)
    notes.push_back(a);
  return llvm::json::Object{
      {"kernel", kernel},
      {"target", m.chip},
      {"device", m.device},
      {"model", m.source},
      {"time_us", timeMicroseconds},
      {"tflops", tflops},
      {"flops", flops},
      {"bytes_loaded", bytesLoaded},
      {"bytes_stored", bytesStored},
      {"dram_bytes", dramBytes},
      {"programs", programs},
      {"waves", waves},
      {"ctas_per_sm", ctasPerSM},
      {"threads_per_cta", threadsPerCTA},
      {"registers_per_thread", registersPerThread},
      {"shared_bytes", sharedBytes},
      {"bound_by", boundBy},
      {"assumptions", std::move(notes)}};
}
