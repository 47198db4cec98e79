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
// needs for what each wave touches.
//
//===----------------------------------------------------------------------===//

#include "TileTag/CostModel/CostModel.h"

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
  m.defaultRegistersPerThread = 128;
  m.source = "datasheet";
  return m;
}();

const TargetModel *cost::lookupTarget(StringRef chip) {
  if (chip == kH200.chip)
    return &kH200;
  return nullptr;
}

std::string cost::targetNames() { return kH200.chip; }

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
      {"cudaOpsPerCycle", &model.cudaOpsPerCycle},
      {"sfuOpsPerCycle", &model.sfuOpsPerCycle},
      {"l2BytesPerCycle", &model.l2BytesPerCycle},
      {"dramBytesPerSecond", &model.dramBytesPerSecond},
      {"l2Bytes", &model.l2Bytes},
      {"memoryLatencyCycles", &model.memoryLatencyCycles},
      {"launchMicroseconds", &model.launchMicroseconds},
      {"tensorEfficiencySync", &model.tensorEfficiencySync},
      {"tensorEfficiencyAsync", &model.tensorEfficiencyAsync},
      {"tensorEfficiencyCooperative", &model.tensorEfficiencyCooperative}};
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

/// What the iterations of one loop (or the straight-line code outside every
/// loop) of one program do, in total.
struct LoopCounts {
  double iterations = 0;
  double flopsSync = 0, flopsAsync = 0;
  double cudaOps = 0, sfuOps = 0;
  double threadLoadBytes = 0; // loads the computing threads wait for
  double prefetchBytes = 0;   // TMA copies issued ahead of their use
  double storeBytes = 0;
  int64_t ringSlots = 0;      // depth of the rings prefetched into
  int64_t tightestWgmmaWait = INT64_MAX;
};

/// The facts about a kernel that do not depend on the program.
struct KernelFacts {
  llvm::SmallPtrSet<Operation *, 4> rolesWithDots;
  int64_t consumerRoles = 0;
  int64_t warpgroups = 1;
  int64_t sharedBytes = 0;
  std::optional<int64_t> roleRegisters; // sum over warpgroups, per thread
};

/// A tile's identity in global memory, for the DRAM footprint of a wave.
using TileKey = llvm::hash_code;

class ProgramWalker {
public:
  ProgramWalker(tile::KernelOp kernel, const KernelFacts &facts,
                const llvm::DenseMap<Value, SmallVector<int64_t>> &shapes,
                const llvm::DenseMap<Value, int64_t> &scalars,
                ArrayRef<int64_t> grid, int64_t evenSplitExtent,
                int64_t &budget)
      : kernel(kernel), facts(facts), shapes(shapes), scalars(scalars),
        grid(grid), evenSplitExtent(evenSplitExtent), budget(budget) {}

  /// Walks the program `pid`; fills `loops` (key null: outside loops) and
  /// the tiles it touches.
  LogicalResult run(ArrayRef<int64_t> pid,
                    llvm::MapVector<Operation *, LoopCounts> &loops,
                    std::vector<std::pair<TileKey, double>> &tiles) {
    programId = pid;
    this->loops = &loops;
    this->tiles = &tiles;
    ints.clear();
    for (auto [arg, v] : scalars)
      set(arg, v);
    loops[nullptr].iterations = 1;
    loopIndex = loops.find(nullptr) - loops.begin();
    return walkBlock(kernel.getBody().front());
  }

  std::vector<std::string> assumptions;

private:
  tile::KernelOp kernel;
  const KernelFacts &facts;
  const llvm::DenseMap<Value, SmallVector<int64_t>> &shapes;
  const llvm::DenseMap<Value, int64_t> &scalars;
  ArrayRef<int64_t> grid;
  int64_t evenSplitExtent;
  int64_t &budget;

