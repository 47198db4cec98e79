//===- TileTagTransformOps.cpp - transform.tiletag.* ops ------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/TransformOps/TileTagTransformOps.h"

#include "TileTag/Conversion/Layouts.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Verification/CheckKernel.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tiletag;

static Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The silenceable failure of a rewrite whose target is not a tile.kernel.
static DiagnosedSilenceableFailure
notAKernel(transform::TransformOpInterface op, Operation *target) {
  return op.emitSilenceableError()
         << "expects a tile.kernel, got '" << target->getName() << "'";
}

/// Rewrites invalidate proofs: a rewritten kernel carries no stamps until
/// the checkers prove it again. The result handle points to `result`.
static DiagnosedSilenceableFailure
rewritten(Operation *kernel, Operation *result,
          transform::ApplyToEachResultList &results) {
  kernel->removeAttr(tag::TagDialect::kVerifiedAttrName);
  kernel->removeAttr(schedule::ScheduleDialect::kVerifiedAttrName);
  results.push_back(result);
  return DiagnosedSilenceableFailure::success();
}

/// Sets the `warpgroups` or the `occupancy` of the kernel's schedule.launch
/// (one warpgroup without one), the rest kept.
static void updateLaunch(Operation *kernel, std::optional<int64_t> warpgroups,
                         std::optional<int64_t> occupancy) {
  auto old = kernel->getAttrOfType<schedule::LaunchAttr>(
      schedule::ScheduleDialect::kLaunchAttrName);
  kernel->setAttr(
      schedule::ScheduleDialect::kLaunchAttrName,
      schedule::LaunchAttr::get(
          kernel->getContext(),
          warpgroups.value_or(old ? old.getWarpgroups() : 1),
          old ? old.getCluster() : ArrayRef<int64_t>(),
          occupancy.value_or(old ? old.getOccupancy() : 0)));
}

/// Gives the kernel's tile.launch the grid extents `grid`, all else kept.
static void setLaunchGrid(tile::KernelOp kernel, tile::LaunchAttr launch,
                          ArrayRef<AffineExpr> grid) {
  kernel->setAttr(tile::TileDialect::kLaunchAttrName,
                  tile::LaunchAttr::get(kernel.getContext(),
                                        launch.getSizeNames(),
                                        launch.getSizeDefaults(), grid,
                                        launch.getShapeNames(),
                                        launch.getShapes(), launch.getCheck(),
                                        launch.getThen()));
}

/// Records that the kernel's programs were renumbered by `step` (old program
/// ids -> new ones): its tag.program_map, the reference's program ids ->
/// the kernel's, becomes `step` after the old map. Only kernels with a
/// contract carry one.
static void renumberPrograms(tile::KernelOp kernel, AffineMap step) {
  if (!kernel->hasAttr(tag::TagDialect::kContractAttrName))
    return;
  auto old = kernel->getAttrOfType<AffineMapAttr>(
      tag::TagDialect::kProgramMapAttrName);
  // A map that also names loop values (a persistent kernel's) is not
  // followed through the renumbering: dropped, the checker searches for the
  // program itself (sound; possibly slower or undecided).
  if (old && (old.getValue().getNumResults() != step.getNumDims() ||
              old.getValue().getNumSymbols() != 0)) {
    kernel->removeAttr(tag::TagDialect::kProgramMapAttrName);
    return;
  }
  AffineMap map = old ? step.compose(old.getValue()) : step;
  kernel->setAttr(tag::TagDialect::kProgramMapAttrName,
                  AffineMapAttr::get(map));
}

/// The loop a loop rewrite targets, in a kernel (one without a schedule if
/// `unscheduled`), or a reason.
static FailureOr<std::pair<scf::ForOp, tile::KernelOp>>
targetLoop(Operation *target, bool unscheduled, std::string &why) {
  auto loop = llvm::dyn_cast<scf::ForOp>(target);
  if (!loop) {
    why = "expects an scf.for, got '" + target->getName().getStringRef().str() +
          "'";
    return failure();
  }
  auto kernel = loop->getParentOfType<tile::KernelOp>();
  if (!kernel) {
    why = "the loop is not in a tile.kernel";
    return failure();
  }
  if (!isConstantIntValue(loop.getStep(), 1)) {
    why = "the loop's step must be 1";
    return failure();
  }
  if (unscheduled &&
      kernel->hasAttr(schedule::ScheduleDialect::kLaunchAttrName)) {
    why = "@" + kernel.getSymName().str() + " has a schedule already";
    return failure();
  }
  return std::make_pair(loop, kernel);
}

/// A loop rewrite's loop in a plain kernel (no schedule, no shared memory),
/// or a reason, ending in `advice` where the kernel is staged already.
static FailureOr<std::pair<scf::ForOp, tile::KernelOp>>
targetPlainLoop(Operation *target, StringRef advice, std::string &why) {
  auto found = targetLoop(target, /*unscheduled=*/true, why);
  if (failed(found))
    return failure();
  bool hasShared = false;
  found->second.walk([&](tile::AllocSharedOp) { hasShared = true; });
  if (!hasShared)
    return found;
  why = "@" + found->second.getSymName().str() + " uses shared memory; " +
        advice.str();
  return failure();
}

//===----------------------------------------------------------------------===//
// VerifyOp
//===----------------------------------------------------------------------===//

void tiletag::VerifyOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure tiletag::VerifyOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return ::mlir::emitDefiniteFailure(target)
           << "transform.tiletag.verify expects tile.kernel ops, got '"
           << target->getName() << "'";
  verify::CheckOptions options;
  options.resourceLimit = getResourceLimit();
  verify::KernelVerdict verdict;
  {
    // The checkers' own diagnostics become the failure's: a script that
    // suppresses the failure (to try another rewrite) prints nothing.
    ScopedDiagnosticHandler quiet(target->getContext(),
                                  [](Diagnostic &) { return success(); });
    verdict = verify::checkKernel(kernel, options);
  }
  bool proved = verify::stampVerdict(kernel, options, verdict);
  if (proved)
    return DiagnosedSilenceableFailure::success();
  const verify::ObligationVerdict *first = nullptr;
  for (const verify::ObligationVerdict &o : verdict.obligations) {
    if (o.status == verify::ObligationVerdict::Unknown)
      return ::mlir::emitDefiniteFailure(target)
             << "@" << kernel.getSymName() << ": " << o.what << " (at "
             << o.location << ")";
    if (o.status == verify::ObligationVerdict::Failed && !first)
      first = &o;
  }
  DiagnosedSilenceableFailure failure =
      emitSilenceableError() << "@" << kernel.getSymName()
                             << " does not verify: "
                             << (first ? first->what : "a checker failed");
  if (first) {
    failure.attachNote(target->getLoc()) << "at " << first->location;
    // The checker's notes: the counterexample, the ops and iterations
    // involved, and the tiletag-run command that replays it.
    for (const std::string &note : first->notes)
      failure.attachNote() << note;
  }
  return failure;
}

//===----------------------------------------------------------------------===//
// SplitKOp
//===----------------------------------------------------------------------===//

namespace {
/// The reduction a kernel stores: `scf.for %v = 0 to %n step 1` whose
/// iter_arg starts at a zero tile and accumulates (tile.dot into it, or
/// arith.addf with it), stored by the kernel's one tile.store.
struct StoredReduction {
  tile::StoreOp store;
  scf::ForOp loop;
};
} // namespace

static bool isZeroTile(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto dense =
      cst ? llvm::dyn_cast<DenseFPElementsAttr>(cst.getValue()) : nullptr;
  return dense && dense.isSplat() &&
         dense.getSplatValue<APFloat>().isPosZero();
}

static std::optional<StoredReduction> findStoredReduction(tile::KernelOp k,
                                                          std::string &why) {
  SmallVector<tile::StoreOp> stores;
  k.walk([&](tile::StoreOp s) { stores.push_back(s); });
  if (stores.size() != 1) {
    why = "expects exactly one tile.store, found " +
          std::to_string(stores.size());
    return std::nullopt;
  }
  tile::StoreOp store = stores.front();
  if (store.getCombine()) {
    why = "the store already combines into its output";
    return std::nullopt;
  }
  auto result = llvm::dyn_cast<OpResult>(store.getValue());
  auto loop = result ? llvm::dyn_cast<scf::ForOp>(result.getOwner()) : nullptr;
  if (!loop || loop->getBlock() != store->getBlock()) {
    why = "the stored value is not the result of an scf.for beside the store";
    return std::nullopt;
  }
  unsigned i = result.getResultNumber();
  if (loop.getNumRegionIterArgs() != 1) {
    why = "the reduction loop carries other values, which a split would "
          "leave partial";
    return std::nullopt;
  }
  if (!isConstantIntValue(loop.getLowerBound(), 0) ||
      !isConstantIntValue(loop.getStep(), 1) || loop.getUnsignedCmp()) {
    why = "the reduction loop must run from 0 in steps of 1";
    return std::nullopt;
  }
  if (!isZeroTile(loop.getInitArgs()[i])) {
    why = "the reduction must start from a zero tile";
    return std::nullopt;
  }
  Value acc = loop.getRegionIterArgs()[i];
  Value next = loop.getBody()->getTerminator()->getOperand(i);
  bool accumulates = false;
  if (auto dot = next.getDefiningOp<tile::DotOp>())
    accumulates = dot.getAcc() == acc;
  else if (auto add = next.getDefiningOp<arith::AddFOp>())
    accumulates = add.getLhs() == acc || add.getRhs() == acc;
  if (!accumulates || !acc.hasOneUse()) {
    why = "the loop's iter_arg must only accumulate (tile.dot into it or "
          "arith.addf with it)";
    return std::nullopt;
  }
  return StoredReduction{store, loop};
}

/// The ops that compute `values` from program ids and grid extents of the
/// first `rank` dimensions, constants and the dimensions of `output`, in an
/// order they can be re-created in (in another kernel); a reason otherwise.
static FailureOr<SmallVector<Operation *>>
indexComputation(ValueRange values, Value output, int64_t rank,
                 std::string &why) {
  SmallVector<Operation *> order;
  llvm::SmallPtrSet<Operation *, 16> seen;
  std::function<bool(Value)> visit = [&](Value v) -> bool {
    Operation *def = v.getDefiningOp();
    if (!def) {
      why = "a store index depends on a block argument (a loop variable or "
            "an operand), which the reduction kernel does not have";
      return false;
    }
    if (seen.contains(def))
      return true;
    bool allowed = false;
    if (auto pid = llvm::dyn_cast<tile::ProgramIdOp>(def))
      allowed = static_cast<int64_t>(pid.getDim()) < rank;
    else if (auto n = llvm::dyn_cast<tile::NumProgramsOp>(def))
      allowed = static_cast<int64_t>(n.getDim()) < rank;
    else if (auto dim = llvm::dyn_cast<memref::DimOp>(def))
      allowed = dim.getSource() == output && visit(dim.getIndex());
    else
      allowed = def->getDialect() &&
                def->getDialect()->getNamespace() == "arith" &&
                def->getNumRegions() == 0 && isPure(def) &&
                llvm::all_of(def->getOperands(), visit);
    if (!allowed) {
      if (why.empty())
        why = "a store index is computed by '" +
              def->getName().getStringRef().str() +
              "', which the reduction kernel cannot re-create (it uses "
              "program ids, grid extents, constants, arith and the "
              "output's dimensions)";
      return false;
    }
    seen.insert(def);
    order.push_back(def);
    return true;
  };
  for (Value v : values)
    if (!visit(v))
      return failure();
  return order;
}

/// Gives a launch's shape maps `numSizes` symbols (the sizes, one added).
static AffineMap withSizes(AffineMap map, unsigned numSizes) {
  return AffineMap::get(map.getNumDims(), numSizes, map.getResults(),
                        map.getContext());
}

