//===- KernelLowering.cpp - target-neutral tile + schedule lowering ------===//
//
// Part of the TileTag project.
//
// Each tile.kernel becomes one gpu.func. The kernel body is walked once per
// warp role (once if it has none); each op is emitted for the threads of the
// role it runs in (its "group"). See KernelLowering.h for how tiles are
// represented; what is specific to a GPU is asked of the LoweringTarget.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/TileToGPU/KernelLowering.h"

#include "TileTag/Conversion/Layouts.h"

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Support/ProofStamp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::conversion;

int64_t conversion::byteWidth(Type t) {
  if (t.isIndex())
    return 8;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// value = mantissa * 2^(exponent - bias - mantissa bits), the mantissa with
/// its implicit 1 where the exponent field is nonzero (else subnormal, at
/// the smallest normal's exponent); the power of two is built as f32 bits.
/// The codes that are NaN or infinite in the format are selected one by one.
Value conversion::decodeFp8ToF32(OpBuilder &b, Location loc, Value v) {
  const llvm::fltSemantics &sem =
      cast<FloatType>(v.getType()).getFloatSemantics();
  int64_t mBits = llvm::APFloat::semanticsPrecision(sem) - 1;
  int64_t minExp = llvm::APFloat::semanticsMinExponent(sem);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t x) {
    return b.createOrFold<arith::ConstantOp>(loc, b.getI32IntegerAttr(x));
  };
  Value bits = b.createOrFold<arith::ExtUIOp>(
      loc, i32, b.createOrFold<arith::BitcastOp>(loc, b.getI8Type(), v));
  Value field = b.createOrFold<arith::AndIOp>(
      loc, b.createOrFold<arith::ShRUIOp>(loc, bits, c(mBits)),
      c((1 << (7 - mBits)) - 1));
  Value frac = b.createOrFold<arith::AndIOp>(loc, bits, c((1 << mBits) - 1));
  Value normal = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                               field, c(0));
  Value mant = b.createOrFold<arith::SelectOp>(
      loc, normal, b.createOrFold<arith::OrIOp>(loc, frac, c(1 << mBits)),
      frac);
  Value exp = b.createOrFold<arith::AddIOp>(
      loc, b.createOrFold<arith::MaxUIOp>(loc, field, c(1)),
      c(minExp - 1 - mBits + 127));
  Value scale = b.createOrFold<arith::BitcastOp>(
      loc, f32, b.createOrFold<arith::ShLIOp>(loc, exp, c(23)));
  Value value = b.createOrFold<arith::MulFOp>(
      loc, b.createOrFold<arith::UIToFPOp>(loc, f32, mant), scale);
  Value negative = b.createOrFold<arith::CmpIOp>(
      loc, arith::CmpIPredicate::uge, bits, c(0x80));
  value = b.createOrFold<arith::SelectOp>(
      loc, negative, b.createOrFold<arith::NegFOp>(loc, value), value);
  for (int64_t code = 0; code < 256; ++code) {
    llvm::APFloat x(sem, llvm::APInt(8, code));
    if (!x.isNaN() && !x.isInfinity())
      continue;
    bool lost;
    x.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    value = b.createOrFold<arith::SelectOp>(
        loc,
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, bits,
                                      c(code)),
        b.createOrFold<arith::ConstantOp>(loc, b.getFloatAttr(f32, x)), value);
  }
  return value;
}

/// The first arith or math op under `root` that computes on fp8 values
/// other than by widening them (arith.extf) or moving them.
static Operation *unloweredFp8Arithmetic(Operation *root) {
  auto holdsFp8 = [](Type t) { return isFp8(getElementTypeOrSelf(t)); };
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp,
            arith::ExtFOp>(op))
      return WalkResult::advance();
    if (llvm::any_of(op->getOperandTypes(), holdsFp8) ||
        llvm::any_of(op->getResultTypes(), holdsFp8)) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

LogicalResult conversion::checkFp8Arithmetic(Operation *root) {
  Operation *op = unloweredFp8Arithmetic(root);
  if (!op)
    return success();
  Type t = op->getNumResults() && isFp8(getElementTypeOrSelf(
                                      op->getResult(0).getType()))
               ? op->getResult(0).getType()
               : op->getOperand(0).getType();
  return op->emitError() << "'" << op->getName() << "' on "
                         << getElementTypeOrSelf(t)
                         << " values is not lowered: fp8 values are loaded, "
                            "copied, multiplied (tile.dot) and widened to f32 "
                            "(arith.extf) here; keep results in f32, bf16 or "
                            "f16";
}

LogicalResult conversion::legalizeFp8(gpu::GPUFuncOp func) {
  if (failed(checkFp8Arithmetic(func)))
    return failure();
  SmallVector<arith::ExtFOp> widen;
  func.walk([&](arith::ExtFOp ext) {
    if (isFp8(ext.getIn().getType()))
      widen.push_back(ext);
  });
  for (arith::ExtFOp ext : widen) {
    OpBuilder b(ext);
    Value v = decodeFp8ToF32(b, ext.getLoc(), ext.getIn());
    if (!ext.getType().isF32())
      v = arith::ExtFOp::create(b, ext.getLoc(), ext.getType(), v);
    ext.replaceAllUsesWith(v);
    ext.erase();
  }
  return success();
}

int64_t Ring::slotBytes() const {
  int64_t n = byteWidth(type.getElementType());
  for (int64_t d : tile)
    n *= d;
  return n;
}

bool conversion::isAsyncStore(schedule::AsyncOp async) {
  for (Operation &op : async.getBody().front())
    if (auto copy = dyn_cast<tile::CopyOp>(op))
      return !copy.isGlobalToShared();
  return false;
}

bool conversion::fitsSwizzle128B(const Ring &ring) {
  int64_t rowBytes = ring.tile.back() * byteWidth(ring.type.getElementType());
  return ring.tile.size() == 2 && rowBytes % kSwizzleBytes == 0;
}

/// Swizzled slots hold 128-byte column panels one after the other, each
/// row's 16-byte chunks XORed with the row index mod 8.
Value conversion::swizzled128BByte(KernelLowering &k, const Ring &ring,
                                   ValueRange index) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  int64_t width = byteWidth(ring.type.getElementType());
  int64_t pw = kSwizzleBytes / width, rows = ring.tile[0];
  Value panel = arith::DivUIOp::create(b, loc, index[1], k.idx(pw));
  Value col = arith::RemUIOp::create(b, loc, index[1], k.idx(pw));
  Value off = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, index[0], k.idx(kSwizzleBytes)),
      arith::MulIOp::create(b, loc, col, k.idx(width)));
  Value swz = swizzle128BOffset(k, off);
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, panel, k.idx(rows * kSwizzleBytes)), swz);
}

Value conversion::swizzle128BOffset(KernelLowering &k, Value offset) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value row8 = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, offset, k.idx(128)), k.idx(8));
  return arith::XOrIOp::create(
      b, loc, offset, arith::MulIOp::create(b, loc, row8, k.idx(16)));
}

LoweringTarget::~LoweringTarget() = default;

void LoweringTarget::forEachAccumulatorRun(
    KernelLowering &k, Value acc, RankedTensorType type,
    function_ref<void(ValueRange values, Value row, Value col)> body) {
  forEachAccumulatorElement(k, acc, type, [&](Value v, Value row, Value col) {
    body(ValueRange{v}, row, col);
  });
}

Value LoweringTarget::gridDim(KernelLowering &k, gpu::Dimension dim) {
  return gpu::GridDimOp::create(k.b, k.loc, dim);
}

LogicalResult KernelLowering::fail(Operation *op, const Twine &msg) {
  return op->emitOpError() << "cannot be lowered to " << target.name() << ": "
                           << msg;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

/// One branch per role name runs every op of that role (see run()), on the
/// warpgroups and with the register budget of the role: its ops must agree
/// on the warpgroups, and on the budget where they state one.
LogicalResult KernelLowering::planRoles() {
  LogicalResult status = success();
  kernel.walk([&](schedule::RoleOp role) {
    auto first = llvm::find_if(roles, [&](schedule::RoleOp r) {
      return r.getName() == role.getName();
    });
    if (first == roles.end()) {
      roles.push_back(role);
    } else if (first->getWarpgroups() != role.getWarpgroups()) {
      InFlightDiagnostic d =
          role.emitOpError()
          << "cannot be lowered to " << target.name() << ": role \""
          << role.getName()
          << "\" runs on other warpgroups here than where it first appears; "
             "a role is one branch on the warpgroup index";
      d.attachNote(first->getLoc()) << "first appears here";
      status = failure();
      return;
    }
    if (std::optional<uint64_t> regs = role.getRegs()) {
      auto [it, inserted] = roleRegs.try_emplace(role.getName(), *regs, role);
      if (!inserted && it->second.first != *regs) {
        InFlightDiagnostic d =
            role.emitOpError()
            << "cannot be lowered to " << target.name() << ": role \""
            << role.getName() << "\" states regs " << *regs
            << " here and " << it->second.first
            << " elsewhere; a role has one register budget (setmaxnreg at "
               "its entry)";
        d.attachNote(it->second.second.getLoc()) << "the other budget";
        status = failure();
      }
    }
  });
  return status;
}

/// Named barriers take the hardware ids after the roles' own (role i has
/// id i + 1, partialBarrier). A phase is `count` role arrivals, each by all
/// threads of its role, so every role arriving on one has as many threads.
LogicalResult KernelLowering::planNamedBarriers() {
  int64_t next = roles.size() + 1;
  LogicalResult status = success();
  kernel.walk([&](schedule::MBarrierInitOp init) {
    if (!init.getNamed() || failed(status))
      return;
    int64_t size = cast<schedule::MBarrierType>(init.getType()).getSize();
    if (next + size > target.namedBarrierIds()) {
      status =
          target.namedBarrierIds() == 0
              ? fail(init, target.lowering().str() +
                               " has no named barriers; use mbarriers in "
                               "shared memory (without `named`)")
              : fail(init,
                     "the named barriers need hardware ids up to " +
                         std::to_string(next + size - 1) + ", but there are " +
                         std::to_string(target.namedBarrierIds()) +
                         " (0 for CTA barriers, 1 to " +
                         std::to_string(roles.size()) + " for the roles' own)");
      return;
    }
    int64_t roleThreads = 0;
    for (Operation *user : init->getUsers()) {
      auto role = user->getParentOfType<schedule::RoleOp>();
      if (!role) {
        status = fail(user, "a named barrier orders warp roles: arrive and "
                            "sync on it inside schedule.role");
        return;
      }
      int64_t n = role.getWarpgroups().size() * kWarpgroupThreads;
      if (roleThreads && n != roleThreads) {
        status = fail(user, "the roles arriving on a named barrier must have "
                            "as many threads each (a phase counts threads): "
                            "this one has " +
                                std::to_string(n) + ", another " +
                                std::to_string(roleThreads));
        return;
      }
      roleThreads = n;
    }
    int64_t perPhase = init.getCount() * roleThreads;
    if (perPhase > threads) {
      status = fail(init, "a phase of " + std::to_string(init.getCount()) +
                              " role arrivals is " + std::to_string(perPhase) +
                              " threads, more than the CTA's " +
                              std::to_string(threads));
      return;
    }
    namedBarriers[init.getResult()] = {next, perPhase};
    next += size;
  });
  return status;
}

std::optional<uint64_t> KernelLowering::registerBudget(schedule::RoleOp role) {
  auto it = roleRegs.find(role.getName());
  if (it == roleRegs.end())
    return std::nullopt;
  return it->second.first;
}

bool KernelLowering::inCurrentRole(Operation *op) {
  auto role = op->getParentOfType<schedule::RoleOp>();
  return role ? role.getName() == currentRole : roles.empty();
}

Ring *KernelLowering::ringOf(Value buffer) {
  auto it = rings.find(buffer);
  return it == rings.end() ? nullptr : &it->second;
}

LogicalResult KernelLowering::planShared() {
  LogicalResult status = success();
  kernel.walk([&](tile::AllocSharedOp alloc) {
    Ring ring;
    ring.type = alloc.getType();
    if (!llvm::isa<IntegerType, FloatType>(ring.type.getElementType()))
      status = fail(alloc, "shared buffers of this element type");
    rings[alloc.getResult()] = ring;
  });
  // Slot dimensions come from the accesses (the verifier keeps them
  // consistent).
  auto noteSlots = [&](Value buffer, unsigned n) {
    if (Ring *r = ringOf(buffer)) {
      r->tile.assign(tile::slotTileShape(r->type, n).begin(),
                     tile::slotTileShape(r->type, n).end());
    }
  };
  kernel.walk([&](Operation *op) {
    if (auto read = dyn_cast<tile::ReadOp>(op))
      noteSlots(read.getBuffer(), read.getIndices().size());
    else if (auto write = dyn_cast<tile::WriteOp>(op))
      noteSlots(write.getBuffer(), write.getIndices().size());
    else if (auto copy = dyn_cast<tile::CopyOp>(op))
      noteSlots(copy.getShared(), copy.getSlotIndices().size());
  });
  for (auto &[value, ring] : rings) {
    if (ring.tile.empty()) // never sliced: one slot holding the whole buffer
      ring.tile.assign(ring.type.getShape().begin(),
                       ring.type.getShape().end());
    ring.swizzled = target.swizzles(ring);
    sharedBytes = llvm::alignTo(sharedBytes, target.ringAlignment());
    ring.offset = sharedBytes;
    int64_t total = byteWidth(ring.type.getElementType());
    for (int64_t d : ring.type.getShape())
      total *= d;
    sharedBytes += total;
  }
  return status;
}

Value conversion::yieldedSource(Value v) {
  while (auto res = dyn_cast<OpResult>(v)) {
    Operation *owner = res.getOwner();
    if (!isa<schedule::RoleOp, schedule::AsyncOp>(owner))
      return v;
    auto yield =
        cast<schedule::YieldOp>(owner->getRegion(0).front().getTerminator());
    v = yield.getValues()[res.getResultNumber()];
  }
  return v;
}

StringRef conversion::computingRole(Value v) {
  auto res = dyn_cast<OpResult>(v);
  if (!res)
    return {};
  Operation *owner = res.getOwner();
  if (auto role = dyn_cast<schedule::RoleOp>(owner))
    return role.getName();
  if (auto loop = dyn_cast<scf::ForOp>(owner))
    return computingRole(loop.getYieldedValues()[res.getResultNumber()]);
  if (auto role = owner->getParentOfType<schedule::RoleOp>())
    return role.getName();
  return {};
}

/// Whether the copy of the kernel that role `role` runs computes `v`, a
/// value a loop yields (every copy computes what no role yields).
static bool computedIn(Value v, StringRef role) {
  StringRef carrier = computingRole(v);
  return carrier.empty() || carrier == role;
}

bool conversion::isZeroSplat(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  if (auto f = dyn_cast<FloatAttr>(attr.getSplatValue<Attribute>()))
    return f.getValue().isZero();
  return false;
}

/// Whether `v` would be, or be computed lazily from, one of `candidates`
/// (the lowering's Lazy tiles: element-wise ops, broadcasts, transposes).
static bool isElementwise(Operation *op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      isa<arith::ConstantOp>(op) || op->getNumResults() != 1)
    return false;
  return isa<RankedTensorType>(op->getResult(0).getType());
}

