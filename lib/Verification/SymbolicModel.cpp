//===- SymbolicModel.cpp - kernels as Z3 terms over symbolic sizes --------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Verification/SymbolicModel.h"

#include "TileTag/Dialect/Tag/IR/TagOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

SymbolicModel::SymbolicModel(tile::KernelOp kernel, z3::context &ctx,
                             StringRef scope)
    : ctx(ctx), kernel(kernel), scope(scope.str()) {
  // An execution runs some program: the grid is not empty, and no larger
  // than a GPU launches (2^31 - 1 programs per dimension).
  for (int64_t d = 0; d < kernel.getGridAttr().getInt(); ++d) {
    z3::expr n = gridExtent(d);
    addFact(n >= 1 && n < pow2(31));
  }
  // The launch contract: operand shapes and grid extents are functions of the
  // problem sizes. Without it, "the grid covers M" could not be proved.
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch)
    return;
  std::vector<z3::expr> sizes;
  for (StringAttr name : launch.getSizeNames()) {
    sizes.push_back(symbol("size." + name.getValue().str(), Symbol::Size));
    addFact(sizes.back() >= 0 && inRange(sizes.back(), 64));
  }
  for (auto [name, map] : llvm::zip(launch.getShapeNames(), launch.getShapes()))
    for (auto [d, e] : llvm::enumerate(map.getResults()))
      addFact(symbol(name.getValue().str() + ".dim" + std::to_string(d),
                             Symbol::Dimension) == affine(e, {}, sizes));
  for (auto [d, e] : llvm::enumerate(launch.getGrid()))
    addFact(gridExtent(d) == affine(e, {}, sizes));
}

static std::string lineNumberOf(Location loc) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc))
    return std::to_string(file.getLine());
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto file = llvm::dyn_cast<FileLineColLoc>(inner))
        return std::to_string(file.getLine());
  return "?";
}

std::string SymbolicModel::loopName(scf::ForOp loop) {
  // Loops are numbered by their position among the kernel's loops, and named
  // by their line so that a user finds them in the source.
  unsigned index = 0, found = 0;
  kernel.walk([&](scf::ForOp l) {
    if (l == loop)
      found = index;
    ++index;
  });
  return "iv" + std::to_string(found) + "@line" + lineNumberOf(loop.getLoc());
}

z3::expr SymbolicModel::symbol(const std::string &name, Symbol::Kind kind,
                               bool isBool) {
  auto it = sharedIndex.find(name);
  if (it != sharedIndex.end())
    return shared[it->second].expr;
  // SMT-LIB symbols have no quote character: another program's pid0' is
  // pid0~ in the solver (and in SMT-LIB dumps).
  std::string smtName = name;
  std::replace(smtName.begin(), smtName.end(), '\'', '~');
  z3::expr e = isBool ? ctx.bool_const(smtName.c_str())
                      : ctx.int_const(smtName.c_str());
  sharedIndex[name] = shared.size();
  shared.push_back({name, e, kind});
  return e;
}

z3::expr SymbolicModel::dimension(Value memref, int64_t d) {
  auto type = llvm::cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(d))
    return ctx.int_val(static_cast<int64_t>(type.getDimSize(d)));
  auto arg = llvm::dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation())
    return fresh("dim");
  z3::expr s = symbol(kernel.getOperandName(arg.getArgNumber()) + ".dim" +
                          std::to_string(d),
                      Symbol::Dimension);
  addFact(s >= 0 && inRange(s, 64));
  return s;
}

z3::expr SymbolicModel::fresh(StringRef prefix) {
  return ctx.int_const(
      (scope + prefix + "#" + std::to_string(freshCounter++)).str().c_str());
}

z3::expr SymbolicModel::gridExtent(int64_t dim) {
  return symbol(scope + "nprog" + std::to_string(dim), Symbol::GridExtent);
}

z3::expr SymbolicModel::programId(int64_t dim, Instance &inst) {
  std::string d = std::to_string(dim);
  z3::expr pid = symbol(scope + "pid" + d + inst.program, Symbol::ProgramId),
           n = gridExtent(dim);
  addFact(pid >= 0 && pid < n);
  return pid;
}

z3::expr SymbolicModel::inductionVar(scf::ForOp loop, Instance &inst) {
  auto key = loop.getInductionVar().getAsOpaquePointer();
  auto it = inst.memo.find(key);
  if (it != inst.memo.end())
    return it->second;
  z3::expr iv =
      ctx.int_const((scope + loopName(loop) + inst.suffix).c_str());
  inst.memo.emplace(key, iv);
  return iv;
}

std::vector<z3::expr> SymbolicModel::loopVars(Operation *op, Instance &inst) {
  std::vector<z3::expr> vars;
  for (scf::ForOp loop : loops(op))
    vars.push_back(inductionVar(loop, inst));
  return vars;
}

static z3::expr_vector toVector(z3::context &ctx,
                                const std::vector<z3::expr> &vars) {
  z3::expr_vector v(ctx);
  for (const z3::expr &e : vars)
    v.push_back(e);
  return v;
}

z3::expr SymbolicModel::forAll(const std::vector<z3::expr> &vars,
                               const z3::expr &body) {
  return vars.empty() ? body : z3::forall(toVector(ctx, vars), body);
}

z3::expr SymbolicModel::forAll(const std::vector<z3::expr> &vars,
                               const z3::expr &body,
                               ArrayRef<std::vector<z3::expr>> instances) {
  z3::expr result = forAll(vars, body);
  return vars.empty() ? result : conjoinInstances(result, vars, body, instances);
}