DiagnosedSilenceableFailure tiletag::SplitKOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  int64_t rank = kernel.getGridAttr().getInt();
  if (rank >= 3)
    return emitSilenceableError()
           << "@" << kernel.getSymName()
           << " already uses all 3 grid dimensions; split-k needs a new one";
  if (kernel->hasAttr(schedule::ScheduleDialect::kLaunchAttrName))
    return emitSilenceableError()
           << "@" << kernel.getSymName()
           << " has a schedule; split the reduction before scheduling";
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch)
    return emitSilenceableError()
           << "@" << kernel.getSymName()
           << " has no tile.launch to add the split count to";
  if (llvm::any_of(launch.getSizeNames(),
                   [](StringAttr n) { return n.getValue() == "S"; }))
    return emitSilenceableError()
           << "@" << kernel.getSymName()
           << " already has a launch size S (split twice?)";
  std::string why;
  std::optional<StoredReduction> found = findStoredReduction(kernel, why);
  if (!found)
    return emitSilenceableError()
           << "@" << kernel.getSymName() << ": " << why;
  MLIRContext *ctx = kernel.getContext();
  tile::StoreOp store = found->store;

  // With a reduction kernel: the output O becomes a workspace
  // O_partials = [S] ++ shape(O), summed by @<kernel>_reduce.
  bool reduce = getReductionKernel();
  auto output = llvm::dyn_cast<BlockArgument>(store.getDest());
  std::string outName, partialsName, reduceName;
  SmallVector<Operation *> indexOps;
  int64_t outShape = -1;
  if (reduce) {
    auto fail = [&](const Twine &reason) {
      return emitSilenceableError()
             << "@" << kernel.getSymName()
             << " cannot be split with a reduction kernel: " << reason;
    };
    if (!launch.getThen().empty())
      return fail("it already launches other kernels after it ('then')");
    if (!output || output.getOwner()->getParentOp() != kernel)
      return fail("its store's destination is not a kernel operand");
    outName = kernel.getOperandName(output.getArgNumber());
    if (!output.hasOneUse())
      return fail("the output " + outName +
                  " is used other than by the store; the kernel gives it "
                  "up for the workspace");
    if (!store.getOffsets().empty() || !store.getBounds().empty())
      return fail("the store has offsets or bounds");
    for (auto [i, name] : llvm::enumerate(launch.getShapeNames()))
      if (name.getValue() == outName)
        outShape = i;
    if (outShape < 0)
      return fail("the launch gives no shape for the output " + outName);
    partialsName = outName + "_partials";
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
      if (kernel.getOperandName(i) == partialsName)
        return fail("it already has an operand " + partialsName);
    reduceName = (kernel.getSymName() + "_reduce").str();
    if (SymbolTable::lookupNearestSymbolFrom(
            kernel, StringAttr::get(ctx, reduceName)))
      return fail("the name @" + reduceName + " is taken");
    if (!llvm::isa<FloatType>(store.getValue().getType().getElementType()))
      return fail("the output tile is not floating-point");
    FailureOr<SmallVector<Operation *>> ops =
        indexComputation(store.getIndices(), output, rank, why);
    if (failed(ops))
      return fail(why);
    indexOps = std::move(*ops);
  }

  // The launch: a size S = splits and a grid dimension of extent S.
  kernel->removeAttr(tag::TagDialect::kProgramMapAttrName);
  SmallVector<StringAttr> names(launch.getSizeNames());
  SmallVector<int64_t> defaults(launch.getSizeDefaults());
  names.push_back(StringAttr::get(ctx, "S"));
  defaults.push_back(getSplits());
  SmallVector<AffineExpr> grid(launch.getGrid());
  grid.push_back(getAffineSymbolExpr(names.size() - 1, ctx));
  SmallVector<StringAttr> shapeNames(launch.getShapeNames());
  SmallVector<AffineMap> shapes;
  for (AffineMap m : launch.getShapes())
    shapes.push_back(withSizes(m, names.size()));
  SmallVector<FlatSymbolRefAttr> then(launch.getThen());
  AffineMap partialsShape;
  if (reduce) {
    SmallVector<AffineExpr> dims{grid.back()};
    llvm::append_range(dims, shapes[outShape].getResults());
    partialsShape = AffineMap::get(0, names.size(), dims, ctx);
    shapeNames[outShape] = StringAttr::get(ctx, partialsName);
    std::swap(shapes[outShape], partialsShape);
    then.push_back(FlatSymbolRefAttr::get(ctx, reduceName));
  }
  kernel->setAttr(tile::TileDialect::kLaunchAttrName,
                  tile::LaunchAttr::get(ctx, names, defaults, grid,
                                        shapeNames, shapes, launch.getCheck(),
                                        then));
  kernel.setGridAttr(rewriter.getI64IntegerAttr(rank + 1));

  // Split ps runs [ps * per, min((ps + 1) * per, n)), per = n ceildiv S.
  scf::ForOp loop = found->loop;
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  Value n = loop.getUpperBound();
  Value split = tile::ProgramIdOp::create(rewriter, loc, rank);
  Value splits = tile::NumProgramsOp::create(rewriter, loc, rank);
  Value per = arith::CeilDivUIOp::create(rewriter, loc, n, splits);
  Value beginRaw = arith::MulIOp::create(rewriter, loc, split, per);
  Value begin = arith::MinUIOp::create(rewriter, loc, beginRaw, n);
  Value endRaw = arith::AddIOp::create(rewriter, loc, begin, per);
  Value end = arith::MinUIOp::create(rewriter, loc, endRaw, n);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.getLowerBoundMutable().assign(begin);
    loop.getUpperBoundMutable().assign(end);
  });
  if (!reduce) {
    rewriter.modifyOpInPlace(store, [&] {
      store.setCombineAttr(
          tile::StoreCombineAttr::get(ctx, tile::StoreCombine::Add));
    });
    return rewritten(kernel, kernel, results);
  }

  // The partial sum goes to slice ps of the workspace, in place of O.
  auto outType = llvm::cast<MemRefType>(output.getType());
  SmallVector<int64_t> partialsDims{ShapedType::kDynamic};
  llvm::append_range(partialsDims, outType.getShape());
  auto partialsType = MemRefType::get(partialsDims, outType.getElementType(),
                                      MemRefLayoutAttrInterface(),
                                      outType.getMemorySpace());
  auto nameAttrs = [&](StringRef name) {
    return DictionaryAttr::get(
        ctx, {NamedAttribute(tile::TileDialect::kNameAttrName,
                             StringAttr::get(ctx, name))});
  };
  unsigned at = output.getArgNumber();
  if (failed(kernel.insertArgument(at, partialsType, nameAttrs(partialsName),
                                   output.getLoc())))
    return emitDefiniteFailure() << "could not add the workspace operand";
  Value partials = kernel.getArgument(at);
  SmallVector<Value> sliceIndices{split};
  llvm::append_range(sliceIndices, store.getIndices());
  rewriter.setInsertionPoint(store);
  tile::StoreOp::create(rewriter, store.getLoc(), store.getValue(), partials,
                        sliceIndices, ValueRange(), ValueRange(),
                        tile::StoreCombineAttr());
  Location storeLoc = store.getLoc();
  SmallVector<Value> outIndices(store.getIndices());
  auto tileType = llvm::cast<RankedTensorType>(store.getValue().getType());
  rewriter.eraseOp(store);
  if (failed(kernel.eraseArgument(at + 1)))
    return emitDefiniteFailure() << "could not drop the output operand";

  // @<kernel>_reduce: output block b = 0 + O_partials[0, b] + ... +
  // O_partials[S - 1, b], in order.
  rewriter.setInsertionPointAfter(kernel);
  Location kloc = kernel.getLoc();
  auto reduction = tile::KernelOp::create(
      rewriter, kloc, StringAttr::get(ctx, reduceName),
      TypeAttr::get(FunctionType::get(ctx, {partialsType, outType}, {})),
      rewriter.getI64IntegerAttr(rank), StringAttr(),
      rewriter.getArrayAttr({nameAttrs(partialsName), nameAttrs(outName)}),
      ArrayAttr());
  reduction->setAttr(
      tile::TileDialect::kLaunchAttrName,
      tile::LaunchAttr::get(
          ctx, names, defaults, launch.getGrid(),
          {StringAttr::get(ctx, partialsName), StringAttr::get(ctx, outName)},
          {shapes[outShape], partialsShape}, StringAttr(), {}));
  Block *body = rewriter.createBlock(&reduction.getBody(), {},
                                     {partialsType, outType}, {kloc, kloc});
  Value slices = body->getArgument(0), out = body->getArgument(1);
  IRMapping map;
  map.map(output, out);
  for (Operation *op : indexOps)
    rewriter.clone(*op, map);
  Value c0 = indexConstant(rewriter, kloc, 0);
  Value c1 = indexConstant(rewriter, kloc, 1);
  Value count = memref::DimOp::create(rewriter, kloc, slices, c0);
  auto zeroElement = rewriter.getFloatAttr(tileType.getElementType(), 0.0);
  Value zero = arith::ConstantOp::create(
      rewriter, kloc, DenseElementsAttr::get(tileType, zeroElement));
  SmallVector<Value> blockIndices;
  for (Value v : outIndices)
    blockIndices.push_back(map.lookup(v));
  auto sum = scf::ForOp::create(
      rewriter, kloc, c0, count, c1, ValueRange{zero},
      [&](OpBuilder &b, Location l, Value s, ValueRange acc) {
        SmallVector<Value> at{s};
        llvm::append_range(at, blockIndices);
        Value slice = tile::LoadOp::create(b, l, tileType, slices, at,
                                           ValueRange(), ValueRange(),
                                           zeroElement);
        scf::YieldOp::create(b, l,
                             arith::AddFOp::create(b, l, acc[0], slice)
                                 .getResult());
      });
  tile::StoreOp::create(rewriter, storeLoc, sum.getResult(0), out,
                        blockIndices, ValueRange(), ValueRange(),
                        tile::StoreCombineAttr());
  tile::ReturnOp::create(rewriter, kloc);
  return rewritten(kernel, kernel, results);
}


//===----------------------------------------------------------------------===//
// CoarsenOp
//===----------------------------------------------------------------------===//

namespace {
/// Rebuilds a kernel's body so that one program does the work of `factor`
/// consecutive programs along one grid dimension. `maps[c]` maps the old
/// body's values to those of block c; a value is shared when every map
/// gives the same one.
class ProgramCoarsener {
public:
  ProgramCoarsener(RewriterBase &rewriter, int64_t dim, int64_t factor)
      : rewriter(rewriter), dim(dim), factor(factor), maps(factor) {}

  /// Re-creates `ops` (in order) at the rewriter's insertion point.
  void rebuild(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      rebuildOp(op);
  }

private:
  bool shared(Value v) const {
    for (int64_t c = 1; c < factor; ++c)
      if (maps[c].lookupOrDefault(v) != maps[0].lookupOrDefault(v))
        return false;
    return true;
  }

  /// The op (with what its regions use from outside) is the same for every
  /// block.
  bool sharedOp(Operation *op) const {
    bool same = true;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!op->isAncestor(v.getParentBlock()->getParentOp()) && !shared(v))
          same = false;
    });
    return same;
  }

  /// Writes are replicated even when the same for every block: a `combine
  /// add` store done once would add once.
  static bool onlyReads(Operation *op) {
    bool reads = true;
    op->walk([&](Operation *inner) {
      if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return;
      auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(inner);
      if (!effects) {
        reads = reads && inner->hasTrait<OpTrait::IsTerminator>();
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (auto &e : list)
        if (!llvm::isa<MemoryEffects::Read>(e.getEffect()))
          reads = false;
    });
    return reads;
  }

  void cloneOnce(Operation *op) {
    Operation *copy = rewriter.clone(*op, maps[0]);
    for (int64_t c = 1; c < factor; ++c)
      maps[c].map(op->getResults(), copy->getResults());
  }

  void rebuildOp(Operation *op) {
    if (auto pid = llvm::dyn_cast<tile::ProgramIdOp>(op);
        pid && static_cast<int64_t>(pid.getDim()) == dim) {
      // Block c of program p is the old program p * factor + c.
      Location loc = pid.getLoc();
      Value p = tile::ProgramIdOp::create(rewriter, loc, dim);
      Value base = arith::MulIOp::create(rewriter, loc, p,
                                         indexConstant(rewriter, loc, factor));
      maps[0].map(pid.getResult(), base);
      for (int64_t c = 1; c < factor; ++c)
        maps[c].map(pid.getResult(),
                    arith::AddIOp::create(rewriter, loc, base,
                                          indexConstant(rewriter, loc, c)));
      return;
    }
    if (sharedOp(op) && onlyReads(op))
      return cloneOnce(op);
    if (auto loop = llvm::dyn_cast<scf::ForOp>(op);
        loop && shared(loop.getLowerBound()) && shared(loop.getUpperBound()) &&
        shared(loop.getStep()))
      return mergeLoop(loop);
    for (int64_t c = 0; c < factor; ++c)
      rewriter.clone(*op, maps[c]);
  }

  /// The iter_args of `loop` that differ between blocks: those whose initial
  /// value differs, and, to a fixed point, those whose next value depends on
  /// one that differs.
  llvm::SmallBitVector perBlockIterArgs(scf::ForOp loop) const {
    unsigned n = loop.getNumRegionIterArgs();
    llvm::SmallBitVector perBlock(n);
    for (unsigned i = 0; i < n; ++i)
      perBlock[i] = !shared(loop.getInitArgs()[i]);
    while (true) {
      DenseSet<Value> differs;
      for (unsigned i = 0; i < n; ++i)
        if (perBlock[i])
          differs.insert(loop.getRegionIterArgs()[i]);
      auto depends = [&](Value v) {
        return differs.contains(v) ||
               (!loop->isAncestor(v.getParentBlock()->getParentOp()) &&
                !shared(v));
      };
      for (Operation &op : loop.getBody()->without_terminator()) {
        bool dep = false;
        op.walk([&](Operation *inner) {
          dep = dep || llvm::any_of(inner->getOperands(), depends);
        });
        if (dep)
          differs.insert(op.getResults().begin(), op.getResults().end());
      }
      bool changed = false;
      Operation *yield = loop.getBody()->getTerminator();
      for (unsigned i = 0; i < n; ++i)
        if (!perBlock[i] && depends(yield->getOperand(i))) {
          perBlock[i] = true;
          changed = true;
        }
      if (!changed)
        return perBlock;
    }
  }

  /// One loop for every block: shared iter_args once, the others per block.
  void mergeLoop(scf::ForOp loop) {
    llvm::SmallBitVector perBlock = perBlockIterArgs(loop);
    unsigned n = loop.getNumRegionIterArgs();
    // Position of (iter_arg i, block c) in the merged loop.
    auto slot = [&](unsigned i, int64_t c) {
      unsigned at = 0;
      for (unsigned j = 0; j < i; ++j)
        at += perBlock[j] ? factor : 1;
      return at + (perBlock[i] ? c : 0);
    };
    SmallVector<Value> inits;
    for (unsigned i = 0; i < n; ++i)
      for (int64_t c = 0; c < (perBlock[i] ? factor : 1); ++c)
        inits.push_back(maps[c].lookupOrDefault(loop.getInitArgs()[i]));
    auto merged = scf::ForOp::create(
        rewriter, loop.getLoc(), maps[0].lookupOrDefault(loop.getLowerBound()),
        maps[0].lookupOrDefault(loop.getUpperBound()),
        maps[0].lookupOrDefault(loop.getStep()), inits);
    merged->setAttrs(loop->getDiscardableAttrDictionary());
    merged.setUnsignedCmp(loop.getUnsignedCmp());
    Block *body = merged.getBody();
    for (int64_t c = 0; c < factor; ++c) {
      maps[c].map(loop.getInductionVar(), merged.getInductionVar());
      for (unsigned i = 0; i < n; ++i)
        maps[c].map(loop.getRegionIterArgs()[i],
                    merged.getRegionIterArgs()[slot(i, c)]);
    }
    {
      OpBuilder::InsertionGuard guard(rewriter);
      // The builder made an empty yield when there are no iter_args.
      if (!body->empty())
        rewriter.eraseOp(body->getTerminator());
      rewriter.setInsertionPointToEnd(body);
      SmallVector<Operation *> ops;
      for (Operation &op : loop.getBody()->without_terminator())
        ops.push_back(&op);
      rebuild(ops);
      Operation *yield = loop.getBody()->getTerminator();
      SmallVector<Value> next;
      for (unsigned i = 0; i < n; ++i)
        for (int64_t c = 0; c < (perBlock[i] ? factor : 1); ++c)
          next.push_back(maps[c].lookupOrDefault(yield->getOperand(i)));
      scf::YieldOp::create(rewriter, yield->getLoc(), next);
    }
    for (int64_t c = 0; c < factor; ++c)
      for (unsigned i = 0; i < n; ++i)
        maps[c].map(loop.getResult(i), merged.getResult(slot(i, c)));
  }

  RewriterBase &rewriter;
  int64_t dim, factor;
  SmallVector<IRMapping> maps;
};
} // namespace

/// Why programs of grid dimension `dim` cannot be renumbered (by `verb`:
/// coarsening, rasterizing), or nothing: the dimension must exist, and no
/// op may read its extent, whose value renumbering changes.
static std::optional<std::string> whyNotRenumberable(tile::KernelOp kernel,
                                                     int64_t dim,
                                                     StringRef verb) {
  int64_t rank = kernel.getGridAttr().getInt();
  std::string why;
  llvm::raw_string_ostream os(why);
  if (dim >= rank) {
    os << "@" << kernel.getSymName() << " has " << rank
       << " grid dimensions; there is no dimension " << dim;
    return why;
  }
  bool readsExtent = false;
  kernel.walk([&](tile::NumProgramsOp n) {
    readsExtent = readsExtent || static_cast<int64_t>(n.getDim()) == dim;
  });
  if (!readsExtent)
    return std::nullopt;
  os << "@" << kernel.getSymName() << " reads tile.num_programs " << dim
     << ", whose value " << verb << " changes";
  return why;
}

