//===- SymbolicModel.cpp - kernels as Z3 terms over symbolic sizes --------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

SymbolicModel::SymbolicModel(tile::KernelOp kernel, z3::context &ctx)
    : ctx(ctx), kernel(kernel) {
  // An execution runs some program: the grid is not empty.
  for (int64_t d = 0; d < kernel.getGridAttr().getInt(); ++d)
    facts.push_back(symbol("nprog" + std::to_string(d), Symbol::GridExtent) >=
                    1);
  // The launch contract: operand shapes and grid extents are functions of the
  // problem sizes. Without it, "the grid covers M" could not be proved.
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  if (!launch)
    return;
  std::vector<z3::expr> sizes;
  for (StringAttr name : launch.getSizeNames()) {
    sizes.push_back(symbol("size." + name.getValue().str(), Symbol::Size));
    facts.push_back(sizes.back() >= 0);
  }
  for (auto [name, map] : llvm::zip(launch.getShapeNames(), launch.getShapes()))
    for (auto [d, e] : llvm::enumerate(map.getResults()))
      facts.push_back(symbol(name.getValue().str() + ".dim" + std::to_string(d),
                             Symbol::Dimension) == affine(e, {}, sizes));
  for (auto [d, e] : llvm::enumerate(launch.getGrid()))
    facts.push_back(symbol("nprog" + std::to_string(d), Symbol::GridExtent) ==
                    affine(e, {}, sizes));
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
  z3::expr e =
      isBool ? ctx.bool_const(name.c_str()) : ctx.int_const(name.c_str());
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
  facts.push_back(s >= 0);
  return s;
}

z3::expr SymbolicModel::fresh(StringRef prefix) {
  return ctx.int_const(
      (prefix + "#" + std::to_string(freshCounter++)).str().c_str());
}

z3::expr SymbolicModel::programId(int64_t dim, Instance &inst) {
  std::string d = std::to_string(dim);
  z3::expr pid = symbol("pid" + d + inst.program, Symbol::ProgramId),
           n = symbol("nprog" + d, Symbol::GridExtent);
  facts.push_back(pid >= 0 && pid < n);
  return pid;
}