static bool readsCandidate(Value v, const DenseSet<Value> &candidates) {
  v = yieldedSource(v);
  if (candidates.contains(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || !(isElementwise(def) ||
                isa<tile::BroadcastOp, tile::TransposeOp>(def)))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return isa<RankedTensorType>(operand.getType()) &&
           readsCandidate(operand, candidates);
  });
}

/// The candidate `v` is computed from register by register (element-wise
/// ops only, no other candidate read): registerEpilogueSource's rule,
/// before the tiles exist. Null if none.
static Value registerSource(Value v, const DenseSet<Value> &candidates) {
  v = yieldedSource(v);
  if (candidates.contains(v))
    return v;
  Operation *def = v.getDefiningOp();
  if (!def || !isElementwise(def))
    return Value();
  Value source;
  for (Value operand : def->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType()) ||
        !readsCandidate(operand, candidates))
      continue;
    Value s = registerSource(operand, candidates);
    if (!s || (source && source != s))
      return Value();
    source = s;
  }
  return source;
}

/// Finds the tiles that stay in accumulator registers: results of MMA dots
/// whose accumulator is zero, itself an accumulator, or computed from one
/// register by register (attention's rescaled output, where the target
/// builds accumulators), and loop values carried only between such dots (a
/// greatest fixpoint).
void KernelLowering::planAccumulators() {
  kernel.walk([&](tile::DotOp dot) {
    if (target.whyNotMma(*this, dot).empty())
      mmaDots.insert(dot);
  });
  SmallVector<BlockArgument> carried;
  kernel.walk([&](scf::ForOp loop) {
    for (BlockArgument arg : loop.getRegionIterArgs())
      if (isa<RankedTensorType>(arg.getType()))
        carried.push_back(arg);
  });
  DenseSet<Value> candidates;
  for (Operation *dot : mmaDots)
    candidates.insert(dot->getResult(0));
  for (BlockArgument arg : carried)
    candidates.insert(arg);
  // Loop values first: a dot's accumulator computed from one accumulator
  // must read no other (registerSource), and the loop values that are not
  // accumulators (attention's row maxima) leave the candidates here.
  bool changed = true;
  while (changed) {
    changed = false;
    for (BlockArgument arg : carried) {
      if (!candidates.contains(arg))
        continue;
      auto loop = cast<scf::ForOp>(arg.getOwner()->getParentOp());
      unsigned i = arg.getArgNumber() - 1;
      Value init = loop.getInitArgs()[i];
      Value next = yieldedSource(loop.getYieldedValues()[i]);
      if ((!isZeroSplat(init) && !candidates.contains(yieldedSource(init))) ||
          !candidates.contains(next)) {
        candidates.erase(arg);
        changed = true;
      }
    }
    for (Operation *dot : mmaDots) {
      Value result = dot->getResult(0);
      if (!candidates.contains(result))
        continue;
      Value acc = cast<tile::DotOp>(dot).getAcc();
      if (!isZeroSplat(acc) && !candidates.contains(yieldedSource(acc)) &&
          !(target.mapsAccumulators() && registerSource(acc, candidates) &&
            registersLeftFor(dot, RankedTensorType(), candidates))) {
        candidates.erase(result);
        changed = true;
      }
    }
  }
  // Dots outside an accumulator chain start from zero and add their
  // accumulator afterwards; only chains keep results in registers.
  for (Operation *dot : mmaDots)
    if (isZeroSplat(cast<tile::DotOp>(dot).getAcc()))
      candidates.insert(dot->getResult(0));
  accValues = std::move(candidates);
}

//===----------------------------------------------------------------------===//
// Emission helpers
//===----------------------------------------------------------------------===//

void KernelLowering::groupBarrier() {
  simtSinceBarrier = false;
  if (group.wholeCTA) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // One thread sees its own accesses in program order.
  if (group.size > 1)
    target.partialBarrier(*this, group);
}

Value KernelLowering::threadInGroup(const Group &g) {
  return arith::SubIOp::create(b, loc, tid, g.base ? g.base : idx(g.first));
}

Value KernelLowering::foldAcrossLanes(
    Value v, ArrayRef<int64_t> masks,
    function_ref<Value(Value, Value)> combine) {
  Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
  for (int64_t mask : masks) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v,
                               arith::ConstantIntOp::create(b, loc, mask, 32),
                               width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = combine(v, other);
  }
  return v;
}

Value KernelLowering::electOne() {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                               group.base ? group.base : idx(group.first));
}

SmallVector<Value> KernelLowering::indexOf(Value linear,
                                           ArrayRef<int64_t> shape) {
  SmallVector<Value> index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (d == 0) {
      index[d] = linear;
      break;
    }
    index[d] = arith::RemUIOp::create(b, loc, linear, idx(shape[d]));
    linear = arith::DivUIOp::create(b, loc, linear, idx(shape[d]));
  }
  return index;
}

void KernelLowering::forEachElement(
    ArrayRef<int64_t> shape, function_ref<LogicalResult(ValueRange)> body,
    LogicalResult &status) {
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  Value start = threadInGroup();
  auto loop = scf::ForOp::create(b, loc, start, idx(numel), idx(group.size));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  if (failed(body(indexOf(loop.getInductionVar(), shape))))
    status = failure();
  simtSinceBarrier = true;
}

void KernelLowering::reportFallback(Operation *op, const Twine &what) {
  // Each role emits its own copy of the ops outside the roles: say it once.
  if (reportFallbacks && reported.insert({op, what.str()}).second)
    op->emitRemark() << what;
}

Value KernelLowering::allocBuffer(RankedTensorType type, Operation *op,
                                  const Twine &why) {
  int64_t bytes = byteWidth(type.getElementType()) * type.getNumElements();
  std::pair<int64_t, int64_t> &traffic = workspaceTraffic[op];
  traffic.first += bytes;
  traffic.second += type.getNumElements();
  reportFallback(op, "held in the global workspace (" + Twine(bytes) +
                         " bytes per program): " + why);
  // Inside a mapped loop, each unit's iterations use a slice of their own.
  int64_t offset = workspaceBytes, slice = llvm::alignTo(bytes, 16);
  workspaceBytes += slice * unit.count;
  Value shift = arith::AddIOp::create(b, loc, workspaceBase, idx(offset));
  if (unit.count > 1)
    shift = arith::AddIOp::create(
        b, loc, shift, arith::MulIOp::create(b, loc, unit.index, idx(slice)));
  auto viewType = MemRefType::get(type.getShape(), type.getElementType());
  return memref::ViewOp::create(b, loc, viewType, workspace, shift,
                                ValueRange{});
}

Value KernelLowering::sharedView(Ring &ring, Type elementType) {
  int64_t total = byteWidth(elementType);
  for (int64_t d : ring.type.getShape())
    total *= d;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto viewType = MemRefType::get({total / byteWidth(elementType)}, elementType,
                                  MemRefLayoutAttrInterface(), space);
  Value shift = arith::AddIOp::create(b, loc, ringBase, idx(ring.offset));
  return memref::ViewOp::create(b, loc, viewType, dynamicShared(), shift,
                                ValueRange{});
}

Value KernelLowering::dynamicShared() {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), space));
}

Value KernelLowering::slotByte(Ring &ring, Value slot) {
  return arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, ringBase, idx(ring.offset)),
      arith::MulIOp::create(b, loc, slot, idx(ring.slotBytes())));
}

Value KernelLowering::slotIndex(Ring &ring, ValueRange slotIdx) {
  Value linear = idx(0);
  for (auto [d, s] : llvm::enumerate(slotIdx)) {
    linear =
        arith::MulIOp::create(b, loc, linear, idx(ring.type.getDimSize(d)));
    linear = arith::AddIOp::create(b, loc, linear, s);
  }
  return linear;
}

/// Element index (in elements of the ring's type) of tile element `idx` in
/// slot `slot`: row-major, or as the target's swizzle places it.
Value KernelLowering::sharedElementIndex(Ring &ring, Value slot,
                                         ValueRange index) {
  int64_t width = byteWidth(ring.type.getElementType());
  Value base = arith::MulIOp::create(b, loc, slot, idx(ring.slotBytes()));
  Value byte;
  if (ring.swizzled) {
    byte = target.swizzledByte(*this, ring, index);
  } else {
    Value linear = idx(0);
    for (auto [d, i] : llvm::enumerate(index)) {
      linear = arith::MulIOp::create(b, loc, linear, idx(ring.tile[d]));
      linear = arith::AddIOp::create(b, loc, linear, i);
    }
    byte = arith::MulIOp::create(b, loc, linear, idx(width));
  }
  Value total = arith::AddIOp::create(b, loc, base, byte);
  return arith::DivUIOp::create(b, loc, total, idx(width));
}

SmallVector<Value> conversion::globalPosition(OpBuilder &b, Location loc,
                                              Value memref,
                                              ArrayRef<int64_t> tileShape,
                                              ValueRange blockIdx,
                                              ValueRange offsets,
                                              ValueRange idx) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> block = tile::blockShape(tileShape, rank);
  int64_t lead = rank - tileShape.size();
  SmallVector<Value> pos;
  for (int64_t d = 0; d < rank; ++d) {
    Value p = arith::MulIOp::create(
        b, loc, blockIdx[d], arith::ConstantIndexOp::create(b, loc, block[d]));
    if (!offsets.empty())
      p = arith::AddIOp::create(b, loc, p, offsets[d]);
    if (d >= lead)
      p = arith::AddIOp::create(b, loc, p, idx[d - lead]);
    pos.push_back(p);
  }
  return pos;
}

static Value inRange(OpBuilder &b, Location loc, Value memref,
                     ArrayRef<Value> pos, ValueRange bounds) {
  Value ok;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, p] : llvm::enumerate(pos)) {
    Value bound = bounds.empty()
                      ? memref::DimOp::create(b, loc, memref, d).getResult()
                      : bounds[d];
    Value c = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, p, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, p, bound));
    ok = ok ? arith::AndIOp::create(b, loc, ok, c).getResult() : c;
  }
  return ok;
}

Value KernelLowering::globalElement(Value memref, ArrayRef<int64_t> tileShape,
                                    ValueRange blockIdx, ValueRange offsets,
                                    ValueRange bounds, Attribute padding,
                                    ValueRange index, Type elementType) {
  SmallVector<Value> pos =
      globalPosition(b, loc, memref, tileShape, blockIdx, offsets, index);
  if (!padding) // unchecked: the tag checker proved it in range
    return memref::LoadOp::create(b, loc, memref, pos);
  Value ok = inRange(b, loc, memref, pos, bounds);
  if (Value v = target.maskedLoad(*this, memref, pos, ok,
                                  cast<TypedAttr>(padding)))
    return v;
  auto branch = scf::IfOp::create(b, loc, TypeRange{elementType}, ok,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    Value v = memref::LoadOp::create(b, loc, memref, pos);
    scf::YieldOp::create(b, loc, v);
    b.setInsertionPointToStart(branch.elseBlock());
    Value pad = arith::ConstantOp::create(b, loc, cast<TypedAttr>(padding));
    scf::YieldOp::create(b, loc, pad);
  }
  return branch.getResult(0);
}

