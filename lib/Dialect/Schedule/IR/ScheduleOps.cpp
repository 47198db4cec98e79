//===- ScheduleOps.cpp - schedule dialect operations ----------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::schedule;

/// The launch configuration of the kernel around `op`, if it declares one.
static LaunchAttr enclosingLaunch(Operation *op) {
  auto kernel = op->getParentOfType<FunctionOpInterface>();
  if (!kernel)
    return {};
  return kernel->getAttrOfType<LaunchAttr>(ScheduleDialect::kLaunchAttrName);
}

/// Checks a constant mbarrier index against the array size.
static LogicalResult verifyBarrierIndex(Operation *op, MBarrierType type,
                                        Value index) {
  std::optional<int64_t> constant = getConstantIntValue(index);
  if (constant && (*constant < 0 || *constant >= type.getSize()))
    return op->emitOpError()
           << "mbarrier index " << *constant
           << " is out of range for an array of " << type.getSize();
  return success();
}

MBarrierInitOp MBarrierInitOp::namedInit(Value barriers) {
  auto init = barriers.getDefiningOp<MBarrierInitOp>();
  return init && init.getNamed() ? init : MBarrierInitOp();
}

/// Hardware barriers count arrivals only: no TMA bytes complete on them.
static LogicalResult verifyNotNamed(Operation *op, Value barriers,
                                    StringRef what) {
  if (MBarrierInitOp::namedInit(barriers))
    return op->emitOpError()
           << what << " needs an mbarrier in shared memory, not a named "
           << "(hardware) barrier, which counts arrivals only";
  return success();
}

//===----------------------------------------------------------------------===//
// RoleOp
//===----------------------------------------------------------------------===//

LogicalResult RoleOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a role name, e.g. \"producer\"";
  ArrayRef<int64_t> wgs = getWarpgroups();
  if (wgs.empty())
    return emitOpError() << "needs at least one warpgroup";
  for (auto [i, wg] : llvm::enumerate(wgs)) {
    if (wg < 0)
      return emitOpError() << "warpgroup ids are non-negative, got " << wg;
    if (i > 0 && wgs[i - 1] >= wg)
      return emitOpError() << "warpgroup ids must be sorted and unique";
  }
  if (LaunchAttr launch = enclosingLaunch(*this))
    if (wgs.back() >= launch.getWarpgroups())
      return emitOpError() << "warpgroup " << wgs.back()
                           << " does not exist: the kernel launches "
                           << launch.getWarpgroups() << " warpgroups (ids 0 to "
                           << launch.getWarpgroups() - 1 << ")";
  if (IntegerAttr regsAttr = getRegsAttr()) {
    int64_t regs = regsAttr.getInt();
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return emitOpError() << "regs must be a multiple of 8 from 24 to 256 "
                              "(setmaxnreg), got "
                           << regs;
  }
  if ((*this)->getParentOfType<RoleOp>())
    return emitOpError() << "roles do not nest: an enclosing role already "
                            "chose the warpgroups";
  return success();
}

//===----------------------------------------------------------------------===//
// AsyncOp
//===----------------------------------------------------------------------===//