z3::expr SymbolicModel::instances(const std::vector<z3::expr> &vars,
                                  const z3::expr &body,
                                  ArrayRef<std::vector<z3::expr>> instances) {
  return vars.empty() ? body
                      : conjoinInstances(ctx.bool_val(true), vars, body,
                                         instances);
}

/// `start` and `body` at each of `instances` of the right arity.
z3::expr SymbolicModel::conjoinInstances(
    z3::expr start, const std::vector<z3::expr> &vars, const z3::expr &body,
    ArrayRef<std::vector<z3::expr>> instances) {
  z3::expr_vector from = toVector(ctx, vars);
  for (const std::vector<z3::expr> &values : instances)
    if (values.size() == vars.size())
      start = start && z3::expr(body).substitute(from, toVector(ctx, values));
  return start;
}

std::optional<std::vector<z3::expr>>
SymbolicModel::shiftedIteration(Operation *op, Operation *anchor,
                                Instance &ianchor, int64_t shift) {
  SmallVector<scf::ForOp> around = loops(op), aroundAnchor = loops(anchor);
  if (around.empty() || around.size() > aroundAnchor.size() ||
      !std::equal(around.begin(), around.end(), aroundAnchor.begin()))
    return std::nullopt;
  std::vector<z3::expr> values;
  for (scf::ForOp loop : around)
    values.push_back(inductionVar(loop, ianchor));
  scf::ForOp innermost = around.back();
  values.back() = values.back() +
                  ctx.int_val(shift) * term(innermost.getStep(), ianchor);
  return values;
}

z3::expr SymbolicModel::exists(const std::vector<z3::expr> &vars,
                               const z3::expr &body) {
  return vars.empty() ? body : z3::exists(toVector(ctx, vars), body);
}

std::string mlir::tiletag::verify::lineOf(Operation *op) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(op->getLoc()))
    return "line " + std::to_string(file.getLine());
  return "an unknown location";
}

SmallVector<scf::ForOp> SymbolicModel::loops(Operation *op) {
  SmallVector<scf::ForOp> result;
  for (Operation *p = op->getParentOp(); p && p != kernel.getOperation();
       p = p->getParentOp())
    if (auto loop = llvm::dyn_cast<scf::ForOp>(p))
      result.push_back(loop);
  std::reverse(result.begin(), result.end());
  return result;
}

z3::expr SymbolicModel::term(Value value, Instance &inst) {
  auto key = value.getAsOpaquePointer();
  auto it = inst.memo.find(key);
  if (it != inst.memo.end())
    return it->second;
  z3::expr e = compute(value, inst);
  inst.memo.emplace(key, e);
  return e;
}

/// True if `value` may differ between loop iterations.
static bool insideLoop(Value value) {
  Operation *owner = value.getParentBlock()->getParentOp();
  for (Operation *p = owner; p; p = p->getParentOp()) {
    if (llvm::isa<scf::ForOp>(p))
      return true;
    if (llvm::isa<tile::KernelOp>(p))
      return false;
  }
  return false;
}

/// The width of an integer or index type (index: 64), or 0.
static unsigned widthOf(Type type) {
  if (type.isIndex())
    return 64;
  if (auto it = llvm::dyn_cast<IntegerType>(type))
    return it.getWidth();
  return 0;
}

z3::expr SymbolicModel::pow2(unsigned n) {
  llvm::SmallString<24> digits;
  llvm::APInt::getOneBitSet(n + 1, n).toStringUnsigned(digits);
  return ctx.int_val(digits.c_str());
}

z3::expr SymbolicModel::inRange(const z3::expr &e, unsigned width) {
  if (width <= 1)
    return ctx.bool_val(true);
  return e >= -pow2(width - 1) && e < pow2(width - 1);
}

z3::expr SymbolicModel::wrap(const z3::expr &e, unsigned width) {
  return z3::mod(e + pow2(width - 1), pow2(width)) - pow2(width - 1);
}

z3::expr SymbolicModel::unsignedView(Value v, const z3::expr &e) {
  if (e.is_bool())
    return asInt(e);
  if (nonNegative(v))
    return e;
  return z3::ite(e >= 0, e, e + pow2(widthOf(v.getType())));
}

z3::expr SymbolicModel::signedView(Value v, const z3::expr &e) {
  if (e.is_bool())
    return z3::ite(e, ctx.int_val(-1), ctx.int_val(0));
  return e;
}

