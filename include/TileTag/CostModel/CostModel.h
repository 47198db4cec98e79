//===- CostModel.h - analytic time estimate of a tile kernel ----*- C++ -*-===//
//
// Part of the TileTag project.
//
// An estimate, not a measurement: the time a kernel takes on a GPU at given
// problem sizes, from what each program does (tensor-core and CUDA-core work,
// bytes moved, how its loads overlap its compute) and how programs fill the
// machine (occupancy, waves, the DRAM traffic of an LRU model of L2). The
// index arithmetic of every program is evaluated exactly, so ragged edges,
// causal masks and per-expert row counts shape the figure; tile operations
// are counted, never run. Every constant of the machine is a field of TargetModel, which a
// calibration file (JSON) can override with GPU measurements.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_COSTMODEL_COSTMODEL_H
#define TILETAG_COSTMODEL_COSTMODEL_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tiletag::cost {

/// The machine, as the model sees it. Rates are per streaming
/// multiprocessor and cycle unless a name says otherwise.
struct TargetModel {
  std::string chip;        // e.g. "sm_90a"
  std::string device;      // e.g. "NVIDIA H200 SXM"
  int64_t sms = 0;         // streaming multiprocessors
  double clockGHz = 0;     // sustained SM clock under tensor load
  double tensorFlopsPerCycle = 0; // dense bf16 FLOP per SM and cycle
  /// Dense fp8 FLOP per SM and cycle where the chip's lowering multiplies
  /// fp8 on the matrix unit; 0 where it multiplies them on the vector lanes
  /// (widening each element first).
  double fp8TensorFlopsPerCycle = 0;
  double cudaOpsPerCycle = 0;     // fp32 lanes per SM
  double sfuOpsPerCycle = 0;      // exp, log, rsqrt per SM and cycle
  double l2BytesPerCycle = 0;     // L2 -> SM bytes per SM and cycle
  double dramBytesPerSecond = 0;
  double l2Bytes = 0;
  double memoryLatencyCycles = 0; // a global load's round trip
  int64_t sharedBytesPerSM = 0;
  int64_t sharedBytesPerCTA = 0;
  int64_t registersPerSM = 0;
  int64_t threadsPerSM = 0;
  int64_t ctasPerSM = 0;
  double launchMicroseconds = 0;
  /// Share of the tensor peak one program's dots reach: issued and waited
  /// at once; asynchronous with groups in flight in one warpgroup; in two or
  /// more consumer warpgroups.
  double tensorEfficiencySync = 0;
  double tensorEfficiencyAsync = 0;
  double tensorEfficiencyCooperative = 0;
  /// Thread instructions (per lane, counted as CUDA-core operations) the
  /// chip's lowering issues per FLOP of a dot to feed the matrix unit from
  /// where its operands are held: 0 where the unit reads shared memory by
  /// descriptor (wgmma); CDNA's lowering reads MFMA operands per lane.
  double mmaOperandOpsPerFlop = 0;
  /// The same per FLOP of an fp8 dot on the matrix unit.
  double fp8MmaOperandOpsPerFlop = 0;
  /// Whether the chip's lowering stages a dot's operands that are not ring
  /// slots in shared memory (Hopper's wgmma reads shared memory; CDNA's
  /// MFMA reads registers).
  bool stagesDotOperands = true;
  /// Global stores from registers, by the lines their instructions touch:
  /// the SM's store path takes `storeLinesPerCycle` 128-byte lines a cycle,
  /// and a store instruction touches a line per row it covers. Lines per
  /// element stored from a matrix-unit accumulator (whose lanes hold a few
  /// elements of many rows; a scalar store each, divided by
  /// `fragmentElementsPerLane` where the lanes store their runs as vectors)
  /// and from any other tile (consecutive lanes, consecutive elements). A
  /// TMA store (a tile.copy from shared memory)
  /// moves whole lines at L2 bandwidth instead.
  double storeLinesPerCycle = 0;
  double storeLinesPerAccumulatorElement = 0;
  double storeLinesPerElement = 0;
  /// Writes of an accumulator from registers to shared memory (an epilogue
  /// staged for a TMA store): the lanes of one store instruction cover
  /// `fragmentRowsPerStore` rows of `fragmentLanesPerRow` lanes each, a
  /// lane `fragmentColumnStride` columns after the one before, and each
  /// lane stores `fragmentElementsPerLane` adjacent columns with one vector
  /// instruction (one element where the run would exceed 16 bytes or
  /// straddle a row). Shared memory has 32 banks of 4 bytes and takes
  /// `sharedWavefrontsPerCycle` wavefronts a cycle; the lanes that hit one
  /// bank at different words take one wavefront each. 0 rows: not charged.
  int64_t fragmentRowsPerStore = 0;
  int64_t fragmentLanesPerRow = 0;
  int64_t fragmentColumnStride = 0;
  int64_t fragmentElementsPerLane = 1;
  double sharedWavefrontsPerCycle = 0;
  /// Registers per thread assumed when neither the caller (ptxas) nor the
  /// schedule gives them.
  int64_t defaultRegistersPerThread = 0;
  /// Where the constants come from ("datasheet", or a calibration file).
  std::string source;
};