  ArrayRef<int64_t> programId;
  llvm::MapVector<Operation *, LoopCounts> *loops = nullptr;
  std::vector<std::pair<TileKey, double>> *tiles = nullptr;
  llvm::DenseMap<Value, llvm::APInt> ints;
  Operation *loop = nullptr;       // innermost loop being walked
  size_t loopIndex = 0;            // its entry in `loops` (entries move)
  Operation *role = nullptr;       // innermost schedule.role
  std::optional<schedule::AsyncUnit> async;
  /// Ring slots read and prefetched in the current iteration.
  llvm::DenseSet<llvm::hash_code> slotsRead, slotsCopied;

  /// What the walk does with an op, decided once per op, with the work it
  /// adds on every visit where that does not depend on values: a block is
  /// walked once per iteration of every program (millions of visits at
  /// 8192^3).
  enum class Kind : uint8_t {
    IntegerConstant,
    Constant,
    ScalarInteger,
    Dot,
    Load,
    Store,
    Reduce,
    Elementwise, // tile work the model counts per element, no regions
    Other,
  };
  struct Step {
    Operation *op;
    Kind kind = Kind::Other;
    llvm::APInt constant; // of an IntegerConstant
    double flops = 0, cudaOps = 0, sfuOps = 0, bytes = 0;
  };
  llvm::DenseMap<Block *, SmallVector<Step, 0>> steps;