/// A launch's grid extent `size ceildiv block` along one dimension.
struct GridExtent {
  tile::LaunchAttr launch;
  AffineExpr size;
  int64_t block;
};

/// Whether the programs of a plain kernel along `dim` can be merged (`verb`:
/// coarsening, retiling; `imperative`: coarsen, retile): the grid extent
/// along `dim` in `extentOut`, or a silenceable failure saying why not.
static DiagnosedSilenceableFailure
mergeablePrograms(transform::TransformOpInterface op, tile::KernelOp kernel,
                  int64_t dim, StringRef verb, StringRef imperative,
                  GridExtent &extentOut) {
  StringRef name = kernel.getSymName();
  if (std::optional<std::string> why = whyNotRenumberable(kernel, dim, verb))
    return op.emitSilenceableError() << *why;
  if (kernel->hasAttr(schedule::ScheduleDialect::kLaunchAttrName))
    return op.emitSilenceableError() << "@" << name << " has a schedule; "
                                     << imperative << " before scheduling";
  bool hasShared = false;
  kernel.walk([&](tile::AllocSharedOp) { hasShared = true; });
  if (hasShared)
    return op.emitSilenceableError() << "@" << name << " uses shared memory; "
                                     << imperative << " the plain kernel";
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  auto extent = launch && static_cast<int64_t>(launch.getGrid().size()) > dim
                    ? llvm::dyn_cast<AffineBinaryOpExpr>(launch.getGrid()[dim])
                    : AffineBinaryOpExpr(nullptr);
  auto blockSize =
      extent && extent.getKind() == AffineExprKind::CeilDiv
          ? llvm::dyn_cast<AffineConstantExpr>(extent.getRHS())
          : AffineConstantExpr(nullptr);
  if (!blockSize)
    return op.emitSilenceableError()
           << "@" << name << ": the launch's grid extent for dimension " << dim
           << " must be `size ceildiv constant`";
  extentOut = {launch, extent.getLHS(), blockSize.getValue()};
  return DiagnosedSilenceableFailure::success();
}

/// Program i along `dim` becomes part of program i floordiv `factor`: the
/// program map and the launch's grid extent follow.
static void mergePrograms(tile::KernelOp kernel, int64_t dim, int64_t factor,
                          const GridExtent &extent) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<AffineExpr> ids;
  for (int64_t j = 0, e = kernel.getGridAttr().getInt(); j < e; ++j)
    ids.push_back(j == dim ? getAffineDimExpr(j, ctx).floorDiv(factor)
                           : getAffineDimExpr(j, ctx));
  renumberPrograms(kernel, AffineMap::get(ids.size(), 0, ids, ctx));
  SmallVector<AffineExpr> grid(extent.launch.getGrid());
  grid[dim] = extent.size.ceilDiv(extent.block * factor);
  setLaunchGrid(kernel, extent.launch, grid);
}

DiagnosedSilenceableFailure tiletag::CoarsenOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  int64_t dim = getDim(), factor = getFactor();
  GridExtent extent;
  DiagnosedSilenceableFailure ok =
      mergeablePrograms(*this, kernel, dim, "coarsening", "coarsen", extent);
  if (!ok.succeeded())
    return ok;
  mergePrograms(kernel, dim, factor, extent);
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> old;
  for (Operation &op : body.without_terminator())
    old.push_back(&op);
  rewriter.setInsertionPoint(body.getTerminator());
  ProgramCoarsener(rewriter, dim, factor).rebuild(old);
  for (Operation *op : llvm::reverse(old))
    rewriter.eraseOp(op);
  return rewritten(kernel, kernel, results);
}

//===----------------------------------------------------------------------===//
// Growing tiles: RetileOp, ReductionStepOp
//===----------------------------------------------------------------------===//

namespace {
/// Which tile dimensions of a kernel grow when the accesses indexed by a
/// block index (`seeds`: the values of `tile.program_id dim`, or a loop's
/// induction variable) get `factor` times larger tiles: the dimensions of
/// values that must have one extent (a dot's rows and its result's rows, a
/// loop's carried value and its yield) are joined in classes; an access's
/// dimension marks its class growing (indexed by a seed) or fixed, and so
/// do reduced and iota dimensions, and unless `growContracted`, the
/// dimensions a dot contracts. A class marked both ways is a conflict.
class TileGrowth {
public:
  TileGrowth(SmallVector<Value> seeds, std::string seedName,
             bool growContracted)
      : seeds(std::move(seeds)), seedName(std::move(seedName)),
        growContracted(growContracted) {}

  /// Collects the classes of `kernel`; the reason the rewrite does not
  /// apply, or nothing.
  std::optional<std::string> collect(tile::KernelOp kernel) {
    for (Value seed : seeds)
      checkUses(seed);
    if (!why.empty())
      return why;
    kernel.walk([&](Operation *op) {
      if (!why.empty())
        return WalkResult::interrupt();
      visit(op);
      return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!why.empty())
      return why;
    return std::nullopt;
  }

  /// The new type of `v`, its growing dimensions `factor` times longer
  /// and `divisor` times shorter, or nothing where it keeps its type. A
  /// dimension that is no multiple of `divisor` keeps its extent and is
  /// reported in `indivisible`.
  std::optional<RankedTensorType> grownType(Value v, int64_t factor,
                                            int64_t divisor,
                                            bool &indivisible) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return std::nullopt;
    SmallVector<int64_t> shape(type.getShape());
    bool anyGrows = false;
    for (unsigned d = 0; d < shape.size(); ++d)
      if (this->grows(v, d)) {
        if (shape[d] % divisor != 0)
          indivisible = true;
        shape[d] = shape[d] * factor / divisor;
        anyGrows = true;
      }
    if (!anyGrows)
      return std::nullopt;
    return RankedTensorType::get(shape, type.getElementType());
  }

  /// Whether dimension d of tile `v` grows (once collected).
  bool grows(Value v, unsigned d) {
    auto it = ids.find({v, d});
    return it != ids.end() && mark[find(it->second)] == Grows;
  }

private:
  enum Mark : int8_t { Free = 0, Grows = 1, Fixed = -1 };

  unsigned node(Value v, unsigned d) {
    auto [it, inserted] = ids.try_emplace({v, d}, parent.size());
    if (inserted) {
      parent.push_back(parent.size());
      mark.push_back(Free);
      origin.push_back("");
    }
    return it->second;
  }
  unsigned find(unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  }
  void conflict(const std::string &a, const std::string &b) {
    if (why.empty())
      why = "a tile dimension would both grow (" + a + ") and keep its "
            "extent (" + b + ")";
  }
  /// Marks dimension d of v; `what` says why, for the conflict message.
  void set(Value v, unsigned d, Mark m, const std::string &what) {
    unsigned n = find(node(v, d));
    if (mark[n] == Free) {
      mark[n] = m;
      origin[n] = what;
    } else if (mark[n] != m) {
      m == Grows ? conflict(what, origin[n]) : conflict(origin[n], what);
    }
  }
  void join(Value a, unsigned da, Value b, unsigned db) {
    unsigned x = find(node(a, da)), y = find(node(b, db));
    if (x == y)
      return;
    if (mark[x] != Free && mark[y] != Free && mark[x] != mark[y])
      return mark[x] == Grows ? conflict(origin[x], origin[y])
                              : conflict(origin[y], origin[x]);
    if (mark[x] == Free) {
      mark[x] = mark[y];
      origin[x] = origin[y];
    }
    parent[y] = x;
  }
  /// Joins every dimension of two tiles of one shape.
  void joinAll(Value a, Value b) {
    auto type = llvm::cast<RankedTensorType>(a.getType());
    for (unsigned d = 0; d < type.getRank(); ++d)
      join(a, d, b, d);
  }
  static bool isTile(Value v) { return llvm::isa<RankedTensorType>(v.getType()); }

  bool isSeed(Value v) { return llvm::is_contained(seeds, v); }

  /// A seed is a block index of tile accesses only: anything else computed
  /// from it would keep counting blocks of the old size.
  void checkUses(Value seed) {
    for (OpOperand &use : seed.getUses()) {
      Operation *user = use.getOwner();
      ValueRange indices, offsets;
      int64_t lead = 0;
      if (auto load = llvm::dyn_cast<tile::LoadOp>(user)) {
        indices = load.getIndices();
        offsets = load.getOffsets();
        lead = load.getSource().getType().getRank() -
               load.getType().getRank();
      } else if (auto store = llvm::dyn_cast<tile::StoreOp>(user)) {
        indices = store.getIndices();
        offsets = store.getOffsets();
        lead = store.getDest().getType().getRank() -
               store.getValue().getType().getRank();
      }
      auto at = llvm::find(indices, seed);
      bool usable = at != indices.end() && offsets.empty() &&
                    at - indices.begin() >= lead &&
                    llvm::count(indices, seed) == 1;
      if (!usable) {
        why = seedName + " is used by '" +
              user->getName().getStringRef().str() + "' at " +
              verify::lineOf(user) +
              "; it may only be a block index of a tile access (without "
              "offsets, along a dimension the tile spans)";
        return;
      }
    }
  }

  /// A tile access: each tile dimension grows where its block index is the
  /// program id, and keeps its extent elsewhere.
  void access(Operation *op, Value tile, Value memref, ValueRange indices) {
    int64_t rank = llvm::cast<MemRefType>(memref.getType()).getRank();
    int64_t tileRank = llvm::cast<RankedTensorType>(tile.getType()).getRank();
    for (int64_t t = 0; t < tileRank; ++t)
      set(tile, t, isSeed(indices[rank - tileRank + t]) ? Grows : Fixed,
          "'" + op->getName().getStringRef().str() + "' at " + verify::lineOf(op));
  }

  void visit(Operation *op) {
    std::string here = "'" + op->getName().getStringRef().str() + "' at " +
                       verify::lineOf(op);
    if (auto load = llvm::dyn_cast<tile::LoadOp>(op))
      return access(op, load.getResult(), load.getSource(), load.getIndices());
    if (auto store = llvm::dyn_cast<tile::StoreOp>(op))
      return access(op, store.getValue(), store.getDest(), store.getIndices());
    if (auto dot = llvm::dyn_cast<tile::DotOp>(op)) {
      join(dot.getLhs(), 0, dot.getResult(), 0);
      join(dot.getRhs(), 1, dot.getResult(), 1);
      joinAll(dot.getAcc(), dot.getResult());
      join(dot.getLhs(), 1, dot.getRhs(), 0);
      if (!growContracted)
        set(dot.getLhs(), 1, Fixed, "the dimension " + here + " contracts");
      return;
    }
    if (auto red = llvm::dyn_cast<tile::ReduceOp>(op)) {
      int64_t axis = red.getAxis();
      for (int64_t d = 0, r = 0; d < red.getInput().getType().getRank(); ++d)
        if (d != axis)
          join(red.getInput(), d, red.getResult(), r++);
      set(red.getInput(), axis, Fixed, "the dimension " + here + " reduces");
      return;
    }
    if (auto b = llvm::dyn_cast<tile::BroadcastOp>(op)) {
      auto rank = llvm::cast<RankedTensorType>(b.getType()).getRank();
      for (int64_t d = 0, i = 0; d < rank; ++d)
        if (!llvm::is_contained(b.getDims(), d))
          join(b.getInput(), i++, b.getResult(), d);
      return;
    }
    if (auto t = llvm::dyn_cast<tile::TransposeOp>(op)) {
      for (auto [d, pd] : llvm::enumerate(t.getPerm()))
        join(t.getResult(), d, t.getInput(), pd);
      return;
    }
    if (auto iota = llvm::dyn_cast<tile::IotaOp>(op)) {
      set(iota.getResult(), iota.getDim(), Fixed,
          "the coordinates " + here + " counts");
      return;
    }
    if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
      Operation *yield = loop.getBody()->getTerminator();
      for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
        if (isTile(init)) {
          joinAll(init, loop.getRegionIterArgs()[i]);
          joinAll(init, yield->getOperand(i));
          joinAll(init, loop.getResult(i));
        }
      return;
    }
    if (auto branch = llvm::dyn_cast<scf::IfOp>(op)) {
      for (auto [i, result] : llvm::enumerate(branch.getResults()))
        if (isTile(result))
          for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()})
            if (!region->empty())
              joinAll(result, region->front().getTerminator()->getOperand(i));
      return;
    }
    if (llvm::isa<scf::YieldOp, arith::ConstantOp, tensor::SplatOp>(op))
      return;
    if (auto attach = llvm::dyn_cast<tag::AttachOp>(op)) {
      if (isTile(attach.getValue()))
        joinAll(attach.getValue(), attach->getResult(0));
      return;
    }
    bool touchesTiles = llvm::any_of(op->getOperands(), isTile) ||
                        llvm::any_of(op->getResults(), isTile);
    if (!touchesTiles)
      return;
    // Elementwise: every tile operand and result has one shape.
    if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
        isTile(op->getResult(0))) {
      auto shape =
          llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape();
      if (llvm::all_of(op->getOperands(), [&](Value o) {
            return isTile(o) &&
                   llvm::cast<RankedTensorType>(o.getType()).getShape() ==
                       shape;
          })) {
        for (Value o : op->getOperands())
          joinAll(o, op->getResult(0));
        return;
      }
    }
    why = "retile does not follow " + here + ", which computes on tiles";
  }

  SmallVector<Value> seeds;
  std::string seedName;
  bool growContracted;
  llvm::DenseMap<std::pair<Value, unsigned>, unsigned> ids;
  std::vector<unsigned> parent;
  std::vector<Mark> mark;
  std::vector<std::string> origin;
  std::string why;
};
} // namespace

using Retyping = SmallVector<std::pair<Value, RankedTensorType>>;

/// The new types of `kernel`'s values under `growth` by `factor` (or
/// shrinking by `divisor`), all checked before anything changes; or why the
/// tiles cannot change.
static FailureOr<Retyping> planGrowth(tile::KernelOp kernel,
                                      TileGrowth &growth, int64_t factor,
                                      std::string &why, int64_t divisor = 1) {
  // The largest TMA box and wgmma extent.
  constexpr int64_t kMaxExtent = 256;
  Retyping retyped;
  auto consider = [&](Value v) {
    bool indivisible = false;
    std::optional<RankedTensorType> type =
        growth.grownType(v, factor, divisor, indivisible);
    if (!type || !why.empty())
      return;
    if (indivisible) {
      std::string typeText;
      llvm::raw_string_ostream(typeText) << v.getType();
      Operation *owner = v.getDefiningOp();
      if (!owner)
        owner = llvm::cast<BlockArgument>(v).getOwner()->getParentOp();
      why = "the " + typeText + " tile of '" +
            owner->getName().getStringRef().str() + "' at " +
            verify::lineOf(owner) + " spans no multiple of " +
            std::to_string(divisor) + " elements along the dimension to "
            "divide";
      return;
    }
    if (llvm::any_of(type->getShape(),
                     [&](int64_t e) { return e > kMaxExtent; })) {
      std::string typeText;
      llvm::raw_string_ostream(typeText) << *type;
      why = "a tile of @" + kernel.getSymName().str() + " would be " +
            typeText + ", more than " + std::to_string(kMaxExtent) +
            " elements along a dimension (the largest TMA box and wgmma "
            "tile)";
      return;
    }
    if (auto c = v.getDefiningOp<arith::ConstantOp>();
        c && !llvm::isa<SplatElementsAttr>(c.getValue())) {
      why = "the constant at " + verify::lineOf(c) +
            " would grow, and is not a splat";
      return;
    }
    retyped.push_back({v, *type});
  };
  kernel.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          consider(arg);
    for (Value result : op->getResults())
      consider(result);
  });
  if (!why.empty())
    return failure();
  return retyped;
}

