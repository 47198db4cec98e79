//===- KernelLowering.h - target-neutral tile + schedule lowering -*- C++ -*-===//
//
// Part of the TileTag project.
//
// The part of lowering a proved tile.kernel to a gpu.func that every GPU
// target shares: warp roles as branches on the warpgroup index, shared-ring
// and accumulator planning, element-parallel code for every tile operation,
// global addressing with ragged-edge masking, scf, and the kernel's
// interface for a runner. What differs between GPUs -- barriers of a group,
// async copies, matrix-multiply units and their register fragments, the
// shared-memory swizzle, mbarriers, register budgets -- is asked of a
// LoweringTarget (NVGPUTarget for Hopper, AMDGPUTarget for CDNA).
//
// Tiles are represented as:
//   - Lazy:   an element-wise op, splat, iota, broadcast or transpose whose
//             element (i, j, ...) is computed where a consumer needs it;
//   - Buffer: a tile held in the program's slice of the global workspace;
//   - Shared: a slot of a shared ring (swizzled when the target says so);
//   - Acc:    a matrix-unit accumulator held in registers (the target's
//             type).
// Consumers that need elements walk them element-parallel on their group.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_CONVERSION_TILETOGPU_KERNELLOWERING_H
#define TILETAG_CONVERSION_TILETOGPU_KERNELLOWERING_H

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <set>
#include <string>

namespace mlir::tiletag::conversion {

/// The gpu.func attribute that holds a lowered kernel's interface for a
/// runner: a dictionary of `block` (threads), `grid_rank`, `shared_bytes`
/// (dynamic shared memory to request), `workspace_bytes` (per program), and
/// the target's entries (`tensor_maps`, `wgmma`; `mfma`).
constexpr StringLiteral kABIAttrName = "tiletag.abi";

/// Threads of one schedule warpgroup (the unit of `schedule.launch` and
/// warp roles) on every target.
constexpr int64_t kWarpgroupThreads = 128;

/// Bytes of one element of `t` (index: 8).
int64_t byteWidth(Type t);

/// Threads one SM (Hopper) or CU (CDNA2, CDNA3: 32 waves of 64) holds.
constexpr int64_t kMaxThreadsPerProcessor = 2048;

/// The 128-byte swizzle of TMA and wgmma, also the bank-conflict-free LDS
/// layout of the AMD lowering (layout::swizzle128B).
constexpr int64_t kSwizzleBytes = 128;

/// A shared ring from tile.alloc_shared, placed in dynamic shared memory.
struct Ring {
  MemRefType type;
  int64_t offset = 0; // bytes from the aligned base
  SmallVector<int64_t> tile;
  bool swizzled = false; // laid out by the target's swizzle
  int64_t slotBytes() const;
};

/// Where a tile's elements are: computed from its operands where read
/// (Lazy), in a workspace buffer, in a shared slot, in a matrix unit's
/// accumulator registers, or (Rows: a 1-D tile that follows the rows of an
/// accumulator layout) in a vector of the rows each thread holds, slot by
/// slot (LoweringTarget::rowSlots).
struct TileRep {
  enum Kind { Lazy, Buffer, Shared, Acc, Rows } kind = Lazy;
  Operation *op = nullptr; // Lazy
  Value value; // Buffer: memref view; Acc: accumulator; Shared: slot; Rows
  Ring *ring = nullptr; // Shared
};

/// The threads that run the code being emitted.
struct Group {
  int64_t first = 0, size = 0; // thread ids [first, first + size)
  int barrierId = 0;
  bool wholeCTA = true;
  /// The first thread where it is known only at run time (the thread or
  /// warp that runs an iteration of a mapped loop); null: `first`.
  Value base;
};

class KernelLowering;

/// What a GPU target contributes to the lowering. One instance lowers one
/// kernel: it may keep per-kernel plans (tensor maps, staging buffers).
class LoweringTarget {
public:
  virtual ~LoweringTarget();

  /// How diagnostics name the target ("NVGPU": "cannot be lowered to NVGPU:
  /// ..."; "the Hopper lowering").
  virtual StringRef name() const = 0;
  virtual StringRef lowering() const = 0;
  /// The matrix unit's name in messages ("wgmma", "MFMA").
  virtual StringRef mmaUnit() const = 0;
  /// Threads that execute in lockstep (32 or 64).
  virtual int64_t waveSize() const = 0;