void KernelLowering::globalStore(Value memref, ArrayRef<int64_t> tileShape,
                                 ValueRange blockIdx, ValueRange offsets,
                                 ValueRange bounds, ValueRange index, Value v,
                                 bool add) {
  SmallVector<Value> pos =
      globalPosition(b, loc, memref, tileShape, blockIdx, offsets, index);
  Value ok = inRange(b, loc, memref, pos, bounds);
  auto branch = scf::IfOp::create(b, loc, ok);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  if (add)
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, v, memref,
                                pos);
  else
    memref::StoreOp::create(b, loc, v, memref, pos);
}

/// Whether the runs of adjacent elements of `runBytes` that a tile's stores
/// start at its even columns are aligned in `memref` (a run starts at a
/// multiple of its length from the tile's first column): the base address,
/// the offset, every leading stride and the tile's first column. Null
/// where the layout rules vector stores out (the last stride not 1).
Value KernelLowering::runsAligned(Value memref, ArrayRef<int64_t> tileShape,
                                  ValueRange blockIdx, ValueRange offsets,
                                  int64_t runBytes) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t width = byteWidth(type.getElementType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 ||
      !layout::isVectorRun(runBytes, tileShape.back() * width))
    return Value();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value zero = idx(0);
  auto multiple = [&](Value elements) {
    Value bytes = arith::MulIOp::create(b, loc, elements, idx(width));
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, bytes, idx(runBytes)), zero);
  };
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value ok = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, base, idx(runBytes)), zero);
  ok = arith::AndIOp::create(b, loc, ok, multiple(meta.getOffset()));
  for (Value stride : meta.getStrides().drop_back())
    ok = arith::AndIOp::create(b, loc, ok, multiple(stride));
  SmallVector<Value> origin(tileShape.size(), zero);
  Value first = globalPosition(b, loc, memref, tileShape, blockIdx, offsets,
                               origin)
                    .back();
  return arith::AndIOp::create(b, loc, ok, multiple(first));
}

/// Stores `values` at `index` and the columns after it: one vector store
/// where `aligned` (runsAligned's) and the whole run is in range, element by
/// element (each checked) otherwise.
void KernelLowering::globalStoreRun(Value memref, ArrayRef<int64_t> tileShape,
                                    ValueRange blockIdx, ValueRange offsets,
                                    ValueRange bounds, ValueRange index,
                                    ValueRange values, Value aligned) {
  auto position = [&](int64_t j) {
    SmallVector<Value> at(index);
    if (j)
      at.back() = arith::AddIOp::create(b, loc, at.back(), idx(j));
    return globalPosition(b, loc, memref, tileShape, blockIdx, offsets, at);
  };
  SmallVector<Value> first = position(0);
  int64_t n = static_cast<int64_t>(values.size());
  Value whole = arith::AndIOp::create(
      b, loc, aligned,
      arith::AndIOp::create(b, loc, inRange(b, loc, memref, first, bounds),
                            inRange(b, loc, memref, position(n - 1), bounds)));
  auto branch = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  Type et = values.front().getType();
  Value packed = vector::FromElementsOp::create(
      b, loc, VectorType::get({n}, et), values);
  vector::StoreOp::create(b, loc, packed, memref, first,
                          /*nontemporal=*/false,
                          llvm::MaybeAlign(n * byteWidth(et)));
  b.setInsertionPointToStart(branch.elseBlock());
  for (auto [j, v] : llvm::enumerate(values)) {
    SmallVector<Value> at(index);
    if (j)
      at.back() = arith::AddIOp::create(b, loc, at.back(), idx(j));
    globalStore(memref, tileShape, blockIdx, offsets, bounds, at, v, false);
  }
}

//===----------------------------------------------------------------------===//
// Tiles: elements, materialization
//===----------------------------------------------------------------------===//

/// Acc tiles that a lazy tile reads must be in memory before a consumer walks
/// its elements, except `inRegisters`, which the consumer reads register by
/// register (forEachEpilogueRun).
LogicalResult KernelLowering::prepare(Value tile, Value inRegisters) {
  return prepareTree(tile, inRegisters, /*rowOwned=*/bool(inRegisters));
}

LogicalResult KernelLowering::prepareTree(Value tile, Value inRegisters,
                                          bool rowOwned) {
  auto it = tiles.find(tile);
  if (it == tiles.end())
    return success();
  if (it->second.kind == TileRep::Acc)
    return tile == inRegisters
               ? success()
               : materialize(tile, "an accumulator read other than register "
                                   "by register");
  if (it->second.kind == TileRep::Rows)
    return rowOwned ? success()
                    : materialize(tile, "a row vector read other than at the "
                                        "rows the thread holds");
  if (it->second.kind != TileRep::Lazy)
    return success();
  // Which operand index element() reads at the first index of this tile's:
  // element-wise ops keep the index, a broadcast drops its dimensions, a
  // transpose permutes.
  Operation *op = it->second.op;
  bool owned = false;
  if (auto bcast = dyn_cast<tile::BroadcastOp>(op))
    owned = rowOwned && !llvm::is_contained(bcast.getDims(), 0);
  else if (auto tr = dyn_cast<tile::TransposeOp>(op))
    owned = rowOwned && tr.getPerm()[0] == 0;
  else if (isElementwise(op))
    owned = rowOwned;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) &&
        failed(prepareTree(operand, inRegisters, owned)))
      return failure();
  return success();
}

FailureOr<Value> KernelLowering::element(Value tile, ValueRange index) {
  auto it = tiles.find(tile);
  if (it == tiles.end()) {
    if (absent.contains(tile))
      return emitError(tile.getLoc())
             << "cannot be lowered to " << target.name()
             << ": a tile of another warp role is used here";
    return emitError(tile.getLoc())
           << "cannot be lowered to " << target.name()
           << ": no lowering for the tile defined here";
  }
  TileRep rep = it->second;
  switch (rep.kind) {
  case TileRep::Buffer:
    return memref::LoadOp::create(b, loc, rep.value, index).getResult();
  case TileRep::Shared: {
    Type et = rep.ring->type.getElementType();
    Value view = sharedView(*rep.ring, et);
    Value i = sharedElementIndex(*rep.ring, rep.value, index);
    return memref::LoadOp::create(b, loc, view, i).getResult();
  }
  case TileRep::Acc:
    // The register forEachEpilogueRun is at.
    if (tile == inRegister.tile && index.size() == 2 &&
        index[0] == inRegister.row && index[1] == inRegister.col)
      return inRegister.value;
    return emitError(tile.getLoc()) << "internal: accumulator not prepared";
  case TileRep::Rows: {
    // Only at a row the thread holds (prepare materializes the others).
    auto slot = rowSlot.find(index[0]);
    auto vector = cast<VectorType>(rep.value.getType());
    if (slot == rowSlot.end() || slot->second >= vector.getNumElements())
      return emitError(tile.getLoc()) << "internal: row vector not prepared";
    return vector::ExtractOp::create(b, loc, rep.value,
                                     ArrayRef<int64_t>{slot->second})
        .getResult();
  }
  case TileRep::Lazy:
    break;
  }
  Operation *op = rep.op;
  Type et = cast<RankedTensorType>(tile.getType()).getElementType();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || !dense.isSplat())
      return fail(op, "only splat tile constants are supported");
    return arith::ConstantOp::create(
               b, loc, cast<TypedAttr>(dense.getSplatValue<Attribute>()))
        .getResult();
  }
  if (auto splat = dyn_cast<tensor::SplatOp>(op))
    return scalar(splat.getInput());
  if (auto iota = dyn_cast<tile::IotaOp>(op)) {
    Value i = index[iota.getDim()];
    if (et.isIndex())
      return i;
    return arith::IndexCastOp::create(b, loc, et, i).getResult();
  }
  if (auto bcast = dyn_cast<tile::BroadcastOp>(op)) {
    SmallVector<Value> in;
    for (auto [d, i] : llvm::enumerate(index))
      if (!llvm::is_contained(bcast.getDims(), (int64_t)d))
        in.push_back(i);
    return element(bcast.getInput(), in);
  }
  if (auto tr = dyn_cast<tile::TransposeOp>(op)) {
    SmallVector<Value> in(index.size());
    for (auto [k, p] : llvm::enumerate(tr.getPerm()))
      in[p] = index[k];
    return element(tr.getInput(), in);
  }
  if (isElementwise(op)) {
    OperationState state(loc, op->getName());
    for (Value operand : op->getOperands()) {
      if (isa<RankedTensorType>(operand.getType())) {
        FailureOr<Value> e = element(operand, index);
        if (failed(e))
          return failure();
        state.addOperands(*e);
      } else {
        Value s = scalar(operand);
        if (!s)
          return fail(op, "an operand has no lowering");
        state.addOperands(s);
      }
    }
    state.addTypes(et);
    state.addAttributes(op->getAttrs());
    return b.create(state)->getResult(0);
  }
  return fail(op, "no element-wise lowering for this op");
}

void KernelLowering::forEachAccumulatorElement(
    Value acc, RankedTensorType type,
    function_ref<void(Value v, Value row, Value col)> body) {
  target.forEachAccumulatorElement(*this, acc, type, body);
  simtSinceBarrier = true;
}

/// Stores an accumulator into a workspace buffer of its shape.
void KernelLowering::storeAccumulator(Value acc, RankedTensorType type,
                                      Value buffer) {
  forEachAccumulatorElement(acc, type, [&](Value v, Value row, Value col) {
    memref::StoreOp::create(b, loc, v, buffer, ValueRange{row, col});
  });
}

/// The op a tile is reported at: its definition, or the op whose region's
/// block defines it (a loop's carried value).
static Operation *placeOf(Value tile) {
  if (Operation *def = tile.getDefiningOp())
    return def;
  return cast<BlockArgument>(tile).getOwner()->getParentOp();
}

LogicalResult KernelLowering::materialize(Value tile, const Twine &why) {
  auto type = cast<RankedTensorType>(tile.getType());
  TileRep rep = tiles.lookup(tile);
  if (rep.kind == TileRep::Buffer)
    return success();
  if (rep.kind == TileRep::Acc) {
    Value buffer = allocBuffer(type, placeOf(tile), why);
    storeAccumulator(rep.value, type, buffer);
    groupBarrier();
    materializedAtRead.push_back({tile, rep});
    tiles[tile] = {TileRep::Buffer, nullptr, buffer, nullptr};
    return success();
  }
  if (rep.kind == TileRep::Rows) {
    // Each row by the one of its holders that writes it, where the vector
    // is defined: every later reader finds the buffer written, also past a
    // branch or loop whose body asked for it.
    OpBuilder::InsertionGuard guard(b);
    if (Operation *def = rep.value.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(rep.value).getOwner());
    Value buffer = allocBuffer(type, placeOf(tile), why);
    auto branch = scf::IfOp::create(b, loc, target.rowWriter(*this));
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(branch.thenBlock());
      auto vector = cast<VectorType>(rep.value.getType());
      for (int64_t s = 0; s < vector.getNumElements(); ++s) {
        Value row = target.rowOfSlot(*this, s);
        FailureOr<Value> e = element(tile, {row});
        if (failed(e))
          return failure();
        memref::StoreOp::create(b, loc, *e, buffer, ValueRange{row});
      }
    }
    bool simt = simtSinceBarrier;
    groupBarrier();
    simtSinceBarrier = simt;
    tiles[tile] = {TileRep::Buffer, nullptr, buffer, nullptr};
    return success();
  }
  Value buffer = allocBuffer(type, placeOf(tile), why);
  LogicalResult status = fillBuffer(buffer, tile);
  groupBarrier();
  materializedAtRead.push_back({tile, rep});
  tiles[tile] = {TileRep::Buffer, nullptr, buffer, nullptr};
  return status;
}

/// The group writes every element of `tile` into `buffer` (no barrier).
LogicalResult KernelLowering::fillBuffer(Value buffer, Value tile) {
  if (failed(prepare(tile)))
    return failure();
  LogicalResult status = success();
  forEachElement(
      cast<RankedTensorType>(tile.getType()).getShape(),
      [&](ValueRange index) -> LogicalResult {
        FailureOr<Value> e = element(tile, index);
        if (failed(e))
          return failure();
        memref::StoreOp::create(b, loc, *e, buffer, index);
        return success();
      },
      status);
  return status;
}