/// Gives each value its new type (splat constants their new value).
static void applyGrowth(RewriterBase &rewriter, const Retyping &retyped) {
  for (const auto &entry : retyped) {
    Value v = entry.first;
    RankedTensorType type = entry.second;
    Operation *owner = v.getDefiningOp();
    if (!owner)
      owner = llvm::cast<BlockArgument>(v).getOwner()->getParentOp();
    rewriter.modifyOpInPlace(owner, [&] { v.setType(type); });
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      rewriter.modifyOpInPlace(c, [&] {
        c.setValueAttr(SplatElementsAttr::get(
            type, llvm::cast<SplatElementsAttr>(c.getValue())
                      .getSplatValue<Attribute>()));
      });
  }
}

DiagnosedSilenceableFailure tiletag::RetileOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  int64_t dim = getDim(), factor = getFactor();
  StringRef name = kernel.getSymName();
  GridExtent extent;
  DiagnosedSilenceableFailure ok =
      mergeablePrograms(*this, kernel, dim, "retiling", "retile", extent);
  if (!ok.succeeded())
    return ok;
  SmallVector<Value> ids;
  kernel.walk([&](tile::ProgramIdOp pid) {
    if (static_cast<int64_t>(pid.getDim()) == dim)
      ids.push_back(pid.getResult());
  });
  TileGrowth growth(ids, "tile.program_id " + std::to_string(dim),
                    /*growContracted=*/false);
  std::string why;
  if (std::optional<std::string> conflict = growth.collect(kernel))
    why = *conflict;
  FailureOr<Retyping> retyped =
      why.empty() ? planGrowth(kernel, growth, factor, why)
                  : FailureOr<Retyping>(failure());
  if (failed(retyped))
    return emitSilenceableError() << "cannot retile @" << name << ": " << why;
  mergePrograms(kernel, dim, factor, extent);
  applyGrowth(rewriter, *retyped);
  return rewritten(kernel, kernel, results);
}

//===----------------------------------------------------------------------===//
// ReductionStepOp
//===----------------------------------------------------------------------===//

LogicalResult tiletag::ReductionStepOp::verify() {
  if (getFactor().has_value() == getDivisor().has_value())
    return emitOpError("takes either factor(N) (a longer step) or divisor(N) "
                       "(a shorter one)");
  return success();
}

DiagnosedSilenceableFailure tiletag::ReductionStepOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  int64_t factor = getFactor().value_or(1), divisor = getDivisor().value_or(1);
  StringRef verb = divisor > 1 ? "shorten" : "widen";
  std::string why;
  auto found = targetPlainLoop(
      target, (verb + " the reduction step of the plain kernel").str(), why);
  if (failed(found))
    return emitSilenceableError() << why;
  scf::ForOp loop = found->first;
  tile::KernelOp kernel = found->second;
  StringRef name = kernel.getSymName();
  if (!isConstantIntValue(loop.getLowerBound(), 0))
    return emitSilenceableError()
           << "the loop must run from 0 (over block indices)";
  // The contract checker relates another step of a loop that carries the
  // accumulator of one dot.
  Value next = loop.getNumRegionIterArgs() == 1
                   ? loop.getBody()->getTerminator()->getOperand(0)
                   : Value();
  auto dot = next ? next.getDefiningOp<tile::DotOp>() : tile::DotOp();
  if (!dot || dot.getAcc() != loop.getRegionIterArgs()[0])
    return emitSilenceableError()
           << "the loop must carry one value, the accumulator of a tile.dot "
              "(acc = tile.dot(a, b, acc))";
  TileGrowth growth({loop.getInductionVar()},
                    "the loop's induction variable", /*growContracted=*/true);
  if (std::optional<std::string> conflict = growth.collect(kernel))
    why = *conflict;
  else if (!growth.grows(dot.getLhs(), 1))
    why = "the loop's induction variable does not index the dimension the "
          "tile.dot at " + verify::lineOf(dot) + " contracts";
  FailureOr<Retyping> retyped =
      why.empty() ? planGrowth(kernel, growth, factor, why, divisor)
                  : FailureOr<Retyping>(failure());
  if (failed(retyped))
    return emitSilenceableError() << "cannot " << verb
                                  << " the reduction step of @" << name
                                  << ": " << why;
  applyGrowth(rewriter, *retyped);
  // Block indices now count blocks of the new length.
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value steps;
  if (factor > 1) {
    // ceildiv(T, factor) steps, T the old trip count.
    steps = arith::CeilDivUIOp::create(rewriter, loc, loop.getUpperBound(),
                                       indexConstant(rewriter, loc, factor));
  } else if (auto blocks =
                 loop.getUpperBound().getDefiningOp<arith::CeilDivUIOp>();
             blocks && getConstantIntValue(blocks.getRhs()) &&
             *getConstantIntValue(blocks.getRhs()) % divisor == 0) {
    // T = ceildiv(X, c): ceildiv(X, c / divisor) shorter blocks.
    steps = arith::CeilDivUIOp::create(
        rewriter, loc, blocks.getLhs(),
        indexConstant(rewriter, loc,
                      *getConstantIntValue(blocks.getRhs()) / divisor));
  } else {
    steps = arith::MulIOp::create(rewriter, loc, loop.getUpperBound(),
                                  indexConstant(rewriter, loc, divisor));
  }
  rewriter.modifyOpInPlace(loop, [&] { loop.setUpperBound(steps); });
  return rewritten(kernel, loop, results);
}

//===----------------------------------------------------------------------===//
// UnrollOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure tiletag::UnrollOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  auto found =
      targetPlainLoop(target, "unroll the loop of the plain kernel", why);
  if (failed(found))
    return emitSilenceableError() << why;
  scf::ForOp loop = found->first;
  tile::KernelOp kernel = found->second;
  int64_t factor = getFactor();
  Operation *tagged = nullptr;
  loop.getBody()->walk([&](Operation *op) {
    if (!tagged && llvm::isa<tag::TagDialect>(op->getDialect()))
      tagged = op;
  });
  if (tagged)
    return emitSilenceableError()
           << "the loop's body contains '" << tagged->getName()
           << "' (tags and assertions speak of one step): unroll the plain "
              "loop";

  // The unrolled loop runs the trip count rounded down to a multiple of
  // the factor: from lb to lb + T - T mod factor.
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value steps = rewriter.createOrFold<arith::SubIOp>(
      loc, rewriter.createOrFold<arith::MaxSIOp>(loc, ub, lb), lb);
  // Copy j runs at the induction value + j (copy 0 at the value itself).
  SmallVector<Value> offsets{Value()};
  for (int64_t j = 1; j <= factor; ++j)
    offsets.push_back(indexConstant(rewriter, loc, j));
  Value rest = rewriter.createOrFold<arith::RemSIOp>(loc, steps,
                                                     offsets[factor]);
  Value stop = rewriter.createOrFold<arith::AddIOp>(
      loc, lb, rewriter.createOrFold<arith::SubIOp>(loc, steps, rest));
  auto unrolled = scf::ForOp::create(
      rewriter, loc, lb, stop, offsets[factor], loop.getInitArgs(),
      [&](OpBuilder &b, Location bodyLoc, Value iv, ValueRange carried) {
        SmallVector<Value> values(carried);
        for (int64_t j = 0; j < factor; ++j) {
          IRMapping map;
          map.map(loop.getInductionVar(),
                  j ? arith::AddIOp::create(b, bodyLoc, iv, offsets[j])
                          .getResult()
                    : iv);
          map.map(loop.getRegionIterArgs(), values);
          for (Operation &op : loop.getBody()->without_terminator())
            b.clone(op, map);
          values.clear();
          for (Value v : loop.getBody()->getTerminator()->getOperands())
            values.push_back(map.lookupOrDefault(v));
        }
        scf::YieldOp::create(b, bodyLoc, values);
      });
  // The old loop runs the remaining steps, or goes where there are none.
  std::optional<int64_t> rem = getConstantIntValue(rest);
  if (rem && *rem == 0) {
    rewriter.replaceOp(loop, unrolled.getResults());
  } else {
    rewriter.modifyOpInPlace(loop, [&] {
      loop.setLowerBound(stop);
      loop.getInitArgsMutable().assign(unrolled.getResults());
    });
  }
  return rewritten(kernel, unrolled, results);
}

DiagnosedSilenceableFailure tiletag::RasterizeOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  int64_t rank = kernel.getGridAttr().getInt();
  int64_t dim = getDim(), group = getGroup();
  StringRef name = kernel.getSymName();
  if (rank >= 3)
    return emitSilenceableError()
           << "@" << name
           << " already uses all 3 grid dimensions; rasterizing adds one";
  if (std::optional<std::string> why =
          whyNotRenumberable(kernel, dim, "rasterizing"))
    return emitSilenceableError() << *why;
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch || static_cast<int64_t>(launch.getGrid().size()) != rank)
    return emitSilenceableError()
           << "@" << name << " has no tile.launch with its grid extents";

  // Old dimension j != dim moves to 1 + (its rank among the others).
  auto moved = [&](int64_t j) { return 1 + j - (j > dim ? 1 : 0); };
  MLIRContext *ctx = kernel.getContext();
  // Program (..., i, ...) becomes (i mod group, the others, i floordiv
  // group); the contract checker proves the map (without it, it would
  // search for the program that stores each block).
  SmallVector<AffineExpr> newIds{getAffineDimExpr(dim, ctx) % group};
  for (int64_t j = 0; j < rank; ++j)
    if (j != dim)
      newIds.push_back(getAffineDimExpr(j, ctx));
  newIds.push_back(getAffineDimExpr(dim, ctx).floorDiv(group));
  renumberPrograms(kernel, AffineMap::get(rank, 0, newIds, ctx));
  SmallVector<AffineExpr> grid{getAffineConstantExpr(group, ctx)};
  for (int64_t j = 0; j < rank; ++j)
    if (j != dim)
      grid.push_back(launch.getGrid()[j]);
  grid.push_back(launch.getGrid()[dim].ceilDiv(group));
  setLaunchGrid(kernel, launch, grid);
  kernel.setGridAttr(rewriter.getI64IntegerAttr(rank + 1));

  SmallVector<tile::ProgramIdOp> ids;
  SmallVector<tile::NumProgramsOp> extents;
  kernel.walk([&](tile::ProgramIdOp p) { ids.push_back(p); });
  kernel.walk([&](tile::NumProgramsOp n) { extents.push_back(n); });
  for (tile::NumProgramsOp n : extents)
    rewriter.modifyOpInPlace(
        n, [&] { n.setDim(static_cast<uint64_t>(moved(n.getDim()))); });
  for (tile::ProgramIdOp p : ids) {
    if (static_cast<int64_t>(p.getDim()) != dim) {
      rewriter.modifyOpInPlace(
          p, [&] { p.setDim(static_cast<uint64_t>(moved(p.getDim()))); });
      continue;
    }
    // index = c * group + a
    rewriter.setInsertionPoint(p);
    Location loc = p.getLoc();
    Value a = tile::ProgramIdOp::create(rewriter, loc, 0);
    Value c = tile::ProgramIdOp::create(rewriter, loc, rank);
    Value g = arith::ConstantIndexOp::create(rewriter, loc, group);
    Value base = arith::MulIOp::create(rewriter, loc, c, g);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(p, base, a);
  }
  return rewritten(kernel, kernel, results);
}

/// Emits the value of a launch expression (sizes as symbols) inside the
/// kernel: a size is the extent of the first operand whose shape has it as
/// a dimension. Fails, naming the size, where no operand's shape does.
static FailureOr<Value> emitLaunchExpr(OpBuilder &b, Location loc,
                                       tile::KernelOp kernel,
                                       tile::LaunchAttr launch, AffineExpr e,
                                       std::string &why) {
  if (auto c = llvm::dyn_cast<AffineConstantExpr>(e))
    return indexConstant(b, loc, c.getValue());
  if (auto s = llvm::dyn_cast<AffineSymbolExpr>(e)) {
    unsigned size = s.getPosition();
    for (auto [name, shape] :
         llvm::zip(launch.getShapeNames(), launch.getShapes()))
      for (auto [d, extent] : llvm::enumerate(shape.getResults())) {
        if (extent != e)
          continue;
        for (unsigned i = 0, n = kernel.getNumArguments(); i < n; ++i)
          if (kernel.getOperandName(i) == name.getValue() &&
              llvm::isa<MemRefType>(kernel.getArgument(i).getType()))
            return memref::DimOp::create(b, loc, kernel.getArgument(i),
                                         static_cast<int64_t>(d))
                .getResult();
      }
    why = "the grid uses launch size " +
          launch.getSizeNames()[size].getValue().str() +
          ", which is no operand's extent";
    return failure();
  }
  auto bin = llvm::dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin) {
    why = "the grid uses a dimension expression";
    return failure();
  }
  FailureOr<Value> l =
      emitLaunchExpr(b, loc, kernel, launch, bin.getLHS(), why);
  if (failed(l))
    return failure();
  FailureOr<Value> r =
      emitLaunchExpr(b, loc, kernel, launch, bin.getRHS(), why);
  if (failed(r))
    return failure();
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, *l, *r).getResult();
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, *l, *r).getResult();
  case AffineExprKind::CeilDiv:
    return arith::CeilDivUIOp::create(b, loc, *l, *r).getResult();
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, *l, *r).getResult();
  case AffineExprKind::Mod:
    return arith::RemUIOp::create(b, loc, *l, *r).getResult();
  default:
    why = "the grid has an expression the rewrite cannot compute";
    return failure();
  }
}