bool SymbolicModel::nonNegative(Value v) {
  auto it = nonNegativeMemo.find(v);
  if (it != nonNegativeMemo.end())
    return it->second;
  nonNegativeMemo[v] = false; // cycles through loop-carried values
  bool result = false;
  if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
    auto loop = llvm::dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    // Iterations run from the lower bound upwards (the step is positive).
    result = loop && arg == loop.getInductionVar() &&
             !loop.getUnsignedCmp() && nonNegative(loop.getLowerBound());
  } else if (Operation *op = v.getDefiningOp()) {
    auto both = [&]() {
      return nonNegative(op->getOperand(0)) && nonNegative(op->getOperand(1));
    };
    result =
        llvm::TypeSwitch<Operation *, bool>(op)
            .Case<arith::ConstantOp>([&](arith::ConstantOp c) {
              auto i = llvm::dyn_cast<IntegerAttr>(c.getValue());
              return i && widthOf(c.getType()) > 1 &&
                     !i.getValue().isNegative();
            })
            .Case<tile::ProgramIdOp, tile::NumProgramsOp, memref::DimOp>(
                [](Operation *) { return true; })
            // Under their no-wrap obligations, sums and products of
            // non-negative values are non-negative.
            .Case<arith::AddIOp, arith::MulIOp, arith::DivUIOp,
                  arith::CeilDivUIOp, arith::DivSIOp, arith::CeilDivSIOp,
                  arith::FloorDivSIOp, arith::MinUIOp, arith::MinSIOp>(
                [&](Operation *) { return both(); })
            .Case<arith::MaxSIOp>([&](Operation *) {
              return nonNegative(op->getOperand(0)) ||
                     nonNegative(op->getOperand(1));
            })
            // A loop's iteration offset: the induction variable less the
            // lower bound it counts up from.
            .Case<arith::SubIOp>([&](Operation *) {
              auto iv = llvm::dyn_cast<BlockArgument>(op->getOperand(0));
              auto loop = iv ? llvm::dyn_cast<scf::ForOp>(
                                   iv.getOwner()->getParentOp())
                             : scf::ForOp();
              return loop && iv == loop.getInductionVar() &&
                     !loop.getUnsignedCmp() &&
                     op->getOperand(1) == loop.getLowerBound();
            })
            .Case<arith::RemUIOp>(
                [&](Operation *) { return nonNegative(op->getOperand(1)); })
            // The sign bit is clear where it is clear in one operand of
            // `and`, in both of `or` and `xor`.
            .Case<arith::AndIOp>([&](Operation *) {
              return widthOf(v.getType()) > 1 &&
                     (nonNegative(op->getOperand(0)) ||
                      nonNegative(op->getOperand(1)));
            })
            .Case<arith::OrIOp, arith::XOrIOp>(
                [&](Operation *) { return widthOf(v.getType()) > 1 && both(); })
            .Case<arith::RemSIOp>(
                [&](Operation *) { return nonNegative(op->getOperand(0)); })
            .Case<arith::SelectOp>([&](Operation *) {
              return nonNegative(op->getOperand(1)) &&
                     nonNegative(op->getOperand(2));
            })
            .Case<arith::IndexCastOp, arith::ExtSIOp>([&](Operation *) {
              return widthOf(op->getOperand(0).getType()) > 1 &&
                     widthOf(op->getOperand(0).getType()) <=
                         widthOf(v.getType()) &&
                     nonNegative(op->getOperand(0));
            })
            .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](Operation *) {
              return widthOf(op->getOperand(0).getType()) <
                     widthOf(v.getType());
            })
            .Default([](Operation *) { return false; });
  }
  nonNegativeMemo[v] = result;
  return result;
}

/// True if `v` is ghost state: a tag field, or computed from one. Ghost
/// arithmetic never runs (strip-tags erases it, and refuses if it reaches
/// the real computation); it means what it says mathematically.
static bool isGhost(Value v, DenseMap<Value, bool> &memo) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool ghost = def && (llvm::isa<tag::FieldOp>(def) ||
                       llvm::any_of(def->getOperands(), [&](Value o) {
                         return isGhost(o, memo);
                       }));
  memo[v] = ghost;
  return ghost;
}

void SymbolicModel::require(Operation *op, Instance &inst, const z3::expr &cond,
                            const Twine &what) {
  if (&inst != recording ||
      llvm::any_of(op->getOperands(),
                   [&](Value v) { return isGhost(v, ghostMemo); }))
    return;
  z3::expr runs = executes(op, inst);
  obligations.push_back({op, what.str(), z3::implies(runs, cond)});
}

const std::vector<Obligation> &SymbolicModel::definedness(Instance &inst) {
  obligations.clear();
  recording = &inst;
  kernel.walk([&](Operation *op) {
    if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
      if (loop.getUnsignedCmp())
        require(loop, inst, ctx.bool_val(false),
                "the checker models loops with signed bounds only; this one "
                "compares unsigned");
      else
        require(loop, inst, term(loop.getStep(), inst) > 0,
                "the loop step can be zero or negative (undefined)");
    }
    // Element accesses out of bounds are undefined.
    if (isa<memref::LoadOp, memref::StoreOp>(op)) {
      Value memref = isa<memref::LoadOp>(op) ? op->getOperand(0)
                                              : op->getOperand(1);
      z3::expr inBounds = ctx.bool_val(true);
      for (auto [d, i] : llvm::enumerate(
               op->getOperands().drop_front(isa<memref::LoadOp>(op) ? 1 : 2)))
        inBounds = inBounds && term(i, inst) >= 0 &&
                   term(i, inst) < dimension(memref, d);
      require(op, inst, inBounds,
              "the " + op->getName().getStringRef() +
                  " can access an element out of bounds (undefined)");
    }
    for (Value r : op->getResults())
      if (widthOf(r.getType()))
        (void)term(r, inst);
  });
  recording = nullptr;
  return obligations;
}