  // Planning, before any code is emitted.
  /// Alignment of each ring in shared memory, and whether a ring's slots use
  /// the target's swizzle.
  virtual int64_t ringAlignment() const = 0;
  /// Shared memory (dynamic, in bytes) one CTA may have, and what the chip
  /// calls it in messages.
  virtual int64_t maxSharedBytes() const = 0;
  /// Shared memory of one SM (CU), which resident programs share.
  virtual int64_t sharedBytesPerProcessor() const = 0;
  virtual bool swizzles(const Ring &ring) const = 0;
  /// Checks and plans the async copies (`schedule.async` regions of copy
  /// units) and anything that becomes a kernel argument.
  virtual LogicalResult planAsyncCopies(KernelLowering &k) = 0;
  /// Why `dot` cannot run on the target's matrix unit; empty when it can.
  virtual std::string whyNotMma(KernelLowering &k, tile::DotOp dot) = 0;
  /// Whether MMA dot `dot` reads its operand `i` (a tile.read of a slot, or
  /// a transpose of one) in place from the slot, not from a copy.
  virtual bool readsInPlace(KernelLowering &k, tile::DotOp dot,
                            unsigned i) = 0;
  /// Shared memory the target needs beyond the rings (staged MMA operands):
  /// reserves it from `k.sharedBytes` on.
  virtual void planSharedExtras(KernelLowering &k) = 0;

  // The kernel function.
  /// Arguments after the kernel's operands (and before the workspace).
  virtual void addArguments(KernelLowering &k,
                            SmallVectorImpl<Type> &types) = 0;
  /// Attributes on the gpu.func for the back end (compiler hints), among
  /// them `k.occupancy`'s; fails, at the kernel, where the target cannot
  /// keep that many programs resident.
  virtual LogicalResult annotate(KernelLowering &k, gpu::GPUFuncOp func) = 0;
  /// The target's entries of the kernel's interface for a runner
  /// (`tiletag.abi`), once the body is emitted.
  virtual void addABI(KernelLowering &k,
                      SmallVectorImpl<NamedAttribute> &entries) = 0;
  /// Code at the start of the function body.
  virtual void prologue(KernelLowering &k) = 0;
  /// Code at the start of a role's branch (register budget).
  virtual LogicalResult enterRole(KernelLowering &k, schedule::RoleOp role) = 0;