FailureOr<Value> KernelLowering::rowsOf(Value tile) {
  TileRep rep = tiles.lookup(tile);
  if (rep.kind == TileRep::Rows)
    return rep.value;
  auto type = cast<RankedTensorType>(tile.getType());
  int64_t slots = target.rowSlots(*this, type.getDimSize(0));
  assert(slots > 0 && "rowsOf a tile the target keeps no rows of");
  if (failed(prepareTree(tile, Value(), /*rowOwned=*/true)))
    return failure();
  SmallVector<Value> elements;
  for (int64_t s = 0; s < slots; ++s) {
    FailureOr<Value> e = element(tile, {target.rowOfSlot(*this, s)});
    if (failed(e))
      return failure();
    elements.push_back(*e);
  }
  return vector::FromElementsOp::create(
             b, loc, VectorType::get({slots}, type.getElementType()), elements)
      .getResult();
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::emitBlock(Block &block) {
  size_t outer = materializedAtRead.size();
  for (Operation &op : block.without_terminator())
    if (!consumed.contains(&op) && failed(emitOp(&op)))
      return failure();
  leaveBlock(block, outer);
  return success();
}

void KernelLowering::leaveBlock(Block &block, size_t outer) {
  // A buffer the block's code filled may not be written when the block
  // does not run: an enclosing block's tile is read from what it was.
  for (auto &[tile, before] : llvm::drop_begin(materializedAtRead, outer)) {
    Block *def = tile.getParentBlock();
    while (def && def != &block)
      def = def->getParentOp() ? def->getParentOp()->getBlock() : nullptr;
    if (!def)
      tiles[tile] = before;
  }
  materializedAtRead.resize(outer);
}

/// Whether `tile` is or is computed from an accumulator held in registers.
bool KernelLowering::readsAccumulator(Value tile) {
  auto it = tiles.find(tile);
  if (it == tiles.end())
    return false;
  if (it->second.kind == TileRep::Acc)
    return true;
  if (it->second.kind != TileRep::Lazy)
    return false;
  return llvm::any_of(it->second.op->getOperands(), [&](Value operand) {
    return isa<RankedTensorType>(operand.getType()) &&
           readsAccumulator(operand);
  });
}

/// The accumulator `tile` is computed from register by register (see
/// registerSourceOf). On the way, a tile of the expression that other ops
/// read too (attention's masked scores, read by the row maximum and the
/// exponent) is computed once into registers of its own, deepest first,
/// rather than once per reader: that keeps one register tile live instead
/// of the accumulator and recomputed copies.
Value KernelLowering::registerEpilogueSource(Value tile) {
  Value acc = registerSourceOf(tile);
  if (!acc || acc == tile || !target.mapsAccumulators())
    return acc;
  for (Value operand : tiles.lookup(tile).op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) && readsAccumulator(operand))
      (void)registerEpilogueSource(operand);
  acc = registerSourceOf(tile);
  auto type = cast<RankedTensorType>(tile.getType());
  if (!acc || tile.hasOneUse() || !type.getElementType().isF32() ||
      type != acc.getType() ||
      !registersLeftFor(tiles.lookup(tile).op, type, accValues))
    return acc;
  FailureOr<Value> held = accumulatorInRegisters(tile, acc);
  if (failed(held))
    return Value();
  tiles[tile] = {TileRep::Acc, nullptr, *held, nullptr};
  return tile;
}

/// The accumulator `tile` is computed from register by register: through
/// element-wise ops only (casts, a bias added, a ReLU, a scale), each
/// element from the accumulator's element at its own index, and no other
/// accumulator read. Other operands may be anything that reads no
/// accumulator (a broadcast bias, say). Null if there is none such.
Value KernelLowering::registerSourceOf(Value tile) {
  auto it = tiles.find(tile);
  if (it == tiles.end())
    return Value();
  if (it->second.kind == TileRep::Acc)
    return tile;
  Operation *op = it->second.op;
  if (it->second.kind != TileRep::Lazy || !isElementwise(op))
    return Value();
  Value acc;
  for (Value operand : op->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType()) || !readsAccumulator(operand))
      continue;
    Value a = registerSourceOf(operand);
    if (!a || (acc && acc != a))
      return Value();
    acc = a;
  }
  return acc;
}

/// `tile` (registerEpilogueSource gave `acc`) as a new accumulator, computed
/// on `acc`'s registers.
FailureOr<Value> KernelLowering::accumulatorInRegisters(Value tile,
                                                        Value acc) {
  if (failed(prepare(tile, acc)))
    return failure();
  FailureOr<Value> mapped = target.mapAccumulator(
      *this, tiles.lookup(acc).value, cast<RankedTensorType>(acc.getType()),
      [&](Value v, Value row, Value col) -> FailureOr<Value> {
        inRegister = {acc, row, col, v};
        return element(tile, {row, col});
      });
  inRegister = {};
  return mapped;
}

/// Computes `tile` (registerEpilogueSource gave `acc`) on the registers of
/// accumulator `acc` that the calling thread holds, without a round trip
/// through memory, and calls `body` with each run of adjacent columns (the
/// target's runs) and the (row, column) of its first element.
LogicalResult KernelLowering::forEachEpilogueRun(
    Value tile, Value acc,
    function_ref<void(ArrayRef<Value> elements, Value row, Value col)> body) {
  if (failed(prepare(tile, acc)))
    return failure();
  LogicalResult status = success();
  target.forEachAccumulatorRun(
      *this, tiles.lookup(acc).value, cast<RankedTensorType>(acc.getType()),
      [&](ValueRange values, Value row, Value col) {
        if (failed(status))
          return;
        SmallVector<Value> elements;
        for (auto [j, v] : llvm::enumerate(values)) {
          Value c = j ? arith::AddIOp::create(b, loc, col, idx(j)) : col;
          inRegister = {acc, row, c, v};
          FailureOr<Value> e = element(tile, {row, c});
          if (failed(e)) {
            status = failure();
            return;
          }
          elements.push_back(*e);
        }
        body(elements, row, col);
      });
  inRegister = {};
  simtSinceBarrier = true;
  return status;
}

LogicalResult KernelLowering::emitStore(tile::StoreOp op) {
  auto type = cast<RankedTensorType>(op.getValue().getType());
  SmallVector<Value> blockIdx = lowered(op.getIndices());
  SmallVector<Value> offsets = lowered(op.getOffsets());
  SmallVector<Value> bounds = lowered(op.getBounds());
  Value dest = scalar(op.getDest());
  bool add = op.getCombine().has_value();
  // An accumulator (and what is computed from it element-wise) goes
  // straight from its registers to memory.
  if (Value acc = registerEpilogueSource(op.getValue())) {
    // Runs of adjacent columns go out as vector stores where aligned (not
    // the atomic adds of a combining store).
    Value aligned;
    return forEachEpilogueRun(
        op.getValue(), acc,
        [&](ArrayRef<Value> elements, Value row, Value col) {
          int64_t runBytes = static_cast<int64_t>(elements.size()) *
                             byteWidth(type.getElementType());
          if (!add && elements.size() > 1 && !aligned)
            aligned = runsAligned(dest, type.getShape(), blockIdx, offsets,
                                  runBytes);
          if (!add && elements.size() > 1 && aligned) {
            globalStoreRun(dest, type.getShape(), blockIdx, offsets, bounds,
                           ValueRange{row, col}, elements, aligned);
            return;
          }
          for (auto [j, e] : llvm::enumerate(elements)) {
            Value c = j ? arith::AddIOp::create(b, loc, col, idx(j)) : col;
            globalStore(dest, type.getShape(), blockIdx, offsets, bounds,
                        ValueRange{row, c}, e, add);
          }
        });
  }
  if (failed(prepare(op.getValue())))
    return failure();
  LogicalResult status = success();
  forEachElement(
      type.getShape(),
      [&](ValueRange index) -> LogicalResult {
        FailureOr<Value> e = element(op.getValue(), index);
        if (failed(e))
          return failure();
        globalStore(dest, type.getShape(), blockIdx, offsets, bounds, index, *e,
                    add);
        return success();
      },
      status);
  return status;
}

/// A synchronous copy between global memory and a shared slot.
LogicalResult KernelLowering::emitCopy(tile::CopyOp op) {
  bool toShared = op.isGlobalToShared();
  Ring *ring = ringOf(op.getShared());
  if (!ring)
    return fail(op, "the shared side must be a tile.alloc_shared buffer");
  Value global = scalar(op.getGlobal());
  SmallVector<Value> blockIdx = lowered(op.getBlockIndices());
  SmallVector<Value> slotIdx = lowered(op.getSlotIndices());
  SmallVector<Value> offsets = lowered(op.getOffsets());
  SmallVector<Value> bounds = lowered(op.getBounds());
  Type et = ring->type.getElementType();
  Value slot = slotIndex(*ring, slotIdx);
  LogicalResult status = success();
  forEachElement(
      ring->tile,
      [&](ValueRange index) -> LogicalResult {
        Value view = sharedView(*ring, et);
        Value at = sharedElementIndex(*ring, slot, index);
        if (toShared) {
          Value v = globalElement(global, ring->tile, blockIdx, offsets, bounds,
                                  op.getPaddingAttr(), index, et);
          memref::StoreOp::create(b, loc, v, view, at);
        } else {
          Value v = memref::LoadOp::create(b, loc, view, at);
          globalStore(global, ring->tile, blockIdx, offsets, bounds, index, v,
                      false);
        }
        return success();
      },
      status);
  return status;
}

/// Stores a run of adjacent columns into a slot: one vector store where it
/// lies in one aligned piece of the slot (the targets' swizzles move 16-byte
/// units, and a run starts at a multiple of its length), else element by
/// element.
void KernelLowering::storeRunToSlot(Ring &ring, Value slot,
                                    ArrayRef<Value> elements, Value row,
                                    Value col) {
  Type et = ring.type.getElementType();
  int64_t width = byteWidth(et);
  int64_t runBytes = width * static_cast<int64_t>(elements.size());
  bool vector = elements.size() > 1 &&
                layout::isVectorRun(runBytes, ring.tile.back() * width) &&
                ring.slotBytes() % runBytes == 0 && ring.offset % runBytes == 0;
  if (vector) {
    Value packed = vector::FromElementsOp::create(
        b, loc, VectorType::get({static_cast<int64_t>(elements.size())}, et),
        elements);
    vector::StoreOp::create(
        b, loc, packed, sharedView(ring, et),
        ValueRange{sharedElementIndex(ring, slot, {row, col})},
        /*nontemporal=*/false, llvm::MaybeAlign(runBytes));
    return;
  }
  for (auto [j, e] : llvm::enumerate(elements)) {
    Value c = j ? arith::AddIOp::create(b, loc, col, idx(j)) : col;
    memref::StoreOp::create(b, loc, e, sharedView(ring, et),
                            sharedElementIndex(ring, slot, {row, c}));
  }
}

LogicalResult KernelLowering::emitWrite(tile::WriteOp op) {
  Ring *ring = ringOf(op.getBuffer());
  if (!ring)
    return fail(op, "the buffer must be a tile.alloc_shared buffer");
  SmallVector<Value> slotIdx = lowered(op.getIndices());
  Value slot = slotIndex(*ring, slotIdx);
  // An accumulator (and what is computed from it element-wise) goes
  // straight from its registers to the slot (an epilogue staged for a TMA
  // store).
  if (Value acc = registerEpilogueSource(op.getValue()))
    return forEachEpilogueRun(
        op.getValue(), acc,
        [&](ArrayRef<Value> elements, Value row, Value col) {
          storeRunToSlot(*ring, slot, elements, row, col);
        });
  if (failed(prepare(op.getValue())))
    return failure();
  LogicalResult status = success();
  forEachElement(
      ring->tile,
      [&](ValueRange index) -> LogicalResult {
        FailureOr<Value> e = element(op.getValue(), index);
        if (failed(e))
          return failure();
        Value view = sharedView(*ring, ring->type.getElementType());
        memref::StoreOp::create(b, loc, *e, view,
                                sharedElementIndex(*ring, slot, index));
        return success();
      },
      status);
  return status;
}

/// A dot on the matrix unit. Its accumulator stays in registers when it is
/// zero or an accumulator already; otherwise the product starts from zero and
/// the accumulator is added element by element afterwards.
LogicalResult KernelLowering::emitMmaDot(tile::DotOp dot,
                                         schedule::AsyncOp async) {
  FailureOr<SmallVector<Value>> operands =
      target.prepareMmaOperands(*this, dot);
  if (failed(operands))
    return failure();
  auto type = cast<RankedTensorType>(dot.getType());
  Value acc;
  bool addAfter = false;
  Value source;
  if (isZeroSplat(dot.getAcc())) {
    acc = target.zeroAccumulator(*this, type);
  } else if (auto it = tiles.find(dot.getAcc());
             it != tiles.end() && it->second.kind == TileRep::Acc) {
    acc = it->second.value;
  } else if (accValues.contains(dot.getResult()) &&
             (source = registerEpilogueSource(dot.getAcc()))) {
    // Computed from another accumulator register by register
    // (planAccumulators kept the result in registers for that).
    FailureOr<Value> mapped = accumulatorInRegisters(dot.getAcc(), source);
    if (failed(mapped))
      return failure();
    acc = *mapped;
  } else {
    acc = target.zeroAccumulator(*this, type);
    addAfter = true;
  }
  FailureOr<Value> d = target.emitMma(*this, dot, async, *operands, acc);
  if (failed(d))
    return failure();
  if (!addAfter) {
    tiles[dot.getResult()] = {TileRep::Acc, nullptr, *d, nullptr};
  } else {
    // result = A B + acc: the product leaves the registers, then the
    // accumulator is added element by element (the wait above was depth 0).
    if (failed(prepare(dot.getAcc())))
      return failure();
    Value buffer = allocBuffer(
        type, dot,
        "the product, to which the accumulator operand is added element by "
        "element (it is not zero, an accumulator in registers, or computed "
        "from one register by register)");
    storeAccumulator(*d, type, buffer);
    groupBarrier();
    LogicalResult status = success();
    forEachElement(
        type.getShape(),
        [&](ValueRange index) -> LogicalResult {
          FailureOr<Value> a = element(dot.getAcc(), index);
          if (failed(a))
            return failure();
          Value p = memref::LoadOp::create(b, loc, buffer, index);
          memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, p, *a),
                                  buffer, index);
          return success();
        },
        status);
    groupBarrier();
    if (failed(status))
      return failure();
    tiles[dot.getResult()] = {TileRep::Buffer, nullptr, buffer, nullptr};
  }
  if (async)
    tiles[async.getResult(0)] = TileRep(tiles.lookup(dot.getResult()));
  return success();
}