DiagnosedSilenceableFailure
tiletag::PersistOp::applyToOne(transform::TransformRewriter &rewriter,
                               Operation *target,
                               transform::ApplyToEachResultList &results,
                               transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  StringRef name = kernel.getSymName();
  int64_t rank = kernel.getGridAttr().getInt();
  if (kernel->hasAttr(schedule::ScheduleDialect::kLaunchAttrName))
    return emitSilenceableError()
           << "@" << name << " has a schedule; persist the plain kernel";
  bool hasShared = false;
  kernel.walk([&](tile::AllocSharedOp) { hasShared = true; });
  if (hasShared)
    return emitSilenceableError()
           << "@" << name << " uses shared memory; persist the plain kernel";
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch || static_cast<int64_t>(launch.getGrid().size()) != rank)
    return emitSilenceableError()
           << "@" << name << " has no tile.launch with its grid extents";
  MLIRContext *ctx = kernel.getContext();
  for (StringAttr size : launch.getSizeNames())
    if (size.getValue() == "P")
      return emitSilenceableError()
             << "@" << name << " has a launch size P already";
  auto oldMap = kernel->getAttrOfType<AffineMapAttr>(
      tag::TagDialect::kProgramMapAttrName);
  if (oldMap && (oldMap.getValue().getNumResults() != rank ||
                 oldMap.getValue().getNumSymbols() != 0))
    return emitSilenceableError()
           << "@" << name
           << "'s program map names loop values or launch sizes: it is "
              "persistent already";

  // The prefix: the old grid's extents (undone where one cannot be
  // computed, leaving the kernel as it was), then the program's tiles.
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> old;
  for (Operation &op : body.without_terminator())
    old.push_back(&op);
  Location loc = kernel.getLoc();
  rewriter.setInsertionPointToStart(&body);
  SmallVector<Value> extents;
  std::string why;
  for (AffineExpr e : launch.getGrid()) {
    FailureOr<Value> v = emitLaunchExpr(rewriter, loc, kernel, launch, e, why);
    if (failed(v)) {
      // Undo the prefix emitted so far, users first.
      Operation *first = old.empty() ? body.getTerminator() : old[0];
      while (&body.front() != first)
        rewriter.eraseOp(first->getPrevNode());
      return emitSilenceableError() << "@" << name << ": " << why;
    }
    extents.push_back(*v);
  }
  Value pid = tile::ProgramIdOp::create(rewriter, loc, 0);
  Value programs = tile::NumProgramsOp::create(rewriter, loc, 0);
  Value tiles = extents.empty() ? indexConstant(rewriter, loc, 1) : extents[0];
  for (Value e : llvm::drop_begin(extents))
    tiles = arith::MulIOp::create(rewriter, loc, tiles, e);
  // Program pid runs ceil((tiles - pid) / P) tiles (none past the last).
  Value left = arith::SubIOp::create(rewriter, loc, tiles, pid);
  Value mine = arith::CeilDivSIOp::create(rewriter, loc, left, programs);
  auto loop = scf::ForOp::create(rewriter, loc, indexConstant(rewriter, loc, 0),
                                 mine, indexConstant(rewriter, loc, 1));
  rewriter.setInsertionPointToStart(loop.getBody());
  Value tile = arith::AddIOp::create(
      rewriter, loc, pid,
      arith::MulIOp::create(rewriter, loc, loop.getInductionVar(), programs));
  // Old program ids, dimension 0 fastest (the hardware's launch order).
  SmallVector<Value> ids(rank);
  Value rest = tile;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    ids[d] = arith::RemUIOp::create(rewriter, loc, rest, extents[d]);
    rest = arith::DivUIOp::create(rewriter, loc, rest, extents[d]);
  }
  if (rank)
    ids[rank - 1] = rest;
  Operation *yield = loop.getBody()->getTerminator();
  for (Operation *op : old)
    rewriter.moveOpBefore(op, yield);
  SmallVector<Operation *> reads;
  loop.getBody()->walk([&](Operation *op) {
    if (llvm::isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
      reads.push_back(op);
  });
  for (Operation *op : reads) {
    if (auto p = llvm::dyn_cast<tile::ProgramIdOp>(op))
      rewriter.replaceOp(p, ids[p.getDim()]);
    else if (auto n = llvm::dyn_cast<tile::NumProgramsOp>(op))
      rewriter.replaceOp(n, extents[n.getDim()]);
  }

  // The launch: a size P and a grid of P programs.
  SmallVector<StringAttr> names(launch.getSizeNames());
  SmallVector<int64_t> defaults(launch.getSizeDefaults());
  names.push_back(StringAttr::get(ctx, "P"));
  defaults.push_back(getPrograms());
  AffineExpr p = getAffineSymbolExpr(names.size() - 1, ctx);
  SmallVector<AffineMap> shapes;
  for (AffineMap m : launch.getShapes())
    shapes.push_back(withSizes(m, names.size()));
  // Reference block -> tile t -> (t mod P, t floordiv P).
  if (kernel->hasAttr(tag::TagDialect::kContractAttrName)) {
    SmallVector<AffineExpr> oldIds;
    for (int64_t d = 0; d < rank; ++d)
      oldIds.push_back(oldMap ? oldMap.getValue().getResult(d)
                              : getAffineDimExpr(d, ctx));
    AffineExpr t = getAffineConstantExpr(0, ctx);
    for (int64_t d = rank - 1; d >= 0; --d)
      t = t * launch.getGrid()[d] + oldIds[d];
    kernel->setAttr(tag::TagDialect::kProgramMapAttrName,
                    AffineMapAttr::get(AffineMap::get(
                        oldMap ? oldMap.getValue().getNumDims() : rank,
                        names.size(), {t % p, t.floorDiv(p)}, ctx)));
  }
  kernel->setAttr(tile::TileDialect::kLaunchAttrName,
                  tile::LaunchAttr::get(ctx, names, defaults, {p},
                                        launch.getShapeNames(), shapes,
                                        launch.getCheck(), launch.getThen()));
  kernel.setGridAttr(rewriter.getI64IntegerAttr(1));
  return rewritten(kernel, kernel, results);
}

//===----------------------------------------------------------------------===//
// Pipelining: StageLoadsOp, WarpSpecializeOp, AsyncMmaOp
//===----------------------------------------------------------------------===//

/// Shared memory of one CTA on sm_90a.
static constexpr int64_t kSharedBytesPerCta = 227 * 1024;

static int64_t byteSize(ShapedType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// The ring slot of a staged loop's step and the step's number: `slot =
/// n mod stages` as stage_loads computes it.
struct RingStep {
  Value slot, n;
  int64_t stages;
  Value stagesValue; // the constant `slot` is computed with
};

static std::optional<RingStep> ringStepOf(Value slot) {
  auto rem = slot.getDefiningOp<arith::RemUIOp>();
  if (!rem)
    return std::nullopt;
  std::optional<int64_t> stages = getConstantIntValue(rem.getRhs());
  if (!stages)
    return std::nullopt;
  return RingStep{slot, rem.getLhs(), *stages, rem.getRhs()};
}

/// The slot of a `slots`-slot buffer that the current iteration of `loop`
/// uses: `n mod slots`, `n` the iteration's number from the lower bound.
static Value iterationSlot(OpBuilder &b, Location loc, scf::ForOp loop,
                           int64_t slots) {
  Value n = loop.getInductionVar();
  if (!isConstantIntValue(loop.getLowerBound(), 0))
    n = arith::SubIOp::create(b, loc, n, loop.getLowerBound());
  return arith::RemUIOp::create(b, loc, n, indexConstant(b, loc, slots));
}

/// Moves `ops` (in order) to the end of `block`.
static void moveToEnd(ArrayRef<Operation *> ops, Block *block) {
  for (Operation *op : ops)
    op->moveBefore(block, block->end());
}

/// The loops of the kernel around a staged loop, outermost first (a
/// persistent kernel's tile loop): its ring runs on across their
/// iterations, so the ring and its barriers are created before the
/// outermost, once. Empty where the loop is not in a loop; a failure (why)
/// where something other than sequential loops lies between.
static FailureOr<SmallVector<scf::ForOp>>
outerLoops(scf::ForOp loop, tile::KernelOp kernel, std::string &why) {
  SmallVector<scf::ForOp> outer;
  bool other = false;
  for (Operation *p = loop->getParentOp(); p != kernel; p = p->getParentOp()) {
    auto l = llvm::dyn_cast<scf::ForOp>(p);
    if (!l || l->hasAttr(schedule::ScheduleDialect::kMapAttrName))
      other = true;
    else
      outer.insert(outer.begin(), l);
  }
  if (outer.empty())
    return outer;
  if (other) {
    why = "the loop sits in loops and other regions (a branch or a mapped "
          "loop); a ring that runs on across loop iterations needs "
          "sequential loops around it only";
    return failure();
  }
  return outer;
}

/// The number of steps `loop` runs (steps of 1).
static Value tripCount(OpBuilder &b, Location loc, scf::ForOp loop) {
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  if (isConstantIntValue(lb, 0))
    return ub;
  return arith::SubIOp::create(b, loc, arith::MaxSIOp::create(b, loc, ub, lb),
                               lb);
}

DiagnosedSilenceableFailure tiletag::StageLoadsOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  auto found = targetLoop(target, /*unscheduled=*/true, why);
  if (failed(found))
    return emitSilenceableError() << why;
  auto [loop, kernel] = *found;
  SmallVector<tile::LoadOp> loads;
  for (Operation &op : *loop.getBody())
    if (auto load = llvm::dyn_cast<tile::LoadOp>(op))
      loads.push_back(load);
  if (loads.empty())
    return emitSilenceableError() << "the loop has no tile.load to stage";
  int64_t stages = getStages();
  int64_t bytes = 0;
  kernel.walk([&](tile::AllocSharedOp a) { bytes += byteSize(a.getType()); });
  for (tile::LoadOp load : loads)
    bytes += stages * byteSize(load.getType());
  if (bytes > kSharedBytesPerCta)
    return emitSilenceableError()
           << "the rings need " << bytes
           << " bytes of shared memory with what the kernel has already; a "
              "CTA has "
           << kSharedBytesPerCta << " (227 KiB on sm_90a)";

  FailureOr<SmallVector<scf::ForOp>> outer = outerLoops(loop, kernel, why);
  if (failed(outer))
    return emitSilenceableError() << why;
  Operation *home = outer->empty() ? loop : outer->front();

  MLIRContext *ctx = kernel.getContext();
  Location loc = loop.getLoc();
  rewriter.setInsertionPointToStart(loop.getBody());
  Value slot = iterationSlot(rewriter, loc, loop, stages);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  for (tile::LoadOp load : loads) {
    RankedTensorType tileType = load.getType();
    SmallVector<int64_t> shape{stages};
    llvm::append_range(shape, tileType.getShape());
    auto ringType = MemRefType::get(shape, tileType.getElementType(),
                                    MemRefLayoutAttrInterface(), workgroup);
    rewriter.setInsertionPoint(home);
    Value ring = tile::AllocSharedOp::create(rewriter, load.getLoc(), ringType);
    rewriter.setInsertionPoint(load);
    tile::CopyOp::create(rewriter, load.getLoc(), load.getSource(),
                         load.getIndices(), ring, ValueRange{slot},
                         load.getOffsets(), load.getBounds(),
                         load.getPaddingAttr());
    Value read = tile::ReadOp::create(rewriter, load.getLoc(), tileType, ring,
                                      ValueRange{slot});
    rewriter.replaceOp(load, read);
  }
  return rewritten(kernel, loop, results);
}

/// A region's single block, with its terminator.
static Block *createBodyBlock(RewriterBase &rewriter, Region &region) {
  OpBuilder::InsertionGuard guard(rewriter);
  return rewriter.createBlock(&region);
}

/// Which of `consumers` consumer roles need each op of `ops` (in one block,
/// in order): those `own` gives it, then every consumer that needs an op
/// using its results; an op no consumer needs (an assertion) goes where its
/// operands are computed, else to consumer 0. Fails when `own` gives an op
/// more than one consumer: it would combine their values.
static FailureOr<DenseMap<Operation *, llvm::SmallBitVector>>
consumersNeeding(ArrayRef<Operation *> ops, int64_t consumers,
                 llvm::function_ref<llvm::SmallBitVector(Operation *)> own) {
  DenseMap<Operation *, llvm::SmallBitVector> needs;
  if (ops.empty())
    return needs;
  Block *block = ops.front()->getBlock();
  auto inList = [&](Operation *op) -> Operation * {
    Operation *a = block->findAncestorOpInBlock(*op);
    return a && needs.count(a) ? a : nullptr;
  };
  for (Operation *op : ops)
    needs[op] = own(op);
  for (Operation *op : ops)
    if (needs[op].count() > 1)
      return failure();
  auto backward = [&]() {
    for (Operation *op : llvm::reverse(ops))
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers())
          if (Operation *u = inList(user))
            needs[op] |= needs[u];
  };
  backward();
  for (Operation *op : ops) {
    if (needs[op].any())
      continue;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (Operation *d = inList(def); d && d != op)
            needs[op] |= needs[d];
    });
    if (needs[op].none())
      needs[op].set(0);
  }
  backward();
  return needs;
}

/// A role named `name` on warpgroup `warpgroup` with a register budget,
/// created at the insertion point; returns its (empty) body block.
static Block *createRoleBody(RewriterBase &rewriter, Location loc,
                             StringRef name, int64_t warpgroup, int64_t regs) {
  auto role = schedule::RoleOp::create(rewriter, loc, TypeRange{}, name,
                                       ArrayRef<int64_t>{warpgroup},
                                       rewriter.getI64IntegerAttr(regs));
  return createBodyBlock(rewriter, role.getBody());
}

/// The producer's wait for the consumers' release of step n's slot before
/// it fills it again: from the second round on, and in every round of a
/// ring that `later` says has run before. The released phase's parity is
/// (round - 1) mod 2, written (round + 1) mod 2 where round 0 waits too.
static void waitForRelease(RewriterBase &rewriter, Location loc, Value n,
                           Value round, Value stages, Value slot, Value later,
                           ArrayRef<Value> empties, Value c1, Value c2) {
  Value reuse = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge,
                                      n, stages);
  if (later)
    reuse = arith::OrIOp::create(rewriter, loc, reuse, later);
  auto ifReuse = scf::IfOp::create(rewriter, loc, reuse, false);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(ifReuse.thenBlock()->getTerminator());
  Value prevRound =
      later ? arith::AddIOp::create(rewriter, loc, round, c1).getResult()
            : arith::SubIOp::create(rewriter, loc, round, c1).getResult();
  Value prevParity = arith::RemUIOp::create(rewriter, loc, prevRound, c2);
  for (Value empty : empties)
    schedule::MBarrierWaitOp::create(rewriter, loc, empty, slot, prevParity);
}