z3::expr SymbolicModel::computeInteger(Operation *op, Instance &inst) {
  Value result = op->getResult(0);
  unsigned width = widthOf(result.getType());
  bool isBool = width == 1;
  auto operand = [&](unsigned i) { return term(op->getOperand(i), inst); };
  auto u = [&](unsigned i) { return unsignedView(op->getOperand(i), operand(i)); };
  auto sv = [&](unsigned i) { return signedView(op->getOperand(i), operand(i)); };
  auto opName = op->getName().getStringRef().str();
  // add/sub/mul are mathematical under the obligation that they do not wrap.
  auto noWrap = [&](const z3::expr &value, const z3::expr &unsignedValue) {
    require(op, inst, inRange(value, width),
            "the " + opName +
                " can wrap around (signed overflow); index arithmetic must "
                "stay in range");
    auto flags = llvm::dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op);
    if (flags && flags.hasNoUnsignedWrap())
      require(op, inst, unsignedValue >= 0 && unsignedValue < pow2(width),
              "the " + opName +
                  " can overflow unsigned, which its nuw flag makes poison");
    return value;
  };
  auto nonZeroDivisor = [&]() {
    require(op, inst, operand(1) != 0,
            "the divisor of the " + opName + " can be zero (undefined)");
  };
  auto noSignedOverflow = [&]() {
    nonZeroDivisor();
    require(op, inst, !(operand(0) == -pow2(width - 1) && operand(1) == -1),
            "the " + opName +
                " can divide the minimum value by -1 (undefined overflow)");
  };
  auto opaque = [&]() -> std::optional<z3::expr> { return std::nullopt; };
  // Truncating division of mathematical values.
  auto truncDiv = [&](const z3::expr &a, const z3::expr &b) {
    return z3::ite(a >= 0, z3::ite(b >= 0, a / b, -(a / -b)),
                   z3::ite(b >= 0, -((-a) / b), (-a) / (-b)));
  };
  auto floorDiv = [&](const z3::expr &a, const z3::expr &b) {
    return z3::ite(b > 0, a / b, (-a) / (-b));
  };
  auto fromUnsigned = [&](Value v, const z3::expr &e) {
    return nonNegative(v) ? e : z3::ite(e >= pow2(width - 1), e - pow2(width), e);
  };
  std::optional<int64_t> constRhs =
      op->getNumOperands() > 1 ? getConstantIntValue(op->getOperand(1))
                               : std::nullopt;

  std::optional<z3::expr> e =
      llvm::TypeSwitch<Operation *, std::optional<z3::expr>>(op)
          .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp>(
              [&](Operation *o) -> std::optional<z3::expr> {
                if (isBool) {
                  z3::expr a = operand(0), b = operand(1);
                  return isa<arith::MulIOp>(o) ? (a && b) : (a != b);
                }
                if (isa<arith::AddIOp>(o))
                  return noWrap(operand(0) + operand(1), u(0) + u(1));
                if (isa<arith::SubIOp>(o))
                  return noWrap(operand(0) - operand(1), u(0) - u(1));
                return noWrap(operand(0) * operand(1), u(0) * u(1));
              })
          .Case<arith::DivUIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            nonZeroDivisor();
            return fromUnsigned(result, u(0) / u(1));
          })
          .Case<arith::RemUIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            nonZeroDivisor();
            return fromUnsigned(result, z3::mod(u(0), u(1)));
          })
          .Case<arith::CeilDivUIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            nonZeroDivisor();
            return fromUnsigned(result, (u(0) + u(1) - 1) / u(1));
          })
          .Case<arith::DivSIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            noSignedOverflow();
            z3::expr a = operand(0), b = operand(1);
            if (constRhs && *constRhs > 0)
              return nonNegative(op->getOperand(0))
                         ? a / b
                         : z3::ite(a >= 0, a / b, -((-a) / b));
            return truncDiv(a, b);
          })
          .Case<arith::RemSIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            noSignedOverflow();
            z3::expr a = operand(0), b = operand(1);
            if (nonNegative(op->getOperand(0)))
              return z3::mod(a, b);
            return z3::ite(a >= 0, z3::mod(a, b), -z3::mod(-a, b));
          })
          .Case<arith::FloorDivSIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            noSignedOverflow();
            if (constRhs && *constRhs > 0)
              return operand(0) / operand(1);
            return floorDiv(operand(0), operand(1));
          })
          .Case<arith::CeilDivSIOp>([&](Operation *) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            noSignedOverflow();
            if (constRhs && *constRhs > 0)
              return -((-operand(0)) / operand(1));
            return -floorDiv(-operand(0), operand(1));
          })
          .Case<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
                arith::MaxUIOp>([&](Operation *o) -> std::optional<z3::expr> {
            if (isBool)
              return opaque();
            bool isUnsigned = isa<arith::MinUIOp, arith::MaxUIOp>(o);
            z3::expr a = isUnsigned ? u(0) : operand(0),
                     b = isUnsigned ? u(1) : operand(1);
            bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(o);
            return z3::ite(isMin ? a <= b : a >= b, operand(0), operand(1));
          })
          .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
              [&](Operation *o) -> std::optional<z3::expr> {
                if (isBool) {
                  z3::expr a = operand(0), b = operand(1);
                  if (isa<arith::AndIOp>(o))
                    return a && b;
                  if (isa<arith::OrIOp>(o))
                    return a || b;
                  return a != b;
                }
                // With a constant operand, bit by bit in integer
                // arithmetic, bit i of x being (x div 2^i) mod 2: the
                // constant's bits at and above some k are all equal, which
                // decides the high part of the result from x div 2^k, so a
                // mask or swizzle constant leaves a few bits to follow.
                for (unsigned i = 0; i < 2; ++i) {
                  auto c = getConstantIntValue(op->getOperand(i));
                  if (!c)
                    continue;
                  llvm::APInt bits(width, static_cast<uint64_t>(*c),
                                   /*isSigned=*/true);
                  bool top = bits[width - 1];
                  unsigned k = width - (top ? bits.countLeadingOnes()
                                            : bits.countLeadingZeros());
                  z3::expr x = u(1 - i);
                  // x op c for a part of x whose bits in c are all `set`,
                  // its largest value `ones`.
                  auto apply = [&](const z3::expr &part, bool set,
                                   const z3::expr &ones) -> z3::expr {
                    if (isa<arith::AndIOp>(o))
                      return set ? part : ctx.int_val(0);
                    if (isa<arith::OrIOp>(o))
                      return set ? ones : part;
                    return set ? ones - part : part;
                  };
                  z3::expr value =
                      apply(x / pow2(k), top, pow2(width - k) - 1) * pow2(k);
                  for (unsigned b = 0; b < k; ++b) {
                    z3::expr bit = z3::mod(x / pow2(b), 2);
                    value =
                        value + apply(bit, bits[b], ctx.int_val(1)) * pow2(b);
                  }
                  return fromUnsigned(result, value);
                }
                // Two variable operands: not followed (Z3 answers unknown
                // on their bits, as bit vectors or integers, even for i8).
                return opaque();
              })
          .Case<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(
              [&](Operation *o) -> std::optional<z3::expr> {
                if (isBool)
                  return opaque();
                require(op, inst, u(1) < ctx.int_val(width),
                        "the shift amount of the " + opName +
                            " can reach the bit width (poison)");
                if (!constRhs || *constRhs < 0 || *constRhs >= width)
                  return opaque();
                z3::expr scale = pow2(*constRhs);
                if (isa<arith::ShRSIOp>(o))
                  return operand(0) / scale;
                if (isa<arith::ShRUIOp>(o))
                  return *constRhs == 0 ? operand(0) : u(0) / scale;
                auto flags =
                    llvm::cast<arith::ArithIntegerOverflowFlagsInterface>(o);
                if (flags.hasNoSignedWrap() || flags.hasNoUnsignedWrap())
                  return noWrap(operand(0) * scale, u(0) * scale);
                return wrap(operand(0) * scale, width);
              })
          .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) -> std::optional<z3::expr> {
            z3::expr a = sv(0), b = sv(1), ua = u(0), ub = u(1);
            switch (cmp.getPredicate()) {
            case arith::CmpIPredicate::eq:
              return a == b;
            case arith::CmpIPredicate::ne:
              return a != b;
            case arith::CmpIPredicate::slt:
              return a < b;
            case arith::CmpIPredicate::sle:
              return a <= b;
            case arith::CmpIPredicate::sgt:
              return a > b;
            case arith::CmpIPredicate::sge:
              return a >= b;
            case arith::CmpIPredicate::ult:
              return ua < ub;
            case arith::CmpIPredicate::ule:
              return ua <= ub;
            case arith::CmpIPredicate::ugt:
              return ua > ub;
            case arith::CmpIPredicate::uge:
              return ua >= ub;
            }
            return opaque();
          })
          .Case<arith::SelectOp>([&](Operation *) -> std::optional<z3::expr> {
            z3::expr c = operand(0);
            return z3::ite(c.is_bool() ? c : c != 0, operand(1), operand(2));
          })
          .Case<arith::IndexCastOp, arith::ExtSIOp, arith::IndexCastUIOp,
                arith::ExtUIOp, arith::TruncIOp>(
              [&](Operation *o) -> std::optional<z3::expr> {
                unsigned from = widthOf(op->getOperand(0).getType());
                bool zeroExtend = isa<arith::IndexCastUIOp, arith::ExtUIOp>(o);
                if (width >= from) {
                  z3::expr v = zeroExtend ? u(0) : sv(0);
                  return isBool ? v != 0 : v;
                }
                if (auto flags = llvm::dyn_cast<
                        arith::ArithIntegerOverflowFlagsInterface>(o)) {
                  if (flags.hasNoSignedWrap())
                    require(op, inst, inRange(operand(0), width),
                            "the " + opName +
                                " can change the signed value, which its nsw "
                                "flag makes poison");
                  if (flags.hasNoUnsignedWrap())
                    require(op, inst, u(0) < pow2(width),
                            "the " + opName +
                                " can change the unsigned value, which its "
                                "nuw flag makes poison");
                }
                if (isBool)
                  return z3::mod(operand(0), 2) == 1;
                return wrap(operand(0), width);
              })
          .Default([&](Operation *) { return opaque(); });
  if (e)
    return *e;
  return z3::expr(ctx);
}