  // Emission.
  /// Byte offset, within its slot of a swizzled ring, of tile element
  /// `index`.
  virtual Value swizzledByte(KernelLowering &k, const Ring &ring,
                             ValueRange index) = 0;
  /// A barrier among the threads of `group` (not a whole CTA, more than
  /// one thread).
  virtual void partialBarrier(KernelLowering &k, const Group &group) = 0;
  /// Whether a loop mapped to warps runs here: its iterations' groups are
  /// warps of 32 threads (a wave of another width runs no such group).
  virtual bool runsWarpGroups() const { return false; }
  /// Why the target cannot launch programs in clusters of `cluster`
  /// (schedule.launch); empty when it can.
  virtual std::string whyNotCluster(ArrayRef<int64_t> cluster) const = 0;
  /// A barrier for every thread of the program's cluster, ordering memory
  /// at cluster scope (only where whyNotCluster is empty).
  virtual void clusterBarrier(KernelLowering &k) = 0;
  /// The hardware barrier ids a kernel may give named barriers
  /// (`schedule.mbarrier.init ... named`), after those of its roles; 0
  /// where the target has none.
  virtual int64_t namedBarrierIds() const { return 0; }
  /// All threads of the group arrive on hardware barrier `id`, expecting
  /// `threads` per phase; with `sync`, they wait for the phase too.
  virtual void namedBarrier(KernelLowering &k, Value id, int64_t threads,
                            bool sync) {
    llvm_unreachable("the target has no named barriers (namedBarrierIds)");
  }
  /// Makes the group's generic-proxy shared-memory writes visible to the
  /// async units.
  virtual void proxyFence(KernelLowering &k) = 0;
  /// mbarriers: an array of `size` barriers expecting `count` arrivals each.
  virtual FailureOr<Value> createBarriers(KernelLowering &k,
                                          schedule::MBarrierInitOp init) = 0;
  virtual LogicalResult emitBarrierOp(KernelLowering &k, Operation *op,
                                      Value barriers) = 0;
  /// One async copy of a `schedule.async` copy region: a load completing
  /// on barrier `index` of `barriers`, or a store (null `barriers`)
  /// completing in the unit's bulk groups. Run by one thread of the group,
  /// or by all of them (copiesByOneThread).
  virtual LogicalResult emitAsyncCopy(KernelLowering &k, tile::CopyOp copy,
                                      Value barriers, Value index) = 0;
  /// Whether one thread of the group issues a copy region's copies (TMA),
  /// or the whole group does (copies run element-parallel).
  virtual bool copiesByOneThread() const { return true; }
  /// Whether `unit` is the unit of the target's async copies / MMAs.
  virtual bool isCopyUnit(schedule::AsyncUnit unit) const = 0;
  virtual bool isMmaUnit(schedule::AsyncUnit unit) const = 0;
  /// Puts the operands of `dot` (whyNotMma empty) where the matrix unit
  /// reads them (staging them if needed); returns what emitMma takes.
  virtual FailureOr<SmallVector<Value>>
  prepareMmaOperands(KernelLowering &k, tile::DotOp dot) = 0;
  /// Called before `loop` is emitted (its copy in the current role): a
  /// target may prepare there what the matrix-unit dots in it read and the
  /// loop does not change.
  virtual LogicalResult enterLoop(KernelLowering &k, scf::ForOp loop) {
    return success();
  }
  /// Emits `dot` on the matrix unit: `acc` + lhs * rhs, with the operands
  /// prepareMmaOperands returned; `async` is its region if it has one.
  /// Returns the new accumulator.
  virtual FailureOr<Value> emitMma(KernelLowering &k, tile::DotOp dot,
                                   schedule::AsyncOp async,
                                   ArrayRef<Value> operands, Value acc) = 0;
  /// A zero accumulator of `type` in the target's register form.
  virtual Value zeroAccumulator(KernelLowering &k, RankedTensorType type) = 0;
  /// Calls `body` with each register of accumulator `acc` that the calling
  /// thread holds, and its (row, column).
  virtual void
  forEachAccumulatorElement(KernelLowering &k, Value acc, RankedTensorType type,
                            function_ref<void(Value v, Value row, Value col)>
                                body) = 0;
  /// Like forEachAccumulatorElement, with the registers that hold adjacent
  /// columns of one row together: `values[j]` is at (row, col + j). A store
  /// of a run is one vector instruction. The default gives runs of one.
  virtual void
  forEachAccumulatorRun(KernelLowering &k, Value acc, RankedTensorType type,
                        function_ref<void(ValueRange values, Value row,
                                          Value col)>
                            body);
  /// Whether mapAccumulator builds accumulators (else a dot whose
  /// accumulator is computed from another starts from zero and adds it
  /// afterwards, through memory).
  virtual bool mapsAccumulators() const { return false; }
  /// A new accumulator of `acc`'s form and `type` whose register holding
  /// (row, col) is `fn` of `acc`'s register there.
  virtual FailureOr<Value>
  mapAccumulator(KernelLowering &k, Value acc, RankedTensorType type,
                 function_ref<FailureOr<Value>(Value v, Value row, Value col)>
                     fn) {
    return failure();
  }
  /// Reduces the rows of a tile computed from accumulator `acc` without
  /// leaving the registers: `fn` gives the element at a register's (row,
  /// col), `combine` joins two; `body` gets each row the thread holds, its
  /// reduction over all columns, and whether this thread is the row's one
  /// writer. Failure where the target cannot (the core then reduces the
  /// tile from memory).
  virtual LogicalResult reduceAccumulatorRows(
      KernelLowering &k, Value acc, RankedTensorType type,
      function_ref<FailureOr<Value>(Value v, Value row, Value col)> fn,
      function_ref<Value(Value, Value)> combine,
      function_ref<void(Value row, Value value, Value writer)> body) {
    return failure();
  }
  virtual bool reducesAccumulatorRows() const { return false; }
  /// How many row slots of a 1-D tile of `rows` elements each thread of the
  /// current group holds where the tile is kept as the rows of an
  /// accumulator layout (TileRep::Rows: attention's row maximum and sum,
  /// beside the accumulator they scale); 0 where the target keeps none so.
  virtual int64_t rowSlots(KernelLowering &k, int64_t rows) const {
    return 0;
  }
  /// The row the calling thread holds in row slot `slot` (noted in
  /// KernelLowering::rowSlot).
  virtual Value rowOfSlot(KernelLowering &k, int64_t slot) { return Value(); }
  /// i1: whether the calling thread is the one of the threads holding its
  /// row slots that writes them to memory.
  virtual Value rowWriter(KernelLowering &k) { return Value(); }
  /// schedule.commit_group (a dot region's commit is folded into its mma
  /// by emitMma); nothing where the unit's operations are synchronous.
  virtual LogicalResult emitCommitGroup(KernelLowering &k,
                                        schedule::CommitGroupOp op) {
    return success();
  }
  /// schedule.wait_group, by the thread that committed; the core then
  /// meets the group where the wait retires stores.
  virtual LogicalResult emitWaitGroup(KernelLowering &k,
                                      schedule::WaitGroupOp op) = 0;
  /// The number of programs along `dim` (an index).
  virtual Value gridDim(KernelLowering &k, gpu::Dimension dim);
  /// An element load of `memref` at `pos` that yields `padding` where
  /// `inRange` is false, without a branch where the hardware checks bounds;
  /// a null value leaves it to the core (a branch around a plain load).
  virtual Value maskedLoad(KernelLowering &k, Value memref,
                           ArrayRef<Value> pos, Value inRange,
                           TypedAttr padding) {
    return Value();
  }
};

/// Lowers one kernel into a gpu.func at the builder's insertion point.
class KernelLowering {
public:
  KernelLowering(tile::KernelOp kernel, OpBuilder &builder,
                 LoweringTarget &target, bool reportFallbacks = false)
      : kernel(kernel), b(builder), loc(kernel.getLoc()), target(target),
        reportFallbacks(reportFallbacks) {}