LogicalResult AsyncOp::verify() {
  bool hasBarrier = static_cast<bool>(getBarrier());
  if (hasBarrier) {
    if (failed(verifyBarrierIndex(*this, getBarrier().getType(),
                                  getBarrierIndex())))
      return failure();
  }
  // The region may hold only copies or only dots (checked below), so async
  // regions, roles and synchronization cannot nest inside one.
  Block &body = getBody().front();

  if (getUnit() == AsyncUnit::tma) {
    if (!getResults().empty())
      return emitOpError() << "a tma region copies memory and yields no values";
    std::optional<bool> toShared;
    for (Operation &op : body.without_terminator()) {
      auto copy = llvm::dyn_cast<tile::CopyOp>(op);
      if (!copy)
        return op.emitOpError() << "cannot run on the TMA unit: a tma region "
                                   "holds only tile.copy operations";
      if (toShared && *toShared != copy.isGlobalToShared())
        return copy.emitOpError() << "mixes directions in one tma region: put "
                                     "loads and stores in separate regions";
      toShared = copy.isGlobalToShared();
    }
    if (!toShared)
      return emitOpError() << "a tma region needs at least one tile.copy";
    if (hasBarrier &&
        failed(verifyNotNamed(*this, getBarrier(), "a TMA copy's completion")))
      return failure();
    if (*toShared && !hasBarrier)
      return emitOpError() << "TMA loads complete on an mbarrier: add "
                              "'arrive %bar[%i] : !schedule.mbarrier<N>'";
    if (!*toShared && hasBarrier)
      return emitOpError() << "TMA stores complete through commit_group / "
                              "wait_group on tma, not on an mbarrier";
    return success();
  }

  if (hasBarrier)
    return emitOpError() << stringifyAsyncUnit(getUnit())
                         << " operations complete through commit_group / "
                            "wait_group, not on an mbarrier";
  bool sawDot = false;
  for (Operation &op : body.without_terminator()) {
    if (llvm::isa<tile::DotOp>(op)) {
      sawDot = true;
      continue;
    }
    return op.emitOpError()
           << "cannot run on the " << stringifyAsyncUnit(getUnit())
           << " unit: its region holds only tile.dot operations";
  }
  if (!sawDot)
    return emitOpError() << "a " << stringifyAsyncUnit(getUnit())
                         << " region needs at least one tile.dot";
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  Operation *parent = (*this)->getParentOp();
  TypeRange expected = parent->getResultTypes();
  if (getValues().getTypes() != expected)
    return emitOpError() << "yields " << getValues().size()
                         << " values of types " << getValues().getTypes()
                         << " but the enclosing '" << parent->getName()
                         << "' has result types " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Barriers, groups, fences
//===----------------------------------------------------------------------===//

LogicalResult BarrierOp::verify() {
  if ((*this)->getParentOfType<RoleOp>())
    return emitOpError() << "a " << stringifyBarrierScope(getScope())
                         << " barrier inside a warp role deadlocks: the other "
                            "roles never reach it; synchronize roles with "
                            "mbarriers";
  if (getScope() == BarrierScope::cluster) {
    LaunchAttr launch = enclosingLaunch(*this);
    if (launch && launch.getCluster().empty())
      return emitOpError()
             << "a cluster barrier needs a kernel launched with "
                "a cluster (#schedule.launch<..., cluster = [...]>)";
  }
  return success();
}

LogicalResult WaitGroupOp::verify() {
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0 || pending > 7)
    return emitOpError() << "pending must be 0 to 7, got " << pending;
  return success();
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

LogicalResult MBarrierInitOp::verify() {
  if (getCountAttr().getInt() < 1)
    return emitOpError()
           << "an mbarrier expects at least one arrival per phase, "
              "got count "
           << getCountAttr().getInt();
  if (getNamed() && getCountAttr().getInt() < 2)
    return emitOpError() << "a named barrier orders roles: it expects at "
                            "least 2 role arrivals per phase";
  for (Operation *parent = (*this)->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (llvm::isa<FunctionOpInterface>(parent))
      break;
    if (llvm::isa<LoopLikeOpInterface, RoleOp, AsyncOp>(parent))
      return emitOpError() << "initialize mbarriers once per program, outside "
                              "loops, roles and async regions (found inside '"
                           << parent->getName() << "')";
  }
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierArriveExpectTxOp::verify() {
  int64_t bytes = getBytesAttr().getInt();
  if (bytes < 1 || bytes >= (1 << 20))
    return emitOpError()
           << "expected transaction bytes must be 1 to 2^20 - 1, got " << bytes;
  if (failed(verifyNotNamed(*this, getBarriers(), "arrive_expect_tx")))
    return failure();
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierWaitOp::verify() {
  if (MBarrierInitOp::namedInit(getBarriers()))
    return emitOpError() << "a named barrier is waited on by "
                            "schedule.mbarrier.sync, which arrives too "
                            "(bar.sync): the hardware has no wait alone";
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierSyncOp::verify() {
  if (!MBarrierInitOp::namedInit(getBarriers()))
    return emitOpError() << "syncs on named barriers (schedule.mbarrier.init "
                            "... named); on an mbarrier in shared memory, "
                            "arrive and wait";
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

#define GET_OP_CLASSES
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.cpp.inc"