z3::expr SymbolicModel::compute(Value value, Instance &inst) {
  Type type = value.getType();
  unsigned width = widthOf(type);
  bool isBool = width == 1;
  auto opaque = [&]() {
    // A value the model does not follow: any value of its type. Loop-
    // invariant ones are shared by all instances of the program.
    auto [it, inserted] =
        opaqueIds.try_emplace(value.getAsOpaquePointer(), opaqueIds.size());
    std::string name = scope + "opaque@line" + lineNumberOf(value.getLoc()) + "#" +
                       std::to_string(it->second);
    if (insideLoop(value))
      name += inst.suffix;
    name += inst.program;
    if (isBool)
      return ctx.bool_const(name.c_str());
    z3::expr e = ctx.int_const(name.c_str());
    if (width)
      addFact(inRange(e, width));
    return e;
  };

  if (auto arg = llvm::dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto k = llvm::dyn_cast<tile::KernelOp>(owner)) {
      z3::expr s =
          symbol(k.getOperandName(arg.getArgNumber()), Symbol::Scalar, isBool);
      if (width > 1)
        addFact(inRange(s, width));
      return s;
    }
    if (auto loop = llvm::dyn_cast<scf::ForOp>(owner))
      if (arg == loop.getInductionVar())
        return inductionVar(loop, inst);
    return opaque();
  }

  Operation *op = value.getDefiningOp();
  if (width && value == op->getResult(0) && op->getNumResults() == 1 &&
      !llvm::isa<ShapedType>(type) &&
      llvm::none_of(op->getOperandTypes(),
                    [](Type t) { return llvm::isa<ShapedType>(t); })) {
    z3::expr e = computeInteger(op, inst);
    if (static_cast<Z3_ast>(e))
      return e;
  }

  return llvm::TypeSwitch<Operation *, z3::expr>(op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) {
        if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue())) {
          if (isBool)
            return ctx.bool_val(i.getValue().getZExtValue() != 0);
          return ctx.int_val(static_cast<int64_t>(i.getValue().getSExtValue()));
        }
        return opaque();
      })
      .Case<tile::ProgramIdOp>([&](tile::ProgramIdOp p) {
        return programId(p.getDimAttr().getInt(), inst);
      })
      .Case<tile::NumProgramsOp>([&](tile::NumProgramsOp p) {
        z3::expr n = gridExtent(p.getDimAttr().getInt());
        addFact(n >= 1);
        return n;
      })
      .Case<memref::DimOp>([&](memref::DimOp dim) {
        auto type = llvm::dyn_cast<MemRefType>(dim.getSource().getType());
        if (!type)
          return opaque();
        int64_t rank = type.getRank();
        z3::expr d = term(dim.getIndex(), inst);
        require(dim, inst, d >= 0 && d < ctx.int_val(rank),
                "the dimension index of the memref.dim can be at or past "
                "the rank " +
                    Twine(rank) + " (undefined)");
        // The value at each dimension the index may name.
        z3::expr value = opaque();
        for (int64_t i = rank; i-- > 0;)
          value = z3::ite(d == ctx.int_val(i), dimension(dim.getSource(), i),
                          value);
        return value;
      })
      .Case<memref::LoadOp>([&](memref::LoadOp load) {
        auto arg = llvm::dyn_cast<BlockArgument>(load.getMemRef());
        std::vector<z3::expr> index;
        for (Value i : load.getIndices())
          index.push_back(term(i, inst));
        if (isBool || !width || !arg ||
            arg.getOwner()->getParentOp() != kernel.getOperation())
          return opaque();
        // Kernel memory that the kernel does not write is a function of the
        // index: equal indices give equal values in every instance.
        z3::sort_vector domain(ctx);
        z3::expr_vector args(ctx);
        for (const z3::expr &i : index) {
          domain.push_back(ctx.int_sort());
          args.push_back(i);
        }
        std::string name = kernel.getOperandName(arg.getArgNumber()) + "[]";
        z3::func_decl f = ctx.function(name.c_str(), domain, ctx.int_sort());
        z3::expr value = f(args);
        addFact(inRange(value, width));
        if (kernel.getArgAttr(arg.getArgNumber(),
                              tile::TileDialect::kNondecreasingAttrName)) {
          // A sorted sequence: instantiate monotonicity for every pair of
          // reads (quantifier-free, unlike the axiom it stands for).
          auto &seen = (*sortedReads)[name];
          for (auto &[index, other] : seen)
            addFact(z3::implies(index <= args[0], other <= value) &&
                            z3::implies(args[0] <= index, value <= other));
          seen.push_back({args[0], value});
        }
        return value;
      })
      .Default([&](Operation *) { return opaque(); });
}