LogicalResult KernelLowering::emitAsync(schedule::AsyncOp op) {
  schedule::AsyncUnit unit = op.getUnit();
  StringRef unitName = schedule::stringifyAsyncUnit(unit);
  if (target.isCopyUnit(unit)) {
    // Loads complete on an mbarrier; stores (shared to global) in bulk
    // groups, through commit_group and wait_group.
    // (The op's verifier keeps directions apart and barriers to loads.)
    bool stores = isAsyncStore(op);
    Value barriers =
        op.getBarrier() ? mbarrierGroups.lookup(op.getBarrier()) : Value();
    if (!stores && !barriers)
      return fail(op, "a " + unitName.upper() +
                          " region must complete on an mbarrier");
    Value index = stores ? Value() : scalar(op.getBarrierIndex());
    // A store reads what the group's threads wrote to the buffer.
    if (stores && simtSinceBarrier)
      groupBarrier();
    OpBuilder::InsertionGuard guard(b);
    if (target.copiesByOneThread()) {
      Value one = electOne();
      auto branch = scf::IfOp::create(b, loc, one);
      b.setInsertionPointToStart(branch.thenBlock());
    }
    for (Operation &inner : op.getBody().front().without_terminator()) {
      auto copy = dyn_cast<tile::CopyOp>(inner);
      if (!copy) {
        if (isOpTriviallyDead(&inner) || isa<arith::ConstantOp>(inner)) {
          if (failed(emitOp(&inner)))
            return failure();
          continue;
        }
        return fail(&inner,
                    "only tile.copy runs on the " + unitName.upper() + " unit");
      }
      if (failed(target.emitAsyncCopy(*this, copy, barriers, index)))
        return failure();
    }
    return success();
  }
  if (!target.isMmaUnit(unit))
    return fail(op, unitName.upper() + " regions are not served by " +
                        target.lowering());
  // A dot runs on the matrix unit, or the kernel is refused (its schedule
  // asks for the matrix unit); other ops in the region run synchronously (a
  // valid refinement: they complete before any wait).
  for (Operation &inner : op.getBody().front().without_terminator()) {
    if (auto dot = dyn_cast<tile::DotOp>(inner)) {
      if (!mmaDots.contains(dot))
        return fail(dot, "the schedule runs this tile.dot on " + unitName +
                             ", which cannot serve it: " +
                             target.whyNotMma(*this, dot));
      if (failed(emitMmaDot(dot, op)))
        return failure();
      continue;
    }
    if (failed(emitOp(&inner)))
      return failure();
  }
  auto yield = cast<schedule::YieldOp>(op.getBody().front().getTerminator());
  for (auto [res, v] : llvm::zip(op.getResults(), yield.getValues())) {
    if (tiles.count(v))
      tiles[res] = TileRep(tiles.lookup(v));
    else if (Value s = scalar(v))
      mapping.map(res, s);
  }
  return success();
}

/// Iteration i of a loop mapped to threads (warps) runs on thread (warp)
/// i mod U of the U the group has, one after another on each: a loop from
/// the unit's first iteration, U iterations a step, whose body runs on that
/// unit alone (its group), with a slice of each workspace buffer of its own.
/// Tiles the body reads from outside that only the group could read (an
/// accumulator in its registers, a row vector) go to the workspace first.
LogicalResult KernelLowering::emitMappedFor(scf::ForOp op,
                                            schedule::ParallelLevel level) {
  if (op.getNumRegionIterArgs())
    return fail(op, "a mapped loop carries no values from one iteration to "
                    "the next");
  if (group.base)
    return fail(op, "a loop mapped to threads or warps inside another is not "
                    "implemented by " +
                        target.lowering() + " yet");
  int64_t unitSize = level == schedule::ParallelLevel::warp ? 32 : 1;
  if (group.size % unitSize)
    return fail(op, "the group running this loop is not whole warps");
  // What the unit's threads cannot run alone.
  Operation *unsupported = nullptr;
  op.getBody()->walk([&](Operation *inner) {
    if (isa<schedule::ScheduleDialect>(inner->getDialect()) ||
        isa<tile::AllocSharedOp>(inner) || mmaDots.contains(inner) ||
        inner->hasAttr(schedule::ScheduleDialect::kMapAttrName)) {
      unsupported = inner;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unsupported)
    return fail(unsupported,
                "inside a loop mapped to threads or warps, " +
                    target.lowering() +
                    " runs plain tile and scalar operations only (no "
                    "synchronization, asynchronous or matrix-unit "
                    "operation, shared allocation or nested mapped loop)");
  llvm::SetVector<Value> outside;
  op.getBody()->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<RankedTensorType>(v.getType()) &&
          !op.getRegion().isAncestor(v.getParentRegion()))
        outside.insert(v);
  });
  for (Value v : outside)
    if (failed(prepare(v)))
      return failure();

  int64_t units = group.size / unitSize;
  Value unitIndex =
      arith::DivUIOp::create(b, loc, threadInGroup(), idx(unitSize));
  Value step = scalar(op.getStep());
  Value first = arith::AddIOp::create(
      b, loc, scalar(op.getLowerBound()),
      arith::MulIOp::create(b, loc, unitIndex, step));
  auto loop = scf::ForOp::create(
      b, loc, first, scalar(op.getUpperBound()),
      arith::MulIOp::create(b, loc, step, idx(units)));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  mapping.map(op.getInductionVar(), loop.getInductionVar());
  Group outer = group;
  auto outerUnit = unit;
  group = {0, unitSize, 0, false,
           arith::AddIOp::create(
               b, loc, outer.base ? outer.base : idx(outer.first),
               arith::MulIOp::create(b, loc, unitIndex, idx(unitSize)))};
  unit = {unitIndex, units};
  LogicalResult status = emitBlock(*op.getBody());
  group = outer;
  unit = outerUnit;
  // The units' accesses are ordered with the group's only by a barrier
  // the schedule states (the schedule checker proves it is there).
  simtSinceBarrier = true;
  return status;
}

LogicalResult KernelLowering::emitFor(scf::ForOp op) {
  if (auto map = op->getAttrOfType<schedule::ParallelLevelAttr>(
          schedule::ScheduleDialect::kMapAttrName);
      map && map.getValue() != schedule::ParallelLevel::sequential)
    return emitMappedFor(op, map.getValue());
  // Carried values: scalars and accumulators are loop-carried SSA values;
  // other tiles live in a buffer owned by the loop.
  SmallVector<Value> inits;
  SmallVector<int> carriedIndex(op.getNumRegionIterArgs(), -1);
  SmallVector<Value> buffers(op.getNumRegionIterArgs());
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs())) {
    Value init = op.getInitArgs()[i];
    Value next = yieldedSource(yield.getOperand(i));
    // Values of another role are not computed in this role's copy of the loop.
    if (!computedIn(yield.getOperand(i), currentRole) ||
        absent.contains(next)) {
      absent.insert(arg);
      absent.insert(op.getResult(i));
      continue;
    }
    if (accValues.contains(arg)) {
      auto type = cast<RankedTensorType>(arg.getType());
      Value v;
      if (isZeroSplat(init))
        v = target.zeroAccumulator(*this, type);
      else
        v = tiles.lookup(init).value;
      carriedIndex[i] = inits.size();
      inits.push_back(v);
      continue;
    }
    if (carriesRows(op, arg)) {
      FailureOr<Value> v = rowsOf(init);
      if (failed(v))
        return failure();
      carriedIndex[i] = inits.size();
      inits.push_back(*v);
      continue;
    }
    if (auto type = dyn_cast<RankedTensorType>(arg.getType())) {
      buffers[i] = allocBuffer(
          type, op,
          "loop-carried tile #" + Twine(i) +
              " (only matrix-unit accumulators are carried in registers)");
      if (failed(fillBuffer(buffers[i], init)))
        return failure();
      continue;
    }
    Value s = scalar(init);
    if (!s)
      return fail(op, "a loop-carried value has no lowering");
    carriedIndex[i] = inits.size();
    inits.push_back(s);
  }
  if (llvm::any_of(buffers, [](Value v) { return v; }))
    groupBarrier();
  if (failed(target.enterLoop(*this, op)))
    return failure();

  auto loop = scf::ForOp::create(b, loc, scalar(op.getLowerBound()),
                                 scalar(op.getUpperBound()),
                                 scalar(op.getStep()), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    // The builder adds an empty yield to loops without carried values.
    if (!loop.getBody()->empty())
      loop.getBody()->back().erase();
    b.setInsertionPointToEnd(loop.getBody());
    mapping.map(op.getInductionVar(), loop.getInductionVar());
    for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs())) {
      if (carriedIndex[i] >= 0) {
        Value v = loop.getRegionIterArgs()[carriedIndex[i]];
        if (accValues.contains(arg))
          tiles[arg] = {TileRep::Acc, nullptr, v, nullptr};
        else if (isa<RankedTensorType>(arg.getType()))
          tiles[arg] = {TileRep::Rows, nullptr, v, nullptr};
        else
          mapping.map(arg, v);
      } else if (buffers[i]) {
        tiles[arg] = {TileRep::Buffer, nullptr, buffers[i], nullptr};
      }
    }
    // The body's code, with its yield (which may copy a tile of an
    // enclosing block: only where an iteration runs).
    size_t outer = materializedAtRead.size();
    if (failed(emitBlock(*op.getBody())))
      return failure();
    // Yield: materialize what the next iteration reads (so that no value
    // still needed reads a buffer being overwritten), then copy it in.
    SmallVector<Value> yielded;
    bool copied = false;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (carriedIndex[i] >= 0) {
        if (accValues.contains(op.getRegionIterArgs()[i])) {
          auto it = tiles.find(v);
          if (it == tiles.end() || it->second.kind != TileRep::Acc)
            return fail(op, "an accumulator must be carried unchanged "
                            "between matrix-unit dots");
          yielded.push_back(it->second.value);
        } else if (isa<RankedTensorType>(v.getType())) {
          FailureOr<Value> rows = rowsOf(v);
          if (failed(rows))
            return failure();
          yielded.push_back(*rows);
        } else {
          yielded.push_back(scalar(v));
        }
        continue;
      }
      if (!buffers[i])
        continue;
      if (failed(materialize(v, "a tile the loop carries, formed before the "
                                "carried buffer is overwritten")))
        return failure();
    }
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (!buffers[i] || tiles.lookup(v).value == buffers[i])
        continue;
      Value src = tiles.lookup(v).value, dst = buffers[i];
      auto type = cast<RankedTensorType>(v.getType());
      // Copied through the workspace at every iteration.
      std::pair<int64_t, int64_t> &traffic =
          workspaceTraffic[op.getBody()->getTerminator()];
      traffic.first += byteWidth(type.getElementType()) * type.getNumElements();
      traffic.second += type.getNumElements();
      LogicalResult status = success();
      forEachElement(
          type.getShape(),
          [&](ValueRange index) -> LogicalResult {
            Value e = memref::LoadOp::create(b, loc, src, index);
            memref::StoreOp::create(b, loc, e, dst, index);
            return success();
          },
          status);
      copied = true;
    }
    if (copied)
      groupBarrier();
    leaveBlock(*op.getBody(), outer);
    scf::YieldOp::create(b, loc, yielded);
  }
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    if (carriedIndex[i] >= 0) {
      Value v = loop.getResult(carriedIndex[i]);
      if (accValues.contains(op.getRegionIterArgs()[i]))
        tiles[res] = {TileRep::Acc, nullptr, v, nullptr};
      else if (isa<RankedTensorType>(res.getType()))
        tiles[res] = {TileRep::Rows, nullptr, v, nullptr};
      else
        mapping.map(res, v);
    } else if (buffers[i]) {
      tiles[res] = {TileRep::Buffer, nullptr, buffers[i], nullptr};
    }
  }
  return success();
}

bool KernelLowering::carriesRows(scf::ForOp loop, BlockArgument arg) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || type.getRank() != 1 ||
      !type.getElementType().isIntOrFloat() ||
      !target.rowSlots(*this, type.getDimSize(0)))
    return false;
  // Beside an accumulator of as many rows that this role's copy carries:
  // the vector is read at the rows of its registers.
  for (auto [other, next] :
       llvm::zip(loop.getRegionIterArgs(), loop.getYieldedValues()))
    if (accValues.contains(other) && computedIn(next, currentRole) &&
        cast<RankedTensorType>(other.getType()).getDimSize(0) ==
            type.getDimSize(0))
      return true;
  return false;
}