  static Step stepOf(Operation &op) {
    Step step{&op, Kind::Other, llvm::APInt()};
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      step.kind = Kind::Constant;
      if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
        step.kind = Kind::IntegerConstant;
        step.constant = i.getValue();
      }
    } else if (exec::isScalarIntegerOp(&op)) {
      step.kind = Kind::ScalarInteger;
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      step.kind = Kind::Dot;
      auto lhs = cast<ShapedType>(dot.getLhs().getType());
      auto rhs = cast<ShapedType>(dot.getRhs().getType());
      step.flops =
          2.0 * lhs.getDimSize(0) * lhs.getDimSize(1) * rhs.getDimSize(1);
      // An operand that is not a ring slot is stored into shared memory by
      // the threads, element by element, before the MMA reads it.
      for (Value operand : {dot.getLhs(), dot.getRhs()})
        if (!operand.getDefiningOp<tile::ReadOp>())
          step.cudaOps += static_cast<double>(
              cast<ShapedType>(operand.getType()).getNumElements());
    } else if (auto load = dyn_cast<tile::LoadOp>(op)) {
      step.kind = Kind::Load;
      step.bytes = bytesOf(load.getType());
      // The threads load element by element.
      step.cudaOps = static_cast<double>(load.getType().getNumElements());
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      step.kind = Kind::Store;
      step.bytes = bytesOf(cast<ShapedType>(store.getValue().getType()));
    } else if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      step.kind = Kind::Reduce;
      step.cudaOps = static_cast<double>(
          cast<ShapedType>(reduce.getInput().getType()).getNumElements());
    } else if (!isa<tile::ProgramIdOp, tile::NumProgramsOp, memref::DimOp,
                    memref::LoadOp, scf::ForOp, scf::IfOp, schedule::RoleOp,
                    schedule::AsyncOp, schedule::WaitGroupOp, tile::CopyOp,
                    tile::ReadOp>(op)) {
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
    return step;
  }

  ArrayRef<Step> stepsOf(Block &block) {
    auto [it, inserted] = steps.try_emplace(&block);
    if (inserted)
      for (Operation &op : block)
        it->second.push_back(stepOf(op));
    return it->second;
  }

  LoopCounts &counts() { return (loops->begin() + loopIndex)->second; }

  void assume(std::string text) {
    if (llvm::find(assumptions, text) == assumptions.end())
      assumptions.push_back(std::move(text));
  }

  std::optional<int64_t> value(Value v) {
    auto it = ints.find(v);
    if (it == ints.end())
      return std::nullopt;
    return it->second.getSExtValue();
  }

  void set(Value v, int64_t x) {
    unsigned width = exec::integerWidth(v.getType());
    ints[v] = llvm::APInt(width ? width : 64, static_cast<uint64_t>(x),
                          /*isSigned=*/true, /*implicitTrunc=*/true);
  }

  LogicalResult indexOf(Operation *op, Value v, int64_t &out) {
    std::optional<int64_t> x = value(v);
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

  /// Records a global tile access for the wave footprint.
  void touch(Value memref, ValueRange indices, ValueRange offsets,
             ArrayRef<int64_t> shape, double bytes) {
    llvm::hash_code h = llvm::hash_value(memref.getAsOpaquePointer());
    for (Value v : llvm::concat<Value>(indices, offsets)) {
      std::optional<int64_t> x = value(v);
      h = llvm::hash_combine(h, x ? *x : INT64_MIN);
    }
    h = llvm::hash_combine(h, llvm::hash_combine_range(shape.begin(),
                                                       shape.end()));
    tiles->push_back({h, bytes});
  }

  static bool isSpecialFunction(Operation *op) {
    return isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
               math::SqrtOp, math::RsqrtOp, math::TanhOp, math::ErfOp>(op);
  }

  LogicalResult walkBlock(Block &block) {
    for (const Step &step : stepsOf(block))
      if (failed(walk(step)))
        return failure();
    return success();
  }

  LogicalResult walkLoop(scf::ForOp forOp) {
    int64_t lb, ub, step;
    if (failed(indexOf(forOp, forOp.getLowerBound(), lb)) ||
        failed(indexOf(forOp, forOp.getUpperBound(), ub)) ||
        failed(indexOf(forOp, forOp.getStep(), step)))
      return failure();
    if (step <= 0)
      return mlir::emitError(forOp.getLoc(),
                             "cost model: the loop's step is not positive");
    Operation *outer = loop;
    size_t outerIndex = loopIndex;
    loop = forOp;
    // A loop that runs no iteration still has its entry.
    loopIndex = loops->insert({forOp, LoopCounts()}).first - loops->begin();
    Block &body = *forOp.getBody();
    for (auto [arg, init] :
         llvm::zip(forOp.getRegionIterArgs(), forOp.getInitArgs()))
      if (auto x = value(init))
        set(arg, *x);
    for (int64_t iv = lb; iv < ub; iv += step) {
      if (--budget < 0)
        return mlir::emitError(
            forOp.getLoc(),
            "cost model: too many loop iterations to walk at these sizes");
      set(forOp.getInductionVar(), iv);
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
      auto yield = cast<scf::YieldOp>(body.getTerminator());
      for (auto [arg, next] :
           llvm::zip(forOp.getRegionIterArgs(), yield.getOperands())) {
        if (auto x = value(next))
          set(arg, *x);
        else
          ints.erase(arg);
      }
    }
    for (auto [result, arg] :
         llvm::zip(forOp.getResults(), forOp.getRegionIterArgs()))
      if (auto x = value(arg))
        set(result, *x);
    loop = outer;
    loopIndex = outerIndex;
    return success();
  }

  LogicalResult walkRegionWithYield(Region &region, ValueRange results) {
    Block &body = region.front();
    if (failed(walkBlock(body)))
      return failure();
    Operation *terminator = body.getTerminator();
    for (auto [result, yielded] :
         llvm::zip(results, terminator->getOperands()))
      if (auto x = value(yielded))
        set(result, *x);
    return success();
  }

public:
  llvm::SmallPtrSet<Operation *, 4> prefetching;

private:
  LogicalResult walk(const Step &step) {
    Operation &op = *step.op;
    if (--budget < 0)
      return mlir::emitError(
          op.getLoc(), "cost model: too many operations to walk at these sizes");
    switch (step.kind) {
    case Kind::IntegerConstant:
      ints[op.getResult(0)] = step.constant;
      return success();
    case Kind::Constant:
      return success();
    case Kind::Dot:
      if (async == schedule::AsyncUnit::wgmma)
        counts().flopsAsync += step.flops;
      else
        counts().flopsSync += step.flops;
      counts().cudaOps += step.cudaOps;
      return success();
    case Kind::Load: {
      auto load = cast<tile::LoadOp>(op);
      counts().threadLoadBytes += step.bytes;
      counts().cudaOps += step.cudaOps;
      touch(load.getSource(), load.getIndices(), load.getOffsets(),
            load.getType().getShape(), step.bytes);
      return success();
    }
    case Kind::Store:
      counts().storeBytes += step.bytes;
      return success();
    case Kind::Reduce:
    case Kind::Elementwise:
      counts().cudaOps += step.cudaOps;
      counts().sfuOps += step.sfuOps;
      return success();
    case Kind::ScalarInteger:
    case Kind::Other:
      break;
    }
    if (step.kind == Kind::ScalarInteger) {
      SmallVector<llvm::APInt> operands;
      for (Value v : op.getOperands()) {
        auto it = ints.find(v);
        if (it == ints.end())
          return success(); // stays unknown; an error only where it is used
        operands.push_back(it->second);
      }
      std::string undefined;
      FailureOr<llvm::APInt> result =
          exec::evaluateIntegerOp(&op, operands, undefined);
      if (succeeded(result))
        ints[op.getResult(0)] = *result;
      return success();
    }
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case<tile::ProgramIdOp>([&](tile::ProgramIdOp p) {
          set(p, programId[p.getDim()]);
          return success();
        })
        .Case<tile::NumProgramsOp>([&](tile::NumProgramsOp p) {
          set(p, grid[p.getDim()]);
          return success();
        })
        .Case<memref::DimOp>([&](memref::DimOp dim) -> LogicalResult {
          auto shape = shapes.find(dim.getSource());
          std::optional<int64_t> d = dim.getConstantIndex();
          if (!d)
            d = value(dim.getIndex());
          if (shape == shapes.end() || !d || *d < 0 ||
              *d >= static_cast<int64_t>(shape->second.size()))
            return success();
          set(dim, shape->second[*d]);
          return success();
        })
        .Case<memref::LoadOp>([&](memref::LoadOp load) -> LogicalResult {
          auto arg = dyn_cast<BlockArgument>(load.getMemRef());
          if (!arg || load.getIndices().size() != 1 ||
              !exec::integerWidth(load.getType()))
            return success();
          if (!kernel.getArgAttr(arg.getArgNumber(),
                                 tile::TileDialect::kNondecreasingAttrName))
            return success();
          int64_t index;
          if (failed(indexOf(load, load.getIndices()[0], index)))
            return failure();
          int64_t parts = shapes.lookup(arg).front() - 1;
          set(load, parts > 0 ? index * evenSplitExtent / parts : 0);
          assume("sorted offsets split the rows evenly (" +
                 std::to_string(evenSplitExtent) + " rows in " +
                 std::to_string(std::max<int64_t>(parts, 0)) + " parts)");
          return success();
        })
        .Case<scf::ForOp>([&](scf::ForOp f) { return walkLoop(f); })
        .Case<scf::IfOp>([&](scf::IfOp ifOp) -> LogicalResult {
          std::optional<int64_t> cond = value(ifOp.getCondition());
          if (!cond) {
            assume("a condition on data is taken as true");
            cond = 1;
          }
          if (*cond)
            return walkRegionWithYield(ifOp.getThenRegion(),
                                       ifOp.getResults());
          if (ifOp.getElseRegion().empty())
            return success();
          return walkRegionWithYield(ifOp.getElseRegion(), ifOp.getResults());
        })
        .Case<schedule::RoleOp>([&](schedule::RoleOp r) {
          Operation *outer = role;
          role = r;
          LogicalResult result = walkRegionWithYield(r.getBody(), r.getResults());
          role = outer;
          return result;
        })
        .Case<schedule::AsyncOp>([&](schedule::AsyncOp a) {
          auto outer = async;
          async = a.getUnit();
          LogicalResult result =
              walkRegionWithYield(a.getBody(), a.getResults());
          async = outer;
          return result;
        })
        .Case<schedule::WaitGroupOp>([&](schedule::WaitGroupOp w) {
          if (w.getUnit() == schedule::AsyncUnit::wgmma && loop)
            counts().tightestWgmmaWait = std::min<int64_t>(
                counts().tightestWgmmaWait, w.getPending());
          return success();
        })
        .Case<tile::CopyOp>([&](tile::CopyOp copy) {
          bool toShared = copy.isGlobalToShared();
          auto shared = cast<MemRefType>(
              (toShared ? copy.getDest() : copy.getSource()).getType());
          ValueRange slot =
              toShared ? copy.getDestIndices() : copy.getSourceIndices();
          ArrayRef<int64_t> shape = tile::slotTileShape(shared, slot.size());
          double bytes = static_cast<double>(
                             std::max<unsigned>(
                                 1, shared.getElementTypeBitWidth() / 8)) *
                         static_cast<double>(ShapedType::getNumElements(shape));
          if (!toShared) {
            counts().storeBytes += bytes;
            return success();
          }
          touch(copy.getSource(), copy.getSourceIndices(), copy.getOffsets(),
                shape, bytes);
          bool ahead = async == schedule::AsyncUnit::tma &&
                       (!role || !facts.rolesWithDots.contains(role));
          if (async == schedule::AsyncUnit::tma) {
            slotsCopied.insert(slotKey(copy.getDest(), slot));
            counts().ringSlots = std::max<int64_t>(
                counts().ringSlots,
                ShapedType::getNumElements(
                    shared.getShape().take_front(slot.size())));
          }
          if (ahead && loop)
            prefetching.insert(loop);
          if (async == schedule::AsyncUnit::tma)
            counts().prefetchBytes += bytes;
          else
            counts().threadLoadBytes += bytes;
          return success();
        })
        .Case<tile::ReadOp>([&](tile::ReadOp read) {
          slotsRead.insert(slotKey(read.getBuffer(), read.getIndices()));
          return success();
        })
        .Default([&](Operation *other) -> LogicalResult {
          counts().cudaOps += step.cudaOps;
          counts().sfuOps += step.sfuOps;
          for (Region &region : other->getRegions())
            for (Block &block : region)
              if (failed(walkBlock(block)))
                return failure();
          return success();
        });
  }

  llvm::hash_code slotKey(Value ring, ValueRange slot) {
    llvm::hash_code h = llvm::hash_value(ring.getAsOpaquePointer());
    for (Value v : slot) {
      std::optional<int64_t> x = value(v);
      h = llvm::hash_combine(h, x ? *x : INT64_MIN);
    }
    return h;
  }
};