z3::expr SymbolicModel::executes(Operation *op, Instance &inst) {
  // The instance runs in one program of the grid.
  for (int64_t d = 0; d < kernel.getGridAttr().getInt(); ++d)
    programId(d, inst);
  z3::expr cond = ctx.bool_val(true);
  Operation *child = op;
  for (Operation *p = op->getParentOp(); p && p != kernel.getOperation();
       child = p, p = p->getParentOp()) {
    if (auto loop = llvm::dyn_cast<scf::ForOp>(p)) {
      z3::expr iv = inductionVar(loop, inst);
      z3::expr lb = term(loop.getLowerBound(), inst),
               ub = term(loop.getUpperBound(), inst);
      cond = cond && iv >= lb && iv < ub;
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!step || *step != 1) {
        z3::expr s = term(loop.getStep(), inst);
        cond = cond && s > 0 && z3::mod(iv - lb, s) == 0;
      }
    } else if (auto branch = llvm::dyn_cast<scf::IfOp>(p)) {
      z3::expr c = term(branch.getCondition(), inst);
      bool inThen = child->getParentRegion() == &branch.getThenRegion();
      cond = cond && (inThen ? c : !c);
    }
  }
  return cond;
}

void SymbolicModel::addFact(const z3::expr &fact) {
  // Program ids are constrained at every executes(): keep each fact once.
  if (factIds.insert(fact.id()).second)
    facts.push_back(fact);
}

z3::expr SymbolicModel::assumptions() {
  z3::expr all = ctx.bool_val(true);
  for (const z3::expr &f : facts)
    all = all && f;
  return all;
}

std::vector<z3::expr> SymbolicModel::sizeSymbols() {
  std::vector<z3::expr> sizes;
  if (auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
          tile::TileDialect::kLaunchAttrName))
    for (StringAttr name : launch.getSizeNames())
      sizes.push_back(symbol("size." + name.getValue().str(), Symbol::Size));
  return sizes;
}

z3::expr SymbolicModel::operandsFitInMemory() {
  z3::expr all = ctx.bool_val(true);
  for (BlockArgument arg : kernel.getBody().front().getArguments()) {
    auto type = llvm::dyn_cast<MemRefType>(arg.getType());
    if (!type || type.hasStaticShape() ||
        !type.getElementType().isIntOrIndexOrFloat())
      continue;
    unsigned bits = type.getElementType().isIndex()
                        ? 64
                        : type.getElementType().getIntOrFloatBitWidth();
    z3::expr bytes = ctx.int_val(std::max<int64_t>(1, (bits + 7) / 8));
    for (int64_t d = 0; d < type.getRank(); ++d)
      bytes = bytes * dimension(arg, d);
    all = all && bytes < pow2(63);
  }
  return all;
}

/// The ancestor of `op` (or `op` itself) whose block is `block`.
static Operation *ancestorIn(Operation *op, Block *block) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