LogicalResult KernelLowering::emitIf(scf::IfOp op) {
  // Tile results go through buffers written by each branch; scalars are
  // results.
  SmallVector<Type> types;
  SmallVector<Value> buffers(op.getNumResults());
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    if (auto type = dyn_cast<RankedTensorType>(res.getType())) {
      buffers[i] = allocBuffer(type, op,
                               "tile result #" + Twine(i) + " of the scf.if");
      continue;
    }
    types.push_back(res.getType());
  }
  Value cond = scalar(op.getCondition());
  auto branch =
      scf::IfOp::create(b, loc, types, cond,
                        /*withElseRegion=*/!op.getElseRegion().empty());
  auto emitBranch = [&](Region &from, Block *to) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    // scf.if's builder adds an empty yield when there are no results.
    if (!to->empty())
      to->back().erase();
    b.setInsertionPointToEnd(to);
    if (failed(emitBlock(from.front())))
      return failure();
    auto yield = cast<scf::YieldOp>(from.front().getTerminator());
    SmallVector<Value> results;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (!buffers[i]) {
        results.push_back(scalar(v));
        continue;
      }
      if (failed(fillBuffer(buffers[i], v)))
        return failure();
    }
    scf::YieldOp::create(b, loc, results);
    return success();
  };
  if (failed(emitBranch(op.getThenRegion(), branch.thenBlock())))
    return failure();
  if (!op.getElseRegion().empty() &&
      failed(emitBranch(op.getElseRegion(), branch.elseBlock())))
    return failure();
  if (llvm::any_of(buffers, [](Value v) { return v; }))
    groupBarrier();
  unsigned next = 0;
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    if (buffers[i])
      tiles[res] = {TileRep::Buffer, nullptr, buffers[i], nullptr};
    else
      mapping.map(res, branch.getResult(next++));
  }
  return success();
}

/// Materializes `result`: each of its elements folds `step` over
/// [begin, end), starting from `init` (a dot's K loop, a reduction).
LogicalResult KernelLowering::foldInto(
    Value result, const Twine &why, int64_t begin, int64_t end,
    function_ref<FailureOr<Value>(ValueRange)> init,
    function_ref<FailureOr<Value>(ValueRange, Value, Value)> step) {
  auto type = cast<RankedTensorType>(result.getType());
  Value buffer = allocBuffer(type, result.getDefiningOp(), why);
  LogicalResult status = success();
  forEachElement(
      type.getShape(),
      [&](ValueRange index) -> LogicalResult {
        FailureOr<Value> first = init(index);
        if (failed(first))
          return failure();
        auto loop = scf::ForOp::create(b, loc, idx(begin), idx(end), idx(1),
                                       ValueRange{*first});
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        FailureOr<Value> next =
            step(index, loop.getInductionVar(), loop.getRegionIterArgs()[0]);
        if (failed(next))
          return failure();
        scf::YieldOp::create(b, loc, *next);
        b.setInsertionPointAfter(loop);
        memref::StoreOp::create(b, loc, loop.getResult(0), buffer, index);
        return success();
      },
      status);
  groupBarrier();
  tiles[result] = {TileRep::Buffer, nullptr, buffer, nullptr};
  return status;
}

/// Registers a thread needs beyond the tiles it keeps in registers (the
/// ring and barrier state, addresses, wgmma descriptors), as ptxas
/// allocated them for attention (`bench/compile/lowering_report.py`):
/// d128's consumer spilled with its 128-register accumulator in 232
/// registers and not in 256; d64's holds its 64-register accumulator and
/// 64 registers of scores in 240.
static constexpr int64_t kRegistersBesideTiles = 112;

/// Whether the threads that run `op` can hold `extra` (a tile; null: none)
/// in registers beside the accumulators that the loops around `op` carry
/// (those of `held`), within their role's register budget (`regs`). Without
/// a budget, no: the schedule says nothing of the registers, and the memory
/// path cannot spill.
bool KernelLowering::registersLeftFor(Operation *op, RankedTensorType extra,
                                      const DenseSet<Value> &held) {
  auto role = op->getParentOfType<schedule::RoleOp>();
  std::optional<uint64_t> budget;
  if (role)
    budget = registerBudget(role);
  if (!budget)
    return false;
  int64_t threads =
      kWarpgroupThreads * static_cast<int64_t>(role.getWarpgroups().size());
  auto perThread = [&](Type t) {
    return cast<RankedTensorType>(t).getNumElements() / threads;
  };
  int64_t needed = (extra ? perThread(extra) : 0) + kRegistersBesideTiles;
  // Each role runs its own copy of a loop, which carries only the values
  // that role computes (emitFor): another role's accumulators take none of
  // these threads' registers.
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    for (auto [arg, next] :
         llvm::zip(loop.getRegionIterArgs(), loop.getYieldedValues()))
      if (held.contains(arg) && computedIn(next, role.getName()))
        needed += perThread(arg.getType());
  return needed <= static_cast<int64_t>(*budget);
}

/// A row reduction of a tile computed from accumulator `acc`, in the
/// registers: each row's writer stores it into the result's buffer, which
/// the group meets on.
LogicalResult KernelLowering::reduceRowsInRegisters(
    tile::ReduceOp reduce, Value acc,
    function_ref<Value(Value, Value)> combine) {
  Value input = reduce.getInput();
  if (failed(prepare(input, acc)))
    return failure();
  auto type = cast<RankedTensorType>(reduce.getType());
  // Every holder of a row has its result: it stays in their registers where
  // the target keeps row vectors, and otherwise one of them writes it.
  int64_t slots = type.getElementType().isIntOrFloat()
                      ? target.rowSlots(*this, type.getDimSize(0))
                      : 0;
  Value buffer;
  if (!slots)
    buffer = allocBuffer(type, reduce,
                         "the row results, which one thread per row writes "
                         "for the others");
  SmallVector<Value> rows;
  LogicalResult status = target.reduceAccumulatorRows(
      *this, tiles.lookup(acc).value, cast<RankedTensorType>(acc.getType()),
      [&](Value v, Value row, Value col) -> FailureOr<Value> {
        inRegister = {acc, row, col, v};
        return element(input, {row, col});
      },
      combine,
      [&](Value row, Value value, Value writer) {
        if (slots) {
          rows.push_back(value);
          return;
        }
        auto branch = scf::IfOp::create(b, loc, writer);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        memref::StoreOp::create(b, loc, value, buffer, ValueRange{row});
      });
  inRegister = {};
  simtSinceBarrier = true;
  if (slots) {
    if (failed(status))
      return failure();
    if (static_cast<int64_t>(rows.size()) != slots)
      return fail(reduce, "internal: the rows reduced are not the row slots");
    Value vector = vector::FromElementsOp::create(
        b, loc, VectorType::get({slots}, type.getElementType()), rows);
    tiles[reduce.getResult()] = {TileRep::Rows, nullptr, vector, nullptr};
    return success();
  }
  groupBarrier();
  tiles[reduce.getResult()] = {TileRep::Buffer, nullptr, buffer, nullptr};
  return status;
}

LogicalResult
KernelLowering::reduceByWarp(tile::ReduceOp reduce,
                             function_ref<Value(Value, Value)> combine) {
  Value input = reduce.getInput();
  auto type = cast<RankedTensorType>(reduce.getType());
  int64_t axis = reduce.getAxis();
  int64_t extent = cast<RankedTensorType>(input.getType()).getDimSize(axis);
  Value buffer = allocBuffer(type, reduce,
                             "the warp's reduction result, which lane 0 "
                             "writes for the others");
  Value lane = threadInGroup();
  auto results =
      scf::ForOp::create(b, loc, idx(0), idx(type.getNumElements()), idx(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(results.getBody()->getTerminator());
    // The result's index, the input's without the reduced dimension.
    SmallVector<Value> index =
        indexOf(results.getInductionVar(), type.getShape());
    auto at = [&](Value r) {
      SmallVector<Value> in(index.begin(), index.end());
      in.insert(in.begin() + axis, r);
      return element(input, in);
    };
    FailureOr<Value> first = at(lane);
    if (failed(first))
      return failure();
    auto lanes = scf::ForOp::create(
        b, loc, arith::AddIOp::create(b, loc, lane, idx(32)), idx(extent),
        idx(32), ValueRange{*first});
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(lanes.getBody());
      FailureOr<Value> e = at(lanes.getInductionVar());
      if (failed(e))
        return failure();
      scf::YieldOp::create(b, loc,
                           combine(lanes.getRegionIterArgs()[0], *e));
    }
    Value fold =
        foldAcrossLanes(lanes.getResult(0), {16, 8, 4, 2, 1}, combine);
    auto writer = scf::IfOp::create(b, loc, electOne());
    b.setInsertionPointToStart(writer.thenBlock());
    memref::StoreOp::create(b, loc, fold, buffer, index);
  }
  simtSinceBarrier = true;
  groupBarrier();
  tiles[reduce.getResult()] = {TileRep::Buffer, nullptr, buffer, nullptr};
  return success();
}

/// Whether every reader of slot read `read` is an operand of a matrix-unit
/// dot in the same block (directly, or through element-wise ops and
/// transposes its operand is computed by) and nothing between the read and
/// the last of those dots can let the slot be refilled: no arrive, barrier,
/// copy, write or control flow, only pure ops, other reads, tags and
/// matrix-unit regions with their commits and waits. The dots then take the
/// slot's elements where they run (staging attention's K^T straight from its
/// slot), and no copy is needed.
bool KernelLowering::readByMmaBeforeRelease(tile::ReadOp read) {
  Block *block = read->getBlock();
  Operation *last = read;
  SmallVector<Value> work{read.getResult()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<tag::TagDialect>(user->getDialect()) || ghosts.contains(user))
        continue;
      auto dot = dyn_cast<tile::DotOp>(user);
      if (dot && mmaDots.contains(dot) && use.getOperandNumber() < 2) {
        // The dot itself, or its matrix-unit region, must be in the block:
        // inside a loop or a branch it could run after a release there.
        Operation *top = dot;
        if (auto async = dyn_cast<schedule::AsyncOp>(dot->getParentOp());
            async && target.isMmaUnit(async.getUnit()))
          top = async;
        if (top->getBlock() != block)
          return false;
        if (last->isBeforeInBlock(top))
          last = top;
        continue;
      }
      if (user->getBlock() == block &&
          (isElementwise(user) || isa<tile::TransposeOp>(user))) {
        work.push_back(user->getResult(0));
        continue;
      }
      return false;
    }
  }
  for (Operation *op = read->getNextNode(); op != last; op = op->getNextNode()) {
    if (op->getNumRegions() == 0 &&
        (isPure(op) || isa<tile::ReadOp>(op) ||
         isa<tag::TagDialect>(op->getDialect())))
      continue;
    if (auto async = dyn_cast<schedule::AsyncOp>(op);
        async && target.isMmaUnit(async.getUnit()))
      continue;
    if (auto commit = dyn_cast<schedule::CommitGroupOp>(op);
        commit && target.isMmaUnit(commit.getUnit()))
      continue;
    if (auto wait = dyn_cast<schedule::WaitGroupOp>(op);
        wait && target.isMmaUnit(wait.getUnit()))
      continue;
    return false;
  }
  return true;
}

/// Whether the current role's copy of the kernel uses a result of `op`
/// (which sits outside every role), directly or through other such ops.
bool KernelLowering::neededByCurrentRole(Operation *op) {
  for (Operation *user : op->getUsers()) {
    if (auto role = dyn_cast<schedule::RoleOp>(user))
      return true; // operands of a role op itself: conservatively
    if (auto role = user->getParentOfType<schedule::RoleOp>()) {
      if (role.getName() == currentRole)
        return true;
      continue;
    }
    if (isa<tag::TagDialect>(user->getDialect()) || ghosts.contains(user))
      continue;
    // Loops, branches and yields outside roles carry it on: keep it.
    if (user->getNumRegions() || user->hasTrait<OpTrait::IsTerminator>() ||
        !(isPure(user) || isa<tile::LoadOp>(user)) || neededByCurrentRole(user))
      return true;
  }
  return false;
}