z3::expr SymbolicModel::inductionVar(scf::ForOp loop, Instance &inst) {
  auto key = loop.getInductionVar().getAsOpaquePointer();
  auto it = inst.memo.find(key);
  if (it != inst.memo.end())
    return it->second;
  z3::expr iv = ctx.int_const((loopName(loop) + inst.suffix).c_str());
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

z3::expr SymbolicModel::compute(Value value, Instance &inst) {
  Type type = value.getType();
  bool isBool = type.isInteger(1);
  auto opaque = [&]() {
    // A value the model does not follow: any value at all. Loop-invariant
    // ones are shared by all instances of the program.
    auto [it, inserted] =
        opaqueIds.try_emplace(value.getAsOpaquePointer(), opaqueIds.size());
    std::string name = "opaque@line" + lineNumberOf(value.getLoc()) + "#" +
                       std::to_string(it->second);
    if (insideLoop(value))
      name += inst.suffix;
    name += inst.program;
    return isBool ? ctx.bool_const(name.c_str()) : ctx.int_const(name.c_str());
  };

  if (auto arg = llvm::dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto k = llvm::dyn_cast<tile::KernelOp>(owner)) {
      z3::expr s =
          symbol(k.getOperandName(arg.getArgNumber()), Symbol::Scalar, isBool);
      return s;
    }
    if (auto loop = llvm::dyn_cast<scf::ForOp>(owner))
      if (arg == loop.getInductionVar())
        return inductionVar(loop, inst);
    return opaque();
  }

  Operation *op = value.getDefiningOp();
  auto operand = [&](unsigned i) { return term(op->getOperand(i), inst); };
  auto asBool = [&](z3::expr e) { return e.is_bool() ? e : e != 0; };

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
        z3::expr n = symbol("nprog" + std::to_string(p.getDimAttr().getInt()),
                            Symbol::GridExtent);
        facts.push_back(n >= 1);
        return n;
      })
      .Case<memref::DimOp>([&](memref::DimOp dim) {
        std::optional<int64_t> d = getConstantIntValue(dim.getIndex());
        auto type = llvm::dyn_cast<MemRefType>(dim.getSource().getType());
        if (!d || !type || *d < 0 || *d >= type.getRank())
          return opaque();
        if (!type.isDynamicDim(*d))
          return ctx.int_val(static_cast<int64_t>(type.getDimSize(*d)));
        auto arg = llvm::dyn_cast<BlockArgument>(dim.getSource());
        if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation())
          return opaque();
        return dimension(dim.getSource(), *d);
      })
      .Case<memref::LoadOp>([&](memref::LoadOp load) {
        auto arg = llvm::dyn_cast<BlockArgument>(load.getMemRef());
        if (isBool || !arg ||
            arg.getOwner()->getParentOp() != kernel.getOperation())
          return opaque();
        // Kernel memory that the kernel does not write is a function of the
        // index: equal indices give equal values in every instance.
        z3::sort_vector domain(ctx);
        z3::expr_vector args(ctx);
        for (Value i : load.getIndices()) {
          domain.push_back(ctx.int_sort());
          args.push_back(term(i, inst));
        }
        std::string name = kernel.getOperandName(arg.getArgNumber()) + "[]";
        z3::func_decl f = ctx.function(name.c_str(), domain, ctx.int_sort());
        z3::expr value = f(args);
        if (kernel.getArgAttr(arg.getArgNumber(),
                              tile::TileDialect::kNondecreasingAttrName)) {
          // A sorted sequence: instantiate monotonicity for every pair of
          // reads (quantifier-free, unlike the axiom it stands for).
          auto &seen = sortedReads[name];
          for (auto &[index, other] : seen)
            facts.push_back(z3::implies(index <= args[0], other <= value) &&
                            z3::implies(args[0] <= index, value <= other));
          seen.push_back({args[0], value});
        }
        return value;
      })
      .Case<arith::AddIOp>([&](Operation *) { return operand(0) + operand(1); })
      .Case<arith::SubIOp>([&](Operation *) { return operand(0) - operand(1); })
      .Case<arith::MulIOp>([&](Operation *) { return operand(0) * operand(1); })
      .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
          [&](Operation *) { return operand(0) / operand(1); })
      .Case<arith::RemUIOp, arith::RemSIOp>(
          [&](Operation *) { return z3::mod(operand(0), operand(1)); })
      .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>([&](Operation *) {
        z3::expr a = operand(0), b = operand(1);
        return (a + b - 1) / b;
      })
      .Case<arith::MinUIOp, arith::MinSIOp>([&](Operation *) {
        z3::expr a = operand(0), b = operand(1);
        return z3::ite(a <= b, a, b);
      })
      .Case<arith::MaxUIOp, arith::MaxSIOp>([&](Operation *) {
        z3::expr a = operand(0), b = operand(1);
        return z3::ite(a >= b, a, b);
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>([&](Operation *) {
        z3::expr a = operand(0);
        return isBool ? asBool(a) : asInt(a);
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) {
        z3::expr a = asInt(operand(0)), b = asInt(operand(1));
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq:
          return a == b;
        case arith::CmpIPredicate::ne:
          return a != b;
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
          return a < b;
        case arith::CmpIPredicate::sle:
        case arith::CmpIPredicate::ule:
          return a <= b;
        case arith::CmpIPredicate::sgt:
        case arith::CmpIPredicate::ugt:
          return a > b;
        case arith::CmpIPredicate::sge:
        case arith::CmpIPredicate::uge:
          return a >= b;
        }
        return opaque();
      })
      .Case<arith::SelectOp>([&](arith::SelectOp sel) {
        if (llvm::isa<ShapedType>(sel.getType()))
          return opaque();
        return z3::ite(asBool(operand(0)), operand(1), operand(2));
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](Operation *o) {
        if (!isBool)
          return opaque();
        z3::expr a = asBool(operand(0)), b = asBool(operand(1));
        if (isa<arith::AndIOp>(o))
          return a && b;
        if (isa<arith::OrIOp>(o))
          return a || b;
        return a != b;
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

z3::expr SymbolicModel::assumptions() {
  z3::expr all = ctx.bool_val(true);
  for (const z3::expr &f : facts)
    all = all && f;
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

std::string SymbolicModel::describe(const z3::model &model, Operation *op,
                                    Instance *inst) {
  std::string text = "counterexample:";
  for (const Symbol &sym : shared)
    text += " " + sym.name + " = " + evalString(model, sym.expr) + ";";
  if (op && inst)
    for (scf::ForOp loop : loops(op))
      text += " " + loopName(loop) + " = " +
              evalString(model, inductionVar(loop, *inst)) + ";";
  return text;
}

z3::expr SymbolicModel::asInt(const z3::expr &e) {
  return e.is_bool() ? z3::ite(e, ctx.int_val(1), ctx.int_val(0)) : e;
}