/// After a staged loop inside loops, the steps up to the next multiple of
/// 2 x stages pass the slots round empty (the producer arrives without a
/// copy, each consumer releases at once), so that every run of the loop
/// starts the ring in the same phases: step n of any run is ring step n,
/// and the parities stay linear in n.
static void passSlotsRound(RewriterBase &rewriter, Location loc,
                           scf::ForOp loop, const RingStep &step, Value later,
                           Value full, ArrayRef<Value> empties,
                           int64_t producerRegs, int64_t consumerRegs,
                           llvm::function_ref<std::string(int64_t)> roleName) {
  Value steps = tripCount(rewriter, loc, loop);
  Value c1 = indexConstant(rewriter, loc, 1),
        c2 = indexConstant(rewriter, loc, 2);
  Value twice = indexConstant(rewriter, loc, 2 * step.stages);
  Value padded = arith::MulIOp::create(
      rewriter, loc, arith::CeilDivUIOp::create(rewriter, loc, steps, twice),
      twice);
  auto pad = scf::ForOp::create(rewriter, loc, steps, padded, c1);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(pad.getBody()->getTerminator());
  Value n = pad.getInductionVar();
  Value cS = indexConstant(rewriter, loc, step.stages);
  Value slot = arith::RemUIOp::create(rewriter, loc, n, cS);
  Value round = arith::DivUIOp::create(rewriter, loc, n, cS);
  Value parity = arith::RemUIOp::create(rewriter, loc, round, c2);
  {
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(
        createRoleBody(rewriter, loc, "producer", 0, producerRegs));
    waitForRelease(rewriter, loc, n, round, cS, slot, later, empties, c1, c2);
    schedule::MBarrierArriveOp::create(rewriter, loc, full, slot);
    schedule::YieldOp::create(rewriter, loc, ValueRange{});
  }
  for (auto [j, empty] : llvm::enumerate(empties)) {
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(createRoleBody(
        rewriter, loc, roleName(j), 1 + static_cast<int64_t>(j), consumerRegs));
    schedule::MBarrierWaitOp::create(rewriter, loc, full, slot, parity);
    schedule::MBarrierArriveOp::create(rewriter, loc, empty, slot);
    schedule::YieldOp::create(rewriter, loc, ValueRange{});
  }
}

DiagnosedSilenceableFailure tiletag::WarpSpecializeOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  auto found = targetLoop(target, /*unscheduled=*/true, why);
  if (failed(found))
    return emitSilenceableError() << why;
  auto [loop, kernel] = *found;
  Block *body = loop.getBody();
  SmallVector<tile::CopyOp> copies;
  for (Operation &op : *body)
    if (auto copy = llvm::dyn_cast<tile::CopyOp>(op);
        copy && copy.isGlobalToShared())
      copies.push_back(copy);
  std::optional<RingStep> step;
  if (!copies.empty() && copies.front().getDestIndices().size() == 1)
    step = ringStepOf(copies.front().getDestIndices().front());
  if (!step)
    return emitSilenceableError()
           << "the loop has no copies into ring slots: stage its loads first "
              "(transform.tiletag.stage_loads)";
  Operation *first = copies.front();
  int64_t bytes = 0;
  for (tile::CopyOp copy : copies) {
    auto ring = llvm::cast<MemRefType>(copy.getDest().getType());
    if (copy.getDestIndices().size() != 1 ||
        copy.getDestIndices().front() != step->slot ||
        ring.getDimSize(0) != step->stages)
      return emitSilenceableError()
             << "every copy must fill slot n mod " << step->stages
             << " of a ring of " << step->stages << " slots";
    if (!copy.getBounds().empty())
      return emitSilenceableError()
             << "a copy has `bounds`: TMA copies clip at the operand's size "
                "only, so the producer cannot issue it";
    for (Value operand : copy->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == body && first->isBeforeInBlock(def))
        return emitSilenceableError()
               << "a copy depends on a value computed after the loop's first "
                  "copy; the producer issues all copies together";
    bytes += byteSize(MemRefType::get(tile::slotTileShape(ring, 1),
                                      ring.getElementType()));
  }
  int64_t producerRegs = getProducerRegs(), consumerRegs = getConsumerRegs();
  // setmaxnreg's range; two warpgroups at 256 fill the 64K register file.
  for (int64_t regs : {producerRegs, consumerRegs})
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return emitSilenceableError()
             << "register budgets must be multiples of 8 in [24, 256], got "
             << regs;
  int64_t consumers = getConsumers();
  // setmaxnreg budgets share the 64K registers of an SM among the CTA's
  // warpgroups of 128 threads each.
  if (producerRegs + consumers * consumerRegs > 512)
    return emitSilenceableError()
           << "the register budgets need " << producerRegs << " + "
           << consumers << " x " << consumerRegs
           << " registers per thread of a warpgroup; the register file has "
              "512 (64K registers for 128 threads)";
  unsigned numCarried = loop.getNumRegionIterArgs();
  if (numCarried % consumers != 0)
    return emitSilenceableError()
           << "the loop carries " << numCarried << " values; "
           << consumers << " consumers need a multiple of " << consumers
           << ", as many per consumer";
  // The epilogue (what follows the loop in its block) will run in the
  // consumers: nothing after it may use its values.
  Operation *terminator = loop->getBlock()->getTerminator();
  SmallVector<Operation *> epilogue;
  for (Operation *op = loop->getNextNode(); op != terminator;
       op = op->getNextNode())
    epilogue.push_back(op);
  for (Value v : terminator->getOperands())
    if (llvm::is_contained(epilogue, v.getDefiningOp()))
      return emitSilenceableError()
             << "the loop's block returns a value computed after the loop; "
                "the consumer's epilogue cannot";

  FailureOr<SmallVector<scf::ForOp>> outer = outerLoops(loop, kernel, why);
  if (failed(outer))
    return emitSilenceableError() << why;

  MLIRContext *ctx = kernel.getContext();
  Location loc = loop.getLoc();
  int64_t stages = step->stages;
  rewriter.setInsertionPoint(outer->empty() ? loop : outer->front());
  auto barrierType = schedule::MBarrierType::get(ctx, stages);
  Value full = schedule::MBarrierInitOp::create(rewriter, loc, barrierType,
                                                rewriter.getI64IntegerAttr(1));
  // Every consumer releases a slot on its own barrier array: the producer
  // refills it after all of them.
  SmallVector<Value> empties;
  for (int64_t j = 0; j < consumers; ++j)
    empties.push_back(schedule::MBarrierInitOp::create(
        rewriter, loc, barrierType, rewriter.getI64IntegerAttr(1)));

  // In loops, the ring runs on across their iterations: a slot's first
  // fill waits for its release too, unless this is the loops' first
  // iteration (`later` false).
  Value later;
  rewriter.setInsertionPoint(loop);
  for (scf::ForOp l : *outer) {
    Value notFirst =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                              l.getInductionVar(), l.getLowerBound());
    later =
        later ? arith::OrIOp::create(rewriter, loc, later, notFirst).getResult()
              : notFirst;
  }

  // Step n's round and the parity of its phase.
  rewriter.setInsertionPoint(first);
  Value c1 = indexConstant(rewriter, loc, 1), c2 = indexConstant(rewriter, loc, 2),
        cS = step->stagesValue;
  Value round = arith::DivUIOp::create(rewriter, loc, step->n, cS);
  Value parity = arith::RemUIOp::create(rewriter, loc, round, c2);

  // Producer: wait for the slot's release, expect the bytes, copy by TMA.
  Block *producerBody =
      createRoleBody(rewriter, loc, "producer", 0, producerRegs);
  Operation *producer = producerBody->getParentOp();
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(producerBody);
    waitForRelease(rewriter, loc, step->n, round, cS, step->slot, later,
                   empties, c1, c2);
    schedule::MBarrierArriveExpectTxOp::create(
        rewriter, loc, full, step->slot, rewriter.getI64IntegerAttr(bytes));
    auto tma = schedule::AsyncOp::create(rewriter, loc, TypeRange{},
                                         schedule::AsyncUnit::tma, full,
                                         step->slot);
    Block *tmaBody = createBodyBlock(rewriter, tma.getBody());
    SmallVector<Operation *> moved(copies.begin(), copies.end());
    moveToEnd(moved, tmaBody);
    rewriter.setInsertionPointToEnd(tmaBody);
    schedule::YieldOp::create(rewriter, loc, ValueRange{});
    rewriter.setInsertionPointAfter(tma);
    schedule::YieldOp::create(rewriter, loc, ValueRange{});
  }

  // Consumers: wait for the data, compute, release the slot. Consumer j
  // carries the loop's values [j * per, (j + 1) * per) and runs the ops
  // they need (shared reads in each), then the epilogue ops that use them.
  auto yield = llvm::cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Operation *> rest;
  for (Operation *op = producer->getNextNode(); op != yield;
       op = op->getNextNode())
    rest.push_back(op);
  unsigned per = yield.getNumOperands() / consumers;
  auto consumerOf = [&](unsigned value) { return value / per; };
  FailureOr<DenseMap<Operation *, llvm::SmallBitVector>> restOwners =
      consumersNeeding(rest, consumers, [&](Operation *op) {
        llvm::SmallBitVector own(consumers);
        for (OpOperand &use : op->getUses())
          if (use.getOwner() == yield)
            own.set(consumerOf(use.getOperandNumber()));
        op->walk([&](Operation *inner) {
          for (Value v : inner->getOperands())
            if (auto arg = llvm::dyn_cast<BlockArgument>(v);
                arg && arg.getOwner() == body && arg.getArgNumber() > 0)
              own.set(consumerOf(arg.getArgNumber() - 1));
        });
        return own;
      });
  // An epilogue op belongs to the consumers whose results it uses, directly
  // or through other epilogue ops.
  DenseMap<Operation *, llvm::SmallBitVector> uses;
  Operation *loopOp = loop;
  for (Operation *op : epilogue) {
    llvm::SmallBitVector own(consumers);
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (auto r = llvm::dyn_cast<OpResult>(v); r && r.getOwner() == loopOp)
          own.set(consumerOf(r.getResultNumber()));
        else if (auto it = uses.find(v.getDefiningOp()); it != uses.end())
          own |= it->second;
      }
    });
    uses[op] = own;
  }
  FailureOr<DenseMap<Operation *, llvm::SmallBitVector>> epilogueOwners =
      consumersNeeding(epilogue, consumers,
                       [&](Operation *op) { return uses[op]; });
  if (failed(restOwners) || failed(epilogueOwners))
    return emitSilenceableError()
           << "an op combines the values of different consumers; "
              "cooperative consumers must compute and store independently";

  auto roleName = [&](int64_t j) {
    return consumers == 1 ? std::string("consumer")
                          : "consumer" + std::to_string(j);
  };
  SmallVector<Value> next(yield.getNumOperands());
  for (int64_t j = 0; j < consumers; ++j) {
    SmallVector<Value> carried(yield.getOperands().slice(j * per, per));
    rewriter.setInsertionPoint(yield);
    auto consumer = schedule::RoleOp::create(
        rewriter, loc, ValueRange(carried).getTypes(), roleName(j),
        ArrayRef<int64_t>{1 + j}, rewriter.getI64IntegerAttr(consumerRegs));
    Block *consumerBody = createBodyBlock(rewriter, consumer.getBody());
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(consumerBody);
    schedule::MBarrierWaitOp::create(rewriter, loc, full, step->slot, parity);
    if (consumers == 1) {
      // One consumer: the ops move (handles to them stay valid).
      moveToEnd(rest, consumerBody);
      rewriter.setInsertionPointToEnd(consumerBody);
    } else {
      IRMapping map;
      for (Operation *op : rest)
        if ((*restOwners)[op].test(j))
          rewriter.clone(*op, map);
      for (Value &v : carried)
        v = map.lookupOrDefault(v);
    }
    schedule::MBarrierArriveOp::create(rewriter, loc, empties[j], step->slot);
    schedule::YieldOp::create(rewriter, loc, carried);
    for (unsigned i = 0; i < per; ++i)
      next[j * per + i] = consumer.getResult(i);
  }
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(next); });
  if (consumers > 1)
    for (Operation *op : llvm::reverse(rest))
      rewriter.eraseOp(op);

  // The epilogue runs in the consumers, each storing what it computed (in
  // loops, a consumer releases its last slots there: async_mma).
  if (!epilogue.empty() || !outer->empty()) {
    for (int64_t j = 0; j < consumers; ++j) {
      rewriter.setInsertionPoint(terminator);
      auto tail = schedule::RoleOp::create(rewriter, loc, TypeRange{},
                                           roleName(j), ArrayRef<int64_t>{1 + j},
                                           IntegerAttr());
      Block *tailBody = createBodyBlock(rewriter, tail.getBody());
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(tailBody);
      if (consumers == 1) {
        moveToEnd(epilogue, tailBody);
      } else {
        IRMapping map;
        for (Operation *op : epilogue)
          if ((*epilogueOwners)[op].test(j))
            rewriter.clone(*op, map);
      }
      schedule::YieldOp::create(rewriter, loc, ValueRange{});
    }
    if (consumers > 1)
      for (Operation *op : llvm::reverse(epilogue))
        rewriter.eraseOp(op);
  }
  if (!outer->empty()) {
    rewriter.setInsertionPoint(terminator);
    passSlotsRound(rewriter, loc, loop, *step, later, full, empties,
                   producerRegs, consumerRegs, roleName);
  }
  updateLaunch(kernel, 1 + consumers, std::nullopt);
  return rewritten(kernel, loop, results);
}

/// Issues `dots` (in one step of a loop whose terminator is `yieldOp`) on
/// the matrix unit `unit`, each committed as a group of its own. A dot whose
/// result the step itself uses (attention's scores) is waited for at once;
/// after the others `depth` groups stay in flight. Says whether the last
/// dot's group is in flight.
static bool issueDots(RewriterBase &rewriter, ArrayRef<tile::DotOp> dots,
                      Operation *yieldOp, int64_t depth,
                      schedule::AsyncUnit unit) {
  auto unitAttr = schedule::AsyncUnitAttr::get(yieldOp->getContext(), unit);
  bool inFlight = false;
  for (tile::DotOp dot : dots) {
    Location loc = dot.getLoc();
    rewriter.setInsertionPoint(dot);
    auto mma = schedule::AsyncOp::create(rewriter, loc, dot->getResultTypes(),
                                         unit, Value(), Value());
    rewriter.replaceAllUsesWith(dot->getResults(), mma->getResults());
    Block *mmaBody = createBodyBlock(rewriter, mma.getBody());
    dot->moveBefore(mmaBody, mmaBody->end());
    rewriter.setInsertionPointToEnd(mmaBody);
    schedule::YieldOp::create(rewriter, loc, dot->getResults());
    bool usedInStep = llvm::any_of(mma->getUsers(), [&](Operation *user) {
      return user != yieldOp;
    });
    rewriter.setInsertionPointAfter(mma);
    schedule::CommitGroupOp::create(rewriter, loc, unitAttr);
    inFlight = !usedInStep && depth > 0;
    schedule::WaitGroupOp::create(rewriter, loc, unitAttr,
                                  rewriter.getI64IntegerAttr(
                                      inFlight ? depth : 0));
  }
  return inFlight;
}