  FailureOr<gpu::GPUFuncOp> run();

  // Services for the target.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value scalar(Value v) { return mapping.lookupOrNull(v); }
  SmallVector<Value> lowered(ValueRange values) {
    return llvm::map_to_vector(values, [&](Value v) { return scalar(v); });
  }
  LogicalResult fail(Operation *op, const Twine &msg);
  /// Whether `op` is emitted in the code being built: it is in the current
  /// role (or, in a kernel without roles, anywhere).
  bool inCurrentRole(Operation *op);
  Ring *ringOf(Value buffer);
  /// The register budget (`regs`) that `role`'s ops state, if any.
  std::optional<uint64_t> registerBudget(schedule::RoleOp role);
  Value slotIndex(Ring &ring, ValueRange slotIdx);
  /// Byte of `ring`'s slot `slot` from the aligned shared-memory base.
  Value slotByte(Ring &ring, Value slot);
  Value sharedElementIndex(Ring &ring, Value slot, ValueRange idx);
  /// The shared memory of `ring` as a 1-D memref of `elementType`, indexed
  /// by sharedElementIndex.
  Value sharedView(Ring &ring, Type elementType);
  Value dynamicShared();
  Value electOne(); // i1: the first thread of the group
  /// `v` folded by `combine` with the value of the lane `mask` away (xor),
  /// for each mask in turn: after a whole butterfly, every lane of it holds
  /// the fold of all.
  Value foldAcrossLanes(Value v, ArrayRef<int64_t> masks,
                        function_ref<Value(Value, Value)> combine);
  /// The calling thread's index in `g` (by default the current group).
  Value threadInGroup(const Group &g);
  Value threadInGroup() { return threadInGroup(group); }
  void groupBarrier();
  /// Says at `op`, as a remark, that the lowering takes a slower path for it
  /// than the target offers (once per op and message), when asked to
  /// (`report-fallbacks`).
  void reportFallback(Operation *op, const Twine &what);
  /// A buffer of `type` in the program's slice of the global workspace, for
  /// the tile of `op`, reported as a fallback: `why` says what is held. It is
  /// written and read back at each run of `op` (workspaceTraffic).
  Value allocBuffer(RankedTensorType type, Operation *op, const Twine &why);
  /// Makes every tile `tile` is computed from readable by element(): an
  /// accumulator other than `inRegisters` and a row vector read other than
  /// at a row the thread holds go to the workspace. With `inRegisters`,
  /// element() is then called at the rows of its registers.
  LogicalResult prepare(Value tile, Value inRegisters = Value());
  /// Puts `tile` in a workspace buffer (for the group, then a barrier);
  /// `why` says for which reader (see allocBuffer).
  LogicalResult materialize(Value tile, const Twine &why);
  FailureOr<Value> element(Value tile, ValueRange idx);
  /// 1-D `tile` as the vector of the row slots the calling thread holds
  /// (TileRep::Rows), computed slot by slot where it is not one yet.
  FailureOr<Value> rowsOf(Value tile);
  /// The index of element `linear` of a row-major tile of `shape`.
  SmallVector<Value> indexOf(Value linear, ArrayRef<int64_t> shape);
  void forEachElement(ArrayRef<int64_t> shape,
                      function_ref<LogicalResult(ValueRange)> body,
                      LogicalResult &status);
  void storeAccumulator(Value acc, RankedTensorType type, Value buffer);
  /// The target's walk of an accumulator's registers (see LoweringTarget).
  void
  forEachAccumulatorElement(Value acc, RankedTensorType type,
                            function_ref<void(Value v, Value row, Value col)>
                                body);
  /// The accumulator `tile` is computed from register by register, if any
  /// (then forEachEpilogueRun computes it without a round trip through
  /// memory).
  Value registerEpilogueSource(Value tile);
  LogicalResult forEachEpilogueRun(
      Value tile, Value acc,
      function_ref<void(ArrayRef<Value> elements, Value row, Value col)> body);
  /// Stores a run of adjacent columns (forEachEpilogueRun's) into a slot.
  void storeRunToSlot(Ring &ring, Value slot, ArrayRef<Value> elements,
                      Value row, Value col);
  LogicalResult emitOp(Operation *op);
  /// A synchronous copy between global memory and a shared slot, by the
  /// group's threads element by element (no barrier).
  LogicalResult emitCopy(tile::CopyOp op);