LogicalResult KernelLowering::emitOp(Operation *op) {
  // Tags are proved; they have no run-time meaning.
  if (auto attach = dyn_cast<tag::AttachOp>(op)) {
    Value in = attach->getOperand(0);
    if (tiles.count(in))
      tiles[attach->getResult(0)] = TileRep(tiles.lookup(in));
    else if (absent.contains(in))
      absent.insert(attach->getResult(0));
    else
      mapping.map(attach->getResult(0), scalar(in));
    return success();
  }
  if (isa<tag::TagDialect>(op->getDialect()) || ghosts.contains(op))
    return success();
  // Placed before the roles (see run()).
  if (isa<tile::AllocSharedOp, schedule::MBarrierInitOp>(op))
    return success();
  // Each role computes, outside the roles, only what it uses.
  if (!currentRole.empty() && op->getNumResults() &&
      !op->getParentOfType<schedule::RoleOp>() &&
      (isPure(op) || isa<tile::LoadOp>(op)) && !neededByCurrentRole(op)) {
    for (Value r : op->getResults())
      absent.insert(r);
    return success();
  }

  if (auto role = dyn_cast<schedule::RoleOp>(op)) {
    if (role.getName() != currentRole) {
      for (Value r : role.getResults())
        absent.insert(r);
      return success();
    }
    if (failed(emitBlock(role.getBody().front())))
      return failure();
    auto yield =
        cast<schedule::YieldOp>(role.getBody().front().getTerminator());
    for (auto [res, v] : llvm::zip(role.getResults(), yield.getValues())) {
      if (tiles.count(v))
        tiles[res] = TileRep(tiles.lookup(v));
      else
        mapping.map(res, scalar(v));
    }
    return success();
  }
  // Every scalar operand must have been lowered already (ghost values of
  // tags, for instance, have no run-time value).
  for (Value v : op->getOperands()) {
    Type t = v.getType();
    if (isa<RankedTensorType, schedule::MBarrierType>(t) || ringOf(v) ||
        mapping.contains(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<tag::FieldOp>(def) || (def && ghosts.contains(def)))
      return fail(op, "uses the ghost value of a tag, which has no run-time "
                      "value");
    return fail(op, absent.contains(v) ? "uses a value of another warp role"
                                       : "an operand has no lowering");
  }
  if (auto async = dyn_cast<schedule::AsyncOp>(op))
    return emitAsync(async);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return emitFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return emitIf(branch);

  if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
    mapping.map(pid.getResult(),
                gpu::BlockIdOp::create(b, loc, gpu::Dimension(pid.getDim()))
                    .getResult());
    return success();
  }
  if (auto np = dyn_cast<tile::NumProgramsOp>(op)) {
    mapping.map(np.getResult(),
                target.gridDim(*this, gpu::Dimension(np.getDim())));
    return success();
  }
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    auto type = load.getType();
    Value buffer = allocBuffer(
        type, load,
        "the loaded tile (an async copy into a tile.alloc_shared ring would "
        "keep it on chip)");
    SmallVector<Value> blockIdx = lowered(load.getIndices());
    SmallVector<Value> offsets = lowered(load.getOffsets());
    SmallVector<Value> bounds = lowered(load.getBounds());
    Value src = scalar(load.getSource());
    LogicalResult status = success();
    forEachElement(
        type.getShape(),
        [&](ValueRange index) -> LogicalResult {
          Value v = globalElement(src, type.getShape(), blockIdx, offsets,
                                  bounds, load.getPaddingAttr(), index,
                                  type.getElementType());
          memref::StoreOp::create(b, loc, v, buffer, index);
          return success();
        },
        status);
    groupBarrier();
    tiles[load.getResult()] = {TileRep::Buffer, nullptr, buffer, nullptr};
    return status;
  }
  if (auto read = dyn_cast<tile::ReadOp>(op)) {
    Ring *ring = ringOf(read.getBuffer());
    if (!ring)
      return fail(op, "the buffer must be a tile.alloc_shared buffer");
    SmallVector<Value> slotIdx = lowered(read.getIndices());
    tiles[read.getResult()] = {TileRep::Shared, nullptr,
                               slotIndex(*ring, slotIdx), ring};
    // Only the matrix unit reads the slot in place; others take a copy now,
    // before the slot can be released and refilled, unless they are
    // matrix-unit dots that take the slot's elements before anything can
    // release it.
    // (Through a transpose: a K-major operand the unit reads as such.)
    std::function<bool(Value)> onlyMmaReads = [&](Value v) {
      return llvm::all_of(v.getUses(), [&](OpOperand &use) {
        Operation *user = use.getOwner();
        auto dot = dyn_cast<tile::DotOp>(user);
        if (dot && mmaDots.contains(dot))
          return use.getOperandNumber() < 2 &&
                 target.readsInPlace(*this, dot, use.getOperandNumber());
        if (auto t = dyn_cast<tile::TransposeOp>(user))
          return onlyMmaReads(t.getResult());
        return isa<tag::TagDialect>(user->getDialect()) ||
               ghosts.contains(user);
      });
    };
    bool onlyMma = onlyMmaReads(read.getResult());
    if (!onlyMma && !readByMmaBeforeRelease(read))
      return materialize(read.getResult(),
                         "a copy of the slot for readers other than the "
                         "matrix unit");
    return success();
  }
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return emitStore(store);
  if (auto copy = dyn_cast<tile::CopyOp>(op))
    return emitCopy(copy);
  if (auto write = dyn_cast<tile::WriteOp>(op))
    return emitWrite(write);
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    if (mmaDots.contains(dot))
      return emitMmaDot(dot, nullptr);
    elementwiseDots.insert(dot);
    reportFallback(dot, "tile.dot runs element by element on the SIMT "
                        "cores, not on " +
                            target.mmaUnit() + ": " +
                            target.whyNotMma(*this, dot));
    for (Value v : {dot.getLhs(), dot.getRhs(), dot.getAcc()})
      if (failed(prepare(v)))
        return failure();
    // Operands computed element-wise are formed once, not once per product.
    for (Value v : {dot.getLhs(), dot.getRhs()})
      if (tiles.lookup(v).kind == TileRep::Lazy &&
          failed(materialize(v, "an operand of a tile.dot off the matrix "
                                "unit, formed once")))
        return failure();
    int64_t k = cast<RankedTensorType>(dot.getLhs().getType()).getDimSize(1);
    return foldInto(
        dot.getResult(), "the result of a tile.dot computed element by element",
        0, k,
        [&](ValueRange index) { return element(dot.getAcc(), index); },
        [&](ValueRange index, Value kk, Value acc) -> FailureOr<Value> {
          FailureOr<Value> a = element(dot.getLhs(), {index[0], kk});
          FailureOr<Value> bv = element(dot.getRhs(), {kk, index[1]});
          if (failed(a) || failed(bv))
            return failure();
          auto widen = [&](Value v) -> Value {
            if (v.getType().isF32())
              return v;
            return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
          };
          Value prod = arith::MulFOp::create(b, loc, widen(*a), widen(*bv));
          return arith::AddFOp::create(b, loc, acc, prod).getResult();
        });
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    auto inType = cast<RankedTensorType>(reduce.getInput().getType());
    int64_t axis = reduce.getAxis();
    bool isFloat = isa<FloatType>(inType.getElementType());
    auto combine = [&](Value x, Value y) -> Value {
      switch (reduce.getKind()) {
      case tile::ReduceKind::Sum:
        return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                       : arith::AddIOp::create(b, loc, x, y).getResult();
      case tile::ReduceKind::Max:
        return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                       : arith::MaxSIOp::create(b, loc, x, y).getResult();
      case tile::ReduceKind::Min:
        return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                       : arith::MinSIOp::create(b, loc, x, y).getResult();
      }
      llvm_unreachable("a reduction kind");
    };
    // The rows of a tile computed from an accumulator are reduced in its
    // registers (and across the lanes that share a row), not from memory,
    // where the registers hold it beside the accumulators loops carry.
    if (inType.getRank() == 2 && axis == 1 &&
        target.reducesAccumulatorRows())
      if (Value acc = registerEpilogueSource(reduce.getInput())) {
        if (registersLeftFor(reduce, inType, accValues))
          return reduceRowsInRegisters(reduce, acc, combine);
        reportFallback(reduce,
                       "the rows are reduced from memory, not in the "
                       "accumulator's registers: no register budget of the "
                       "role (regs) covers the input beside the accumulators "
                       "the loops carry");
      }
    if (failed(prepare(reduce.getInput())))
      return failure();
    auto inIndex = [&](ValueRange index, Value r) {
      SmallVector<Value> in(index.begin(), index.end());
      in.insert(in.begin() + axis, r);
      return in;
    };
    // A warp (the unit of a warp-mapped loop) reduces each result across
    // its lanes: every lane folds the elements at its lane modulo 32, then
    // shuffles combine the lanes' folds.
    Type et = inType.getElementType();
    if (group.base && group.size == 32 && inType.getDimSize(axis) % 32 == 0 &&
        (et.isF32() || et.isInteger(32)))
      return reduceByWarp(reduce, combine);
    return foldInto(
        reduce.getResult(), "the reduction's result", 1,
        inType.getDimSize(axis),
        [&](ValueRange index) {
          return element(reduce.getInput(), inIndex(index, idx(0)));
        },
        [&](ValueRange index, Value r, Value acc) -> FailureOr<Value> {
          FailureOr<Value> e = element(reduce.getInput(), inIndex(index, r));
          if (failed(e))
            return failure();
          return combine(acc, *e);
        });
  }
  if (isa<tile::BroadcastOp, tile::IotaOp, tile::TransposeOp, tensor::SplatOp>(
          op) ||
      isElementwise(op) ||
      (isa<arith::ConstantOp>(op) &&
       isa<RankedTensorType>(op->getResult(0).getType()))) {
    tiles[op->getResult(0)] = {TileRep::Lazy, op, Value(), nullptr};
    return success();
  }

  // Synchronization.
  if (isa<schedule::MBarrierArriveOp, schedule::MBarrierSyncOp>(op) &&
      namedBarriers.count(op->getOperand(0))) {
    // Every thread of the role arrives (bar.arrive / bar.sync); mapped
    // loops, whose units are parts of it, hold no synchronization.
    NamedBarriers named = namedBarriers.lookup(op->getOperand(0));
    Value id = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::AddIOp::create(b, loc, idx(named.firstId),
                              scalar(op->getOperand(1))));
    bool sync = isa<schedule::MBarrierSyncOp>(op);
    target.namedBarrier(*this, id, named.threads, sync);
    if (sync)
      simtSinceBarrier = false;
    return success();
  }
  if (auto wait = dyn_cast<schedule::MBarrierWaitOp>(op))
    return target.emitBarrierOp(*this, op,
                                mbarrierGroups.lookup(wait.getBarriers()));
  if (isa<schedule::MBarrierArriveOp, schedule::MBarrierArriveExpectTxOp>(op)) {
    // The group arrives once: its threads' own accesses must be done first.
    if (simtSinceBarrier)
      groupBarrier();
    auto branch = scf::IfOp::create(b, loc, electOne());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    Value barriers =
        mbarrierGroups.lookup(isa<schedule::MBarrierArriveOp>(op)
                                  ? cast<schedule::MBarrierArriveOp>(op)
                                        .getBarriers()
                                  : cast<schedule::MBarrierArriveExpectTxOp>(op)
                                        .getBarriers());
    return target.emitBarrierOp(*this, op, barriers);
  }
  if (auto commit = dyn_cast<schedule::CommitGroupOp>(op))
    return target.emitCommitGroup(*this, commit);
  if (auto wait = dyn_cast<schedule::WaitGroupOp>(op)) {
    if (failed(target.emitWaitGroup(*this, wait)))
      return failure();
    // The thread that issued the stores waited for them; the group, which
    // may rewrite their buffers next, learns it here.
    if (target.isCopyUnit(wait.getUnit()) && asyncStores)
      groupBarrier();
    return success();
  }
  if (auto barrier = dyn_cast<schedule::BarrierOp>(op)) {
    if (barrier.getScope() == schedule::BarrierScope::cluster)
      target.clusterBarrier(*this);
    else
      gpu::BarrierOp::create(b, loc);
    simtSinceBarrier = false;
    return success();
  }
  if (isa<schedule::FenceAsyncProxyOp>(op)) {
    target.proxyFence(*this);
    return success();
  }

  // Scalar computations are cloned.
  if (op->getNumRegions() == 0 &&
      llvm::none_of(op->getOperandTypes(),
                    [](Type t) { return isa<RankedTensorType>(t); }) &&
      llvm::none_of(op->getResultTypes(),
                    [](Type t) { return isa<RankedTensorType>(t); })) {
    for (Value v : op->getOperands()) {
      if (!mapping.contains(v))
        return fail(op, absent.contains(v) ? "uses a value of another warp role"
                                           : "an operand has no lowering");
    }
    b.clone(*op, mapping);
    return success();
  }
  return fail(op, "no lowering for this operation");
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