/// Why the lowering could not run one of `dots` on the op's matrix unit
/// (their shape or inputs), as a silenceable failure; success when it can
/// run all.
static DiagnosedSilenceableFailure mmaServes(tiletag::AsyncMmaOp self,
                                             ArrayRef<tile::DotOp> dots) {
  bool mfma = self.getUnit() == schedule::AsyncUnit::mfma;
  for (tile::DotOp dot : dots) {
    auto lhs = llvm::cast<RankedTensorType>(dot.getLhs().getType());
    Type et = lhs.getElementType();
    int64_t m = lhs.getDimSize(0), k = lhs.getDimSize(1),
            n = llvm::cast<RankedTensorType>(dot.getType()).getDimSize(1),
            bytes = et.isIntOrFloat() ? et.getIntOrFloatBitWidth() / 8 : 0;
    // wgmma reads a B that is a transpose K-major (once its slot is in
    // place), and multiplies fp8 only as f8E4M3FN or f8E5M2.
    bool bKMajor = dot.getRhs().getDefiningOp<tile::TransposeOp>() != nullptr;
    std::string why =
        mfma ? layout::mfmaShapeProblem(m, k, n, bytes)
        : tile::isFp8(et) && !isa<Float8E4M3FNType, Float8E5M2Type>(et)
            ? "wgmma multiplies bf16, f16, f8E4M3FN or f8E5M2 inputs"
            : layout::wgmmaShapeProblem(m, k, n, bytes, bKMajor);
    if (!why.empty())
      return self.emitSilenceableError()
             << schedule::stringifyAsyncUnit(self.getUnit())
             << " cannot serve the tile.dot at " << verify::lineOf(dot)
             << ": " << why;
  }
  return DiagnosedSilenceableFailure::success();
}

/// The slots a consumer still holds when its loop ends: the last `depth`
/// steps', released on `empty` once their groups retire.
struct HeldSlots {
  int64_t depth = 0;
  Value empty;
};

/// Issues the dots of one consumer role on the matrix unit (see AsyncMmaOp),
/// or with `dryRun` only says why it cannot; `held` receives the slots the
/// consumer holds at the loop's end.
static DiagnosedSilenceableFailure
issueOnMatrixUnit(tiletag::AsyncMmaOp self, RewriterBase &rewriter,
                  schedule::RoleOp consumer, bool dryRun,
                  HeldSlots *held = nullptr) {
  Block *cb = &consumer.getBody().front();
  auto wait = llvm::dyn_cast<schedule::MBarrierWaitOp>(cb->front());
  std::optional<RingStep> step = wait ? ringStepOf(wait.getIndex())
                                      : std::nullopt;
  schedule::MBarrierArriveOp release;
  SmallVector<tile::DotOp> dots;
  for (Operation &op : *cb) {
    if (auto arrive = llvm::dyn_cast<schedule::MBarrierArriveOp>(op))
      release = arrive;
    if (auto dot = llvm::dyn_cast<tile::DotOp>(op))
      dots.push_back(dot);
  }
  if (!step || !release)
    return self.emitSilenceableError()
           << "role \"" << consumer.getName()
           << "\" does not wait for a ring slot and release it: specialize "
              "the loop first (transform.tiletag.warp_specialize)";
  if (dots.empty())
    return self.emitSilenceableError()
           << "role \"" << consumer.getName() << "\" has no tile.dot";
  if (DiagnosedSilenceableFailure served = mmaServes(self, dots);
      !served.succeeded())
    return served;
  int64_t depth = self.getWaitDepth();
  if (depth >= step->stages)
    return self.emitSilenceableError()
           << "wait_depth " << depth << " must be below the " << step->stages
           << " stages: the producer would wait for a slot never released";
  if (dryRun)
    return DiagnosedSilenceableFailure::success();

  Location loc = consumer.getLoc();
  Operation *yieldOp = cb->getTerminator();
  bool inFlight = issueDots(rewriter, dots, yieldOp, depth, self.getUnit());
  // With the last group in flight, the step's own wgmma still reads its
  // slot: release the slot whose group has retired instead.
  if (!inFlight)
    depth = 0;
  if (held)
    *held = {depth, release.getBarriers()};
  // The slot of step n - depth: its wgmma group has now retired.
  if (depth > 0) {
    rewriter.setInsertionPoint(release);
    Value cD = indexConstant(rewriter, loc, depth);
    Value hasPrev = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::uge, step->n, cD);
    auto ifPrev = scf::IfOp::create(rewriter, loc, hasPrev, false);
    rewriter.setInsertionPoint(ifPrev.thenBlock()->getTerminator());
    Value prev = arith::SubIOp::create(rewriter, loc, step->n, cD);
    Value prevSlot = arith::RemUIOp::create(
        rewriter, loc, prev, step->stagesValue);
    schedule::MBarrierArriveOp::create(rewriter, loc, release.getBarriers(),
                                       prevSlot);
    rewriter.eraseOp(release);
  }
  return DiagnosedSilenceableFailure::success();
}

/// A kernel without a schedule: one warpgroup issues the loop's dots on
/// the matrix unit and waits for each at once.
DiagnosedSilenceableFailure tiletag::AsyncMmaOp::issuePlainLoop(
    RewriterBase &rewriter, scf::ForOp loop, Operation *kernel,
    transform::ApplyToEachResultList &results) {
  if (getWaitDepth() != 0)
    return emitSilenceableError()
           << "without a ring (transform.tiletag.stage_loads and "
              "warp_specialize) the next step's loads overwrite what an "
              "in-flight dot reads: wait_depth must be 0, got "
           << getWaitDepth();
  SmallVector<tile::DotOp> dots(loop.getBody()->getOps<tile::DotOp>());
  if (dots.empty())
    return emitSilenceableError() << "the loop has no tile.dot";
  if (DiagnosedSilenceableFailure served = mmaServes(*this, dots);
      !served.succeeded())
    return served;
  issueDots(rewriter, dots, loop.getBody()->getTerminator(), 0, getUnit());
  updateLaunch(kernel, 1, std::nullopt);
  return rewritten(kernel, loop, results);
}

LogicalResult tiletag::AsyncMmaOp::verify() {
  if (getUnit() == schedule::AsyncUnit::tma)
    return emitOpError("issues dots on a matrix unit (wgmma or mfma), not "
                       "tma");
  return success();
}

DiagnosedSilenceableFailure tiletag::AsyncMmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  auto found = targetLoop(target, /*unscheduled=*/false, why);
  if (failed(found))
    return emitSilenceableError() << why;
  auto [loop, kernel] = *found;
  if (!kernel->hasAttr(schedule::ScheduleDialect::kLaunchAttrName))
    return issuePlainLoop(rewriter, loop, kernel, results);
  SmallVector<schedule::RoleOp> consumers;
  for (auto role : loop.getBody()->getOps<schedule::RoleOp>())
    if (role.getName().starts_with("consumer"))
      consumers.push_back(role);
  if (consumers.empty())
    return emitSilenceableError()
           << "the loop has no consumer role that waits for a ring slot and "
              "releases it: specialize it first "
              "(transform.tiletag.warp_specialize)";
  // Check every consumer before rewriting any.
  for (schedule::RoleOp consumer : consumers)
    if (DiagnosedSilenceableFailure diag = issueOnMatrixUnit(*this, rewriter, consumer,
                                                        /*dryRun=*/true);
        !diag.succeeded())
      return diag;
  llvm::StringMap<HeldSlots> held;
  for (schedule::RoleOp consumer : consumers)
    (void)issueOnMatrixUnit(*this, rewriter, consumer, /*dryRun=*/false,
                            &held[consumer.getName()]);
  // Inside loops the ring runs on (warp_specialize): the next run's
  // producer waits for the slots this run's consumers still hold.
  FailureOr<SmallVector<scf::ForOp>> outer = outerLoops(loop, kernel, why);
  bool ringRunsOn = succeeded(outer) && !outer->empty();
  // The epilogue waits for every group of its consumer.
  Location loc = loop.getLoc();
  auto unit = schedule::AsyncUnitAttr::get(kernel.getContext(), getUnit());
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
    auto tail = llvm::dyn_cast<schedule::RoleOp>(op);
    if (!tail || !held.count(tail.getName()))
      continue;
    rewriter.setInsertionPointToStart(&tail.getBody().front());
    schedule::WaitGroupOp::create(rewriter, loc, unit,
                                  rewriter.getI64IntegerAttr(0));
    HeldSlots slots = held.lookup(tail.getName());
    if (!ringRunsOn)
      continue;
    Value steps = tripCount(rewriter, loc, loop);
    for (int64_t d = slots.depth; d > 0; --d) {
      Value cD = indexConstant(rewriter, loc, d);
      Value ran = arith::CmpIOp::create(rewriter, loc,
                                        arith::CmpIPredicate::uge, steps, cD);
      auto ifRan = scf::IfOp::create(rewriter, loc, ran, false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifRan.thenBlock()->getTerminator());
      Value last = arith::SubIOp::create(rewriter, loc, steps, cD);
      Value slot = arith::RemUIOp::create(
          rewriter, loc, last,
          indexConstant(
              rewriter, loc,
              llvm::cast<schedule::MBarrierType>(slots.empty.getType())
                  .getSize()));
      schedule::MBarrierArriveOp::create(rewriter, loc, slots.empty, slot);
    }
  }
  return rewritten(kernel, loop, results);
}

//===----------------------------------------------------------------------===//
// SkipEmptyBlocksOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure tiletag::SkipEmptyBlocksOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  StringRef name = kernel.getSymName();
  SmallVector<tile::StoreOp> stores;
  bool otherWrites = false;
  kernel.walk([&](Operation *op) {
    if (auto store = llvm::dyn_cast<tile::StoreOp>(op))
      stores.push_back(store);
    else if (llvm::isa<memref::StoreOp>(op))
      otherWrites = true;
  });
  if (stores.size() != 1 || otherWrites)
    return emitSilenceableError()
           << "@" << name
           << " must write global memory through exactly one tile.store";
  tile::StoreOp store = stores.front();
  Block &body = kernel.getBody().front();
  // The block's start in each bounded dimension (every dimension when the
  // store has no bounds): offset + index * extent, empty at or past the
  // bound.
  auto memref = llvm::cast<MemRefType>(store.getDest().getType());
  int64_t rank = memref.getRank();
  auto tileShape = store.getValue().getType().getShape();
  int64_t lead = rank - static_cast<int64_t>(tileShape.size());
  if (static_cast<int64_t>(store.getIndices().size()) != rank)
    return emitSilenceableError() << "the store's indices must address every "
                                     "dimension of its destination";
  SmallVector<Value> inputs(store.getIndices());
  llvm::append_range(inputs, store.getOffsets());
  llvm::append_range(inputs, store.getBounds());
  if (store.getBounds().empty())
    inputs.push_back(store.getDest());
  Operation *after = nullptr;
  for (Value v : inputs) {
    Operation *def = v.getDefiningOp();
    if (!def && llvm::cast<BlockArgument>(v).getOwner() == &body)
      continue;
    if (!def || body.findAncestorOpInBlock(*def) != def)
      return emitSilenceableError()
             << "the store's block is computed inside a region; the guard "
                "must come before the work, in the kernel's body";
    if (!after || after->isBeforeInBlock(def))
      after = def;
  }
  Operation *storeTop = body.findAncestorOpInBlock(*store);
  if (after && !after->isBeforeInBlock(storeTop))
    return emitSilenceableError() << "nothing to skip before the store";

  Location loc = store.getLoc();
  if (after)
    rewriter.setInsertionPointAfter(after);
  else
    rewriter.setInsertionPointToStart(&body);
  // Dimensions whose block start an offset shifts (MoE's expert rows) are
  // where a launch sized for the worst case has empty blocks; without
  // offsets, every dimension is guarded.
  SmallVector<int64_t> guarded;
  for (int64_t d = 0; d < rank; ++d)
    if (!store.getOffsets().empty() &&
        !isConstantIntValue(store.getOffsets()[d], 0))
      guarded.push_back(d);
  if (guarded.empty())
    guarded = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value active;
  for (int64_t d : guarded) {
    Value bound;
    if (!store.getBounds().empty())
      bound = store.getBounds()[d];
    else
      bound = memref::DimOp::create(rewriter, loc, store.getDest(), d);
    int64_t extent = d < lead ? 1 : tileShape[d - lead];
    Value first = arith::MulIOp::create(
        rewriter, loc, store.getIndices()[d],
        indexConstant(rewriter, loc, extent));
    // Elements left past the offset. An offset past the bound wraps to a
    // large count: the work runs and its store clips everything, which is
    // merely not skipped.
    Value left = bound;
    if (!store.getOffsets().empty() &&
        !isConstantIntValue(store.getOffsets()[d], 0))
      left = arith::SubIOp::create(rewriter, loc, bound,
                                   store.getOffsets()[d]);
    Value cond = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, first, left);
    active = active ? arith::AndIOp::create(rewriter, loc, active, cond)
                    : cond;
  }
  // The work: everything from here to the terminator.
  SmallVector<Operation *> work;
  for (Operation *op = active.getDefiningOp()->getNextNode();
       op != body.getTerminator(); op = op->getNextNode())
    work.push_back(op);
  for (Operation *op : work)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!llvm::is_contained(work, body.findAncestorOpInBlock(*user)))
          return emitSilenceableError() << "a value of the skipped work is "
                                           "used after it";
  auto guard = scf::IfOp::create(rewriter, loc, active, false);
  Operation *yield = guard.thenBlock()->getTerminator();
  for (Operation *op : work)
    op->moveBefore(yield);
  return rewritten(kernel, kernel, results);
}

//===----------------------------------------------------------------------===//
// MapLoopOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure tiletag::MapLoopOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto loop = llvm::dyn_cast<scf::ForOp>(target);
  auto kernel = loop ? loop->getParentOfType<tile::KernelOp>() : nullptr;
  if (!kernel)
    return emitSilenceableError()
           << "expects an scf.for in a tile.kernel, got '" << target->getName()
           << "'";
  std::optional<schedule::ParallelLevel> level =
      schedule::symbolizeParallelLevel(getLevel());
  if (!level || *level == schedule::ParallelLevel::sequential)
    return emitSilenceableError()
           << "unknown level '" << getLevel()
           << "' (expected cta, warpgroup, warp or thread)";
  if (loop.getNumRegionIterArgs() != 0)
    return emitSilenceableError()
           << "the loop carries values from one iteration to the next; "
              "concurrent iterations cannot";
  if (loop->hasAttr(schedule::ScheduleDialect::kMapAttrName))
    return emitSilenceableError() << "the loop is mapped already";
  rewriter.modifyOpInPlace(loop, [&] {
    loop->setAttr(schedule::ScheduleDialect::kMapAttrName,
                  schedule::ParallelLevelAttr::get(loop.getContext(), *level));
  });
  return rewritten(kernel, loop, results);
}

//===----------------------------------------------------------------------===//
// Epilogues: StageStoresOp
//===----------------------------------------------------------------------===//