/// The built-in model of `chip`, or null if the chip has none.
const TargetModel *lookupTarget(StringRef chip);
/// The chips that have a model, for messages.
std::string targetNames();
/// Overrides fields of `model` by those of the JSON object in `path`
/// (same names as TargetModel's fields). Fails with a message naming the
/// file and the field on a malformed file.
LogicalResult applyCalibration(TargetModel &model, StringRef path,
                               std::string &error);

/// What one chip's lowering does with a kernel, where that changes its cost.
struct LoweringPlan {
  /// Per op: the bytes and elements that the lowering stores to its
  /// per-program global workspace and reads back at each run of the op.
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> workspace;
  /// The tile.dot ops it computes element by element on the vector lanes,
  /// not on the matrix unit (shapes or types the unit does not take).
  llvm::DenseSet<Operation *> elementwiseDots;
  /// (matrix-unit dot, operand) that it stages into shared memory, element
  /// by element, at each run of the dot.
  llvm::DenseSet<std::pair<Operation *, unsigned>> stagedAtDot;
  /// The dynamic shared memory a program asks for.
  int64_t sharedBytes = 0;
};
/// Plans a kernel as one chip's lowering would; fails where that lowering
/// refuses the kernel.
using LoweringPlanner = std::function<FailureOr<LoweringPlan>(tile::KernelOp)>;
/// Makes estimates on `chip` follow its lowering's plan. The lowerings
/// register theirs (InitAll); the cost model does not depend on them, and
/// without one an estimate says what it assumes instead.
void registerLoweringPlanner(StringRef chip, LoweringPlanner planner);

struct EstimateOptions {
  /// Problem sizes, in the order of the kernel's `tile.launch` size names.
  SmallVector<int64_t> sizes;
  /// Values of scalar integer operands, by `tile.name`; those not given
  /// are taken as 0 (and say so in the assumptions).
  llvm::StringMap<int64_t> scalars;
  /// Registers per thread from ptxas, if known.
  std::optional<int64_t> registersPerThread;
};

/// The sizes of `kernel`'s `tile.launch` in its order: those `given` by
/// name, the others at their defaults (none without a launch). The names
/// it takes from `given` are added to `used`.
SmallVector<int64_t> launchSizes(tile::KernelOp kernel,
                                 const llvm::StringMap<int64_t> &given,
                                 llvm::StringSet<> &used);

struct Estimate {
  std::string kernel;
  double timeMicroseconds = 0;
  double tflops = 0;
  double flops = 0;               // tensor-core FLOPs the programs issue
  double bytesLoaded = 0;         // global -> SM, all programs
  double bytesStored = 0;
  double dramBytes = 0;           // L2 misses (LRU model) and stores
  int64_t programs = 0;
  int64_t ctasPerSM = 0;
  int64_t threadsPerCTA = 0;
  int64_t registersPerThread = 0;
  int64_t sharedBytes = 0;
  double waves = 0;
  /// What bounds the time: "tensor", "memory latency", "L2 bandwidth",
  /// "DRAM bandwidth", "CUDA cores" or "occupancy".
  std::string boundBy;
  std::vector<std::string> assumptions;
  llvm::json::Object toJSON(const TargetModel &model) const;
};

/// Estimates `kernel` on `model`. Fails with a diagnostic at the op the
/// model cannot follow (a loop bound that depends on floating-point data, an
/// op it does not know that yields an index).
FailureOr<Estimate> estimateKernel(tile::KernelOp kernel,
                                   const TargetModel &model,
                                   const EstimateOptions &options);

} // namespace mlir::tiletag::cost

#endif // TILETAG_COSTMODEL_COSTMODEL_H
