//===- VerifySchedule.cpp - prove that a schedule keeps the meaning -------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "Checkers.h"
#include "TileTag/Verification/Prover.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>


using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

namespace {

/// One memory access of the kernel: which memory, how, and where.
struct Access {
  Operation *op;
  Value memory;
  bool write;
  bool atomicAdd; // tile.store combine add: commutes with itself
  enum { Block, Slot, Element } kind;
  ValueRange indices;         // block indices, slot indices or element indices
  ValueRange offsets, bounds; // Block: addressing of the global side
  SmallVector<int64_t> block; // Block: the block shape
};

/// The parallel level of a loop, if it is mapped to one.
std::optional<schedule::ParallelLevel> levelOf(scf::ForOp loop) {
  auto map = loop->getAttrOfType<schedule::ParallelLevelAttr>(
      schedule::ScheduleDialect::kMapAttrName);
  if (!map || map.getValue() == schedule::ParallelLevel::sequential)
    return std::nullopt;
  return map.getValue();
}

class ScheduleChecker {
public:
  ScheduleChecker(tile::KernelOp kernel, z3::context &ctx, Prover &prover)
      : ctx(ctx), model(kernel, ctx), prover(prover), kernel(kernel) {}

  /// prove() that `facts` and the universal `none` contradict. First with
  /// `none` only at its instances (`ground`): a small query whose unsat
  /// answer is a proof, since the instances follow from `none`. A model of
  /// that is a real counterexample where, with every constant at its value
  /// there, nothing `none` denies (`denied`: its body, bound variables
  /// free) exists; otherwise an instance not tried may rule it out, and the
  /// quantified query decides (a proof, a counterexample or an unknown).
  bool refute(Operation *op, const z3::expr &facts, const z3::expr &ground,
              const z3::expr &none, const z3::expr &denied, const Twine &what,
              ArrayRef<std::pair<Operation *, Instance *>> points) {
    Verdict v;
    if (refuted(op, facts && ground, what, points, v))
      return true;
    if (v.kind == Verdict::Sat &&
        prover
                .check(pinnedTo(*v.model, facts && ground) && denied,
                       what.str() + " (model)", {}, {})
                .kind == Verdict::Unsat) {
      error(op, what + " does not hold", &*v.model, points);
      return false;
    }
    return prove(op, facts && none && ground, ctx.bool_val(false), what,
                 points);
  }

  LogicalResult run() {
    collect();
    checkStructure();
    checkClusters();
    checkRoleDataFlow();
    checkAsyncResults();
    checkExpectTx();
    checkRoleSynchronization();
    checkProxyFences();
    checkRaces();
    return failed ? failure() : success();
  }

  unsigned proved = 0;

private:
  //===--------------------------------------------------------------------===//
  // Collection
  //===--------------------------------------------------------------------===//

  void collect() {
    kernel.walk([&](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case<tile::LoadOp>([&](tile::LoadOp l) {
            accesses.push_back(
                {l, l.getSource(), false, false, Access::Block, l.getIndices(),
                 l.getOffsets(), l.getBounds(),
                 tile::blockShape(l.getType().getShape(),
                                  l.getSource().getType().getRank())});
          })
          .Case<tile::StoreOp>([&](tile::StoreOp st) {
            accesses.push_back(
                {st, st.getDest(), true,
                 st.getCombine() == tile::StoreCombine::Add, Access::Block,
                 st.getIndices(), st.getOffsets(), st.getBounds(),
                 tile::blockShape(st.getValue().getType().getShape(),
                                  st.getDest().getType().getRank())});
          })
          .Case<tile::CopyOp>([&](tile::CopyOp c) {
            bool toShared = c.isGlobalToShared();
            accesses.push_back({c, c.getShared(), toShared, false,
                                Access::Slot, c.getSlotIndices(), {}, {}, {}});
            accesses.push_back(
                {c, c.getGlobal(), !toShared, false, Access::Block,
                 c.getBlockIndices(), c.getOffsets(), c.getBounds(),
                 tile::blockShape(
                     c.getTileShape(),
                     llvm::cast<MemRefType>(c.getGlobal().getType())
                         .getRank())});
          })
          .Case<tile::ReadOp>([&](tile::ReadOp r) {
            accesses.push_back({r,
                                r.getBuffer(),
                                false,
                                false,
                                Access::Slot,
                                r.getIndices(),
                                {},
                                {},
                                {}});
          })
          .Case<tile::WriteOp>([&](tile::WriteOp w) {
            accesses.push_back({w,
                                w.getBuffer(),
                                true,
                                false,
                                Access::Slot,
                                w.getIndices(),
                                {},
                                {},
                                {}});
          })
          .Case<memref::LoadOp>([&](memref::LoadOp l) {
            accesses.push_back({l,
                                l.getMemRef(),
                                false,
                                false,
                                Access::Element,
                                l.getIndices(),
                                {},
                                {},
                                {}});
          })
          .Case<memref::StoreOp>([&](memref::StoreOp st) {
            accesses.push_back({st,
                                st.getMemRef(),
                                true,
                                false,
                                Access::Element,
                                st.getIndices(),
                                {},
                                {},
                                {}});
          });
    });
  }

  //===--------------------------------------------------------------------===//
  // Reports
  //===--------------------------------------------------------------------===//

  void error(Operation *op, const Twine &message, const z3::model *m,
             ArrayRef<std::pair<Operation *, Instance *>> points = {}) {
    failed = true;
    if (!m) {
      mlir::emitError(op->getLoc()) << message;
      return;
    }
    // The memory each point touches: shared slots and global blocks.
    SmallVector<std::vector<CounterexampleAccess>> touched;
    auto indexOf = [&](ValueRange values, Instance &inst) {
      std::vector<int64_t> index;
      for (Value v : values) {
        int64_t n = 0;
        (void)m->eval(model.term(v, inst), true).is_numeral_i64(n);
        index.push_back(n);
      }
      return index;
    };
    for (auto [point, inst] : points) {
      std::vector<CounterexampleAccess> &here = touched.emplace_back();
      for (const Access &acc : accesses)
        if (acc.op == point)
          here.push_back({acc.kind == Access::Slot    ? "slot"
                          : acc.kind == Access::Block ? "block"
                                                      : "element",
                          indexOf(acc.indices, *inst),
                          describeMemory(acc.memory)});
      // Synchronization ops: the mbarrier they arrive on or wait for (a
      // sync does both, and is listed once).
      for (const SmallVector<SyncPoint> *list : {&arrivals, &waits})
        for (const SyncPoint &sp : *list)
          if (sp.op == point &&
              !(list == &waits && isa<schedule::MBarrierSyncOp>(point)))
            here.push_back({"mbarrier", indexOf(ValueRange(sp.index), *inst),
                            describeMemory(sp.barriers)});
    }
    Counterexample cex = model.counterexample(*m, points, touched);
    SmallVector<std::string> memory;
    for (const CounterexamplePoint &p : cex.points)
      memory.push_back(p.memory);
    prover.setCounterexample(std::move(cex));
    InFlightDiagnostic diag = mlir::emitError(op->getLoc()) << message;
    diag.attachNote(op->getLoc()) << model.describe(*m);
    for (auto [i, point] : llvm::enumerate(points)) {
      auto [at, inst] = point;
      std::string p;
      llvm::raw_string_ostream ps(p);
      ps << "the " << at->getName() << " at " << lineOf(at) << " runs";
      SmallVector<std::string> where;
      for (int64_t d = 0; d < kernel.getGridAttr().getInt(); ++d)
        where.push_back("pid" + std::to_string(d) + " = " +
                        evalString(*m, model.programId(d, *inst)));
      for (scf::ForOp loop : model.loops(at))
        where.push_back(model.loopName(loop) + " = " +
                        evalString(*m, model.inductionVar(loop, *inst)));
      if (!where.empty())
        ps << " with " << llvm::join(where, ", ");
      if (!memory[i].empty())
        ps << ", " << memory[i];
      diag.attachNote(at->getLoc()) << p;
    }
    diag.attachNote() << "replay on the CPU: " << model.replayCommand(*m);
  }

  std::string describeMemory(Value memory) {
    if (auto arg = llvm::dyn_cast<BlockArgument>(memory);
        arg && arg.getOwner()->getParentOp() == kernel.getOperation())
      return kernel.getOperandName(arg.getArgNumber());
    if (Operation *def = memory.getDefiningOp()) {
      if (std::optional<std::string> name = sourceName(def))
        return *name + " (line " + lineOf(def).substr(5) + ")";
      if (auto init = llvm::dyn_cast<schedule::MBarrierInitOp>(def))
        return std::string(init.getNamed() ? "the named barriers at "
                                           : "the mbarriers at ") +
               lineOf(def);
      return "the shared buffer at " + lineOf(def);
    }
    return "a buffer";
  }

  /// The bounds of the loops around each point. What the schedule must
  /// guarantee holds for any bounds, so the prover may try a claim with
  /// them generalized (split-k's `pid * chunk` bounds make Z3 split cases).
  std::vector<z3::expr>
  loopBounds(ArrayRef<std::pair<Operation *, Instance *>> points) {
    std::vector<z3::expr> bounds;
    for (auto [op, inst] : points)
      for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
           loop = loop->getParentOfType<scf::ForOp>())
        for (Value bound : {loop.getLowerBound(), loop.getUpperBound()})
          bounds.push_back(model.term(bound, *inst));
    return bounds;
  }

  /// Whether `formula` is unsat (then recorded as the proof of `what` at
  /// `op`); the verdict in `v`.
  bool refuted(Operation *op, const z3::expr &formula, const Twine &what,
               ArrayRef<std::pair<Operation *, Instance *>> points,
               Verdict &v) {
    v = prover.check(formula, what.str(), model.minimalOrder(points),
                     loopBounds(points));
    if (v.kind != Verdict::Unsat)
      return false;
    prover.recordProof(op, what);
    ++proved;
    return true;
  }

  bool prove(Operation *op, const z3::expr &facts, const z3::expr &claim,
             const Twine &what,
             ArrayRef<std::pair<Operation *, Instance *>> points) {
    Verdict v;
    if (refuted(op, facts && !claim, what, points, v))
      return true;
    if (v.kind == Verdict::Unknown) {
      error(op,
            "could not prove " + what + ": Z3 answered unknown (" + v.reason +
                ")",
            nullptr);
      return false;
    }
    error(op, what + " does not hold", &*v.model, points);
    return false;
  }

  //===--------------------------------------------------------------------===//
  // Structure: parallel loops, roles, barriers
  //===--------------------------------------------------------------------===//

  void checkStructure() {
    kernel.walk([&](scf::ForOp loop) {
      if (!levelOf(loop))
        return;
      if (loop.getNumRegionIterArgs() != 0)
        error(loop,
              "a loop mapped to " +
                  schedule::stringifyParallelLevel(*levelOf(loop)) +
                  " carries values between iterations (iter_args), so its "
                  "iterations cannot run at the same time",
              nullptr);
    });
    // Roles that run at the same time (in the same block) must not share
    // warpgroups.
    kernel.walk([&](Block *block) {
      SmallVector<schedule::RoleOp> roles;
      for (Operation &op : *block)
        if (auto role = llvm::dyn_cast<schedule::RoleOp>(op))
          roles.push_back(role);
      for (size_t i = 0; i < roles.size(); ++i)
        for (size_t j = i + 1; j < roles.size(); ++j) {
          if (roles[i].getName() == roles[j].getName())
            continue; // the same role, in two places of its program
          for (int64_t wg : roles[i].getWarpgroups())
            if (llvm::is_contained(roles[j].getWarpgroups(), wg)) {
              error(roles[j],
                    "roles \"" + roles[i].getName() + "\" and \"" +
                        roles[j].getName() + "\" both claim warpgroup " +
                        Twine(wg) + ", so one would wait for itself",
                    nullptr);
              break;
            }
        }
    });
    // Branches outside parallel loops depend only on program ids, sizes and
    // sequential loops, which every unit of the program agrees on; inside a
    // parallel loop, each iteration is a different unit.
    kernel.walk([&](schedule::BarrierOp barrier) {
      for (Operation *p = barrier->getParentOp(); p && p != kernel;
           p = p->getParentOp()) {
        auto loop = llvm::dyn_cast<scf::ForOp>(p);
        if (loop && levelOf(loop)) {
          error(barrier,
                "a barrier inside a loop mapped to " +
                    schedule::stringifyParallelLevel(*levelOf(loop)) +
                    " is reached by each unit on its own (and not at all "
                    "by units a branch skips); place it outside the "
                    "parallel loop",
                nullptr);
          return;
        }
      }
    });
  }