  tile::KernelOp kernel;
  OpBuilder &b;
  Location loc;
  LoweringTarget &target;
  gpu::GPUFuncOp func;

  // Plans.
  llvm::MapVector<Value, Ring> rings;
  int64_t sharedBytes = 0;
  /// The target may add to sharedBytes while emitting (an operand planned
  /// to stay in registers that turns out to need staging).
  bool sharedLater = false;
  int64_t threads = 0;   // of one program
  /// Programs per cluster along x, y, z (schedule.launch); empty without
  /// clusters.
  SmallVector<int64_t, 3> cluster;
  int64_t occupancy = 0; // resident programs asked for (schedule.launch)
  // In program order: iteration order decides the staging layout, which
  // must not depend on pointer values.
  SetVector<Operation *> mmaDots;
  DenseSet<Value> accValues; // tiles held as accumulators
  SmallVector<schedule::RoleOp> roles; // the first op of each role
  bool asyncStores = false; // a copy region stores (shared to global)
  /// Per op: the bytes and elements of workspace buffers that are written
  /// and read back at each of its runs (what the cost model charges).
  DenseMap<Operation *, std::pair<int64_t, int64_t>> workspaceTraffic;
  /// The tile.dot ops computed element by element, off the matrix unit.
  DenseSet<Operation *> elementwiseDots;
  /// (MMA dot, operand) that the target stages into shared memory at each
  /// run of the dot (not once before a loop, not read in place or from
  /// registers).
  DenseSet<std::pair<Operation *, unsigned>> stagedAtDot;

  // Emission state.
  IRMapping mapping;
  DenseMap<Value, TileRep> tiles;
  /// Tiles materialized into a buffer where they are read (not where they
  /// are defined), with what they were before: the buffer is written only
  /// where that read runs, so past the block emitted around it (a branch, a
  /// loop body that may run no iteration) a tile of an enclosing block is
  /// what it was before (emitBlock).
  SmallVector<std::pair<Value, TileRep>> materializedAtRead;
  /// Inside a loop mapped to threads or warps: the unit (thread or warp)
  /// whose slice of each workspace buffer the iteration uses, of `count`.
  struct {
    Value index;
    int64_t count = 1;
  } unit;
  /// Row indices known to be the calling thread's row slot n (the target
  /// notes them where it computes them): element() of a Rows tile at such
  /// a row is the slot's register; at any other, an internal error.
  DenseMap<Value, int64_t> rowSlot;
  Group group;
  Value tid, ringBase;
  bool simtSinceBarrier = false;
  DenseSet<Operation *> consumed; // ops folded into another's lowering

private:
  LogicalResult planRoles();
  LogicalResult planNamedBarriers();
  LogicalResult planShared();
  void planAccumulators();