/// Why `store` cannot become a TMA store with `buffers` slots ("" if it
/// can).
static std::string whyNoTmaStore(tile::StoreOp store, tile::KernelOp kernel,
                                 bool hasRoles, int64_t buffers) {
  if (store.getCombine())
    return "it combines (`combine add`), which TMA stores here do not";
  if (!store.getBounds().empty())
    return "it has `bounds`; TMA clips at the operand's size only";
  auto arg = dyn_cast<BlockArgument>(store.getDest());
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return "its destination is not a kernel operand (TMA needs a tensor map)";
  auto type = cast<RankedTensorType>(store.getValue().getType());
  if (type.getRank() != 2 ||
      type.getDimSize(1) * type.getElementTypeBitWidth() % (128 * 8) != 0)
    return "its tile is not 2-D with rows of a multiple of 128 bytes (the "
           "128-byte swizzle of TMA)";
  if (hasRoles && !store->getParentOfType<schedule::RoleOp>())
    return "it is outside the warp roles of a warp-specialized kernel";
  if (buffers == 2) {
    auto loop = store->getParentOfType<scf::ForOp>();
    if (!loop || !isConstantIntValue(loop.getStep(), 1))
      return "two buffers alternate by iteration: it must be in an scf.for "
             "of step 1";
  }
  return "";
}

DiagnosedSilenceableFailure tiletag::StageStoresOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  int64_t buffers = getBuffers();
  SmallVector<tile::StoreOp> stores;
  kernel.walk([&](tile::StoreOp store) { stores.push_back(store); });
  if (stores.empty())
    return emitSilenceableError() << "the kernel has no tile.store";
  if (buffers == 0)
    return rewritten(kernel, kernel, results);
  int64_t bytes = 0;
  kernel.walk([&](tile::AllocSharedOp a) { bytes += byteSize(a.getType()); });
  bool hasRoles =
      kernel->walk([](schedule::RoleOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  for (tile::StoreOp store : stores) {
    std::string why = whyNoTmaStore(store, kernel, hasRoles, buffers);
    if (!why.empty()) {
      DiagnosedSilenceableFailure diag = emitSilenceableError()
                                         << "cannot store through TMA: " << why;
      diag.attachNote(store.getLoc()) << "this tile.store";
      return diag;
    }
    bytes += buffers * byteSize(store.getValue().getType());
  }
  if (bytes > kSharedBytesPerCta)
    return emitSilenceableError()
           << "the epilogue buffers need " << bytes
           << " bytes of shared memory with what the kernel has already; a "
              "CTA has "
           << kSharedBytesPerCta << " (227 KiB on sm_90a)";

  auto workgroup = gpu::AddressSpaceAttr::get(kernel.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto tma = schedule::AsyncUnitAttr::get(kernel.getContext(),
                                          schedule::AsyncUnit::tma);
  for (tile::StoreOp store : stores) {
    Location loc = store.getLoc();
    auto tileType = cast<RankedTensorType>(store.getValue().getType());
    SmallVector<int64_t> shape{buffers};
    llvm::append_range(shape, tileType.getShape());
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
    Value buffer = tile::AllocSharedOp::create(
        rewriter, loc,
        MemRefType::get(shape, tileType.getElementType(),
                        MemRefLayoutAttrInterface(), workgroup));
    rewriter.setInsertionPoint(store);
    Value slot = indexConstant(rewriter, loc, 0);
    auto loop = store->getParentOfType<scf::ForOp>();
    if (buffers == 2)
      slot = iterationSlot(rewriter, loc, loop, 2);
    tile::WriteOp::create(rewriter, loc, store.getValue(), buffer,
                          ValueRange{slot});
    schedule::FenceAsyncProxyOp::create(rewriter, loc);
    auto region = schedule::AsyncOp::create(rewriter, loc, TypeRange{},
                                            schedule::AsyncUnit::tma, Value(),
                                            Value());
    rewriter.setInsertionPointToStart(
        createBodyBlock(rewriter, region.getBody()));
    tile::CopyOp::create(rewriter, loc, buffer, ValueRange{slot},
                         store.getDest(), store.getIndices(),
                         store.getOffsets(), ValueRange{}, TypedAttr());
    schedule::YieldOp::create(rewriter, loc, ValueRange{});
    rewriter.setInsertionPointAfter(region);
    schedule::CommitGroupOp::create(rewriter, loc, tma);
    schedule::WaitGroupOp::create(rewriter, loc, tma,
                                  rewriter.getI64IntegerAttr(buffers - 1));
    if (buffers == 2) {
      // The last store retires after the loop, in the store's role (a role
      // of the same name and warpgroups there, if the role is in the loop).
      rewriter.setInsertionPointAfter(loop);
      auto role = store->getParentOfType<schedule::RoleOp>();
      if (role && loop->isProperAncestor(role)) {
        auto tail = schedule::RoleOp::create(rewriter, loc, TypeRange{},
                                             role.getName(),
                                             role.getWarpgroups(),
                                             IntegerAttr());
        rewriter.setInsertionPointToStart(
            createBodyBlock(rewriter, tail.getBody()));
        schedule::YieldOp::create(rewriter, loc, ValueRange{});
        rewriter.setInsertionPointToStart(&tail.getBody().front());
      }
      schedule::WaitGroupOp::create(rewriter, loc, tma,
                                    rewriter.getI64IntegerAttr(0));
    }
    rewriter.eraseOp(store);
  }
  return rewritten(kernel, kernel, results);
}

//===----------------------------------------------------------------------===//
// FuseEpilogueOp
//===----------------------------------------------------------------------===//

/// `a` (in kernel `ka`) and `b` (in kernel `kb`) are computed the same way:
/// operands of the same name, or the same operations (no regions) on
/// operands computed the same way.
static bool sameComputation(Value a, tile::KernelOp ka, Value b,
                            tile::KernelOp kb) {
  auto argA = llvm::dyn_cast<BlockArgument>(a);
  auto argB = llvm::dyn_cast<BlockArgument>(b);
  if (argA || argB)
    return argA && argB && argA.getOwner()->getParentOp() == ka &&
           argB.getOwner()->getParentOp() == kb &&
           ka.getOperandName(argA.getArgNumber()) ==
               kb.getOperandName(argB.getArgNumber());
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (x->getName() != y->getName() || x->getAttrs() != y->getAttrs() ||
      x->getNumRegions() || y->getNumRegions() ||
      x->getNumOperands() != y->getNumOperands() ||
      llvm::cast<OpResult>(a).getResultNumber() !=
          llvm::cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameComputation(u, ka, v, kb))
      return false;
  return true;
}

DiagnosedSilenceableFailure tiletag::FuseEpilogueOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  auto fail = [&](const Twine &why) {
    return emitSilenceableError() << "cannot fuse the epilogue of @"
                                  << kernel.getSymName() << ": " << why;
  };
  MLIRContext *ctx = kernel.getContext();
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch || launch.getThen().size() != 1)
    return fail("its launch does not run exactly one kernel after it");
  auto epilogue = SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
      kernel, launch.getThen().front().getAttr());
  auto epilogueLaunch =
      epilogue ? epilogue->getAttrOfType<tile::LaunchAttr>(
                     tile::TileDialect::kLaunchAttrName)
               : tile::LaunchAttr();
  if (!epilogueLaunch || epilogue == kernel)
    return fail("the kernel its launch runs after it has no tile.launch");
  if (epilogue->hasAttr(schedule::ScheduleDialect::kLaunchAttrName))
    return fail("@" + epilogue.getSymName() + " has a schedule");
  if (epilogue.getGridAttr() != kernel.getGridAttr() ||
      epilogueLaunch.getGrid() != launch.getGrid())
    return fail("@" + epilogue.getSymName() +
                " runs on another grid (rank or extents)");

  // The workspace: stored once by the kernel, read once by the epilogue,
  // both in the kernels' bodies.
  tile::StoreOp store;
  tile::LoadOp load;
  unsigned storeCount = 0;
  kernel.walk([&](tile::StoreOp st) {
    ++storeCount;
    store = st;
  });
  auto workspace =
      store ? llvm::dyn_cast<BlockArgument>(store.getDest()) : BlockArgument();
  if (storeCount != 1 || !workspace || !workspace.hasOneUse() ||
      store->getParentOp() != kernel)
    return fail("it must store one operand, once, in its body (not in a loop "
                "or branch), and use it for nothing else");
  std::string name = kernel.getOperandName(workspace.getArgNumber());
  for (unsigned i = 0, e = epilogue.getNumArguments(); i < e; ++i) {
    if (epilogue.getOperandName(i) != name)
      continue;
    BlockArgument arg = epilogue.getArgument(i);
    if (arg.getType() != workspace.getType() || !arg.hasOneUse())
      break;
    load = llvm::dyn_cast<tile::LoadOp>(*arg.getUsers().begin());
  }
  if (!load || load->getParentOp() != epilogue ||
      load.getType() != store.getValue().getType())
    return fail("@" + epilogue.getSymName() + " must read " + name +
                " once, in its body, as the tile type the kernel stores");
  // The epilogue reads, in each program, the block the kernel stored there.
  auto same = [&](ValueRange e, ValueRange k) {
    return e.size() == k.size() &&
           llvm::all_of(llvm::zip(e, k), [&](auto pair) {
             return sameComputation(std::get<0>(pair), epilogue,
                                    std::get<1>(pair), kernel);
           });
  };
  if (!same(load.getIndices(), store.getIndices()) ||
      !same(load.getOffsets(), store.getOffsets()) ||
      !same(load.getBounds(), store.getBounds()))
    return fail("@" + epilogue.getSymName() + " reads another block of " +
                name + " than the kernel's program stores (its indices are "
                "not computed as the store's)");

  // The fused operands: in the contract's order if it names them all.
  llvm::StringMap<Value> byName;
  SmallVector<std::pair<std::string, Type>> order;
  for (tile::KernelOp k : {kernel, epilogue})
    for (unsigned i = 0, e = k.getNumArguments(); i < e; ++i) {
      std::string n = k.getOperandName(i);
      if (n == name)
        continue;
      Type t = k.getArgument(i).getType();
      auto known = llvm::find_if(order, [&](auto &o) { return o.first == n; });
      if (known != order.end()) {
        if (known->second != t)
          return fail("operand " + n + " has two types");
        continue;
      }
      order.push_back({n, t});
    }
  if (auto ref = kernel->getAttrOfType<FlatSymbolRefAttr>(
          tag::TagDialect::kContractAttrName))
    if (auto reference = SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
            kernel, ref.getAttr());
        reference && reference.getNumArguments() == order.size()) {
      SmallVector<std::pair<std::string, Type>> byReference;
      for (unsigned i = 0, e = reference.getNumArguments(); i < e; ++i) {
        std::string n = reference.getOperandName(i);
        auto it = llvm::find_if(order, [&](auto &o) { return o.first == n; });
        if (it != order.end())
          byReference.push_back(*it);
      }
      if (byReference.size() == order.size())
        order = std::move(byReference);
    }

  // The launch: the kernel's, with the epilogue's operand shapes.
  SmallVector<StringAttr> shapeNames;
  SmallVector<AffineMap> shapes;
  for (tile::LaunchAttr l : {launch, epilogueLaunch})
    for (auto [n, m] : llvm::zip(l.getShapeNames(), l.getShapes()))
      if (n.getValue() != name && !llvm::is_contained(shapeNames, n)) {
        shapeNames.push_back(n);
        shapes.push_back(withSizes(m, launch.getSizeNames().size()));
      }
  StringAttr check = launch.getCheck() ? launch.getCheck()
                                       : epilogueLaunch.getCheck();

  // The fused kernel: the kernel's attributes and body, the new operands.
  SmallVector<Type> types;
  SmallVector<Attribute> argAttrs;
  SmallVector<Location> locs;
  for (auto &[n, t] : order) {
    types.push_back(t);
    argAttrs.push_back(DictionaryAttr::get(
        ctx, {NamedAttribute(tile::TileDialect::kNameAttrName,
                             StringAttr::get(ctx, n))}));
    locs.push_back(kernel.getLoc());
  }
  rewriter.setInsertionPoint(kernel);
  auto fused = tile::KernelOp::create(
      rewriter, kernel.getLoc(),
      StringAttr::get(ctx, kernel.getSymName() + "_fused"),
      TypeAttr::get(FunctionType::get(ctx, types, {})), kernel.getGridAttr(),
      StringAttr(), rewriter.getArrayAttr(argAttrs), ArrayAttr());
  for (NamedAttribute attr : kernel->getDiscardableAttrs())
    if (attr.getName() != tag::TagDialect::kVerifiedAttrName &&
        attr.getName() != schedule::ScheduleDialect::kVerifiedAttrName)
      fused->setAttr(attr.getName(), attr.getValue());
  fused->setAttr(tile::TileDialect::kLaunchAttrName,
                 tile::LaunchAttr::get(ctx, launch.getSizeNames(),
                                       launch.getSizeDefaults(),
                                       launch.getGrid(), shapeNames, shapes,
                                       check, epilogueLaunch.getThen()));
  Block *body = rewriter.createBlock(&fused.getBody(), {}, types, locs);
  for (auto [i, o] : llvm::enumerate(order))
    byName[o.first] = body->getArgument(i);
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
    if (i != workspace.getArgNumber())
      rewriter.replaceAllUsesWith(kernel.getArgument(i),
                                  byName[kernel.getOperandName(i)]);
  body->getOperations().splice(body->end(),
                               kernel.getBody().front().getOperations());

  // The epilogue runs where the workspace was stored, on the stored value.
  IRMapping map;
  for (unsigned i = 0, e = epilogue.getNumArguments(); i < e; ++i)
    if (epilogue.getOperandName(i) != name)
      map.map(epilogue.getArgument(i), byName[epilogue.getOperandName(i)]);
  map.map(load.getResult(), store.getValue());
  rewriter.setInsertionPoint(store);
  for (Operation &op : epilogue.getBody().front().without_terminator())
    if (&op != load.getOperation())
      rewriter.clone(op, map);
  rewriter.eraseOp(store);
  StringAttr symbol = kernel.getSymNameAttr();
  rewriter.eraseOp(epilogue);
  rewriter.eraseOp(kernel);
  fused.setSymNameAttr(symbol);
  return rewritten(fused, fused, results);
}

//===----------------------------------------------------------------------===//
// OccupancyOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure tiletag::OccupancyOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(target);
  if (!kernel)
    return notAKernel(*this, target);
  rewriter.modifyOpInPlace(
      kernel, [&] { updateLaunch(kernel, std::nullopt, getPrograms()); });
  return rewritten(kernel, kernel, results);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "TileTag/TransformOps/TileTagTransformOps.cpp.inc"

namespace {
class TileTagTransformExtension
    : public transform::TransformDialectExtension<TileTagTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileTagTransformExtension)
  using Base::Base;

  void init() {
    declareGeneratedDialect<tile::TileDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<schedule::ScheduleDialect>();
    declareGeneratedDialect<gpu::GPUDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "TileTag/TransformOps/TileTagTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::tiletag::registerTransformDialectExtension(
    DialectRegistry &registry) {
  registry.addExtensions<TileTagTransformExtension>();
}