  //===--------------------------------------------------------------------===//
  // Thread-block clusters
  //===--------------------------------------------------------------------===//

  /// The programs of a cluster are `cluster[d]` consecutive program ids
  /// along each grid dimension: each dimension the cluster spans must be
  /// one of the grid's, and (where the launch contract gives the grid) a
  /// multiple of the cluster's size, or the launch fails. A cluster barrier
  /// waits for every program of the cluster, so each must reach it the
  /// same times: a program that skips an instance hangs the others.
  void checkClusters() {
    auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
        schedule::ScheduleDialect::kLaunchAttrName);
    if (!launch || launch.getCluster().empty())
      return;
    int64_t rank = kernel.getGridAttr().getInt();
    for (auto [d, size] : llvm::enumerate(launch.getCluster()))
      if (static_cast<int64_t>(d) >= rank && size != 1) {
        error(kernel,
              "the cluster spans " + Twine(size) + " programs along grid "
              "dimension " + Twine(d) + ", but the kernel's grid has " +
              Twine(rank) + " dimension(s): its extent there is 1",
              nullptr);
        return;
      }
    if (kernel->hasAttr(tile::TileDialect::kLaunchAttrName))
      for (auto [d, size] : llvm::enumerate(launch.getCluster()))
        if (size != 1)
          prove(kernel, model.assumptions(),
                z3::mod(model.gridExtent(d), ctx.int_val(size)) == 0,
                "the grid extent along dimension " + Twine(d) +
                    " is a multiple of the cluster's " + Twine(size) +
                    " (a launch of a partial cluster fails)",
                {});
    kernel.walk([&](schedule::BarrierOp barrier) {
      if (barrier.getScope() != schedule::BarrierScope::cluster)
        return;
      Instance ia{"@a", {}, ""}, ib{"@b", {}, "'"};
      z3::expr facts = model.executes(barrier, ia) &&
                       !model.executes(barrier, ib) &&
                       sameCluster(launch, ia, ib);
      for (auto [va, vb] : llvm::zip(model.loopVars(barrier, ia),
                                     model.loopVars(barrier, ib)))
        facts = facts && va == vb;
      std::pair<Operation *, Instance *> points[] = {{barrier, &ia}};
      prove(barrier, facts && model.assumptions(), ctx.bool_val(false),
            "every program of the cluster reaches this cluster barrier at "
            "the same iterations (a program that skips one leaves the "
            "others waiting)",
            points);
    });
  }

  /// Instances `ia` and `ib` run in programs of one cluster: along every
  /// grid dimension, in the same block of the cluster's size there (1, the
  /// same program id, along a dimension the cluster does not name).
  z3::expr sameCluster(schedule::LaunchAttr launch, Instance &ia,
                       Instance &ib) {
    z3::expr same = ctx.bool_val(true);
    ArrayRef<int64_t> cluster = launch.getCluster();
    for (int64_t d = 0; d < kernel.getGridAttr().getInt(); ++d) {
      int64_t size = d < static_cast<int64_t>(cluster.size()) ? cluster[d] : 1;
      same = same && model.programId(d, ia) / ctx.int_val(size) ==
                         model.programId(d, ib) / ctx.int_val(size);
    }
    return same;
  }

  //===--------------------------------------------------------------------===//
  // Data flow between roles
  //===--------------------------------------------------------------------===//

  /// Values live in the registers of the warpgroups that compute them: a
  /// role's results (and loop-carried values and results fed by them)
  /// belong to that role, and no other role may read them; roles share
  /// data through memory only. "" is "every warpgroup computes it".
  void checkRoleDataFlow() {
    DenseMap<Value, std::string> owner;
    auto ownerOf = [&](Value v) -> std::string {
      auto it = owner.find(v);
      return it == owner.end() ? std::string() : it->second;
    };
    // Loop-carried values take their yield's owner: iterate to a fixpoint.
    for (bool changed = true; changed;) {
      changed = false;
      auto set = [&](Value v, const std::string &o) {
        if (o.empty() || ownerOf(v) == o)
          return;
        if (!ownerOf(v).empty())
          return; // two owners: reported at the use
        owner[v] = o;
        changed = true;
      };
      kernel.walk([&](Operation *op) {
        if (auto role = llvm::dyn_cast<schedule::RoleOp>(op)) {
          std::string id = roleIdOf(role);
          for (Value r : role->getResults())
            set(r, id);
          return;
        }
        std::string inRole = roleOf(op);
        if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
          auto yield = llvm::cast<scf::YieldOp>(loop.getBody()->getTerminator());
          for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
            std::string o = ownerOf(yield.getOperand(i));
            if (o.empty())
              o = ownerOf(loop.getInitArgs()[i]);
            set(arg, o);
            set(loop.getResult(i), o);
          }
          return;
        }
        if (auto branch = llvm::dyn_cast<scf::IfOp>(op)) {
          for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
            if (!r->empty())
              for (auto [i, v] : llvm::enumerate(
                       r->front().getTerminator()->getOperands()))
                set(branch.getResult(i), ownerOf(v));
          return;
        }
        // Outside roles, a computation on a role's value runs where that
        // value lives.
        if (inRole.empty())
          for (Value operand : op->getOperands())
            for (Value r : op->getResults())
              set(r, ownerOf(operand));
      });
    }
    kernel.walk([&](Operation *op) {
      std::string here = roleOf(op);
      if (here.empty())
        return;
      for (Value operand : op->getOperands()) {
        std::string from = ownerOf(operand);
        if (from.empty() || from == here)
          continue;
        InFlightDiagnostic diag =
            mlir::emitError(op->getLoc())
            << "reads a value that lives in the registers of role " << from
            << ", from role " << here
            << ": warp roles share data only through memory";
        if (Operation *def = operand.getDefiningOp())
          diag.attachNote(def->getLoc()) << "the value is computed here";
        failed = true;
        return;
      }
    });
  }

  /// The identity of a role: its name and warpgroups.
  static std::string roleIdOf(schedule::RoleOp role) {
    std::string id = "\"" + role.getName().str() + "\" warpgroups [";
    llvm::raw_string_ostream os(id);
    llvm::interleaveComma(role.getWarpgroups(), os);
    return id + "]";
  }

  //===--------------------------------------------------------------------===//
  // Asynchronous results
  //===--------------------------------------------------------------------===//

  /// Commit groups of `unit` between `from` and `to` in the same block.
  unsigned commitsBetween(Operation *from, Operation *to,
                          schedule::AsyncUnit unit) {
    unsigned n = 0;
    for (Operation *op = from->getNextNode(); op && op != to;
         op = op->getNextNode())
      if (auto c = llvm::dyn_cast<schedule::CommitGroupOp>(op))
        n += c.getUnit() == unit;
    return n;
  }

  /// The uses of `v` that read the value, following it through region
  /// yields and loop-carried values. Uses as the accumulator of a tile.dot on
  /// the same asynchronous unit are ordered by the unit and skipped.
  /// A use, and whether it runs in a later iteration than the value's
  /// definition (reached through a loop-carried value).
  struct Use {
    OpOperand *operand;
    bool laterIteration;
  };

  void realUses(Value v, schedule::AsyncUnit unit, SmallVectorImpl<Use> &out,
                DenseSet<Value> &seen, bool later = false) {
    if (!seen.insert(v).second)
      return;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto dot = llvm::dyn_cast<tile::DotOp>(user)) {
        auto async = dot->getParentOfType<schedule::AsyncOp>();
        if (async && async.getUnit() == unit && use.get() == dot.getAcc())
          continue;
      }
      if (auto yield = llvm::dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        Value result = parent->getResult(use.getOperandNumber());
        realUses(result, unit, out, seen, later);
        if (auto loop = llvm::dyn_cast<scf::ForOp>(parent))
          realUses(loop.getRegionIterArgs()[use.getOperandNumber()], unit, out,
                   seen,
                   /*later=*/true);
        continue;
      }
      if (llvm::isa<schedule::YieldOp>(user)) {
        realUses(user->getParentOp()->getResult(use.getOperandNumber()), unit,
                 out, seen, later);
        continue;
      }
      out.push_back({&use, later});
    }
  }

  void checkAsyncResults() {
    kernel.walk([&](schedule::AsyncOp async) {
      if (async.getUnit() == schedule::AsyncUnit::tma)
        return;
      schedule::AsyncUnit unit = async.getUnit();
      // The group of this op is closed by the next commit in its block.
      bool committed = false;
      for (Operation *op = async->getNextNode(); op; op = op->getNextNode())
        if (auto c = llvm::dyn_cast<schedule::CommitGroupOp>(op);
            c && c.getUnit() == unit)
          committed = true;
      if (!committed) {
        error(async,
              "this " + schedule::stringifyAsyncUnit(unit) +
                  " operation is never committed to a group (add "
                  "schedule.commit_group after it), so no wait covers it",
              nullptr);
        return;
      }
      // A wait in the same block that retires its group.
      Operation *covering = nullptr;
      for (Operation *op = async->getNextNode(); op; op = op->getNextNode())
        if (auto w = llvm::dyn_cast<schedule::WaitGroupOp>(op);
            w && w.getUnit() == unit &&
            commitsBetween(async, w, unit) >=
                static_cast<unsigned>(w.getPendingAttr().getInt()) + 1) {
          covering = w;
          break;
        }
      SmallVector<Use> uses;
      DenseSet<Value> seen;
      for (Value r : async.getResults())
        realUses(r, unit, uses, seen);
      for (Use use : uses) {
        Operation *user = use.operand->getOwner();
        Operation *inBlock = async->getBlock()->findAncestorOpInBlock(*user);
        if (covering && (use.laterIteration || !inBlock ||
                         covering->isBeforeInBlock(inBlock)))
          continue; // after the covering wait, or in a later iteration
        if (!covering && !inBlock && retiredBefore(async, user, unit))
          continue; // a `pending 0` wait after the loop
        if (!covering && !inBlock)
          if (std::optional<bool> retired =
                  retiredConditionally(async, user, unit)) {
            if (!*retired)
              failed = true; // the proof's counterexample is reported
            continue;
          }
        InFlightDiagnostic diag = mlir::emitError(user->getLoc())
                                  << "reads the result of the asynchronous "
                                  << schedule::stringifyAsyncUnit(unit)
                                  << " operation at " << lineOf(async)
                                  << " before a wait_group retires it";
        diag.attachNote(async.getLoc())
            << (covering
                    ? "the covering wait comes after this read"
                    : "no wait_group retires its group before the read: "
                      "the wait depth is too shallow or the wait is missing");
        failed = true;
      }
      if (uses.empty() || covering)
        ++proved;
    });
  }

  /// True if a `wait_group pending 0` on `unit` runs after every instance of
  /// `async` (outside its loops) and before `user`.
  bool retiredBefore(Operation *async, Operation *user,
                     schedule::AsyncUnit unit) {
    for (Operation *scope = async->getParentOp();
         scope && scope != kernel->getParentOp();
         scope = scope->getParentOp()) {
      if (!llvm::isa<scf::ForOp>(scope))
        continue;
      // Walk forward from the loop, through the blocks that enclose `user`.
      for (Operation *op = scope->getNextNode(); op; op = op->getNextNode()) {
        bool found = false;
        op->walk([&](schedule::WaitGroupOp w) {
          // A wait retires the groups of its own warpgroups only.
          if (w.getUnit() != unit || w.getPendingAttr().getInt() != 0 ||
              roleOf(w) != roleOf(async))
            return;
          // Before the user in its block, or directly in a role region
          // (which its warpgroups always run) that ends before the user.
          Operation *at = w->getBlock()->findAncestorOpInBlock(*user);
          if (at ? w->isBeforeInBlock(at)
                 : w->getParentOp() == op && llvm::isa<schedule::RoleOp>(op) &&
                       !op->isAncestor(user))
            found = true;
        });
        if (found)
          return true;
        if (op->isAncestor(user))
          break;
      }
    }
    return false;
  }

  /// A `pending 0` wait on `unit` of the role after the loops of `async`
  /// that do not enclose it, under scf.if (the epilogue of a flattened
  /// persistent loop, a guard for an empty loop), before `user`: proved to
  /// run whenever `async` ran (in the same iteration of the loops around
  /// both). None when there is no such wait; else whether the proof holds
  /// (a failure is reported with its counterexample).
  std::optional<bool> retiredConditionally(schedule::AsyncOp async,
                                           Operation *user,
                                           schedule::AsyncUnit unit) {
    schedule::WaitGroupOp wait;
    kernel.walk([&](schedule::WaitGroupOp w) {
      if (wait || w.getUnit() != unit || w.getPendingAttr().getInt() != 0 ||
          roleOf(w) != roleOf(async))
        return;
      // The outermost loop around `async` that is not around `w` ends
      // before `w`.
      scf::ForOp issuing;
      for (scf::ForOp l : model.loops(async))
        if (!l->isAncestor(w)) {
          issuing = l;
          break;
        }
      Operation *wAt = issuing ? issuing->getBlock()->findAncestorOpInBlock(*w)
                               : nullptr;
      if (!wAt || !issuing->isBeforeInBlock(wAt))
        return;
      // `w`, under scf.if only, comes before `user`.
      Operation *at = w;
      while (at && !at->getBlock()->findAncestorOpInBlock(*user)) {
        at = at->getParentOp();
        if (at && !llvm::isa<scf::IfOp>(at))
          return;
      }
      Operation *userAt = at ? at->getBlock()->findAncestorOpInBlock(*user)
                             : nullptr;
      if (userAt && at != userAt && at->isBeforeInBlock(userAt))
        wait = w;
    });
    if (!wait)
      return std::nullopt;
    Instance ia = fresh("@issued"), iw = fresh("@drain");
    for (scf::ForOp l : model.loops(wait))
      if (l->isAncestor(async))
        iw.memo.emplace(l.getInductionVar().getAsOpaquePointer(),
                        model.inductionVar(l, ia));
    std::pair<Operation *, Instance *> points[] = {{async, &ia},
                                                   {wait, &iw}};
    return prove(user, model.executes(async, ia) && model.assumptions(),
                 model.executes(wait, iw),
                 "the wait_group at " + lineOf(wait) + " retires the " +
                     schedule::stringifyAsyncUnit(unit) + " at " +
                     lineOf(async) +
                     " before this read of its result (it runs whenever that " +
                     schedule::stringifyAsyncUnit(unit) + " ran)",
                 points);
  }

  //===--------------------------------------------------------------------===//
  // TMA transaction bytes
  //===--------------------------------------------------------------------===//

  static int64_t bytesOf(tile::CopyOp copy) {
    auto type = llvm::cast<MemRefType>(copy.getShared().getType());
    int64_t n = (type.getElementTypeBitWidth() + 7) / 8;
    for (int64_t d : copy.getTileShape())
      n *= d;
    return n;
  }

  /// Each TMA region completes its bytes on the phase of the closest
  /// arrive_expect_tx on its barrier array before it in its block; the
  /// regions of one arrive_expect_tx (one TMA copy region per operand, or
  /// all in one) deliver exactly the bytes it expects, on its element.
  void checkExpectTx() {
    llvm::MapVector<Operation *, SmallVector<schedule::AsyncOp>> regionsOf;
    kernel.walk([&](schedule::AsyncOp async) {
      if (async.getUnit() != schedule::AsyncUnit::tma || !async.getBarrier())
        return;
      schedule::MBarrierArriveExpectTxOp expect;
      for (Operation *op = async->getPrevNode(); op; op = op->getPrevNode())
        if (auto e = llvm::dyn_cast<schedule::MBarrierArriveExpectTxOp>(op);
            e && e.getBarriers() == async.getBarrier()) {
          expect = e;
          break;
        }
      if (!expect) {
        error(async,
              "TMA copies complete transaction bytes on an mbarrier, but "
              "no schedule.mbarrier.arrive_expect_tx on it precedes them "
              "in this block: the phase would complete before the data lands",
              nullptr);
        return;
      }
      regionsOf[expect].push_back(async);
    });
    for (auto &[op, regions] : regionsOf) {
      auto expect = llvm::cast<schedule::MBarrierArriveExpectTxOp>(op);
      int64_t bytes = 0;
      for (schedule::AsyncOp async : regions)
        for (Operation &inner : async.getBody().front().without_terminator())
          if (auto copy = llvm::dyn_cast<tile::CopyOp>(inner))
            bytes += bytesOf(copy);
      if (expect.getBytesAttr().getInt() != bytes) {
        InFlightDiagnostic diag =
            mlir::emitError(expect.getLoc())
            << "expects " << expect.getBytesAttr().getInt()
            << " transaction bytes, but the TMA copies that "
               "complete on this barrier deliver "
            << bytes;
        for (schedule::AsyncOp async : regions)
          diag.attachNote(async.getLoc()) << "the copies";
        failed = true;
        continue;
      }
      for (schedule::AsyncOp async : regions) {
        Instance inst{"", {}};
        z3::expr same = model.term(expect.getIndex(), inst) ==
                        model.term(async.getBarrierIndex(), inst);
        std::pair<Operation *, Instance *> points[] = {{async, &inst}};
        prove(async, model.executes(async, inst) && model.assumptions(), same,
              "the copies complete on the mbarrier that expects their bytes",
              points);
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Warp roles synchronized by mbarriers
  //===--------------------------------------------------------------------===//
  //
  // Model (count = N arrivals per phase): an mbarrier element's phases
  // complete in order, N arrivals each. In a correct protocol the waits on
  // an element, of all roles in sequential order, each wait for the phase
  // of the wait before (no arrival between) or the next one (exactly N
  // arrivals between, the other parity), the first for parity 0 after N
  // arrivals (checkWaitProtocol; fewer arrivals is a hang); and no arrival
  // after a wait in sequential order happens before it (no lapping). Then
  // a wait returns only after every arrival that precedes it in sequential
  // order, and
  //   X happens before Y  if  X (or its completion) precedes an arrival in
  //   its role, that arrival precedes a wait on the same element in
  //   sequential order, and the wait precedes Y in Y's role.
  // A TMA copy completes as a transaction on its region's mbarrier; a shared
  // tile read by a wgmma completes when a wait_group retires its group.
  // Each local condition is proved assuming the edges of the others, which
  // is an induction over the real-time order of the synchronization events.

  /// The role an op runs in ("" when all warpgroups run it).
  /// Roles are identified by name and warpgroups: two regions of one role
  /// run on the same warpgroups, in program order.
  static std::string roleOf(Operation *op) {
    auto role = op->getParentOfType<schedule::RoleOp>();
    return role ? roleIdOf(role) : std::string();
  }

  /// The agent of a memory access: its role, or its role's TMA unit.
  static std::string agentOf(Operation *op) {
    auto async = op->getParentOfType<schedule::AsyncOp>();
    return roleOf(op) +
           (async && async.getUnit() == schedule::AsyncUnit::tma ? "/tma" : "");
  }

  struct SyncPoint {
    Operation *op; // an arrive, arrive_expect_tx, wait, sync, or TMA region
    Value barriers;
    Value index;
  };

  SmallVector<SyncPoint> arrivals, waits;
  // CTA barriers outside the roles: every role reaches them.
  SmallVector<schedule::BarrierOp> ctaBarriers;

  void collectSync() {
    kernel.walk([&](Operation *op) {
      if (auto a = llvm::dyn_cast<schedule::MBarrierArriveOp>(op))
        arrivals.push_back({op, a.getBarriers(), a.getIndex()});
      else if (auto a = llvm::dyn_cast<schedule::MBarrierArriveExpectTxOp>(op))
        arrivals.push_back({op, a.getBarriers(), a.getIndex()});
      else if (auto w = llvm::dyn_cast<schedule::MBarrierWaitOp>(op))
        waits.push_back({op, w.getBarriers(), w.getIndex()});
      else if (auto s = llvm::dyn_cast<schedule::MBarrierSyncOp>(op)) {
        // A named barrier's sync: an arrival, then a wait for its phase.
        arrivals.push_back({op, s.getBarriers(), s.getIndex()});
        waits.push_back({op, s.getBarriers(), s.getIndex()});
      } else if (auto b = llvm::dyn_cast<schedule::BarrierOp>(op);
                 b && b.getScope() == schedule::BarrierScope::cta &&
                 roleOf(b).empty())
        ctaBarriers.push_back(b);
    });
  }

  z3::expr sameElement(const SyncPoint &a, Instance &ia, const SyncPoint &b,
                       Instance &ib) {
    return model.term(a.index, ia) == model.term(b.index, ib);
  }

  /// Arrival op `a` (in `ia`) comes before `y` in sequential order. A sync's
  /// arrival also comes before its own wait: the same op, in the same
  /// iteration of the same program.
  z3::expr arrivalBefore(Operation *a, Instance &ia, Operation *y,
                         Instance &iy) {
    z3::expr before = model.before(a, ia, y, iy);
    if (a != y || !isa<schedule::MBarrierSyncOp>(y) || ia.program != iy.program)
      return before;
    z3::expr same = ctx.bool_val(true);
    for (auto [x, z] : llvm::zip(model.loopVars(y, ia), model.loopVars(y, iy)))
      same = same && x == z;
    return before || same;
  }

  Instance fresh(StringRef prefix) {
    return Instance{(prefix + std::to_string(instanceCounter++)).str(), {}, ""};
  }

  /// For an op in a loop beside `anchor`'s (a ring that runs on from one
  /// K loop into the next): `loops`' variables with the loops around
  /// `anchor` too at its values and the innermost, the only other one,
  /// `distance` steps from its end (direction -1: the loop before the
  /// anchor) or from its start (+1: the loop after it).
  std::optional<std::vector<z3::expr>>
  edgeIteration(ArrayRef<scf::ForOp> loops, Operation *anchor,
                Instance &ianchor, int64_t distance, int direction) {
    SmallVector<scf::ForOp> shared = model.loops(anchor);
    if (loops.empty() || loops.size() > shared.size() + 1 ||
        !std::equal(loops.begin(), loops.end() - 1, shared.begin()) ||
        (loops.size() <= shared.size() &&
         loops.back() == shared[loops.size() - 1]))
      return std::nullopt;
    std::vector<z3::expr> values;
    for (scf::ForOp loop : loops.drop_back())
      values.push_back(model.inductionVar(loop, ianchor));
    scf::ForOp inner = loops.back();
    z3::expr step = model.term(inner.getStep(), ianchor);
    values.push_back(direction < 0
                         ? model.term(inner.getUpperBound(), ianchor) -
                               step * ctx.int_val(1 + distance)
                         : model.term(inner.getLowerBound(), ianchor) +
                               step * ctx.int_val(distance));
    return values;
  }

  /// The size of an mbarrier array: a ring's period.
  static int64_t ringPeriod(Value barriers) {
    auto init = barriers.getDefiningOp<schedule::MBarrierInitOp>();
    return init ? std::max<int64_t>(1, init.getType().getSize()) : 1;
  }

  /// The iterations of `op` one ring period (the mbarrier array's size) of
  /// its innermost loop after `after` in `iafter` and before `before` in
  /// `ibefore`: where a ring indexed by the iteration comes back to the same
  /// element, the instances a proof about consecutive uses needs.
  std::vector<std::vector<z3::expr>>
  ringNeighbours(Operation *op, Value barriers, Operation *after,
                 Instance &iafter, Operation *before, Instance &ibefore) {
    int64_t period = ringPeriod(barriers);
    std::vector<std::vector<z3::expr>> result;
    // In a loop beside the anchor's (a ring run on from one loop into the
    // next): the iterations at that end of the loop, within a period.
    auto nearEdge = [&](Operation *anchor, Instance &ianchor, int direction) {
      for (int64_t d = 0; d <= period; ++d)
        if (auto at = edgeIteration(model.loops(op), anchor, ianchor, d,
                                    direction))
          result.push_back(std::move(*at));
    };
    if (after) {
      if (auto next = model.shiftedIteration(op, after, iafter, period))
        result.push_back(std::move(*next));
      else
        nearEdge(after, iafter, 1);
    }
    if (auto previous = model.shiftedIteration(op, before, ibefore, -period))
      result.push_back(std::move(*previous));
    else
      nearEdge(before, ibefore, -1);
    return result;
  }

  /// No wait on `w`'s element, of any role, comes between `from` and `w`
  /// (with `otherThan`, none for another parity than that). With
  /// `fromArrival`, `from` is an arrival, which a sync's wait follows.
  z3::expr noWaitBetween(Operation *from, Instance &ifrom, const SyncPoint &w,
                         Instance &iw, const z3::expr *otherThan = nullptr,
                         bool fromArrival = false) {
    z3::expr none = ctx.bool_val(true);
    for (const SyncPoint &other : waits) {
      if (other.barriers != w.barriers)
        continue;
      Instance io = fresh("@between");
      z3::expr between =
          model.executes(other.op, io) && sameElement(other, io, w, iw) &&
          (fromArrival ? arrivalBefore(from, ifrom, other.op, io)
                       : model.before(from, ifrom, other.op, io)) &&
          model.before(other.op, io, w.op, iw);
      if (otherThan)
        between = between && waitParity(other.op, io) != *otherThan;
      none = none && model.forAll(model.loopVars(other.op, io), !between,
                                  ringNeighbours(other.op, w.barriers, from,
                                                 ifrom, w.op, iw));
    }
    return none;
  }

  /// Instantiations of the loop variables of `ops` at the iterations of
  /// `anchor` (in `ianchor`) up to `period` steps before it (`direction`
  /// -1) or after it (+1): where the ops of a ring protocol usually meet.
  /// Also that many steps into the neighbouring iteration of an outer loop
  /// on that side (a persistent kernel's ring running on across tiles), and
  /// for an op in a loop beside the anchor's, the end of that loop on that
  /// side (edgeIteration). Hints only.
  std::vector<std::vector<z3::expr>>
  nearbyIterations(ArrayRef<Operation *> ops, Operation *anchor,
                   Instance &ianchor, int64_t period, int direction) {
    std::vector<std::vector<z3::expr>> result;
    for (int wrap : {0, direction})
      for (int64_t step = 0; step <= period; ++step) {
        std::vector<z3::expr> values;
        bool all = true, wrapped = false;
        for (auto [k, op] : llvm::enumerate(ops)) {
          SmallVector<scf::ForOp> loops = model.loops(op);
          if (loops.empty())
            continue;
          // Repeats of one op: a step apart, the last nearest the anchor.
          int64_t repeats = direction < 0
                                ? llvm::count(ops.drop_front(k + 1), op)
                                : llvm::count(ops.take_front(k), op);
          int64_t distance = step + repeats;
          auto at = model.shiftedIteration(op, anchor, ianchor,
                                           direction * distance);
          if (at && wrap && loops.size() >= 2) {
            wrapped = true;
            size_t inner = loops.size() - 1;
            z3::expr span =
                model.term(loops[inner].getUpperBound(), ianchor) -
                model.term(loops[inner].getLowerBound(), ianchor);
            (*at)[inner - 1] = (*at)[inner - 1] +
                               ctx.int_val(wrap) *
                                   model.term(loops[inner - 1].getStep(),
                                              ianchor);
            (*at)[inner] = (*at)[inner] - ctx.int_val(wrap) * span;
          } else if (!at && !wrap) {
            at = edgeIteration(loops, anchor, ianchor, distance, direction);
          }
          if (!at) {
            all = false;
            break;
          }
          llvm::append_range(values, *at);
        }
        if (all && !values.empty() && (wrap == 0 || wrapped))
          result.push_back(std::move(values));
      }
    return result;
  }

  /// Calls `fn(ops, insts, chain)` for every choice of `n` arrival ops on
  /// `w`'s barrier array (nondecreasing in `arrivals`, one op may arrive in
  /// several iterations), `chain` saying that they run in that sequential
  /// order on `w`'s element before `w`. A sync's own arrival is the last of
  /// every run before its wait: the run holds it (in `chain`), and `fn` is
  /// given the n - 1 arrivals before it.
  void forEachArrivalRun(
      size_t n, const SyncPoint &w, Instance &iw,
      llvm::function_ref<void(ArrayRef<Operation *>, MutableArrayRef<Instance>,
                              const z3::expr &)>
          fn) {
    if (isa<schedule::MBarrierSyncOp>(w.op))
      --n;
    SmallVector<size_t> chosen;
    std::function<void(size_t)> choose = [&](size_t from) {
      if (chosen.size() == n) {
        SmallVector<Operation *> ops;
        SmallVector<Instance> insts;
        for (size_t x : chosen) {
          ops.push_back(arrivals[x].op);
          insts.push_back(fresh("@a"));
        }
        z3::expr chain = ctx.bool_val(true);
        for (size_t k = 0; k < n; ++k) {
          const SyncPoint &a = arrivals[chosen[k]];
          chain = chain && model.executes(a.op, insts[k]) &&
                  sameElement(a, insts[k], w, iw);
          if (k)
            chain = chain &&
                    model.before(ops[k - 1], insts[k - 1], a.op, insts[k]);
        }
        chain = chain && model.before(ops.back(), insts.back(), w.op, iw);
        fn(ops, insts, chain);
        return;
      }
      for (size_t x = from; x < arrivals.size(); ++x) {
        if (arrivals[x].barriers != w.barriers)
          continue;
        chosen.push_back(x);
        choose(x);
        chosen.pop_back();
      }
    };
    choose(0);
  }

  /// Two consecutive waits on an element (`consecutive`, with the facts)
  /// with an arrival between them: the later one waits for the next phase.
  /// Most waits never share a phase, so the stronger claim without the
  /// arrival is tried first (Z3 answers it with a model more readily); a
  /// model of it with an arrival between is a counterexample of the claim.
  void checkParityAlternates(const SyncPoint &w, Instance &iw,
                             const SyncPoint &p, Instance &ip,
                             const z3::expr &consecutive,
                             const z3::expr &parity, const z3::expr &pParity) {
    std::string what = "this wait on " + describeMemory(w.barriers) +
                       " waits for the phase after the previous wait's "
                       "(parities alternate)";
    std::pair<Operation *, Instance *> both[] = {{p.op, &ip}, {w.op, &iw}};
    z3::expr anyBetween = ctx.bool_val(false);
    for (const SyncPoint &a : arrivals) {
      if (a.barriers != w.barriers)
        continue;
      Instance ia = fresh("@a");
      anyBetween = anyBetween ||
                   (model.executes(a.op, ia) && sameElement(a, ia, w, iw) &&
                    model.before(p.op, ip, a.op, ia) &&
                    arrivalBefore(a.op, ia, w.op, iw));
    }
    z3::expr same = consecutive && parity == pParity;
    Verdict v;
    if (refuted(w.op, same, what, both, v))
      return;
    if (v.kind == Verdict::Sat &&
        prover.check(pinnedTo(*v.model, same) && anyBetween,
                     what + " (model)", {}, {})
                .kind == Verdict::Sat) {
      error(w.op, what + " does not hold", &*v.model, both);
      return;
    }
    prove(w.op, consecutive && anyBetween, parity != pParity, what, both);
  }

  /// `f` with each of its constants (outside quantifiers) at its value in
  /// `m`: whether something exists in that very configuration.
  z3::expr pinnedTo(const z3::model &m, const z3::expr &f) {
    z3::expr pinned = f;
    forEachConstant(
        f, [&](const z3::expr &c) { pinned = pinned && c == m.eval(c, true); },
        /*intoQuantifiers=*/false);
    return pinned;
  }

  /// The protocol of each element's waits, of all roles together in
  /// sequential order: the first waits for parity 0 after N arrivals; each
  /// later one waits for the phase of the wait before it (no arrival
  /// between, same parity: two consumers of one slot) or for the next one
  /// (exactly N arrivals between, the other parity: a waiter may skip the
  /// phases other roles waited for, as ping-pong consumers do). Then each
  /// wait returns on exactly the arrivals up to it; fewer is a hang (an
  /// arrive left out, or the final arrive of a tile whose ring the next
  /// tile goes on using), more lets the waiter fall a phase behind.
  void checkWaitProtocol() {
    for (const SyncPoint &w : waits) {
      auto init = w.barriers.getDefiningOp<schedule::MBarrierInitOp>();
      if (!init) {
        error(w.op,
              "the schedule checker follows mbarriers from their "
              "schedule.mbarrier.init in this kernel",
              nullptr);
        continue;
      }
      int64_t count = init.getCountAttr().getInt();
      Instance iw = fresh("@w");
      z3::expr runs = model.executes(w.op, iw);
      z3::expr parity = waitParity(w.op, iw);
      std::string arrivalsText =
          (count == 1 ? std::string("an arrival")
                      : std::to_string(count) + " arrivals") +
          " on " + describeMemory(w.barriers);
      // The phase's arrivals precede the sync in sequential order, so a
      // phase that two roles both sync on (each waiting for the other) is
      // not one this model follows.
      bool sync = isa<schedule::MBarrierSyncOp>(w.op);
      std::string syncHang = "otherwise this sync never returns; where two "
                             "roles meet, one arrives and the other syncs";
      std::string hang = sync ? syncHang : "otherwise this wait never returns";
      std::string firstHang = sync ? syncHang : "otherwise it never returns";
      z3::expr noPrevious = ctx.bool_val(true);
      for (const SyncPoint &p : waits) {
        if (p.barriers != w.barriers)
          continue;
        Instance ip = fresh("@p");
        z3::expr earlier = model.executes(p.op, ip) &&
                           sameElement(p, ip, w, iw) &&
                           model.before(p.op, ip, w.op, iw);
        noPrevious =
            noPrevious &&
            model.forAll(model.loopVars(p.op, ip), !earlier,
                         ringNeighbours(p.op, w.barriers, nullptr, iw, w.op,
                                        iw));
        z3::expr consecutive = runs && earlier &&
                               noWaitBetween(p.op, ip, w, iw) &&
                               model.assumptions();
        z3::expr pParity = waitParity(p.op, ip);
        checkParityAlternates(w, iw, p, ip, consecutive, parity, pParity);
        // Waiting for the phase after p's: `count` arrivals after p.
        std::pair<Operation *, Instance *> points[] = {{p.op, &ip},
                                                       {w.op, &iw}};
        requireArrivals(
            w, iw, count, p.op, &ip, consecutive && parity != pParity,
            "the phase this wait waits for completes: " + arrivalsText +
                " after the wait before it on that element, "
                "which waits for the previous phase (" +
                hang + ")",
            points);
      }
      std::pair<Operation *, Instance *> first[] = {{w.op, &iw}};
      prove(w.op, runs && noPrevious && model.assumptions(), parity == 0,
            "the first wait on " + describeMemory(w.barriers) +
                " waits for parity 0",
            first);
      requireArrivals(w, iw, count, nullptr, nullptr,
                      runs && noPrevious && model.assumptions(),
                      "the phase the first wait on that element waits for "
                      "completes: " +
                          arrivalsText + " before it (" + firstHang + ")",
                      first);
      // At most `count` arrivals between the previous wait (or the start)
      // and this one: otherwise the waiter can be a whole phase behind.
      std::string arrivalsPerPhase =
          count == 1 ? "one arrival on " + describeMemory(w.barriers) +
                           " completes"
                     : std::to_string(count) + " arrivals on " +
                           describeMemory(w.barriers) + " complete";
      forEachArrivalRun(
          count + 1, w, iw,
          [&](ArrayRef<Operation *> ops, MutableArrayRef<Instance> insts,
              const z3::expr &chain) {
            z3::expr many =
                chain && noWaitBetween(ops.front(), insts.front(), w, iw,
                                       nullptr, /*fromArrival=*/true);
            SmallVector<std::pair<Operation *, Instance *>> points;
            for (auto [op, inst] : llvm::zip(ops, insts))
              points.push_back({op, &inst});
            points.push_back({w.op, &iw});
            prove(w.op, runs && model.assumptions(), !many,
                  arrivalsPerPhase + " each phase this wait waits for (" +
                      (count == 1 ? std::string("two")
                                  : std::to_string(count + 1)) +
                      " arrivals with no wait between let the waiter fall a "
                      "phase behind)",
                  points);
          });
    }
  }

  /// Under `facts`, `count` arrivals on `w`'s element come after `after`
  /// (in `iafter`; the start where null) and before `w`: refuted with the
  /// arrivals stated at the iterations near `w` where rings put them.
  void requireArrivals(const SyncPoint &w, Instance &iw, int64_t count,
                       Operation *after, Instance *iafter,
                       const z3::expr &facts, const Twine &what,
                       ArrayRef<std::pair<Operation *, Instance *>> points) {
    z3::expr none = ctx.bool_val(true), ground = ctx.bool_val(true),
             denied = ctx.bool_val(false);
    forEachArrivalRun(
        count, w, iw,
        [&](ArrayRef<Operation *> ops, MutableArrayRef<Instance> insts,
            const z3::expr &chain) {
          z3::expr filled =
              after ? chain && model.before(after, *iafter, ops.front(),
                                            insts.front())
                    : chain;
          std::vector<z3::expr> vars;
          for (auto [op, inst] : llvm::zip(ops, insts))
            llvm::append_range(vars, model.loopVars(op, inst));
          none = none && model.forAll(vars, !filled);
          ground = ground &&
                   model.instances(vars, !filled,
                                   nearbyIterations(ops, w.op, iw,
                                                    ringPeriod(w.barriers),
                                                    -1));
          denied = denied || filled;
        });
    refute(w.op, facts, ground, none, denied, what, points);
  }

  /// Wait `w` (in `iw`) is on the mbarrier element TMA region `region` (in
  /// `ir`) completes on, and follows the region in sequential order: with
  /// exact phases it returns only after the region's bytes landed.
  z3::expr waitsAfter(schedule::AsyncOp region, Instance &ir,
                      const SyncPoint &w, Instance &iw) {
    return model.executes(w.op, iw) &&
           model.term(region.getBarrierIndex(), ir) ==
               model.term(w.index, iw) &&
           model.before(region, ir, w.op, iw);
  }

  /// Every TMA copy into shared memory completes before the program ends:
  /// a wait on its region's mbarrier element follows it in sequential
  /// order (with exact phases that wait returns only after its bytes
  /// landed). Bytes nobody waits for may land after the program's shared
  /// memory went to the next program on the SM.
  void checkTmaLoadsAwaited() {
    kernel.walk([&](schedule::AsyncOp region) {
      if (region.getUnit() != schedule::AsyncUnit::tma || !region.getBarrier())
        return;
      Instance ir = fresh("@load");
      z3::expr none = ctx.bool_val(true), ground = ctx.bool_val(true),
               denied = ctx.bool_val(false);
      for (const SyncPoint &w : waits) {
        if (w.barriers != region.getBarrier())
          continue;
        Instance iw = fresh("@lw");
        Operation *ops[] = {w.op};
        z3::expr awaited = waitsAfter(region, ir, w, iw);
        std::vector<z3::expr> vars = model.loopVars(w.op, iw);
        none = none && model.forAll(vars, !awaited);
        denied = denied || awaited;
        ground = ground &&
                 model.instances(vars, !awaited,
                                 nearbyIterations(ops, region, ir,
                                                  ringPeriod(w.barriers), 1));
      }
      std::pair<Operation *, Instance *> points[] = {{region, &ir}};
      refute(region, model.executes(region, ir) && model.assumptions(), ground,
             none, denied,
             "a wait on " + describeMemory(region.getBarrier()) +
                " follows this TMA copy before the program ends (otherwise "
                "its bytes may land after the program's shared memory is "
                "reused)",
            points);
    });
  }

  /// Where an access is complete: a TMA copy at its region (on the region's
  /// mbarrier), a shared read feeding a wgmma where a wait_group retires
  /// that group, anything else at itself. Returns false if the pattern is
  /// not modeled.
  struct Release {
    Operation *op;
    Instance inst;
  };

  /// The wgmma/mfma region that reads a shared tile, directly or transposed
  /// (which the unit does through its shared-memory descriptor), if any.
  static schedule::AsyncOp asyncReaderOf(Operation *op) {
    auto read = llvm::dyn_cast<tile::ReadOp>(op);
    if (!read)
      return {};
    SmallVector<Value> tiles{read.getResult()};
    while (!tiles.empty()) {
      Value t = tiles.pop_back_val();
      for (Operation *user : t.getUsers()) {
        if (auto tr = llvm::dyn_cast<tile::TransposeOp>(user)) {
          tiles.push_back(tr.getResult());
          continue;
        }
        auto dot = llvm::dyn_cast<tile::DotOp>(user);
        auto async = dot ? dot->getParentOfType<schedule::AsyncOp>() : nullptr;
        if (async && async.getUnit() != schedule::AsyncUnit::tma)
          return async;
      }
    }
    return {};
  }

  /// The TMA store region whose copy reads shared memory at `op`, if any.
  static schedule::AsyncOp tmaStoreOf(Operation *op) {
    auto copy = llvm::dyn_cast<tile::CopyOp>(op);
    auto async = op->getParentOfType<schedule::AsyncOp>();
    if (!copy || copy.isGlobalToShared() || !async ||
        async.getUnit() != schedule::AsyncUnit::tma)
      return {};
    return async;
  }

  /// The asynchronous region that keeps reading shared memory after `op`
  /// issued: a wgmma reading its operand tile, a TMA store its buffer.
  static schedule::AsyncOp asyncSharedReaderOf(Operation *op) {
    if (schedule::AsyncOp reader = asyncReaderOf(op))
      return reader;
    return tmaStoreOf(op);
  }

  std::optional<Release> releaseOf(const Access &x, Instance &ix) {
    // A tile a wgmma reads, or a TMA store's buffer, is read by the unit
    // until its group retires.
    if (schedule::AsyncOp async = asyncSharedReaderOf(x.op))
      return retiringWait(async, ix);
    return Release{x.op, Instance{ix.suffix, ix.memo, ix.program}};
  }

  /// The wait_group instance that retires `async` executed in `ia`. The
  /// group of `async` is closed by the first commit after it in its block;
  /// a wait with `pending P` later in the block retires it once at least P
  /// groups were committed after it. In the body of a unit-step loop with c
  /// commit_groups per iteration, a wait in iteration k + d does too:
  /// count them and take the first such wait.
  std::optional<Release> retiringWait(schedule::AsyncOp async, Instance &ia) {
    Block *block = async->getBlock();
    schedule::AsyncUnit unit = async.getUnit();
    SmallVector<scf::ForOp> loops = model.loops(async);
    scf::ForOp loop = loops.empty() ? scf::ForOp() : loops.back();
    std::optional<int64_t> step =
        loop ? getConstantIntValue(loop.getStep()) : std::nullopt;
    // Otherwise only waits of the same execution of the block count.
    bool acrossIterations = loop && loop->isAncestor(block->getParentOp()) &&
                            step && *step == 1;
    // Positions of commits and waits of this unit in the block.
    SmallVector<Operation *> commits;
    int closing = -1;
    for (Operation &op : *block)
      if (auto c = llvm::dyn_cast<schedule::CommitGroupOp>(op);
          c && c.getUnit() == unit) {
        if (closing < 0 && async->isBeforeInBlock(c))
          closing = commits.size();
        commits.push_back(c);
      }
    if (closing < 0)
      return std::nullopt;
    int64_t perIteration = commits.size();
    std::optional<Release> best;
    int64_t bestDistance = 0;
    for (Operation &op : *block) {
      auto w = llvm::dyn_cast<schedule::WaitGroupOp>(op);
      if (!w || w.getUnit() != unit)
        continue;
      int64_t before = llvm::count_if(
          commits, [&](Operation *c) { return c->isBeforeInBlock(w); });
      int64_t pending = w.getPendingAttr().getInt();
      // Groups committed after ours by this wait in iteration k + d:
      //   d = 0: before - closing - 1 (only if the wait follows our commit)
      //   d > 0: perIteration - closing - 1 + (d - 1) * perIteration + before
      int64_t d = 0;
      if (!(before > closing && before - closing - 1 >= pending)) {
        if (!acrossIterations)
          continue;
        int64_t need = pending - (perIteration - closing - 1) - before;
        d = 1 + (need > 0 ? (need + perIteration - 1) / perIteration : 0);
      }
      if (best && d >= bestDistance)
        continue;
      Instance ir{ia.suffix + "@retire", {}, ia.program};
      for (scf::ForOp l : loops) {
        z3::expr iv = model.inductionVar(l, ia);
        ir.memo.emplace(l.getInductionVar().getAsOpaquePointer(),
                        l == loop ? iv + ctx.int_val(d) : iv);
      }
      best = Release{w, std::move(ir)};
      bestDistance = d;
    }
    return best;
  }

  /// The iterations that witness a happens-before edge where there is one:
  /// (loop variable of an "@hb" instance, its value there). noHappensBefore
  /// states its quantifier at them too.
  using Witnesses = std::vector<std::pair<z3::expr, z3::expr>>;

  /// Adds `op` in `inst` witnessed at `anchor`'s iteration in `ianchor`
  /// (where the loops around `op` are around `anchor`), moved by `shift`
  /// iterations of its innermost loop. A variable witnessed twice is
  /// stated at each in turn (see noHappensBefore).
  void witness(Witnesses &witnesses, Operation *op, Instance &inst,
               Operation *anchor, Instance &ianchor, int64_t shift = 0) {
    auto values = model.shiftedIteration(op, anchor, ianchor, shift);
    if (!values)
      return;
    for (auto [var, value] : llvm::zip(model.loopVars(op, inst), *values))
      witnesses.emplace_back(var, value);
  }

  /// "x (complete at `rel`) happens before y at `iy`" through mbarriers:
  /// one edge (an arrival after the release, a wait of y's role on its
  /// element before y), or a chain of them through the other roles (an
  /// arrival of role R after R waited for the previous edge: R hands the
  /// order on), each role at most once. The edges that usually exist are
  /// added to `witnesses`, at the iteration of the release or of y.
  z3::expr happensBefore(Release &rel, Operation *x, Instance &ix, Operation *y,
                         Instance &iy, Witnesses &witnesses) {
    llvm::StringSet<> visited;
    visited.insert(roleOf(rel.op));
    visited.insert(roleOf(y));
    return chainBefore(rel, x, ix, y, iy, y, iy, witnesses, visited);
  }

  /// happensBefore's chains ending at `y` (in `iy`), through roles not in
  /// `visited`; witnesses of y's side anchored at `anchor` (the chain's
  /// last op, whose instance is the problem's, not a quantified one).
  z3::expr chainBefore(Release &rel, Operation *x, Instance &ix, Operation *y,
                       Instance &iy, Operation *anchor, Instance &ianchor,
                       Witnesses &witnesses, llvm::StringSet<> &visited) {
    z3::expr any = directBefore(rel, x, ix, y, iy, anchor, ianchor, witnesses);
    // An arrival of another role R after R waited for x's edge, then a wait
    // of y's role on that arrival's element.
    for (const SyncPoint &a : arrivals) {
      std::string relay = roleOf(a.op);
      if (relay.empty() || visited.contains(relay))
        continue;
      for (const SyncPoint &w : waits) {
        if (w.barriers != a.barriers || roleOf(w.op) != roleOf(y))
          continue;
        Instance ia = fresh("@hba"), iw = fresh("@hbw");
        z3::expr handOver =
            model.executes(a.op, ia) && model.executes(w.op, iw) &&
            sameElement(a, ia, w, iw) && arrivalBefore(a.op, ia, w.op, iw) &&
            model.before(w.op, iw, y, iy);
        witness(witnesses, a.op, ia, anchor, ianchor);
        witness(witnesses, w.op, iw, anchor, ianchor);
        visited.insert(relay);
        z3::expr toRelay = chainBefore(rel, x, ix, a.op, ia, anchor, ianchor,
                                       witnesses, visited);
        visited.erase(relay);
        any = any || (handOver && toRelay);
      }
    }
    return any;
  }

  /// One edge from x's release to `y`: an mbarrier's, or a CTA barrier's.
  z3::expr directBefore(Release &rel, Operation *x, Instance &ix, Operation *y,
                        Instance &iy, Operation *anchor, Instance &ianchor,
                        Witnesses &witnesses) {
    z3::expr any = ctx.bool_val(false);
    // A TMA copy into shared memory releases through its region's
    // transaction bytes (a TMA store, through the wait_group in `rel`).
    auto tma = x->getParentOfType<schedule::AsyncOp>();
    bool viaTma = tma && tma.getUnit() == schedule::AsyncUnit::tma &&
                  tma.getBarrier();
    for (const SyncPoint &w : waits) {
      if (roleOf(w.op) != roleOf(y))
        continue;
      if (viaTma) {
        if (w.barriers != tma.getBarrier())
          continue;
        Instance iw = fresh("@hbw");
        z3::expr edge =
            model.executes(w.op, iw) &&
            model.term(tma.getBarrierIndex(), ix) == model.term(w.index, iw) &&
            model.before(tma, ix, w.op, iw) && model.before(w.op, iw, y, iy);
        any = any || edge;
        witness(witnesses, w.op, iw, anchor, ianchor);
        continue;
      }
      for (const SyncPoint &a : arrivals) {
        if (a.barriers != w.barriers || roleOf(a.op) != roleOf(rel.op))
          continue;
        Instance ia = fresh("@hba"), iw = fresh("@hbw");
        z3::expr edge =
            model.executes(rel.op, rel.inst) && model.executes(a.op, ia) &&
            model.executes(w.op, iw) && sameElement(a, ia, w, iw) &&
            model.before(rel.op, rel.inst, a.op, ia) &&
            arrivalBefore(a.op, ia, w.op, iw) && model.before(w.op, iw, y, iy);
        any = any || edge;
        // The arrival right after the release, or (a release of the
        // previous step's slot, as rings write it) one step later.
        witness(witnesses, a.op, ia, rel.op, rel.inst);
        witness(witnesses, a.op, ia, rel.op, rel.inst, 1);
        witness(witnesses, w.op, iw, anchor, ianchor);
      }
    }
    // A CTA barrier outside the roles, which every role reaches in program
    // order (a TMA copy is not complete when its role reaches it).
    if (!viaTma)
      for (schedule::BarrierOp barrier : ctaBarriers) {
        Instance ib = fresh("@hbb");
        any = any || (model.executes(rel.op, rel.inst) &&
                      model.executes(barrier, ib) &&
                      model.before(rel.op, rel.inst, barrier, ib) &&
                      model.before(barrier, ib, y, iy));
        witness(witnesses, barrier, ib, anchor, ianchor);
      }
    return any;
  }

  /// Calls `fn(c, ic, w, iw, drained)` for every drain of `async`'s unit
  /// that can complete `x` (in `ix`): a commit_group `c` of its role after
  /// `x` and a `pending 0` wait_group `w` of its role after that commit,
  /// `drained` saying so over fresh instances whose names start with
  /// `prefix`.
  void forEachDrain(Operation *x, Instance &ix, schedule::AsyncOp async,
                    StringRef prefix,
                    llvm::function_ref<void(Operation *, Instance &, Operation *,
                                            Instance &, const z3::expr &)>
                        fn) {
    schedule::AsyncUnit unit = async.getUnit();
    kernel.walk([&](schedule::WaitGroupOp w) {
      if (w.getUnit() != unit || w.getPendingAttr().getInt() != 0 ||
          roleOf(w) != roleOf(async))
        return;
      kernel.walk([&](schedule::CommitGroupOp c) {
        if (c.getUnit() != unit || roleOf(c) != roleOf(async))
          return;
        Instance ic = fresh((prefix + "c").str()),
                 iw = fresh((prefix + "w").str());
        z3::expr drained = model.executes(c, ic) && model.executes(w, iw) &&
                           model.before(x, ix, c, ic) &&
                           model.before(c, ic, w, iw);
        fn(c, ic, w, iw, drained);
      });
    });
  }

  /// The other way a wgmma's read of `x` completes: a drain (the epilogue's
  /// `pending 0`, at the end of a tile whose next step never comes), from
  /// which an mbarrier edge leads to `y`. Its instances are named "@hb..."
  /// so that noHappensBefore quantifies them.
  z3::expr drainedThenHappensBefore(Operation *x, Instance &ix,
                                    schedule::AsyncOp reader, Operation *y,
                                    Instance &iy, Witnesses &witnesses) {
    z3::expr any = ctx.bool_val(false);
    forEachDrain(x, ix, reader, "@hb",
                 [&](Operation *, Instance &, Operation *w, Instance &iw,
                     const z3::expr &drained) {
                   Release drain{w, iw};
                   any = any || (drained && happensBefore(drain, x, ix, y, iy,
                                                          witnesses));
                 });
    return any;
  }

  /// Conflicting shared-memory accesses of different roles (or of a role
  /// and its TMA unit) are ordered by an mbarrier edge, in sequential order.
  void checkRoleSynchronization() {
    collectSync();
    bool anyCrossRole = false;
    for (size_t i = 0; i < accesses.size(); ++i)
      for (size_t j = 0; j < accesses.size(); ++j) {
        const Access &x = accesses[i], &y = accesses[j];
        // Shared memory, and global memory the roles of one program share.
        if (x.kind == Access::Element || y.kind == Access::Element ||
            x.kind != y.kind || x.memory != y.memory || !(x.write || y.write))
          continue;
        Instance ix = fresh("@x"), iy = fresh("@y");
        if (roleOf(x.op) == roleOf(y.op)) {
          // A tile a wgmma reads is read until a wait_group of this role
          // retires the wgmma, whoever touches the slot next; a TMA store
          // reads its buffer, and writes global memory, until a wait_group
          // tma retires its group.
          auto tma = x.op->getParentOfType<schedule::AsyncOp>();
          auto copy = dyn_cast<tile::CopyOp>(x.op);
          bool tmaStore = tma && tma.getUnit() == schedule::AsyncUnit::tma &&
                          copy && !copy.isGlobalToShared();
          if (schedule::AsyncOp reader = asyncReaderOf(x.op)) {
            if (x.kind == Access::Slot && y.write)
              checkRetiredBefore(x, ix, reader, y, iy);
            continue;
          }
          if (tmaStore) {
            if (agentOf(y.op) == roleOf(y.op)) {
              checkRetiredBefore(x, ix, tma, y, iy);
              continue;
            }
            // Its global write against other TMA copies: below.
            if (!x.write)
              continue;
          }
          if (agentOf(x.op) == agentOf(y.op)) {
            // Program order orders a role's own accesses, but not the
            // copies of its TMA unit, which complete in any order.
            if (i <= j && StringRef(agentOf(x.op)).ends_with("/tma"))
              checkTmaCopiesSeparated(x, y);
            continue;
          }
          // A role and the TMA unit it drives: issuing a TMA op after a
          // thread access orders them (the fence check covers visibility).
          if (agentOf(y.op) != roleOf(y.op))
            continue;
        }
        anyCrossRole = true;
        std::optional<Release> rel = releaseOf(x, ix);
        if (!rel) {
          error(x.op,
                "the schedule checker cannot tell when this access completes: "
                "the wgmma (or TMA store) that accesses it must be committed "
                "and waited for later in its block, or in the body of a loop "
                "with step 1",
                nullptr);
          continue;
        }
        z3::expr conflict = model.executes(x.op, ix) &&
                            model.executes(y.op, iy) && overlap(x, ix, y, iy) &&
                            model.before(x.op, ix, y.op, iy);
        Witnesses witnesses;
        z3::expr hb = happensBefore(*rel, x.op, ix, y.op, iy, witnesses);
        if (schedule::AsyncOp reader = asyncSharedReaderOf(x.op))
          hb = hb || drainedThenHappensBefore(x.op, ix, reader, y.op, iy,
                                              witnesses);
        z3::expr noEdge = noHappensBefore(hb, witnesses);
        std::string what = std::string(x.write && y.write ? "write-write"
                                       : x.write          ? "read-after-write"
                                                 : "write-after-read") +
                           " on " + describeMemory(x.memory) +
                           ": the access at " + lineOf(x.op) +
                           " happens before this one through a barrier";
        std::pair<Operation *, Instance *> points[] = {{x.op, &ix},
                                                       {y.op, &iy}};
        prove(y.op, conflict && noEdge && model.assumptions(),
              ctx.bool_val(false), what, points);
      }
    checkTmaStoresRetiredAtExit();
    checkStagedOperands();
    if (anyCrossRole || !waits.empty())
      checkWaitProtocol();
    checkTmaLoadsAwaited();
    if (anyCrossRole) {
      checkNoLapping();
      checkPhaseReady();
    }
  }

  /// Two TMA copies of one role to the same elements: ordered if an access
  /// of another unit comes between them in sequential order, since every
  /// such pair is itself proved ordered (X before Z before Y).
  void checkTmaCopiesSeparated(const Access &x, const Access &y) {
    for (bool forward : {true, false}) {
      if (!forward && &x == &y)
        break; // one op against its own later instances: one direction
      const Access &first = forward ? x : y, &second = forward ? y : x;
      Instance i1 = fresh("@t1"), i2 = fresh("@t2");
      z3::expr facts = model.executes(first.op, i1) &&
                       model.executes(second.op, i2) &&
                       overlap(first, i1, second, i2) &&
                       model.before(first.op, i1, second.op, i2);
      for (const Access &z : accesses) {
        if (z.kind != first.kind || z.memory != first.memory ||
            agentOf(z.op) == agentOf(first.op))
          continue;
        Instance iz = fresh("@t3");
        z3::expr between = model.executes(z.op, iz) &&
                           overlap(first, i1, z, iz) &&
                           overlap(z, iz, second, i2) &&
                           model.before(first.op, i1, z.op, iz) &&
                           model.before(z.op, iz, second.op, i2);
        facts = facts && model.forAll(model.loopVars(z.op, iz), !between);
      }
      std::pair<Operation *, Instance *> points[] = {{first.op, &i1},
                                                     {second.op, &i2}};
      prove(
          second.op, facts && model.assumptions(), ctx.bool_val(false),
          "an access of another unit separates this TMA copy from the one at " +
              lineOf(first.op) +
              " to the same memory (TMA copies complete in "
              "any order)",
          points);
    }
  }

  /// True where the group of the asynchronous region `async` that `x` (run
  /// in `ix`) belongs to is retired before `y` (in `iy`), in `y`'s role's
  /// program order: the wait_group that retires it by depth comes first, or
  /// a commit_group and a `pending 0` wait of the unit follow `x` and
  /// precede `y`. Quantified over the waits' and commits' loop variables;
  /// to be used positively.
  z3::expr retiredBefore(const Access &x, Instance &ix, schedule::AsyncOp async,
                         Operation *y, Instance &iy) {
    z3::expr retired = ctx.bool_val(false);
    if (std::optional<Release> rel = retiringWait(async, ix)) {
      retired = model.executes(rel->op, rel->inst);
      if (y)
        retired = retired && model.before(rel->op, rel->inst, y, iy);
    }
    forEachDrain(x.op, ix, async, "@r",
                 [&](Operation *c, Instance &ic, Operation *w, Instance &iw,
                     z3::expr drained) {
                   if (y)
                     drained = drained && model.before(w, iw, y, iy);
                   std::vector<z3::expr> vars = model.loopVars(c, ic);
                   std::vector<z3::expr> wVars = model.loopVars(w, iw);
                   vars.insert(vars.end(), wVars.begin(), wVars.end());
                   retired = retired || model.exists(vars, drained);
                 });
    return retired;
  }

  /// `x` is read asynchronously by `async` (a wgmma operand, a TMA store's
  /// buffer): the write `y` of the same role must come after a wait_group
  /// retires it.
  void checkRetiredBefore(const Access &x, Instance &ix,
                          schedule::AsyncOp async, const Access &y,
                          Instance &iy) {
    z3::expr facts = model.executes(x.op, ix) && model.executes(y.op, iy) &&
                     overlap(x, ix, y, iy) && model.before(x.op, ix, y.op, iy);
    std::pair<Operation *, Instance *> points[] = {{x.op, &ix}, {y.op, &iy}};
    bool tma = async.getUnit() == schedule::AsyncUnit::tma;
    prove(y.op, facts && model.assumptions(),
          retiredBefore(x, ix, async, y.op, iy),
          tma ? "a wait_group tma retires the TMA store at " + lineOf(x.op) +
                    (x.write ? " before this access to the global memory "
                               "it writes"
                             : " before this write to its shared buffer")
              : "a wait_group " +
                    schedule::stringifyAsyncUnit(async.getUnit()) +
                    " retires the " +
                    schedule::stringifyAsyncUnit(async.getUnit()) +
                    " that reads the tile at " + lineOf(x.op) +
                    " before this write to its shared memory",
          points);
  }

  /// Whether a wgmma reads operand `i` of `dot` in place from shared
  /// memory: a tile.read of a slot that TMA copies fill, 2-D with rows of a
  /// multiple of 128 bytes (what the Hopper lowering can swizzle), or for B
  /// the transpose of one (B K-major). Any other operand is staged by the
  /// lowering into a shared buffer of its own, which the role's threads
  /// write each time the dot is issued.
  static bool readInPlace(schedule::AsyncOp async, tile::DotOp dot,
                          unsigned i) {
    tile::ReadOp read = tile::slotReadOf(dot, i);
    if (!read)
      return false;
    auto type = llvm::cast<MemRefType>(read.getBuffer().getType());
    ArrayRef<int64_t> shape =
        tile::slotTileShape(type, read.getIndices().size());
    if (shape.size() != 2 ||
        (shape[1] * type.getElementTypeBitWidth() / 8) % 128 != 0)
      return false;
    bool filled = false;
    async->getParentOfType<tile::KernelOp>().walk([&](tile::CopyOp copy) {
      filled |= copy.isGlobalToShared() && copy.getDest() == read.getBuffer();
    });
    return filled;
  }

  /// A staged wgmma operand is rewritten at the next issue of its dot: the
  /// wgmma issued before must be retired by then. MFMA takes its operands
  /// into registers at the issue (the AMD lowering reads them where they
  /// are held, element by element): nothing of an mfma region is staged.
  void checkStagedOperands() {
    kernel.walk([&](schedule::AsyncOp async) {
      if (async.getUnit() != schedule::AsyncUnit::wgmma)
        return;
      async.walk([&](tile::DotOp dot) {
        if (readInPlace(async, dot, 0) && readInPlace(async, dot, 1))
          return;
        Instance ix = fresh("@stage"), iy = fresh("@restage");
        Access staged{dot, Value(), false, false, Access::Slot, {}, {}, {},
                      {}};
        z3::expr facts = model.executes(dot, ix) && model.executes(dot, iy) &&
                         model.before(dot, ix, dot, iy);
        std::pair<Operation *, Instance *> points[] = {{dot, &ix},
                                                       {dot, &iy}};
        prove(dot, facts && model.assumptions(),
              retiredBefore(staged, ix, async, dot, iy),
              "a wait_group retires this wgmma before its next issue "
              "restages the operand it reads from shared memory",
              points);
      });
    });
  }

  /// Every TMA store is retired (commit_group + wait_group tma) before the
  /// program ends: until then it may still read its shared buffer.
  void checkTmaStoresRetiredAtExit() {
    for (const Access &x : accesses) {
      auto tma = x.op->getParentOfType<schedule::AsyncOp>();
      if (x.kind != Access::Slot || x.write || !tma ||
          tma.getUnit() != schedule::AsyncUnit::tma)
        continue;
      Instance ix = fresh("@store");
      std::pair<Operation *, Instance *> points[] = {{x.op, &ix}};
      prove(x.op, model.executes(x.op, ix) && model.assumptions(),
            retiredBefore(x, ix, tma, nullptr, ix),
            "a commit_group tma and a wait_group tma retire this TMA store "
            "before the program ends",
            points);
    }
  }

  /// The negation of a happens-before formula: its helper instances
  /// (loop variables named '@hb...') are existential in `hb`, so they are
  /// universal here.
  z3::expr noHappensBefore(const z3::expr &hb, const Witnesses &witnesses) {
    std::vector<z3::expr> vars;
    collectBound(hb, vars);
    // Instance j: every edge at its variables' j-th witnesses (or their
    // last; a variable without one stays a free constant, which any value
    // instantiates).
    std::vector<std::vector<z3::expr>> instances;
    for (size_t j = 0;; ++j) {
      std::vector<z3::expr> witnessed;
      bool more = false;
      for (const z3::expr &var : vars) {
        std::optional<z3::expr> value;
        size_t seen = 0;
        for (auto &[v, w] : witnesses)
          if (z3::eq(v, var) && seen++ <= j)
            value = w;
        more |= seen > j + 1;
        witnessed.push_back(value ? *value : var);
      }
      instances.push_back(std::move(witnessed));
      if (!more)
        break;
    }
    return model.forAll(vars, !hb, instances);
  }

  static void collectBound(const z3::expr &e, std::vector<z3::expr> &vars) {
    // Quantified subterms keep their own variables.
    forEachConstant(
        e,
        [&](const z3::expr &c) {
          if (c.is_int() &&
              c.decl().name().str().find("@hb") != std::string::npos)
            vars.push_back(c);
        },
        /*intoQuantifiers=*/false);
  }

  /// A parity test only tells two phases apart: a wait for phase n that
  /// starts while phase n - 1 is still open returns when that phase
  /// completes, a phase early. Where the last wait for phase n - 1 before it
  /// (in sequential order: the last of the other parity, since each phase
  /// between the first and the last wait has a waiter) is of another role,
  /// nothing in program order keeps it back; that wait must happen before
  /// it (mbarrier or CTA barrier edges), or a wait of its own role for phase
  /// n - 1 or later precede it: one after that wait, or one before it with
  /// no arrival between (the same phase). Ping-pong consumers taking turns
  /// on a ring need the first: an order from one consumer's K loop to the
  /// next one's.
  void checkPhaseReady() {
    for (const SyncPoint &w : waits) {
      if (!w.barriers.getDefiningOp<schedule::MBarrierInitOp>())
        continue; // reported by checkWaitProtocol
      int64_t period = ringPeriod(w.barriers);
      for (const SyncPoint &r : waits) {
        if (r.barriers != w.barriers || roleOf(r.op) == roleOf(w.op))
          continue;
        Instance iw = fresh("@rw"), ir = fresh("@rr");
        z3::expr parity = waitParity(w.op, iw);
        // r waits for the phase before w's, and is the last to.
        z3::expr last = noWaitBetween(r.op, ir, w, iw, &parity);
        z3::expr facts = model.executes(w.op, iw) && model.executes(r.op, ir) &&
                         sameElement(r, ir, w, iw) &&
                         model.before(r.op, ir, w.op, iw) &&
                         waitParity(r.op, ir) != parity && last &&
                         model.assumptions();
        z3::expr ownEarlier = ctx.bool_val(false);
        for (const SyncPoint &q : waits) {
          if (q.barriers != w.barriers || roleOf(q.op) != roleOf(w.op))
            continue;
          SmallVector<scf::ForOp> qLoops = model.loops(q.op);
          for (const std::vector<z3::expr> &values :
               earlierIterations(q.op, w.op, iw, period)) {
            // q at those iterations: its loop variables are those terms.
            Instance iq = fresh("@rq");
            for (auto [loop, value] : llvm::zip(qLoops, values))
              iq.memo.emplace(loop.getInductionVar().getAsOpaquePointer(),
                              value);
            z3::expr samePhaseAsR = model.before(q.op, iq, r.op, ir);
            for (const SyncPoint &a : arrivals) {
              if (a.barriers != w.barriers)
                continue;
              Instance ia = fresh("@ra");
              samePhaseAsR = samePhaseAsR &&
                             model.forAll(model.loopVars(a.op, ia),
                                          !(model.executes(a.op, ia) &&
                                            sameElement(a, ia, w, iw) &&
                                            model.before(q.op, iq, a.op, ia) &&
                                            arrivalBefore(a.op, ia, r.op, ir)));
            }
            ownEarlier = ownEarlier ||
                         (model.executes(q.op, iq) &&
                          sameElement(q, iq, w, iw) &&
                          model.before(q.op, iq, w.op, iw) &&
                          (model.before(r.op, ir, q.op, iq) || samePhaseAsR));
          }
        }
        std::pair<Operation *, Instance *> points[] = {{r.op, &ir},
                                                       {w.op, &iw}};
        std::string what =
            "the phase before the one this wait on " +
            describeMemory(w.barriers) +
            " waits for is complete when it starts: the wait at " +
            lineOf(r.op) +
            " for that phase happens before it, or a wait of its own role "
            "for that phase or a later one precedes it (otherwise its parity "
            "test passes on the earlier phase)";
        // Most waits have their own role's wait a phase back (cooperative
        // consumers): tried first, without the edges' quantifiers.
        Verdict v;
        if (refuted(w.op, facts && !ownEarlier, what, points, v))
          continue;
        Release rel{r.op, Instance{ir.suffix, ir.memo, ir.program}};
        Witnesses witnesses;
        z3::expr ordered = !noHappensBefore(
            happensBefore(rel, r.op, ir, w.op, iw, witnesses), witnesses);
        prove(w.op, facts, ordered || ownEarlier, what, points);
      }
    }
  }

  /// The parity a schedule.mbarrier.wait (or sync) waits for, in `inst`.
  z3::expr waitParity(Operation *op, Instance &inst) {
    Value parity = isa<schedule::MBarrierSyncOp>(op)
                       ? cast<schedule::MBarrierSyncOp>(op).getParity()
                       : cast<schedule::MBarrierWaitOp>(op).getParity();
    return z3::mod(model.asInt(model.term(parity, inst)), 2);
  }

  /// Iterations of `op` (values of its loop variables) shortly before
  /// `anchor` in `ianchor`, where the previous use of a ring element sits:
  /// nearbyIterations', and the end of a loop beside the anchor's in the
  /// previous iteration of the loop around both (the steps a persistent
  /// tile runs after its K loop, before the next tile's). Candidates only:
  /// each is checked where used.
  std::vector<std::vector<z3::expr>>
  earlierIterations(Operation *op, Operation *anchor, Instance &ianchor,
                    int64_t period) {
    SmallVector<scf::ForOp> loops = model.loops(op);
    if (loops.empty())
      return {{}};
    Operation *ops[] = {op};
    std::vector<std::vector<z3::expr>> result =
        nearbyIterations(ops, anchor, ianchor, period, -1);
    if (loops.size() < 2)
      return result;
    z3::expr outerStep = model.term(loops[loops.size() - 2].getStep(), ianchor);
    for (int64_t d = 0; d <= period; ++d)
      if (auto at = edgeIteration(loops, anchor, ianchor, d, -1)) {
        (*at)[loops.size() - 2] = (*at)[loops.size() - 2] - outerStep;
        result.push_back(std::move(*at));
      }
    return result;
  }

  /// A waiter is never lapped: the arrival after its wait (in sequential
  /// order) happens after the wait in the parallel run.
  void checkNoLapping() {
    for (const SyncPoint &w : waits)
      for (const SyncPoint &a : arrivals) {
        if (a.barriers != w.barriers || roleOf(a.op) == roleOf(w.op))
          continue;
        Instance iw = fresh("@lw"), ia = fresh("@la");
        z3::expr after = model.executes(w.op, iw) && model.executes(a.op, ia) &&
                         sameElement(w, iw, a, ia) &&
                         model.before(w.op, iw, a.op, ia);
        Release rel{w.op, Instance{iw.suffix, iw.memo, iw.program}};
        std::pair<Operation *, Instance *> points[] = {{w.op, &iw},
                                                       {a.op, &ia}};
        std::string what = "this arrival on " + describeMemory(w.barriers) +
                           " comes after the wait at " + lineOf(w.op) +
                           " for the previous phase (otherwise the waiter is "
                           "lapped and its parity test passes a phase early)";
        // One edge usually orders them (the producer's wait, its arrival,
        // the consumer's wait): tried first, without the relay chains,
        // whose quantifiers grow with every role that could hand over.
        Witnesses direct;
        z3::expr one = directBefore(rel, w.op, iw, a.op, ia, a.op, ia, direct);
        Verdict v;
        if (refuted(a.op,
                    after && model.assumptions() && noHappensBefore(one, direct),
                    what, points, v))
          continue;
        Witnesses witnesses;
        z3::expr hb = happensBefore(rel, w.op, iw, a.op, ia, witnesses);
        z3::expr noEdge = noHappensBefore(hb, witnesses);
        prove(a.op, after && model.assumptions(), !noEdge, what, points);
      }
  }

  //===--------------------------------------------------------------------===//
  // Proxies
  //===--------------------------------------------------------------------===//

  /// True if `op` touches shared memory through the async proxy (the TMA
  /// engine, or a wgmma reading its operand tile from shared memory).
  bool isAsyncProxy(const Access &a) {
    if (auto async = a.op->getParentOfType<schedule::AsyncOp>())
      return async.getUnit() == schedule::AsyncUnit::tma;
    return static_cast<bool>(asyncReaderOf(a.op));
  }

  /// A thread's (generic-proxy) write to shared memory becomes visible to
  /// the async proxy only through schedule.fence_async_proxy between them.
  void checkProxyFences() {
    SmallVector<Operation *> fences;
    kernel.walk([&](schedule::FenceAsyncProxyOp f) { fences.push_back(f); });
    for (const Access &w : accesses) {
      if (w.kind != Access::Slot || !w.write || isAsyncProxy(w))
        continue;
      for (const Access &r : accesses) {
        if (r.kind != Access::Slot || r.memory != w.memory || !isAsyncProxy(r))
          continue;
        Instance iw = fresh("@gw"), ir = fresh("@ar");
        z3::expr facts = model.executes(w.op, iw) && model.executes(r.op, ir) &&
                         overlap(w, iw, r, ir) &&
                         model.before(w.op, iw, r.op, ir);
        for (Operation *f : fences) {
          Instance iff = fresh("@fence");
          z3::expr between = model.executes(f, iff) &&
                             model.before(w.op, iw, f, iff) &&
                             model.before(f, iff, r.op, ir);
          facts = facts && model.forAll(model.loopVars(f, iff), !between);
        }
        std::pair<Operation *, Instance *> points[] = {{w.op, &iw},
                                                       {r.op, &ir}};
        prove(r.op, facts && model.assumptions(), ctx.bool_val(false),
              "a fence_async_proxy separates the thread write at " +
                  lineOf(w.op) +
                  " from this async-proxy access to the same shared memory",
              points);
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Races
  //===--------------------------------------------------------------------===//

  /// The elements an access touches, as half-open ranges per dimension, and
  /// whether they overlap with another access's.
  z3::expr overlap(const Access &a, Instance &ia, const Access &b,
                   Instance &ib) {
    if (a.kind == Access::Slot || b.kind == Access::Slot) {
      if (a.kind != b.kind)
        return ctx.bool_val(true);
      z3::expr eq = ctx.bool_val(true);
      for (auto [x, y] : llvm::zip(a.indices, b.indices))
        eq = eq && model.term(x, ia) == model.term(y, ib);
      return eq;
    }
    auto range = [&](const Access &acc, Instance &inst, int64_t d) {
      if (acc.kind == Access::Element) {
        // Only elements that exist can race.
        z3::expr i = model.term(acc.indices[d], inst);
        z3::expr dim = model.dimension(acc.memory, d);
        return std::make_pair(z3::ite(i > 0, i, ctx.int_val(0)),
                              z3::ite(i + 1 < dim, i + 1, dim));
      }
      z3::expr size = ctx.int_val(static_cast<int64_t>(acc.block[d]));
      z3::expr lo = model.term(acc.indices[d], inst) * size;
      if (!acc.offsets.empty())
        lo = lo + model.term(acc.offsets[d], inst);
      z3::expr hi = lo + size;
      z3::expr bound = acc.bounds.empty() ? model.dimension(acc.memory, d)
                                          : model.term(acc.bounds[d], inst);
      hi = z3::ite(hi < bound, hi, bound);
      lo = z3::ite(lo > 0, lo, ctx.int_val(0));
      return std::make_pair(lo, hi);
    };
    z3::expr all = ctx.bool_val(true);
    for (int64_t d = 0;
         d < llvm::cast<MemRefType>(a.memory.getType()).getRank(); ++d) {
      auto [alo, ahi] = range(a, ia, d);
      auto [blo, bhi] = range(b, ib, d);
      all = all && alo < ahi && blo < bhi && alo < bhi && blo < ahi;
    }
    return all;
  }

  bool isGlobal(Value memory) {
    auto arg = llvm::dyn_cast<BlockArgument>(memory);
    return arg && arg.getOwner()->getParentOp() == kernel.getOperation();
  }

  void checkRaces() {
    SmallVector<schedule::BarrierOp> barriers;
    kernel.walk([&](schedule::BarrierOp b) { barriers.push_back(b); });
    for (size_t i = 0; i < accesses.size(); ++i)
      for (size_t j = i; j < accesses.size(); ++j) {
        const Access &a = accesses[i], &b = accesses[j];
        if (a.memory != b.memory || !(a.write || b.write))
          continue;
        if (a.write && b.write && a.atomicAdd && b.atomicAdd)
          continue; // atomic adds commute
        if (isGlobal(a.memory))
          checkProgramRace(a, b);
        checkParallelLoopRace(a, b, barriers);
      }
  }

  std::string kindOf(const Access &a, const Access &b) {
    if (a.write && b.write)
      return "write-write";
    return "read-write";
  }

  /// Where global access `x` issued before `barrier` (in `it`) is complete
  /// there: a synchronous one is; a TMA store once a wait_group retires it
  /// before the barrier; a TMA load once its program waits for the copy
  /// (waitsAfter) before the barrier: every thread of the program passes
  /// the barrier after its own earlier ops.
  z3::expr doneBefore(const Access &x, Instance &ix, Operation *barrier,
                      Instance &it) {
    auto async = x.op->getParentOfType<schedule::AsyncOp>();
    if (!async)
      return ctx.bool_val(true);
    if (x.write)
      return retiredBefore(x, ix, async, barrier, it);
    if (!async.getBarrier())
      return ctx.bool_val(false);
    z3::expr awaited = ctx.bool_val(false);
    for (const SyncPoint &w : waits) {
      if (w.barriers != async.getBarrier())
        continue;
      Instance iw = fresh("@done");
      iw.program = ix.program;
      awaited =
          awaited || model.exists(model.loopVars(w.op, iw),
                                  waitsAfter(async, ix, w, iw) &&
                                      model.before(w.op, iw, barrier, it));
    }
    return awaited;
  }

  /// Two different programs touching the same global elements.
  void checkProgramRace(const Access &a, const Access &b) {
    Instance ia{"@a", {}, ""}, ib{"@b", {}, "'"};
    z3::expr differ = ctx.bool_val(false);
    for (int64_t d = 0; d < kernel.getGridAttr().getInt(); ++d)
      differ = differ || model.programId(d, ia) != model.programId(d, ib);
    z3::expr facts =
        model.executes(a.op, ia) && model.executes(b.op, ib) && differ;
    // Programs of one thread-block cluster run together and can be ordered
    // by a cluster barrier between the two accesses (in each program's order).
    auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
        schedule::ScheduleDialect::kLaunchAttrName);
    if (launch && !launch.getCluster().empty()) {
      z3::expr inOneCluster = sameCluster(launch, ia, ib);
      kernel.walk([&](schedule::BarrierOp barrier) {
        if (barrier.getScope() != schedule::BarrierScope::cluster)
          return;
        Instance it = fresh("@cluster");
        it.program = ia.program;
        z3::expr between =
            model.executes(barrier, it) &&
            ((model.before(a.op, ia, barrier, it) &&
              doneBefore(a, ia, barrier, it) &&
              model.before(barrier, it, b.op, ib)) ||
             (model.before(b.op, ib, barrier, it) &&
              doneBefore(b, ib, barrier, it) &&
              model.before(barrier, it, a.op, ia)));
        facts = facts && !(inOneCluster &&
                           model.exists(model.loopVars(barrier, it), between));
      });
    }
    z3::expr conflict = overlap(a, ia, b, ib);
    facts = facts && model.assumptions();
    std::pair<Operation *, Instance *> points[] = {{a.op, &ia}, {b.op, &ib}};
    prove(b.op, facts, !conflict,
          "no other program touches the elements this " +
              std::string(b.write ? "write" : "read") + " accesses (" +
              kindOf(a, b) + " race between programs with the access at " +
              lineOf(a.op) + ")",
          points);
  }

  /// The innermost loop around `op` mapped to `level`, if any.
  scf::ForOp loopAt(Operation *op, schedule::ParallelLevel level) {
    SmallVector<scf::ForOp> enclosing = model.loops(op);
    for (scf::ForOp loop : llvm::reverse(enclosing))
      if (levelOf(loop) == level)
        return loop;
    return {};
  }

  /// Two units of one program (different iterations of loops mapped to the
  /// same level: the same warps, threads, ...) not separated by a barrier.
  void checkParallelLoopRace(const Access &a, const Access &b,
                             ArrayRef<schedule::BarrierOp> barriers) {
    for (schedule::ParallelLevel level :
         {schedule::ParallelLevel::cta, schedule::ParallelLevel::warpgroup,
          schedule::ParallelLevel::warp, schedule::ParallelLevel::thread}) {
      // A loop mapped to CTAs (a persistent kernel) spreads its iterations
      // over programs: only memory they share can race, and no CTA barrier
      // orders them.
      if (level == schedule::ParallelLevel::cta && !isGlobal(a.memory))
        continue;
      scf::ForOp la = loopAt(a.op, level), lb = loopAt(b.op, level);
      if (!la || !lb)
        continue;
      Instance ia{"@a", {}, ""}, ib{"@b", {}, ""};
      z3::expr facts = model.executes(a.op, ia) && model.executes(b.op, ib) &&
                       model.inductionVar(la, ia) != model.inductionVar(lb, ib);
      // The same iteration of the sequential loops around both.
      SmallVector<scf::ForOp> outerA = model.loops(a.op),
                              outerB = model.loops(b.op);
      for (auto [x, y] : llvm::zip(outerA, outerB)) {
        if (x != y || levelOf(x))
          break;
        facts = facts && model.inductionVar(x, ia) == model.inductionVar(x, ib);
      }
      for (schedule::BarrierOp barrier : barriers) {
        if (level == schedule::ParallelLevel::cta)
          break;
        Instance ibar = fresh("@bar");
        z3::expr between = model.executes(barrier, ibar) &&
                           ((model.before(a.op, ia, barrier, ibar) &&
                             model.before(barrier, ibar, b.op, ib)) ||
                            (model.before(b.op, ib, barrier, ibar) &&
                             model.before(barrier, ibar, a.op, ia)));
        facts = facts && model.forAll(model.loopVars(barrier, ibar), !between);
      }
      facts = facts && model.assumptions();
      std::pair<Operation *, Instance *> points[] = {{a.op, &ia}, {b.op, &ib}};
      prove(b.op, facts, !overlap(a, ia, b, ib),
            "no other " + schedule::stringifyParallelLevel(level).str() +
                " touches these elements without a barrier between (" +
                kindOf(a, b) + " race with the access at " + lineOf(a.op) + ")",
            points);
    }
  }

  z3::context &ctx;
  SymbolicModel model;
  Prover &prover;
  tile::KernelOp kernel;
  std::vector<Access> accesses;
  bool failed = false;
  unsigned instanceCounter = 0;
};

} // namespace

CheckerResult mlir::tiletag::verify::checkSchedule(tile::KernelOp kernel,
                                                   z3::context &ctx,
                                                   Prover &prover) {
  ScheduleChecker checker(kernel, ctx, prover);
  bool proved = succeeded(checker.run());
  return {proved, std::to_string(checker.proved) + " schedule obligations"};
}