  LogicalResult emitBlock(Block &block);
  /// Forgets the buffers code emitted for `block` (since materializedAtRead
  /// held `outer` entries) filled for tiles of enclosing blocks.
  void leaveBlock(Block &block, size_t outer);
  bool neededByCurrentRole(Operation *op);
  LogicalResult emitFor(scf::ForOp op);
  LogicalResult emitMappedFor(scf::ForOp op, schedule::ParallelLevel level);
  LogicalResult emitIf(scf::IfOp op);
  LogicalResult emitAsync(schedule::AsyncOp op);
  LogicalResult emitMmaDot(tile::DotOp dot, schedule::AsyncOp async);
  LogicalResult emitStore(tile::StoreOp op);
  LogicalResult emitWrite(tile::WriteOp op);
  bool readsAccumulator(Value tile);
  bool readByMmaBeforeRelease(tile::ReadOp read);
  Value registerSourceOf(Value tile);
  bool registersLeftFor(Operation *op, RankedTensorType extra,
                        const DenseSet<Value> &held);
  FailureOr<Value> accumulatorInRegisters(Value tile, Value acc);
  LogicalResult
  reduceRowsInRegisters(tile::ReduceOp reduce, Value acc,
                        function_ref<Value(Value, Value)> combine);
  /// `reduce` by the lanes of a warp (the group of a warp-mapped loop's
  /// iteration): each folds the elements at its lane modulo 32, shuffles
  /// combine the folds, and lane 0 writes each result.
  LogicalResult reduceByWarp(tile::ReduceOp reduce,
                             function_ref<Value(Value, Value)> combine);
  /// The accumulator register forEachEpilogueRun is computing on: element()
  /// of `tile` at (`row`, `col`) is `value`.
  struct {
    Value tile, row, col, value;
  } inRegister;
  LogicalResult fillBuffer(Value buffer, Value tile);
  /// prepare(), where element() of `tile` will be called with a first index
  /// that is a row the thread holds (`rowOwned`) or not.
  LogicalResult prepareTree(Value tile, Value inRegisters, bool rowOwned);
  /// Whether 1-D iteration argument `arg` of `loop` is carried as a Rows
  /// vector: it has the rows of an accumulator the loop carries too.
  bool carriesRows(scf::ForOp loop, BlockArgument arg);
  LogicalResult
  foldInto(Value result, const Twine &why, int64_t begin, int64_t end,
           function_ref<FailureOr<Value>(ValueRange)> init,
           function_ref<FailureOr<Value>(ValueRange, Value, Value)> step);
  Value globalElement(Value memref, ArrayRef<int64_t> tileShape,
                      ValueRange blockIdx, ValueRange offsets,
                      ValueRange bounds, Attribute padding, ValueRange idx,
                      Type elementType);
  void globalStore(Value memref, ArrayRef<int64_t> tileShape,
                   ValueRange blockIdx, ValueRange offsets, ValueRange bounds,
                   ValueRange idx, Value v, bool add);
  Value runsAligned(Value memref, ArrayRef<int64_t> tileShape,
                    ValueRange blockIdx, ValueRange offsets, int64_t runBytes);
  void globalStoreRun(Value memref, ArrayRef<int64_t> tileShape,
                      ValueRange blockIdx, ValueRange offsets,
                      ValueRange bounds, ValueRange idx, ValueRange values,
                      Value aligned);