z3::expr SymbolicModel::before(Operation *a, Instance &ia, Operation *b,
                               Instance &ib) {
  SmallVector<scf::ForOp> la = loops(a), lb = loops(b);
  size_t common = 0;
  while (common < la.size() && common < lb.size() && la[common] == lb[common])
    ++common;
  // Program order inside the innermost common loop body (or kernel body).
  Block *block = common ? la[common - 1].getBody() : &kernel.getBody().front();
  Operation *pa = ancestorIn(a, block), *pb = ancestorIn(b, block);
  bool sameIterationOrder = pa && pb && pa != pb && pa->isBeforeInBlock(pb);
  if (pa && pb && pa == pb && a != b && pa != a && pa != b) {
    // Both inside the same nested op (e.g. one scf.if or role): compare
    // deeper, where they diverge.
    Operation *x = a, *y = b;
    while (x->getParentOp() != y->getParentOp() ||
           x->getBlock() != y->getBlock()) {
      if (x->getParentOp() && !x->getParentOp()->isAncestor(y))
        x = x->getParentOp();
      else if (y->getParentOp() && !y->getParentOp()->isAncestor(x))
        y = y->getParentOp();
      else
        break;
    }
    sameIterationOrder =
        x->getBlock() == y->getBlock() && x != y && x->isBeforeInBlock(y);
  }
  // Lexicographic order of the common loops' iterations.
  z3::expr result = ctx.bool_val(sameIterationOrder);
  for (size_t d = common; d-- > 0;) {
    z3::expr va = inductionVar(la[d], ia), vb = inductionVar(la[d], ib);
    result = va < vb || (va == vb && result);
  }
  return result;
}