KernelFacts kernelFacts(tile::KernelOp kernel) {
  KernelFacts facts;
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName))
    facts.warpgroups = launch.getWarpgroups();
  llvm::DenseMap<int64_t, int64_t> regsOfWarpgroup;
  kernel.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<tile::AllocSharedOp>(op)) {
      MemRefType t = alloc.getType();
      facts.sharedBytes +=
          t.getNumElements() * std::max<unsigned>(1, t.getElementTypeBitWidth() / 8);
    } else if (auto init = dyn_cast<schedule::MBarrierInitOp>(op)) {
      facts.sharedBytes += 8 * init.getType().getSize();
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      if (auto r = dot->getParentOfType<schedule::RoleOp>())
        facts.rolesWithDots.insert(r);
      // Staging space for operands that are not ring slots (as the Hopper
      // lowering lays it out: 1024-byte aligned, one area per operand).
      for (Value operand : {dot.getLhs(), dot.getRhs()})
        if (!operand.getDefiningOp<tile::ReadOp>()) {
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
  /// The term that dominates `alone`.
  StringRef bound;
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
  bool inFlight = c.tightestWgmmaWait >= 1 && c.flopsAsync > 0;
  double asyncEff = consumerRoles >= 2 ? m.tensorEfficiencyCooperative
                    : inFlight         ? m.tensorEfficiencyAsync
                                       : m.tensorEfficiencySync;
  double tensorPeak = m.tensorFlopsPerCycle;
  t.tensor = c.flopsSync / (tensorPeak * m.tensorEfficiencySync) +
             c.flopsAsync / (tensorPeak * asyncEff);
  t.cuda = c.cudaOps / m.cudaOpsPerCycle + c.sfuOps / m.sfuOpsPerCycle;
  // Element-wise work overlaps dots that are in flight, or that another
  // consumer warpgroup issues.
  bool overlap = inFlight || consumerRoles >= 2;
  double compute = overlap ? std::max(t.tensor, t.cuda) : t.tensor + t.cuda;
  double loadBytes = c.threadLoadBytes + c.prefetchBytes;
  t.memory = (loadBytes + c.storeBytes) / m.l2BytesPerCycle;
  double latency = m.memoryLatencyCycles;
  if (c.threadLoadBytes == 0 && c.prefetchBytes > 0 && prefetching) {
    // Copies run up to (slots - 1) iterations ahead of their use.
    double ahead = std::max<int64_t>(c.ringSlots - 1, 1);
    double exposed = c.iterations * latency / ahead;
    t.alone = std::max({compute, t.memory, exposed}) + latency;
    t.bound = largest({{t.tensor, "tensor"},
                       {t.cuda, "CUDA cores"},
                       {t.memory, "L2 bandwidth"},
                       {exposed, "memory latency"}});
  } else if (loadBytes > 0) {
    // Each iteration waits for its own loads.
    t.alone = compute + t.memory + c.iterations * latency;
    t.bound = largest({{t.tensor, "tensor"},
                       {t.cuda, "CUDA cores"},
                       {t.memory, "L2 bandwidth"},
                       {c.iterations * latency, "memory latency"}});
  } else {
    t.alone = compute + c.storeBytes / m.l2BytesPerCycle;
    t.bound = largest({{t.tensor, "tensor"},
                       {t.cuda, "CUDA cores"},
                       {c.storeBytes / m.l2BytesPerCycle, "L2 bandwidth"}});
  }
  return t;
}

} // namespace

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

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

  KernelFacts facts = kernelFacts(kernel);
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
  double dramBytes = 0, footprintAll = 0;
  llvm::DenseMap<TileKey, double> waveTiles, allTiles;
  int64_t waveOf = 0;
  auto closeWave = [&] {
    for (auto &[key, bytes] : waveTiles)
      dramBytes += bytes;
    waveTiles.clear();
  };
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
    llvm::StringMap<double> aloneBy;
    for (auto &[loopOp, counts] : loops) {
      LoopTime t = loopTime(counts, walker.prefetching.contains(loopOp),
                            facts.consumerRoles, m);
      alone += t.alone;
      aloneBy[t.bound] += t.alone;
      tensor += t.tensor;
      memory += t.memory;
      cuda += t.cuda;
      flops += counts.flopsSync + counts.flopsAsync;
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
                           {k * memory, "L2 bandwidth"},
                           {k * cuda, "CUDA cores"}})] += slotTime * stride;
    for (int64_t r = 0; r < stride; ++r) {
      double start = free.top();
      free.pop();
      free.push(start + slotTime);
      makespan = std::max(makespan, start + slotTime);
    }
    int64_t wave = linear / slots;
    if (wave != waveOf) {
      closeWave();
      waveOf = wave;
    }
    for (auto &[key, bytes] : tiles) {
      waveTiles[key] = bytes * stride;
      allTiles[key] = bytes * stride;
    }
  }
  closeWave();
  for (auto &[key, bytes] : allTiles)
    footprintAll += bytes;
  // A footprint that fits in L2 is read from DRAM once.
  if (footprintAll <= m.l2Bytes)
    dramBytes = footprintAll;
  est.dramBytes = dramBytes + est.bytesStored;
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
      "programs in launch order, no L2 reuse across waves unless all data "
      "fits in L2");
  return est;
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