  DenseMap<Value, Value> mbarrierGroups;
  /// Named barrier arrays: their first hardware id and the threads that
  /// arrive per phase.
  struct NamedBarriers {
    int64_t firstId = 0, threads = 0;
  };
  DenseMap<Value, NamedBarriers> namedBarriers;
  DenseSet<Value> absent; // values of other roles
  // Per role name: its budget and the op that states it.
  llvm::StringMap<std::pair<uint64_t, schedule::RoleOp>> roleRegs;
  StringRef currentRole;
  Value workspace, workspaceBase;
  int64_t workspaceBytes = 0;
  bool reportFallbacks;
  std::set<std::pair<Operation *, std::string>> reported;
  DenseSet<Operation *> ghosts; // pure computations that only feed tags
};

/// Lowers every kernel of `module` that is not only a contract's reference
/// into one gpu.module (`@tiletag_kernels`) of a gpu.container_module. Each
/// kernel must have been proved (stamps valid), unless `allowUnverified`,
/// which warns. `makeTarget` gives a fresh target per kernel. With
/// `reportFallbacks`, every slower path the lowering takes is a remark
/// (KernelLowering::reportFallback).
LogicalResult
lowerKernels(ModuleOp module, bool allowUnverified, bool reportFallbacks,
             function_ref<std::unique_ptr<LoweringTarget>()> makeTarget);

/// What lowering `kernel` for `target` would do, where that changes its
/// cost: its workspace traffic (KernelLowering::workspaceTraffic), the dots
/// it computes element by element (elementwiseDots) and the operands it
/// stages at each dot (stagedAtDot). The lowering is built in a scratch
/// module and dropped, with its diagnostics. Fails where the lowering
/// refuses the kernel.
LogicalResult
planLowering(tile::KernelOp kernel, LoweringTarget &target,
             DenseMap<Operation *, std::pair<int64_t, int64_t>> &workspace,
             DenseSet<Operation *> &elementwiseDots,
             DenseSet<std::pair<Operation *, unsigned>> &stagedAtDot,
             int64_t &sharedBytes);

/// The targets, for planLowering (defined by the NVGPU and AMDGPU
/// libraries; `chip` as --tiletag-convert-to-amdgpu takes it).
std::unique_ptr<LoweringTarget> createNVGPUTarget();
std::unique_ptr<LoweringTarget> createAMDGPUTarget(StringRef chip);

using tile::isFp8;

/// The f32 value of fp8 scalar `v`, decoded from its bits with integer
/// arithmetic (exact: every fp8 value is an f32). The LLVM back ends have no
/// fp8 type to extend from. Folds to a constant for a constant `v`.
Value decodeFp8ToF32(OpBuilder &b, Location loc, Value v);

/// Refuses, at the op, arithmetic on fp8 values under `root` other than
/// widening them (arith.extf): rounding to fp8, fp8 compares. fp8 values
/// are loaded, copied, multiplied (tile.dot) and widened here, nothing else.
LogicalResult checkFp8Arithmetic(Operation *root);

/// Replaces each arith.extf from an fp8 type in lowered `func` by
/// decodeFp8ToF32 (after checkFp8Arithmetic).
LogicalResult legalizeFp8(gpu::GPUFuncOp func);

/// Whether `ring`'s slots can take the 128-byte swizzle: 2-D, rows a
/// multiple of 128 bytes.
bool fitsSwizzle128B(const Ring &ring);
/// Byte offset, within its slot, of tile element `index` of a slot under the
/// 128-byte swizzle: 128-byte column panels one after the other, each row's
/// 16-byte chunks XORed with the row index mod 8.
Value swizzled128BByte(KernelLowering &k, const Ring &ring, ValueRange index);
/// layout::swizzle128B of byte offset `offset`, in IR.
Value swizzle128BOffset(KernelLowering &k, Value offset);

/// Position of tile element `idx` in the global memref `memref`, per the
/// tile dialect's block addressing.
SmallVector<Value> globalPosition(OpBuilder &b, Location loc, Value memref,
                                  ArrayRef<int64_t> tileShape,
                                  ValueRange blockIdx, ValueRange offsets,
                                  ValueRange idx);

/// The value a role or async result stands for: what its region yields.
Value yieldedSource(Value v);
/// The role whose copy of the kernel computes `v`, a value a loop yields:
/// the role that yields it (for a loop's result, the role that computes
/// what the loop yields there); empty where every copy computes it.
StringRef computingRole(Value v);
/// Whether `v` is a constant splat of floating-point zero.
bool isZeroSplat(Value v);
/// Whether `async`, a copy region, stores (its copies read shared memory
/// and write global memory: a TMA store) rather than loads.
bool isAsyncStore(schedule::AsyncOp async);

} // namespace mlir::tiletag::conversion

#endif // TILETAG_CONVERSION_TILETOGPU_KERNELLOWERING_H