z3::expr SymbolicModel::affine(AffineExpr expr, ArrayRef<z3::expr> dims,
                               ArrayRef<z3::expr> symbols) {
  if (auto d = llvm::dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  if (auto c = llvm::dyn_cast<AffineConstantExpr>(expr))
    return ctx.int_val(static_cast<int64_t>(c.getValue()));
  if (auto sym = llvm::dyn_cast<AffineSymbolExpr>(expr))
    return symbols[sym.getPosition()];
  auto bin = llvm::cast<AffineBinaryOpExpr>(expr);
  z3::expr l = affine(bin.getLHS(), dims, symbols),
           r = affine(bin.getRHS(), dims, symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return l / r;
  case AffineExprKind::CeilDiv:
    return (l + r - 1) / r;
  case AffineExprKind::Mod:
    return z3::mod(l, r);
  default:
    return fresh("affine");
  }
}

void mlir::tiletag::verify::forEachConstant(
    const z3::expr &e, llvm::function_ref<void(const z3::expr &)> fn,
    bool intoQuantifiers) {
  // Terms are DAGs with much sharing (nested loop orders, unions of tags):
  // a tree walk would visit shared subterms exponentially often.
  llvm::DenseSet<unsigned> seen;
  std::vector<z3::expr> work{e};
  while (!work.empty()) {
    z3::expr t = work.back();
    work.pop_back();
    if (!seen.insert(t.id()).second)
      continue;
    if (t.is_app()) {
      if (t.num_args() == 0)
        fn(t);
      for (unsigned i = 0; i < t.num_args(); ++i)
        work.push_back(t.arg(i));
    } else if (t.is_quantifier() && intoQuantifiers) {
      work.push_back(t.body());
    }
  }
}

std::string mlir::tiletag::verify::evalString(const z3::model &model,
                                              const z3::expr &value) {
  z3::expr v = model.eval(value, true);
  if (v.is_bool())
    return v.is_true() ? "1" : "0";
  int64_t n;
  if (v.is_numeral_i64(n))
    return std::to_string(n);
  return v.to_string();
}

std::string SymbolicModel::replayFlags(const z3::model &model) {
  std::string sizeList, sets;
  for (const Symbol &sym : shared) {
    std::string value = evalString(model, sym.expr);
    if (sym.kind == Symbol::Size)
      sizeList += (sizeList.empty() ? "" : ",") +
                  StringRef(sym.name).drop_front(5).str() + "=" + value;
    // Another program's id (pid0') is named in the counterexample only.
    else if ((sym.kind == Symbol::ProgramId &&
              !StringRef(sym.name).ends_with("'")) ||
             sym.kind == Symbol::Scalar)
      sets += " --set " + sym.name + "=" + value;
  }
  return (sizeList.empty() ? "" : " --size " + sizeList) + sets;
}

/// The shared symbols by kind (and program ids by name: pid0, pid0', ...),
/// otherwise in the order the model made them.
static std::vector<const Symbol *> ordered(ArrayRef<Symbol> symbols) {
  std::vector<const Symbol *> out;
  for (const Symbol &s : symbols)
    out.push_back(&s);
  std::stable_sort(out.begin(), out.end(), [](const Symbol *a, const Symbol *b) {
    if (a->kind != b->kind)
      return a->kind < b->kind;
    return a->kind == Symbol::ProgramId && a->name < b->name;
  });
  return out;
}

std::vector<z3::expr> SymbolicModel::minimalOrder(
    ArrayRef<std::pair<Operation *, Instance *>> points) {
  std::vector<z3::expr> terms;
  for (Symbol::Kind kind : {Symbol::Size, Symbol::Dimension,
                            Symbol::GridExtent, Symbol::ProgramId,
                            Symbol::Scalar})
    for (const Symbol *sym : ordered(shared))
      if (sym->kind == kind && sym->expr.is_int())
        terms.push_back(sym->expr);
  for (auto [op, inst] : points)
    for (scf::ForOp loop : loops(op))
      terms.push_back(inductionVar(loop, *inst));
  return terms;
}

std::string SymbolicModel::describe(const z3::model &model, Operation *op,
                                    Instance *inst, llvm::StringRef label) {
  std::string text = label.str() + ":";
  for (const Symbol *sym : ordered(shared))
    text += " " + sym->name + " = " + evalString(model, sym->expr) + ";";
  if (op && inst)
    for (scf::ForOp loop : loops(op))
      text += " " + loopName(loop) + " = " +
              evalString(model, inductionVar(loop, *inst)) + ";";
  return text;
}

std::optional<ValueRange> mlir::tiletag::verify::slotsWritten(Operation *w,
                                                              Value buffer) {
  if (auto copy = llvm::dyn_cast<tile::CopyOp>(w))
    if (copy.isGlobalToShared() && copy.getDest() == buffer)
      return ValueRange(copy.getDestIndices());
  if (auto write = llvm::dyn_cast<tile::WriteOp>(w))
    if (write.getBuffer() == buffer)
      return ValueRange(write.getIndices());
  return std::nullopt;
}

SmallVector<Operation *> SymbolicModel::bufferWriters(Value buffer) {
  SmallVector<Operation *> writers;
  kernel.walk([&](Operation *op) {
    if (slotsWritten(op, buffer))
      writers.push_back(op);
  });
  return writers;
}

z3::expr SymbolicModel::lastWrite(Operation *w, Instance &iw,
                                  ArrayRef<Operation *> writers,
                                  Operation *reader, ValueRange slots,
                                  Instance &ir) {
  Value buffer = llvm::isa<tile::CopyOp>(w)
                     ? llvm::cast<tile::CopyOp>(w).getDest()
                     : llvm::cast<tile::WriteOp>(w).getBuffer();
  auto sameSlot = [&](Operation *op, Instance &inst) {
    z3::expr eq = ctx.bool_val(true);
    for (auto [x, y] : llvm::zip(*slotsWritten(op, buffer), slots))
      eq = eq && term(x, inst) == term(y, ir);
    return eq;
  };
  z3::expr last = executes(w, iw) && sameSlot(w, iw) && before(w, iw, reader, ir);
  for (Operation *w2 : writers) {
    Instance i2{iw.suffix + "x" + std::to_string(freshCounter++), {},
                iw.program};
    z3::expr later = executes(w2, i2) && sameSlot(w2, i2) &&
                     before(w2, i2, reader, ir) && before(w, iw, w2, i2);
    // Stated at the reader's iteration too, where a ring's slot is usually
    // written last: that instance pins the last write down without a
    // search.
    std::vector<std::vector<z3::expr>> instances;
    if (auto atReader = shiftedIteration(w2, reader, ir, 0))
      instances.push_back(std::move(*atReader));
    last = last && forAll(loopVars(w2, i2), !later, instances);
  }
  return last;
}

z3::expr SymbolicModel::asInt(const z3::expr &e) {
  return e.is_bool() ? z3::ite(e, ctx.int_val(1), ctx.int_val(0)) : e;
}

std::optional<std::string> mlir::tiletag::verify::sourceName(Operation *op) {
  auto loc = llvm::dyn_cast<FileLineColLoc>(op->getLoc());
  if (!loc || op->getNumResults() != 1)
    return std::nullopt;
  auto file = llvm::MemoryBuffer::getFile(loc.getFilename().getValue());
  if (!file)
    return std::nullopt;
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  if (loc.getLine() == 0 || loc.getLine() > lines.size())
    return std::nullopt;
  // "  %a_ring = tile.alloc_shared ...": the name before '=' on its line.
  StringRef line = lines[loc.getLine() - 1].ltrim();
  if (!line.starts_with("%"))
    return std::nullopt;
  StringRef name = line.take_until([](char c) {
    return !(llvm::isAlnum(c) || c == '_' || c == '%' || c == '.' || c == '$');
  });
  if (name.size() < 2 || !line.drop_front(name.size()).ltrim().starts_with("="))
    return std::nullopt;
  return name.str();
}

std::string mlir::tiletag::verify::locationString(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
  return text;
}

static int64_t valueOf(const z3::model &model, const z3::expr &e) {
  z3::expr v = model.eval(e, true);
  if (v.is_bool())
    return v.is_true();
  int64_t n = 0;
  (void)v.is_numeral_i64(n);
  return n;
}

std::string SymbolicModel::replayCommand(const z3::model &model) {
  std::string file = "FILE";
  if (auto loc = llvm::dyn_cast<FileLineColLoc>(kernel.getLoc()))
    file = loc.getFilename().str();
  return "tiletag-run " + file + " --kernel " + kernel.getSymName().str() +
         replayFlags(model);
}

Counterexample SymbolicModel::counterexample(
    const z3::model &model, ArrayRef<std::pair<Operation *, Instance *>> points,
    ArrayRef<std::vector<CounterexampleAccess>> accesses) {
  Counterexample cex;
  for (const Symbol *sym : ordered(shared))
    cex.values.push_back({sym->name, valueOf(model, sym->expr)});
  for (auto [i, point] : llvm::enumerate(points)) {
    auto [op, inst] = point;
    CounterexamplePoint p;
    p.op = op->getName().getStringRef().str();
    p.location = locationString(op->getLoc());
    for (scf::ForOp loop : loops(op))
      p.loops.push_back(
          {loopName(loop), valueOf(model, inductionVar(loop, *inst))});
    if (i < accesses.size()) {
      p.accesses = accesses[i];
      SmallVector<std::string> text;
      for (const CounterexampleAccess &a : p.accesses) {
        std::string index;
        llvm::raw_string_ostream os(index);
        llvm::interleaveComma(a.index, os);
        text.push_back(a.kind + " [" + index + "] of " + a.buffer);
      }
      p.memory = llvm::join(text, ", ");
    }
    cex.points.push_back(std::move(p));
  }
  cex.replay = replayCommand(model);
  cex.replayFlags = replayFlags(model);
  return cex;
}