FailureOr<gpu::GPUFuncOp> KernelLowering::run() {
  MLIRContext *ctx = b.getContext();
  // Every annotation is implemented or the kernel is refused: a parallel
  // loop lowered as a plain loop would run all its iterations in every
  // program (cta) or on every thread.
  WalkResult mapped = kernel.walk([&](scf::ForOp loop) {
    auto map = loop->getAttrOfType<schedule::ParallelLevelAttr>(
        schedule::ScheduleDialect::kMapAttrName);
    if (!map)
      return WalkResult::advance();
    schedule::ParallelLevel level = map.getValue();
    if (level == schedule::ParallelLevel::sequential ||
        level == schedule::ParallelLevel::thread ||
        (level == schedule::ParallelLevel::warp && target.runsWarpGroups()))
      return WalkResult::advance();
    (void)fail(loop, "loops mapped to `" +
                         schedule::stringifyParallelLevel(level) +
                         "` are not implemented by " + target.lowering() +
                         " yet; map the loop `sequential` or remove the "
                         "mapping" +
                         (level == schedule::ParallelLevel::cta
                              ? " (transform.tiletag.persist writes a "
                                "persistent loop over the grid's tiles)"
                              : ""));
    return WalkResult::interrupt();
  });
  if (mapped.wasInterrupted() || failed(checkFp8Arithmetic(kernel)))
    return failure();
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName);
      launch && !launch.getCluster().empty()) {
    for (auto [d, size] : llvm::enumerate(launch.getCluster()))
      if (d >= kernel.getGrid() && size != 1)
        return fail(kernel, "its cluster spans grid dimension " +
                                std::to_string(d) + ", which its grid of " +
                                std::to_string(kernel.getGrid()) +
                                " dimension(s) does not have");
    if (std::string why = target.whyNotCluster(launch.getCluster());
        !why.empty())
      return fail(kernel, why);
    cluster.assign(launch.getCluster().begin(), launch.getCluster().end());
    cluster.resize(3, 1);
  }
  if (failed(planRoles()) || failed(planShared()) ||
      failed(target.planAsyncCopies(*this)))
    return failure();
  kernel.walk([&](schedule::AsyncOp async) {
    asyncStores |= target.isCopyUnit(async.getUnit()) && isAsyncStore(async);
  });
  planAccumulators();
  target.planSharedExtras(*this);
  auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
      schedule::ScheduleDialect::kLaunchAttrName);
  threads = (launch ? launch.getWarpgroups() : 1) * kWarpgroupThreads;
  occupancy = launch ? launch.getOccupancy() : 0;
  if (failed(planNamedBarriers()))
    return failure();
  // An occupancy the chip cannot give is refused, not dropped.
  auto exceeds = [&](int64_t perProgram, int64_t perProcessor,
                     StringRef what) {
    return fail(kernel, "occupancy " + std::to_string(occupancy) + ": " +
                            std::to_string(occupancy) + " programs of " +
                            std::to_string(perProgram) + " " + what +
                            " exceed the " + std::to_string(perProcessor) +
                            " of one SM (CU)");
  };
  // A kernel that cannot be launched is refused here, not at launch: before
  // the emission with what is planned, after it with what the target staged
  // on the way (sharedLater). The room to align the dynamic shared memory
  // base at run time comes last.
  int64_t alignment = target.ringAlignment();
  bool usesShared = sharedBytes || sharedLater;
  auto sharedFits = [&](int64_t bytes) -> LogicalResult {
    if (bytes > target.maxSharedBytes())
      return fail(kernel, "its shared buffers, mbarriers and staging need " +
                              std::to_string(bytes) +
                              " bytes of shared memory; " + target.lowering() +
                              " gives a program at most " +
                              std::to_string(target.maxSharedBytes()));
    if (occupancy * bytes > target.sharedBytesPerProcessor())
      return exceeds(bytes, target.sharedBytesPerProcessor(),
                     "bytes of shared memory");
    return success();
  };
  if (failed(sharedFits(sharedBytes + (usesShared ? alignment : 0))))
    return failure();
  if (occupancy * threads > kMaxThreadsPerProcessor)
    return exceeds(threads, kMaxThreadsPerProcessor, "threads");
  // Pure computations whose results only reach tag ops are not lowered.
  for (bool changed = true; changed;) {
    changed = false;
    kernel.walk([&](Operation *op) {
      if (ghosts.contains(op) || op->getNumResults() == 0 ||
          op->getNumRegions() || !isPure(op) ||
          isa<tag::TagDialect>(op->getDialect()))
        return;
      bool onlyTags = llvm::all_of(op->getUsers(), [&](Operation *user) {
        return isa<tag::TagDialect>(user->getDialect()) ||
               ghosts.contains(user);
      });
      if (onlyTags && !op->use_empty()) {
        ghosts.insert(op);
        changed = true;
      }
    });
  }
  // Signature: the kernel's operands, the target's (tensor maps), and the
  // workspace.
  SmallVector<Type> argTypes(kernel.getArgumentTypes());
  target.addArguments(*this, argTypes);
  argTypes.push_back(MemRefType::get({ShapedType::kDynamic}, b.getI8Type()));
  func = gpu::GPUFuncOp::create(b, loc, kernel.getSymName(),
                                FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {(int32_t)threads, 1, 1}));
  if (failed(target.annotate(*this, func)))
    return failure();

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getBody().front());
  for (auto [i, arg] : llvm::enumerate(kernel.getArguments()))
    mapping.map(arg, func.getArgument(i));
  workspace = func.getArguments().back();
  target.prologue(*this);
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);

  // The program's slice of the workspace (its size is known at the end).
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value bz = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  Value gx = target.gridDim(*this, gpu::Dimension::x);
  Value gy = target.gridDim(*this, gpu::Dimension::y);
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, bz, gy),
                                by),
          gx),
      bx);
  auto perProgram = arith::ConstantIndexOp::create(b, loc, 0);
  workspaceBase = arith::MulIOp::create(b, loc, linear, perProgram);

  // Rings start at the dynamic shared memory base rounded up to the
  // target's ring alignment.
  if (usesShared) {
    Value addr =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dynamicShared());
    Value rem = arith::RemUIOp::create(b, loc, addr, idx(alignment));
    Value pad = arith::RemUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, idx(alignment), rem),
        idx(alignment));
    ringBase = pad;
  }

  // mbarriers: created and initialized once, before any role starts.
  group = {0, threads, 0, true, Value()};
  bool anyBarrier = false;
  for (Operation &op : kernel.getBody().front()) {
    auto init = dyn_cast<schedule::MBarrierInitOp>(op);
    if (!init || init.getNamed())
      continue;
    FailureOr<Value> barriers = target.createBarriers(*this, init);
    if (failed(barriers))
      return failure();
    mbarrierGroups[init.getResult()] = *barriers;
    anyBarrier = true;
  }
  LogicalResult nested = success();
  kernel.walk([&](schedule::MBarrierInitOp init) {
    if (init->getBlock() != &kernel.getBody().front())
      nested = fail(init, "mbarriers must be initialized at the kernel's top "
                          "level");
  });
  kernel.walk([&](tile::AllocSharedOp alloc) {
    if (alloc->getBlock() != &kernel.getBody().front())
      nested = fail(alloc, "shared buffers must be allocated at the kernel's "
                           "top level");
  });
  if (failed(nested))
    return failure();
  if (anyBarrier)
    gpu::BarrierOp::create(b, loc);

  IRMapping prologue = mapping;
  if (roles.empty()) {
    if (failed(emitBlock(kernel.getBody().front())))
      return failure();
  } else {
    // Outside the roles, only scalar work, loops and CTA barriers may sit
    // (each role runs its own copy); memory effects there would run once
    // per role.
    for (Operation &op : kernel.getBody().front().without_terminator()) {
      if (isa<schedule::RoleOp, tile::AllocSharedOp, schedule::MBarrierInitOp,
              scf::ForOp, scf::IfOp, schedule::BarrierOp>(op) ||
          isa<tag::TagDialect>(op.getDialect()))
        continue;
      if (isa<tile::StoreOp, tile::CopyOp, tile::WriteOp>(op))
        return fail(&op, "in a kernel with warp roles, memory writes must "
                         "sit inside a role");
    }
    // A CTA or cluster barrier outside the roles is reached by every role's
    // copy: a warpgroup in no role would never reach it.
    schedule::BarrierOp outside;
    kernel.walk([&](schedule::BarrierOp barrier) {
      if (!barrier->getParentOfType<schedule::RoleOp>())
        outside = barrier;
    });
    if (outside) {
      llvm::SmallDenseSet<int64_t> covered;
      for (schedule::RoleOp role : roles)
        covered.insert(role.getWarpgroups().begin(),
                       role.getWarpgroups().end());
      for (int64_t wg = 0; wg < threads / kWarpgroupThreads; ++wg)
        if (!covered.contains(wg))
          return fail(outside,
                      std::string(outside.getScope() ==
                                          schedule::BarrierScope::cta
                                      ? "a CTA"
                                      : "a cluster") +
                          " barrier outside the warp roles is reached by "
                          "every role, but warpgroup " +
                          std::to_string(wg) +
                          " is in no role and would never reach it");
    }
    // The warpgroup index, broadcast from lane 0 so that the backend knows
    // it is uniform across each wave: a matrix-unit op under a branch it
    // thinks divergent is serialized.
    Value wgIndex = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::DivUIOp::create(b, loc, tid, idx(kWarpgroupThreads)));
    Value wg = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        gpu::ShuffleOp::create(b, loc, wgIndex, 0, target.waveSize(),
                               gpu::ShuffleMode::IDX)
            .getShuffleResult());
    for (auto [i, role] : llvm::enumerate(roles)) {
      ArrayRef<int64_t> wgs = role.getWarpgroups();
      int64_t lo = *llvm::min_element(wgs), hi = *llvm::max_element(wgs) + 1;
      if (hi - lo != (int64_t)wgs.size())
        return fail(role, "a role's warpgroups must be contiguous");
      Value cond = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, wg, idx(lo)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, wg,
                                idx(hi)));
      auto branch = scf::IfOp::create(b, loc, cond);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(branch.thenBlock());
      if (failed(target.enterRole(*this, role)))
        return failure();
      group = {lo * kWarpgroupThreads, (hi - lo) * kWarpgroupThreads,
               (int)i + 1, false, Value()};
      currentRole = role.getName();
      mapping = prologue;
      tiles.clear();
      rowSlot.clear();
      absent.clear();
      consumed.clear();
      simtSinceBarrier = false;
      if (failed(emitBlock(kernel.getBody().front())))
        return failure();
    }
  }
  gpu::ReturnOp::create(b, loc);
  perProgram->setAttr("value", b.getIndexAttr(workspaceBytes));
  if (usesShared)
    sharedBytes += alignment;
  if (failed(sharedFits(sharedBytes)))
    return failure();

  // The kernel's interface for a runner, in one attribute (both runners
  // read it: Execution/GpuProgram.h).
  SmallVector<NamedAttribute> abi = {
      b.getNamedAttr("block", b.getDenseI64ArrayAttr({threads, 1, 1})),
      b.getNamedAttr("grid_rank", b.getI64IntegerAttr(kernel.getGrid())),
      b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(sharedBytes)),
      b.getNamedAttr("workspace_bytes", b.getI64IntegerAttr(workspaceBytes))};
  if (!cluster.empty())
    abi.push_back(b.getNamedAttr("cluster", b.getDenseI64ArrayAttr(cluster)));
  target.addABI(*this, abi);
  func->setAttr(kABIAttrName, b.getDictionaryAttr(abi));
  return func;
}

LogicalResult conversion::planLowering(
    tile::KernelOp kernel, LoweringTarget &target,
    DenseMap<Operation *, std::pair<int64_t, int64_t>> &workspace,
    DenseSet<Operation *> &elementwiseDots,
    DenseSet<std::pair<Operation *, unsigned>> &stagedAtDot,
    int64_t &sharedBytes) {
  MLIRContext *ctx = kernel.getContext();
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(kernel.getLoc());
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(scratch->getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, kernel.getLoc(), "plan");
  b.setInsertionPointToStart(gpuModule.getBody());
  KernelLowering lowering(kernel, b, target);
  if (failed(lowering.run()))
    return failure();
  workspace = std::move(lowering.workspaceTraffic);
  elementwiseDots = std::move(lowering.elementwiseDots);
  stagedAtDot = std::move(lowering.stagedAtDot);
  sharedBytes = lowering.sharedBytes;
  return success();
}

LogicalResult conversion::lowerKernels(
    ModuleOp module, bool allowUnverified, bool reportFallbacks,
    function_ref<std::unique_ptr<LoweringTarget>()> makeTarget) {
  // Reference kernels are specifications (the contracts of others): they
  // are proved against, never run on the GPU.
  llvm::StringSet<> references;
  for (tile::KernelOp k : module.getOps<tile::KernelOp>())
    if (auto ref = k->getAttrOfType<FlatSymbolRefAttr>(
            tag::TagDialect::kContractAttrName))
      references.insert(ref.getValue());
  SmallVector<tile::KernelOp> kernels, referenceKernels;
  for (tile::KernelOp k : module.getOps<tile::KernelOp>())
    (references.contains(k.getSymName()) ? referenceKernels : kernels)
        .push_back(k);
  if (kernels.empty() && referenceKernels.empty())
    return success();
  // Only proved kernels are lowered.
  bool ok = true;
  for (tile::KernelOp kernel : kernels) {
    // A contract is a tag-level claim: it needs the tag proof too.
    bool hasTags = kernel->hasAttr(tag::TagDialect::kContractAttrName),
         hasSchedule = false;
    kernel.walk([&](Operation *op) {
      hasTags |=
          isa<tag::TagDialect>(op->getDialect()) || op->hasAttr("tag.labels");
      hasSchedule |= isa<schedule::ScheduleDialect>(op->getDialect()) ||
                     op->hasAttr(schedule::ScheduleDialect::kMapAttrName);
    });
    // A stamp counts only for the IR it proved: any rewrite since makes
    // it stale.
    auto check = [&](bool has, StringRef attr, StringRef what) {
      StampState state = stampState(kernel, attr);
      if (!has || state == StampState::Valid)
        return;
      std::string why =
          state == StampState::Stale
              ? "the proof of its " + what.str() +
                    " is stale: the kernel changed after it was verified"
              : "its " + what.str() + " were not proved";
      if (allowUnverified) {
        kernel.emitWarning() << "lowering a kernel although " << why
                             << " (allow-unverified)";
        return;
      }
      kernel.emitError() << why
                         << "; run --tiletag-verify first (or pass "
                            "allow-unverified)";
      ok = false;
    };
    check(hasTags, "tag.verified", "tags");
    check(hasSchedule, "schedule.verified", "schedule annotations");
  }
  if (!ok)
    return failure();
  // The stamps cover the references (ProofStamp.h); checked, they go.
  for (tile::KernelOp k : referenceKernels)
    k.erase();

  OpBuilder b(module.getContext());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule =
      gpu::GPUModuleOp::create(b, module.getLoc(), "tiletag_kernels");
  b.setInsertionPointToStart(gpuModule.getBody());
  for (tile::KernelOp kernel : kernels) {
    std::unique_ptr<LoweringTarget> target = makeTarget();
    KernelLowering lowering(kernel, b, *target, reportFallbacks);
    FailureOr<gpu::GPUFuncOp> func = lowering.run();
    if (failed(func) || failed(legalizeFp8(*func)))
      return failure();
  }
  for (tile::KernelOp kernel : kernels)
    kernel.erase();
  return success();
}
