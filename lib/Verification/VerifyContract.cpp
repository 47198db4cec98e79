//===- VerifyContract.cpp - prove a kernel computes its reference ---------===//
//
// Part of the TileTag project.
//
// A kernel's contract is a reference kernel (`tag.contract = @ref`): a plain
// sequential kernel over the same operands. The kernel meets it when
//   - every block the reference stores is stored by the kernel, and every
//     block the kernel stores is one the reference stores (coverage);
//   - wherever a kernel store and a reference store write the same block,
//     the two stored values are the same computation (values).
// Values are compared as data-flow terms, walked on both sides at once:
// floating-point operations must be the same operations with the same
// attributes on matching operands; integer and boolean data (indices, iota,
// masks) must be equal element by element, which Z3 proves; loads must read
// the same elements of the same operand with the same padding, through
// shared-memory slots back to the tile.copy that filled them; loop results
// are folds whose steps compute the same thing from the same carried values
// (induction on the step), the kernel's loops running the reference loop's
// steps in order, each once: one loop step per reference step, or several
// (an unrolled loop), in one loop or in loops that continue one another (a
// remainder loop).
// A `combine add` store adds its fold into memory: the kernel's adds to one
// block, over all programs, must together sum every step of the reference's
// fold exactly once.
// A kernel tile may hold several reference tiles (a retiled kernel): each
// reference tile is then compared with the window of the kernel's tile at
// its place, the window followed back through the ops that keep elements
// at known places (Window, matchWindowed).
//
//===----------------------------------------------------------------------===//

#include "Checkers.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

namespace {

/// One side of the comparison: a kernel's model and the instance its
/// values are read in.
struct Side {
  SymbolicModel &model;
  Instance &inst;
};

/// A global block an access touches, element by element: per memref
/// dimension, the first element (`origin`) and the end of the in-range part
/// (`end`, the block's end clipped to the bounds). A workspace slice stands
/// for a block of an output: its slice dimension is dropped, and `inRange`
/// says that the slice lies inside the workspace.
struct Block {
  Value memref;
  std::vector<z3::expr> origin, end;
  std::optional<z3::expr> inRange;
};

/// The part of a kernel tile that stands for a reference tile of another
/// shape (a retiled kernel's tile holds several of the reference's): per
/// tile dimension, the first element (`offsets`, in the kernel's tile) and
/// the extent (`shape`, the reference tile's).
struct Window {
  std::vector<z3::expr> offsets;
  std::vector<int64_t> shape;
};

/// What a tile of data was loaded from: a global block, the tile type and
/// the padding of out-of-range elements. `when` says for which writes (of a
/// shared slot the data went through) this holds.
struct Source {
  Operation *op;
  Block block;
  Type tileType;
  Attribute padding;
  z3::expr when;
};

/// Two loops whose results are matched: step n of the kernel's loop runs
/// the reference loop's steps `base + copies * n + j`, j < copies, one per
/// copy of its body (`copies` > 1: an unrolled loop; `base` > 0: a loop that
/// continues `prev`, as a remainder loop continues its unrolled loop). Each
/// kernel iter_arg stands for one reference iter_arg, seen through one
/// window (see Scope::window).
struct FoldPair {
  FoldPair(scf::ForOp k, scf::ForOp r, z3::expr bodyHyp, unsigned id,
           bool frozen)
      : k(k), r(r), bodyHyp(bodyHyp), id(id), frozen(frozen),
        tripCount(bodyHyp.ctx().int_val(0)), base(bodyHyp.ctx().int_val(0)) {}
  scf::ForOp k, r;
  z3::expr bodyHyp; // copy 0's hypothesis
  std::map<unsigned, std::pair<unsigned, unsigned>> args;
  std::vector<std::tuple<unsigned, unsigned, unsigned>> pending;
  unsigned id; // copy 0's scope
  bool frozen; // a combine-add fold: its accumulator is not matched
  int64_t copies = 1;
  z3::expr tripCount, base;
  FoldPair *prev = nullptr;
  std::vector<z3::expr> laterHyps; // copies 1, 2, ...
  std::vector<unsigned> laterIds;
  /// The scope the loop is matched in: its folds and their copies.
  std::vector<FoldPair *> outer;
  std::vector<unsigned> outerCopies;
  bool wholeClaimed = false;
};

/// A fold `acc + x(v)` a combine-add store adds: the loop, the
/// accumulator's position, the increment x.
struct Fold {
  scf::ForOp loop;
  unsigned arg;
  Value increment;
};

/// A proof obligation of the value comparison: `claim` wherever `hyp`.
struct Claim {
  z3::expr hyp, claim;
  std::string what;
  Operation *kop, *rop;
};

class ContractChecker {
public:
  ContractChecker(tile::KernelOp kernel, tile::KernelOp ref, z3::context &ctx,
                  Prover &prover)
      : ctx(ctx), prover(prover), km(kernel, ctx), rm(ref, ctx, "ref."),
        kernel(kernel), ref(ref) {
    rm.shareInputsWith(km);
  }

  CheckerResult run();

private:
  /// A launch chain whose contract is the whole chain's (see runChain).
  CheckerResult runChain(tile::KernelOp reduction);
  /// Refuses (false) a kernel that reads an operand it stores to.
  bool checkNoReadBack(tile::KernelOp k);
  bool checkSliceSum(tile::StoreOp t, scf::ForOp loop, tile::LoadOp load);
  void checkWorkspace(tile::StoreOp t, tile::LoadOp load, tile::StoreOp k);

  //===--------------------------------------------------------------------===//
  // Blocks and stores
  //===--------------------------------------------------------------------===//

  /// The block of a tile access, or with a window, of the window's part of
  /// the tile: `window.offsets[t]` onward along tile dimension t, `shape[t]`
  /// elements.
  Block blockOf(Side s, Value memref, ArrayRef<int64_t> tileShape,
                ValueRange indices, ValueRange offsets, ValueRange bounds,
                const Window *window = nullptr) {
    auto type = llvm::cast<MemRefType>(memref.getType());
    SmallVector<int64_t> shape = tile::blockShape(tileShape, type.getRank());
    int64_t lead = type.getRank() - static_cast<int64_t>(tileShape.size());
    Block b{memref, {}, {}, std::nullopt};
    for (int64_t d = 0; d < type.getRank(); ++d) {
      z3::expr origin = s.model.term(indices[d], s.inst) * ctx.int_val(shape[d]);
      if (!offsets.empty())
        origin = origin + s.model.term(offsets[d], s.inst);
      int64_t size = shape[d];
      if (window && d >= lead) {
        origin = origin + window->offsets[d - lead];
        size = window->shape[d - lead];
      }
      z3::expr bound = bounds.empty() ? s.model.dimension(memref, d)
                                      : s.model.term(bounds[d], s.inst);
      b.origin.push_back(origin);
      b.end.push_back(z3::min(origin + ctx.int_val(size), bound));
    }
    return b;
  }

  Block storeBlock(Side s, tile::StoreOp st, const Window *window = nullptr) {
    Block b = blockOf(s, st.getDest(), st.getValue().getType().getShape(),
                      st.getIndices(), st.getOffsets(), st.getBounds(), window);
    if (st == slicedStore) {
      b.inRange = b.origin[0] < b.end[0] && b.end[0] > 0;
      b.origin.erase(b.origin.begin());
      b.end.erase(b.end.begin());
    }
    return b;
  }

  z3::expr nonEmpty(const Block &b) {
    z3::expr e = b.inRange.value_or(ctx.bool_val(true));
    for (auto [o, end] : llvm::zip(b.origin, b.end))
      e = e && o < end && end > 0;
    return e;
  }

  z3::expr sameElements(const Block &a, const Block &b) {
    z3::expr e = ctx.bool_val(true);
    for (const Block *x : {&a, &b})
      if (x->inRange)
        e = e && *x->inRange;
    for (size_t d = 0; d < a.origin.size(); ++d)
      e = e && a.origin[d] == b.origin[d] && a.end[d] == b.end[d];
    return e;
  }

  static unsigned argNumber(Value memref) {
    return llvm::cast<BlockArgument>(memref).getArgNumber();
  }

  /// Two stores (of the kernel side and the reference) of the same output
  /// and tile type, or where windows are followed, of a kernel tile that is
  /// a whole number of reference tiles: the pairs the checks compare.
  bool sameOutput(tile::StoreOp a, tile::StoreOp b) {
    if (operandName(a.getDest()) != operandName(b.getDest()))
      return false;
    Type ka = a.getValue().getType(), rb = b.getValue().getType();
    return ka == rb || (followWindows && tileFactors(ka, rb));
  }

  /// Per dimension, how many tiles of type `r` a tile of type `k` holds:
  /// the same rank and element type, each extent a whole multiple.
  static std::optional<SmallVector<int64_t>> tileFactors(Type k, Type r) {
    auto kt = llvm::dyn_cast<RankedTensorType>(k);
    auto rt = llvm::dyn_cast<RankedTensorType>(r);
    if (!kt || !rt || kt.getElementType() != rt.getElementType() ||
        kt.getRank() != rt.getRank())
      return std::nullopt;
    SmallVector<int64_t> factors;
    for (auto [a, b] : llvm::zip(kt.getShape(), rt.getShape())) {
      if (b <= 0 || a % b != 0)
        return std::nullopt;
      factors.push_back(a / b);
    }
    return factors;
  }

  /// The windows of kernel store `k` that reference store `r`'s tiles are:
  /// along each tile dimension, window w_t * r's extent, w_t a fresh
  /// variable in [0, factor). Constrains the variables in `range`.
  /// The window of kernel store `k`, at block `kb`, whose elements start
  /// where reference block `rb` starts: it must start inside the tile, at a
  /// whole multiple of r's tile (constrained in `range`).
  Window windowAt(tile::StoreOp k, tile::StoreOp r, const Block &kb,
                  const Block &rb, z3::expr &range) {
    auto shape = r.getValue().getType().getShape();
    auto kShape = k.getValue().getType().getShape();
    size_t lead = kb.origin.size() - shape.size();
    Window w;
    w.shape.assign(shape.begin(), shape.end());
    for (size_t t = 0; t < shape.size(); ++t) {
      if (kShape[t] == shape[t]) {
        w.offsets.push_back(ctx.int_val(0));
        continue;
      }
      z3::expr off = rb.origin[lead + t] - kb.origin[lead + t];
      range = range && off >= 0 && off < ctx.int_val(kShape[t]) &&
              z3::mod(off, ctx.int_val(shape[t])) == 0;
      w.offsets.push_back(off);
    }
    return w;
  }

  Window storeWindow(tile::StoreOp k, tile::StoreOp r, z3::expr &range) {
    auto shape = r.getValue().getType().getShape();
    SmallVector<int64_t> factors =
        *tileFactors(k.getValue().getType(), r.getValue().getType());
    Window w;
    w.shape.assign(shape.begin(), shape.end());
    for (auto [f, extent] : llvm::zip(factors, shape)) {
      if (f == 1) {
        w.offsets.push_back(ctx.int_val(0));
        continue;
      }
      z3::expr v = ctx.int_const(("win#" + std::to_string(nextScope++)).c_str());
      range = range && v >= 0 && v < ctx.int_val(f);
      w.offsets.push_back(v * ctx.int_val(extent));
    }
    return w;
  }

  /// The name of a kernel operand: operands of a kernel and of its
  /// reference (or of the kernels of a launch chain) are matched by name.
  static std::string operandName(Value memref) {
    auto arg = llvm::cast<BlockArgument>(memref);
    return llvm::cast<tile::KernelOp>(arg.getOwner()->getParentOp())
        .getOperandName(arg.getArgNumber());
  }

  //===--------------------------------------------------------------------===//
  // Reports
  //===--------------------------------------------------------------------===//

  z3::expr facts() {
    z3::expr f = km.assumptions() && rm.assumptions();
    return reducer ? f && reducer->assumptions() : f;
  }

  void report(InFlightDiagnostic &diag, Operation *kop, Operation *rop,
              const z3::model &m,
              llvm::StringRef label = "counterexample") {
    Side ks = kernelSide(kop);
    std::pair<Operation *, Instance *> at[] = {{kop, &ks.inst}};
    prover.setCounterexample(ks.model.counterexample(m, at));
    diag.attachNote(kop->getLoc()) << ks.model.describe(m, kop, &ks.inst, label);
    if (rop) {
      std::string loops;
      for (scf::ForOp loop : rm.loops(rop))
        loops += " " + rm.loopName(loop) + " = " +
                 evalString(m, rm.inductionVar(loop, ri)) + ";";
      InFlightDiagnostic &d = diag;
      d.attachNote(rop->getLoc())
          << "the reference's " << rop->getName() << " here"
          << (loops.empty() ? "" : ", at") << loops;
    }
    diag.attachNote() << "replay on the CPU: " << km.replayCommand(m);
  }

  /// Checks that `negated` is unsatisfiable: a proof of `what` at `kop` is
  /// recorded, an unknown answer reported here; a counterexample goes to
  /// `model` for the caller to report.
  Verdict::Kind disprove(const z3::expr &negated, Operation *kop,
                         const std::string &what,
                         std::optional<z3::model> &model) {
    Side ks = kernelSide(kop);
    std::pair<Operation *, Instance *> at[] = {{kop, &ks.inst}};
    std::vector<z3::expr> bounds = loopBounds(kop, ks);
    Verdict v = prover.check(facts() && negated, what,
                             ks.model.minimalOrder(at), bounds);
    if (v.kind == Verdict::Unsat) {
      prover.recordProof(kop, what);
      ++proved;
      return v.kind;
    }
    failed = true;
    if (v.kind == Verdict::Unknown)
      mlir::emitError(kop->getLoc())
          << "could not prove " << what << ": Z3 answered unknown ("
          << v.reason << ")";
    model = v.model;
    return v.kind;
  }

  /// Proves that `negated` is unsatisfiable; otherwise reports `failure` at
  /// `kop` (with the reference op `rop`).
  bool refute(const z3::expr &negated, Operation *kop, Operation *rop,
              const std::string &what, const std::string &failure) {
    std::optional<z3::model> m;
    Verdict::Kind kind = disprove(negated, kop, what, m);
    if (kind == Verdict::Sat) {
      InFlightDiagnostic diag = mlir::emitError(kop->getLoc()) << failure;
      report(diag, kop, rop, *m);
    }
    return kind == Verdict::Unsat;
  }

  //===--------------------------------------------------------------------===//
  // Matching values
  //===--------------------------------------------------------------------===//

  struct Scope {
    z3::expr hyp;
    std::vector<FoldPair *> folds; // active, innermost last
    unsigned id;
    /// Per fold in `folds`, the copy of its body (an unrolled loop) the
    /// values are in; missing entries are copy 0.
    std::vector<unsigned> copies = {};
    /// Every element of the value is computed from the same element of its
    /// operands, up to the store (where a workspace may be read).
    bool elementwise = false;
    /// The window of the kernel's value that the reference's value is
    /// (`windows[window]`); 0: none, the values have one type.
    unsigned window = 0;
  };

  /// The number of window `w` of a kernel value of type `k` matched with a
  /// reference value of type `r`: 0 where it is the whole tile of one type;
  /// equal windows get one number, so that matches through them are shared.
  unsigned windowOf(const Window &w, Type k, Type r) {
    if (k == r && llvm::all_of(w.offsets, [](const z3::expr &o) {
          return o.is_numeral() && o.get_numeral_int64() == 0;
        }))
      return 0;
    std::string key;
    for (const z3::expr &o : w.offsets)
      key += o.to_string() + ";";
    for (int64_t e : w.shape)
      key += std::to_string(e) + ",";
    auto [it, inserted] = windowIds.try_emplace(key, windows.size());
    if (inserted)
      windows.push_back(w);
    return it->second;
  }

  /// Scope `s` for an operand of the kernel's type `k` and the reference's
  /// `r`, seen through `w` (none: the whole tile).
  Scope operandScope(const Scope &s, std::optional<Window> w, Type k, Type r) {
    Scope o = s;
    o.elementwise = false;
    o.window = w ? windowOf(*w, k, r) : 0;
    return o;
  }

  /// The bounds of the loops of `kop`'s kernel, as `side` models them: a
  /// claim that holds for any bounds is proved with them generalized first
  /// (Prover::check), as a split-k chain's `pid * chunk` bounds make Z3
  /// split cases.
  std::vector<z3::expr> loopBounds(Operation *kop, Side &side) {
    std::vector<z3::expr> bounds;
    kop->getParentOfType<tile::KernelOp>().walk([&](scf::ForOp loop) {
      for (Value bound : {loop.getLowerBound(), loop.getUpperBound()})
        bounds.push_back(side.model.term(bound, side.inst));
    });
    return bounds;
  }

  /// The side of a kernel op: the chain's second kernel, or this kernel.
  Side kernelSide(Operation *op) {
    if (reducer && op->getParentOfType<tile::KernelOp>() == follower)
      return {*reducer, ti};
    return {km, ki};
  }

  bool matchWorkspace(tile::LoadOp load, tile::StoreOp k, Value r, Scope &s);

  /// Looks through ops that only pass data on: tag.attach, the results of
  /// schedule regions.
  static Value skip(Value v) {
    while (true) {
      Operation *def = v.getDefiningOp();
      if (auto attach = llvm::dyn_cast_or_null<tag::AttachOp>(def)) {
        v = attach.getValue();
        continue;
      }
      if (def && llvm::isa<schedule::AsyncOp, schedule::RoleOp>(def)) {
        Operation *yield = def->getRegion(0).front().getTerminator();
        v = yield->getOperand(llvm::cast<OpResult>(v).getResultNumber());
        continue;
      }
      return v;
    }
  }

  /// A loop's sum `acc + x` from a zero tile in steps of 1, whose result is
  /// `v`: the loop, the accumulator's position, and the increment x (a
  /// tile.dot into the accumulator, or the addend of a plain arith.addf).
  static std::optional<Fold> sumFold(Value v) {
    v = skip(v);
    auto loop = v.getDefiningOp<scf::ForOp>();
    if (!loop || !isConstantIntValue(loop.getStep(), 1))
      return std::nullopt;
    unsigned arg = llvm::cast<OpResult>(v).getResultNumber();
    auto init =
        skip(loop.getInitArgs()[arg]).getDefiningOp<arith::ConstantOp>();
    auto dense = init ? llvm::dyn_cast<DenseFPElementsAttr>(init.getValue())
                      : DenseFPElementsAttr();
    if (!dense || !dense.isSplat() ||
        !dense.getSplatValue<APFloat>().isPosZero())
      return std::nullopt;
    Value acc = loop.getRegionIterArgs()[arg];
    Value next = skip(loop.getBody()->getTerminator()->getOperand(arg));
    if (auto dot = next.getDefiningOp<tile::DotOp>())
      if (skip(dot.getAcc()) == acc)
        return Fold{loop, arg, next};
    if (auto add = next.getDefiningOp<arith::AddFOp>();
        add && add.getFastmath() == arith::FastMathFlags::none) {
      if (skip(add.getLhs()) == acc)
        return Fold{loop, arg, add.getRhs()};
      if (skip(add.getRhs()) == acc)
        return Fold{loop, arg, add.getLhs()};
    }
    return std::nullopt;
  }

  static std::optional<std::pair<scf::ForOp, tile::LoadOp>>
  sliceSumOf(tile::StoreOp t);

  static bool isIntegerData(Type t) {
    Type e = getElementTypeOrSelf(t);
    return e.isIntOrIndex();
  }

  /// The op that defines `v`, or owns it as a block argument (a loop).
  static Operation *opOf(Value v) {
    if (Operation *def = v.getDefiningOp())
      return def;
    return v.getParentBlock()->getParentOp();
  }

  bool mismatch(Value k, Value r, const Twine &why) {
    if (mismatchText.empty()) {
      mismatchText = why.str();
      mismatchK = opOf(k);
      mismatchR = opOf(r);
    }
    return false;
  }

  void claim(const Scope &s, const z3::expr &c, const Twine &what, Value k,
             Value r) {
    claims.push_back({s.hyp, c, what.str(), opOf(k), opOf(r)});
  }

  bool match(Value k, Value r, Scope &s) {
    k = skip(k);
    r = skip(r);
    auto key = std::make_tuple(k.getAsOpaquePointer(), r.getAsOpaquePointer(),
                               s.id, s.elementwise, s.window);
    if (matched.count(key))
      return true;
    if (s.window ? !tileFactors(k.getType(), r.getType())
                 : k.getType() != r.getType())
      return mismatch(k, r,
                      "the kernel has a value of type " +
                          typeString(k.getType()) +
                          " where the reference has " +
                          typeString(r.getType()));
    bool ok = isIntegerData(k.getType()) ? matchIntegers(k, r, s)
                                         : matchData(k, r, s);
    if (ok)
      matched.insert(key);
    return ok;
  }

  static std::string typeString(Type t) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << t;
    return text;
  }

  static std::string describeOp(Value v) {
    if (Operation *def = v.getDefiningOp())
      return "'" + def->getName().getStringRef().str() + "' (" + lineOf(def) +
             ")";
    auto arg = llvm::cast<BlockArgument>(v);
    Operation *owner = arg.getOwner()->getParentOp();
    if (llvm::isa<scf::ForOp>(owner))
      return "a loop-carried value (" + lineOf(owner) + ")";
    return "operand " + std::to_string(arg.getArgNumber());
  }

  /// Floating-point (or other non-integer) data: the same computation.
  bool matchData(Value k, Value r, Scope &s) {
    auto kArg = llvm::dyn_cast<BlockArgument>(k);
    auto rArg = llvm::dyn_cast<BlockArgument>(r);
    if (std::optional<Scope> prev = previousCopy(rArg, s))
      return match(k, yielded(rArg), *prev);
    if (kArg || rArg) {
      if (!kArg || !rArg)
        return mismatch(k, r,
                        "the kernel has " + describeOp(k) +
                            " where the reference has " + describeOp(r));
      Operation *kOwner = kArg.getOwner()->getParentOp();
      Operation *rOwner = rArg.getOwner()->getParentOp();
      if (llvm::isa<tile::KernelOp>(kOwner) &&
          llvm::isa<tile::KernelOp>(rOwner)) {
        if (llvm::cast<tile::KernelOp>(kOwner).getOperandName(
                kArg.getArgNumber()) ==
            llvm::cast<tile::KernelOp>(rOwner).getOperandName(
                rArg.getArgNumber()))
          return true;
        return mismatch(k, r, "the kernel reads a different scalar operand");
      }
      auto kLoop = llvm::dyn_cast<scf::ForOp>(kOwner);
      auto rLoop = llvm::dyn_cast<scf::ForOp>(rOwner);
      if (!kLoop || !rLoop || kArg == kLoop.getInductionVar())
        return mismatch(k, r,
                        "the kernel has " + describeOp(k) +
                            " where the reference has " + describeOp(r));
      for (FoldPair *f : llvm::reverse(s.folds)) {
        if (f->k != kLoop)
          continue;
        if (f->r != rLoop)
          break;
        unsigned p = kArg.getArgNumber() - 1, q = rArg.getArgNumber() - 1;
        auto it = f->args.find(p);
        if (it != f->args.end()) {
          if (it->second == std::make_pair(q, s.window))
            return true;
          return mismatch(k, r,
                          "the kernel's loop-carried value " +
                              Twine(p).str() +
                              " stands for two of the reference's");
        }
        if (f->frozen)
          return mismatch(k, r,
                          "a combine-add fold may carry its accumulator only");
        f->args[p] = {q, s.window};
        f->pending.push_back({p, q, s.window});
        return true;
      }
      return mismatch(k, r,
                      "the kernel's loop (" + lineOf(kLoop) +
                          ") does not correspond to the reference's loop (" +
                          lineOf(rLoop) + ")");
    }

    Operation *kDef = k.getDefiningOp(), *rDef = r.getDefiningOp();
    if (auto kLoop = llvm::dyn_cast<scf::ForOp>(kDef)) {
      auto rLoop = llvm::dyn_cast<scf::ForOp>(rDef);
      if (!rLoop)
        return mismatch(k, r,
                        "the kernel has the result of a loop (" +
                            lineOf(kLoop) + ") where the reference has " +
                            describeOp(r));
      return matchFold(kLoop, llvm::cast<OpResult>(k).getResultNumber(), rLoop,
                       llvm::cast<OpResult>(r).getResultNumber(), s);
    }
    if (auto load = llvm::dyn_cast<tile::LoadOp>(kDef))
      if (auto it = workspaceStores.find(operandName(load.getSource()));
          it != workspaceStores.end())
        return s.window ? mismatch(k, r, "a workspace is read into a tile of "
                                         "another shape than the output's")
                        : matchWorkspace(load, it->second, r, s);
    if (llvm::isa<tile::LoadOp, tile::ReadOp>(kDef) ||
        llvm::isa<tile::LoadOp, tile::ReadOp>(rDef)) {
      if (!llvm::isa<tile::LoadOp, tile::ReadOp>(kDef) ||
          !llvm::isa<tile::LoadOp, tile::ReadOp>(rDef))
        return mismatch(k, r,
                        "the kernel has " + describeOp(k) +
                            " where the reference has " + describeOp(r));
      return matchLoads(k, r, s);
    }

    // The same operation on the same operands.
    if (kDef->getName() != rDef->getName())
      return mismatch(k, r,
                      "the kernel computes " + describeOp(k) +
                          " where the reference computes " + describeOp(r));
    if (kDef->getNumRegions() || rDef->getNumRegions())
      return mismatch(k, r,
                      "the contract checker does not follow " +
                          describeOp(k) + " (an operation with regions)");
    if (llvm::cast<OpResult>(k).getResultNumber() !=
            llvm::cast<OpResult>(r).getResultNumber() ||
        kDef->getNumOperands() != rDef->getNumOperands())
      return mismatch(k, r, "the operations differ in their operands");
    if (s.window)
      return matchWindowed(kDef, rDef, s);
    if (!sameAttributes(kDef, rDef))
      return mismatch(k, r,
                      "the kernel's " + describeOp(k) +
                          " has other attributes than the reference's " +
                          describeOp(r));
    Scope operands = s;
    operands.elementwise =
        s.elementwise && kDef->hasTrait<OpTrait::Elementwise>() &&
        llvm::all_of(kDef->getOperandTypes(), [&](Type t) {
          return t == kDef->getResult(0).getType();
        });
    for (auto [ko, ro] : llvm::zip(kDef->getOperands(), rDef->getOperands()))
      if (!match(ko, ro, operands))
        return false;
    return true;
  }

  /// The same operation, the kernel's result seen through window
  /// `s.window`: each operand through the window of it that the result's
  /// window reads (a dot's rows of the left and columns of the right
  /// operand, a reduction's whole axis). Only ops whose result elements are
  /// each computed from operand elements at known places are followed.
  bool matchWindowed(Operation *kDef, Operation *rDef, Scope &s) {
    Value k = kDef->getResult(0), r = rDef->getResult(0);
    const Window w = windows[s.window];
    auto types = [&](unsigned i) {
      return std::make_pair(kDef->getOperand(i).getType(),
                            rDef->getOperand(i).getType());
    };
    auto shapeOf = [](Value v) {
      return llvm::cast<RankedTensorType>(v.getType()).getShape();
    };
    // Operand i through window `ow`, or whole (nothing).
    auto operand = [&](unsigned i, std::optional<Window> ow) {
      auto [kt, rt] = types(i);
      Scope os = operandScope(s, ow, kt, rt);
      if (os.window == 0 && kt != rt)
        return mismatch(kDef->getOperand(i), rDef->getOperand(i),
                        "the kernel's operand has another shape than the "
                        "reference's");
      return match(kDef->getOperand(i), rDef->getOperand(i), os);
    };
    auto sameExtent = [&](unsigned i, int64_t d) {
      return shapeOf(kDef->getOperand(i))[d] == shapeOf(rDef->getOperand(i))[d]
                 ? true
                 : mismatch(k, r,
                            "the kernel's " + describeOp(k) + " spans " +
                                Twine(shapeOf(kDef->getOperand(i))[d]).str() +
                                " elements of operand " + Twine(i).str() +
                                " along dimension " + Twine(d).str() +
                                " where the reference's spans " +
                                Twine(shapeOf(rDef->getOperand(i))[d]).str());
    };
    auto zero = [&] { return ctx.int_val(0); };
    if (auto kc = llvm::dyn_cast<arith::ConstantOp>(kDef)) {
      auto a = llvm::dyn_cast<SplatElementsAttr>(kc.getValue());
      auto b = llvm::dyn_cast<SplatElementsAttr>(
          llvm::cast<arith::ConstantOp>(rDef).getValue());
      if (a && b && a.getSplatValue<Attribute>() == b.getSplatValue<Attribute>())
        return true;
      return mismatch(k, r, "the constants differ (or are not splats)");
    }
    if (!sameAttributes(kDef, rDef))
      return mismatch(k, r,
                      "the kernel's " + describeOp(k) +
                          " has other attributes than the reference's " +
                          describeOp(r));
    if (llvm::isa<tensor::SplatOp>(kDef))
      return operand(0, std::nullopt);
    if (auto dot = llvm::dyn_cast<tile::DotOp>(kDef)) {
      Window lhs{{w.offsets[0], zero()},
                 {w.shape[0], shapeOf(rDef->getOperand(0))[1]}};
      Window rhs{{zero(), w.offsets[1]},
                 {shapeOf(rDef->getOperand(1))[0], w.shape[1]}};
      return sameExtent(0, 1) && operand(0, lhs) && operand(1, rhs) &&
             operand(2, w);
    }
    if (auto red = llvm::dyn_cast<tile::ReduceOp>(kDef)) {
      int64_t axis = red.getAxis();
      Window in = w;
      in.offsets.insert(in.offsets.begin() + axis, zero());
      in.shape.insert(in.shape.begin() + axis, shapeOf(rDef->getOperand(0))[axis]);
      return sameExtent(0, axis) && operand(0, in);
    }
    if (auto b = llvm::dyn_cast<tile::BroadcastOp>(kDef)) {
      Window in;
      for (size_t d = 0; d < w.offsets.size(); ++d)
        if (!llvm::is_contained(b.getDims(), static_cast<int64_t>(d))) {
          in.offsets.push_back(w.offsets[d]);
          in.shape.push_back(w.shape[d]);
        }
      return operand(0, in);
    }
    if (auto t = llvm::dyn_cast<tile::TransposeOp>(kDef)) {
      Window in{std::vector<z3::expr>(w.offsets.size(), zero()),
                std::vector<int64_t>(w.shape.size(), 0)};
      for (auto [d, pd] : llvm::enumerate(t.getPerm())) {
        in.offsets[pd] = w.offsets[d];
        in.shape[pd] = w.shape[d];
      }
      return operand(0, in);
    }
    bool elementwise =
        kDef->hasTrait<OpTrait::Elementwise>() &&
        llvm::all_of(kDef->getOperands(), [&](Value o) {
          auto t = llvm::dyn_cast<RankedTensorType>(o.getType());
          return t && t.getShape() == shapeOf(k);
        });
    if (!elementwise)
      return mismatch(k, r,
                      "the contract checker relates tiles of different "
                      "shapes through elementwise operations, tile.dot, "
                      "tile.reduce, tile.broadcast, tile.transpose, splats "
                      "and loads; not through " +
                          describeOp(k));
    for (unsigned i = 0; i < kDef->getNumOperands(); ++i)
      if (!operand(i, w))
        return false;
    return true;
  }

  static bool sameAttributes(Operation *a, Operation *b) {
    auto strip = [](Operation *op) {
      SmallVector<NamedAttribute> attrs;
      for (NamedAttribute attr : op->getAttrs())
        if (attr.getName() != tag::TagDialect::kLabelsAttrName)
          attrs.push_back(attr);
      return attrs;
    };
    return strip(a) == strip(b);
  }

  /// Loop results: the kernel's loop, with the loops it continues, runs the
  /// reference loop's steps in order, each once, from equal initial values;
  /// each copy of its body computes the reference's step from equal carried
  /// values (induction on the step). `whole`: the result stands for the
  /// reference loop's result (not for the state a later loop continues).
  bool matchFold(scf::ForOp kLoop, unsigned p, scf::ForOp rLoop, unsigned q,
                 Scope &s, bool whole = true) {
    if (whole)
      if (std::optional<Regrouping> g = regrouping(kLoop, p, rLoop, q))
        return g->finer ? matchRefined(kLoop, p, rLoop, q, g->factor, s)
                        : matchRegrouped(kLoop, p, rLoop, q, g->factor, s);
    FoldPair *f = foldPair(kLoop, p, rLoop, q, s);
    if (whole && !f->wholeClaimed) {
      f->wholeClaimed = true;
      Side rs{rm, ri};
      std::string what = "the loop";
      if (f->copies > 1)
        what += ", unrolled " + std::to_string(f->copies) + " times,";
      if (f->prev)
        what += " with the loops it continues";
      what += f->prev || f->copies > 1
                  ? " runs another number of steps in all than the "
                    "reference's loop ("
                  : " runs another number of iterations than the "
                    "reference's loop (";
      what += lineOf(rLoop) + ")";
      claims.push_back({s.hyp, end(*f) == tripCount(rs, rLoop), what, kLoop,
                        rLoop});
    }
    auto found = f->args.find(p);
    if (found != f->args.end())
      return found->second == std::make_pair(q, s.window) ||
             mismatch(kLoop->getResult(p), rLoop->getResult(q),
                      "the kernel's loop result stands for two of the "
                      "reference's");
    f->args[p] = {q, s.window};
    f->pending.push_back({p, q, s.window});
    while (!f->pending.empty()) {
      auto [kp, rq, window] = f->pending.back();
      f->pending.pop_back();
      Scope init = s;
      init.window = window;
      // The value the loop starts from: the result of the loop it
      // continues, or the reference's initial value.
      if (auto c = continues(kLoop, kp, rLoop, rq)) {
        FoldPair *pf = foldPair(c->first, c->second, rLoop, rq, init);
        if (pf != f->prev)
          claims.push_back({s.hyp, end(*pf) == f->base,
                            "the loop continues another loop than its "
                            "other carried values do",
                            kLoop, rLoop});
        if (!matchFold(c->first, c->second, rLoop, rq, init, false))
          return false;
      } else {
        if (f->prev)
          claims.push_back({s.hyp, f->base == 0,
                            "the loop starts a carried value afresh after "
                            "the reference loop's first step",
                            kLoop, rLoop});
        if (!match(kLoop.getInitArgs()[kp], rLoop.getInitArgs()[rq], init))
          return false;
      }
      // The last copy's result is the reference's step's.
      Scope body = copyScope(f, f->copies - 1, window);
      if (!match(kLoop.getBody()->getTerminator()->getOperand(kp),
                 rLoop.getBody()->getTerminator()->getOperand(rq), body))
        return false;
    }
    return true;
  }

  /// The reference step after the last that the fold's loop runs.
  z3::expr end(const FoldPair &f) {
    return f.base + ctx.int_val(f.copies) * f.tripCount;
  }

  /// The pairing of kernel loop `kLoop` with reference loop `rLoop` in
  /// scope `s`, made on first use from carried values p and q: how many
  /// reference steps a step runs, where it starts, and each copy's
  /// hypothesis.
  FoldPair *foldPair(scf::ForOp kLoop, unsigned p, scf::ForOp rLoop,
                     unsigned q, const Scope &s) {
    auto key = std::make_tuple(kLoop.getOperation(), rLoop.getOperation(),
                               s.id);
    if (auto it = foldPairs.find(key); it != foldPairs.end())
      return it->second.get();
    FoldPair *prev = nullptr;
    if (auto c = continues(kLoop, p, rLoop, q))
      prev = foldPair(c->first, c->second, rLoop, q, s);
    Side ks = kernelSide(kLoop), rs{rm, ri};
    unsigned id = nextScope++;
    z3::expr n = ctx.int_const(("n#" + std::to_string(id)).c_str());
    z3::expr tk = tripCount(ks, kLoop);
    z3::expr step = s.hyp && n >= 0 && n < tk && atIteration(ks, kLoop, n);
    auto owned = std::make_unique<FoldPair>(kLoop, rLoop, step, id, false);
    FoldPair *f = owned.get();
    foldPairs[key] = std::move(owned);
    f->copies = copiesOf(kLoop, p, rLoop, q);
    f->tripCount = tk;
    f->prev = prev;
    if (prev)
      f->base = end(*prev);
    f->outer = s.folds;
    f->outerCopies = s.copies;
    f->outerCopies.resize(s.folds.size(), 0);
    for (int64_t j = 0; j < f->copies; ++j) {
      z3::expr m = f->base + ctx.int_val(f->copies) * n + ctx.int_val(j);
      z3::expr hyp = step && atIteration(rs, rLoop, m);
      if (j == 0) {
        f->bodyHyp = hyp;
        continue;
      }
      f->laterHyps.push_back(hyp);
      f->laterIds.push_back(nextScope++);
    }
    return f;
  }

  /// The scope of copy `j` of a fold's body, seeing values through window
  /// `window`.
  Scope copyScope(FoldPair *f, int64_t j, unsigned window) {
    Scope body{j ? f->laterHyps[j - 1] : f->bodyHyp, f->outer,
               j ? f->laterIds[j - 1] : f->id, f->outerCopies};
    body.folds.push_back(f);
    body.copies.push_back(static_cast<unsigned>(j));
    body.window = window;
    return body;
  }

  /// Where `r` is a reference loop's carried value seen in copy j > 0 of an
  /// unrolled kernel loop's body: the scope of copy j - 1, where the value
  /// is the reference's yielded one (the step before).
  std::optional<Scope> previousCopy(BlockArgument r, const Scope &s) {
    auto loop = r ? llvm::dyn_cast<scf::ForOp>(r.getOwner()->getParentOp())
                  : scf::ForOp();
    if (!loop || r == loop.getInductionVar())
      return std::nullopt;
    for (size_t i = s.folds.size(); i-- > 0;) {
      if (s.folds[i]->r != loop)
        continue;
      unsigned copy = i < s.copies.size() ? s.copies[i] : 0;
      if (copy == 0)
        return std::nullopt;
      return copyScope(s.folds[i], copy - 1, s.window);
    }
    return std::nullopt;
  }

  /// The value a loop's step yields for carried value `arg`.
  static Value yielded(BlockArgument arg) {
    auto loop = llvm::cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop.getBody()->getTerminator()->getOperand(arg.getArgNumber() - 1);
  }

  /// The loop (and its result) whose result `loop`'s carried value p starts
  /// from, where `loop` starts at its upper bound: one loop split in two, as
  /// unrolling leaves a remainder loop.
  static std::optional<std::pair<scf::ForOp, unsigned>>
  continued(scf::ForOp loop, unsigned p) {
    Value init = skip(loop.getInitArgs()[p]);
    auto prev = init.getDefiningOp<scf::ForOp>();
    if (!prev || prev.getUpperBound() != loop.getLowerBound())
      return std::nullopt;
    return std::make_pair(prev, llvm::cast<OpResult>(init).getResultNumber());
  }

  /// The kernel loop whose steps before kLoop's run the first of rLoop's
  /// steps, or nothing. Where the reference's loop continues a loop too, the
  /// two splits are taken to correspond (loop by loop) instead.
  static std::optional<std::pair<scf::ForOp, unsigned>>
  continues(scf::ForOp kLoop, unsigned p, scf::ForOp rLoop, unsigned q) {
    if (continued(rLoop, q))
      return std::nullopt;
    return continued(kLoop, p);
  }

  /// How many of the reference loop's steps one step of the kernel's loop
  /// runs: 1, or for an unrolled loop the number of copies of the body, each
  /// starting from the previous copy's results. Found by walking the
  /// kernel's yielded value against the reference's, op by op, and from the
  /// reference's carried value back to its yielded one as long as the
  /// kernel's value is still computed in the step. The match proves what
  /// this finds.
  static int64_t copiesOf(scf::ForOp kLoop, unsigned p, scf::ForOp rLoop,
                          unsigned q) {
    constexpr int64_t kMaxCopies = 64;
    std::set<std::pair<const void *, const void *>> seen;
    std::function<std::optional<int64_t>(Value, Value, int64_t)> walk =
        [&](Value k, Value r, int64_t depth) -> std::optional<int64_t> {
      k = skip(k);
      r = skip(r);
      if (depth > kMaxCopies ||
          !seen.insert({k.getAsOpaquePointer(), r.getAsOpaquePointer()})
               .second)
        return std::nullopt;
      auto rArg = llvm::dyn_cast<BlockArgument>(r);
      if (rArg && rArg.getOwner() == rLoop.getBody() &&
          rArg != rLoop.getInductionVar()) {
        auto kArg = llvm::dyn_cast<BlockArgument>(k);
        if (kArg)
          return kArg.getOwner() == kLoop.getBody() &&
                         kArg != kLoop.getInductionVar()
                     ? std::optional<int64_t>(depth)
                     : std::nullopt;
        if (!kLoop->isProperAncestor(k.getDefiningOp()))
          return std::nullopt;
        return walk(k, yielded(rArg), depth + 1);
      }
      Operation *kd = k.getDefiningOp(), *rd = r.getDefiningOp();
      if (!kd || !rd || !rLoop->isProperAncestor(rd) ||
          kd->getName() != rd->getName() ||
          kd->getNumOperands() != rd->getNumOperands())
        return std::nullopt;
      for (auto [ko, ro] : llvm::zip(kd->getOperands(), rd->getOperands()))
        if (std::optional<int64_t> d = walk(ko, ro, depth))
          return d;
      return std::nullopt;
    };
    return walk(kLoop.getBody()->getTerminator()->getOperand(p),
                rLoop.getBody()->getTerminator()->getOperand(q), 1)
        .value_or(1);
  }

  /// The `tile.dot` that accumulates a loop's carried value `arg`
  /// (`acc = tile.dot(a, b, acc)`), or null.
  static tile::DotOp dotStep(scf::ForOp loop, unsigned arg) {
    Value next = skip(loop.getBody()->getTerminator()->getOperand(arg));
    auto dot = next.getDefiningOp<tile::DotOp>();
    return dot && skip(dot.getAcc()) == loop.getRegionIterArgs()[arg]
               ? dot
               : tile::DotOp();
  }

  static int64_t contracted(tile::DotOp dot) {
    return llvm::cast<RankedTensorType>(dot.getLhs().getType()).getShape()[1];
  }

  /// How the extent a kernel loop's accumulating dot contracts per step
  /// relates to the reference loop's: `factor` times it (a larger step) or,
  /// `finer`, a `factor`-th of it (a shorter one); nothing where neither is
  /// a whole multiple above one of the other.
  struct Regrouping {
    int64_t factor;
    bool finer;
  };
  static std::optional<Regrouping> regrouping(scf::ForOp kLoop, unsigned p,
                                              scf::ForOp rLoop, unsigned q) {
    tile::DotOp kd = dotStep(kLoop, p), rd = dotStep(rLoop, q);
    if (!kd || !rd)
      return std::nullopt;
    int64_t kk = contracted(kd), rk = contracted(rd);
    if (kk == rk || kk <= 0 || rk <= 0)
      return std::nullopt;
    if (kk % rk == 0)
      return Regrouping{kk / rk, false};
    if (rk % kk == 0)
      return Regrouping{rk / kk, true};
    return std::nullopt;
  }

  /// The steps of two loops whose dots contract extents f times apart: the
  /// coarser loop's step `coarse` holds windows j < f, each one step of the
  /// finer loop, `fine = f * coarse + j`. `kernelCoarse`: the kernel's loop
  /// is the coarser. Matches the dots' attributes and initial values first.
  struct Regrouped {
    unsigned id;
    z3::expr coarse, j, fine, tk, tr, step;
  };
  std::optional<Regrouped> regroup(scf::ForOp kLoop, unsigned p,
                                   scf::ForOp rLoop, unsigned q, int64_t f,
                                   bool kernelCoarse, Scope &s) {
    tile::DotOp kd = dotStep(kLoop, p), rd = dotStep(rLoop, q);
    if (!sameAttributes(kd, rd)) {
      mismatch(kLoop->getResult(p), rLoop->getResult(q),
               "the kernel's tile.dot has other attributes than the "
               "reference's");
      return std::nullopt;
    }
    if (!match(kLoop.getInitArgs()[p], rLoop.getInitArgs()[q], s))
      return std::nullopt;
    unsigned id = nextScope++;
    z3::expr coarse = ctx.int_const(("c#" + std::to_string(id)).c_str());
    z3::expr j = ctx.int_const(("j#" + std::to_string(id)).c_str());
    z3::expr fine = ctx.int_val(f) * coarse + j;
    Side ks = kernelSide(kLoop), rs{rm, ri};
    z3::expr tk = tripCount(ks, kLoop), tr = tripCount(rs, rLoop);
    z3::expr step = s.hyp && coarse >= 0 && j >= 0 && j < ctx.int_val(f) &&
                    atIteration(ks, kLoop, kernelCoarse ? coarse : fine) &&
                    atIteration(rs, rLoop, kernelCoarse ? fine : coarse);
    return Regrouped{id, coarse, j, fine, tk, tr, step};
  }

  /// A kernel loop whose dot contracts f times the reference's extent per
  /// step: its step n adds the products of the reference's steps
  /// m = f n + j, j < f (window j of its contracted extent), grouped
  /// otherwise; the sum is the contract's sum of block products, each once,
  /// from the same start (the freedom `combine add` has too). Proved: equal
  /// initial values; for m below the reference's trip count, window j's
  /// operands are the reference's at step m; above it, both windows read
  /// padding zeros only (a product of zero); and the kernel's steps reach
  /// every reference step.
  bool matchRegrouped(scf::ForOp kLoop, unsigned p, scf::ForOp rLoop,
                      unsigned q, int64_t f, Scope &s) {
    Value kr = kLoop->getResult(p), rr = rLoop->getResult(q);
    tile::DotOp kd = dotStep(kLoop, p), rd = dotStep(rLoop, q);
    if (kLoop.getNumResults() != 1 || rLoop.getNumResults() != 1)
      return mismatch(kr, rr,
                      "a loop whose tile.dot contracts " + Twine(f).str() +
                          " times the reference's extent per step may carry "
                          "its accumulator only");
    std::optional<Regrouped> g =
        regroup(kLoop, p, rLoop, q, f, /*kernelCoarse=*/true, s);
    if (!g)
      return false;
    z3::expr n = g->coarse, j = g->j, m = g->fine, tk = g->tk, tr = g->tr;
    Side ks = kernelSide(kLoop);
    claims.push_back({s.hyp, tr <= ctx.int_val(f) * tk,
                      "the kernel's loop steps cover fewer steps than the "
                      "reference's loop (" +
                          lineOf(rLoop) + ") runs",
                      kLoop, rLoop});
    z3::expr step = g->step && n < tk;
    // The windows of the operands: the rows and columns the result's
    // window reads, contracted elements [j bk, (j + 1) bk).
    auto shapeOf = [](Value v) {
      return llvm::cast<RankedTensorType>(v.getType()).getShape();
    };
    const Window outer = windows[s.window];
    z3::expr rows = s.window ? outer.offsets[0] : ctx.int_val(0);
    z3::expr cols = s.window ? outer.offsets[1] : ctx.int_val(0);
    int64_t bk = contracted(rd);
    z3::expr along = j * ctx.int_val(bk);
    Window lhs{{rows, along}, {shapeOf(rd.getLhs())[0], bk}};
    Window rhs{{along, cols}, {bk, shapeOf(rd.getRhs())[1]}};
    Scope term{step && m < tr, s.folds, g->id, s.copies};
    Scope lhsScope = operandScope(term, lhs, kd.getLhs().getType(),
                                  rd.getLhs().getType());
    Scope rhsScope = operandScope(term, rhs, kd.getRhs().getType(),
                                  rd.getRhs().getType());
    if (!match(kd.getLhs(), rd.getLhs(), lhsScope) ||
        !match(kd.getRhs(), rd.getRhs(), rhsScope))
      return false;
    // Steps past the reference's last: both windows read zeros only.
    for (auto [v, w] : {std::make_pair(kd.getLhs(), lhs),
                        std::make_pair(kd.getRhs(), rhs)}) {
      Value x = skip(v);
      Operation *def = x.getDefiningOp();
      auto srcs = def && llvm::isa<tile::LoadOp, tile::ReadOp>(def)
                      ? sources(x, ks, &w)
                      : std::nullopt;
      if (!srcs)
        return mismatch(kr, rr,
                        "the operands of a tile.dot that contracts " +
                            Twine(f).str() +
                            " times the reference's extent per step must "
                            "be tiles loaded (or copied) from global memory, "
                            "whose zero padding makes the steps past the "
                            "reference's add nothing");
      for (const Source &src : *srcs) {
        auto pad = llvm::dyn_cast_or_null<FloatAttr>(src.padding);
        if (!pad || !pad.getValue().isZero())
          return mismatch(kr, rr,
                          "the operands of a tile.dot that contracts " +
                              Twine(f).str() +
                              " times the reference's extent per step are "
                              "loaded with zero padding");
        claims.push_back({step && m >= tr && src.when, !nonEmpty(src.block),
                          "a step past the reference loop's last (" +
                              lineOf(rLoop) + ") adds loaded data",
                          src.op, rLoop});
      }
    }
    return true;
  }

  /// A kernel loop whose dot contracts an f-th of the reference's extent
  /// per step: its step n = f m + j, j < f, adds the products of window j
  /// of the reference's step m (contracted elements [j bk, (j + 1) bk)),
  /// the sum grouped otherwise (as matchRegrouped). The operands on both
  /// sides must be loaded (or copied) tiles. Proved: equal initial values;
  /// for m below the reference's trip count and n below the kernel's, the
  /// kernel's operands are window j of the reference's at step m; kernel
  /// steps whose m is at or past the reference's last read padding zeros
  /// only; and reference windows whose n is at or past the kernel's last
  /// read padding zeros only (the kernel may stop once the data ends).
  bool matchRefined(scf::ForOp kLoop, unsigned p, scf::ForOp rLoop,
                    unsigned q, int64_t f, Scope &s) {
    Value kr = kLoop->getResult(p), rr = rLoop->getResult(q);
    tile::DotOp kd = dotStep(kLoop, p), rd = dotStep(rLoop, q);
    std::string shorter = "a loop whose tile.dot contracts 1/" +
                          std::to_string(f) +
                          " of the reference's extent per step";
    // Each carried value is an accumulator of its own (a coarsened loop
    // carries one per absorbed program): result p depends on nothing else.
    for (unsigned i = 0; i < kLoop.getNumResults(); ++i)
      if (!dotStep(kLoop, i))
        return mismatch(kr, rr,
                        shorter + " may carry tile.dot accumulators only");
    if (rLoop.getNumResults() != 1)
      return mismatch(kr, rr,
                      "the reference's loop (" + lineOf(rLoop) +
                          ") carries more than its accumulator");
    if (s.window)
      return mismatch(kr, rr,
                      shorter + " computes a tile of the reference's shape "
                                "(the checker does not follow it in a larger "
                                "tile)");
    std::optional<Regrouped> g =
        regroup(kLoop, p, rLoop, q, f, /*kernelCoarse=*/false, s);
    if (!g)
      return false;
    z3::expr m = g->coarse, j = g->j, n = g->fine, tk = g->tk, tr = g->tr;
    z3::expr step = g->step;
    Side ks = kernelSide(kLoop), rs{rm, ri};
    auto shapeOf = [](Value v) {
      return llvm::cast<RankedTensorType>(v.getType()).getShape();
    };
    int64_t bk = contracted(kd);
    z3::expr along = j * ctx.int_val(bk);
    Window lhs{{ctx.int_val(0), along}, {shapeOf(rd.getLhs())[0], bk}};
    Window rhs{{along, ctx.int_val(0)}, {bk, shapeOf(rd.getRhs())[1]}};
    for (auto [kv, rv, w] : {std::make_tuple(kd.getLhs(), rd.getLhs(), lhs),
                             std::make_tuple(kd.getRhs(), rd.getRhs(), rhs)}) {
      Value kx = skip(kv), rx = skip(rv);
      auto loaded = [](Value v) {
        return llvm::isa_and_nonnull<tile::LoadOp, tile::ReadOp>(
            v.getDefiningOp());
      };
      if (!loaded(kx) || !loaded(rx))
        return mismatch(kr, rr,
                        "the operands of " + shorter +
                            " and of the reference's must be tiles loaded "
                            "(or copied) from global memory");
      Scope both = s;
      both.hyp = step && m < tr && n < tk;
      if (!matchLoads(kx, rx, both, &w))
        return false;
      // The other side's steps past one side's last add nothing.
      auto srcsK = sources(kx, ks), srcsR = sources(rx, rs, &w);
      if (!srcsK || !srcsR)
        return mismatch(kr, rr,
                        "the contract checker follows shared slots that "
                        "tile.copy fills, not tile.write");
      for (auto [srcs, past, what] :
           {std::make_tuple(&*srcsK, step && m >= tr && n < tk,
                            "a kernel step past the reference loop's last (" +
                                lineOf(rLoop) + ") adds loaded data"),
            std::make_tuple(&*srcsR, step && m < tr && n >= tk,
                            "the kernel's loop stops before the reference's "
                            "loop (" + lineOf(rLoop) +
                                ") has added all its data")})
        for (const Source &src : *srcs) {
          auto pad = llvm::dyn_cast_or_null<FloatAttr>(src.padding);
          if (!pad || !pad.getValue().isZero())
            return mismatch(kr, rr,
                            "the operands of " + shorter +
                                " are loaded with zero padding");
          claims.push_back({past && src.when, !nonEmpty(src.block), what,
                            src.op, rLoop});
        }
    }
    return true;
  }

  /// The loop's induction variable has its value of iteration n.
  z3::expr atIteration(Side s, scf::ForOp loop, const z3::expr &n) {
    return s.model.inductionVar(loop, s.inst) ==
           s.model.term(loop.getLowerBound(), s.inst) +
               n * s.model.term(loop.getStep(), s.inst);
  }

  z3::expr tripCount(Side s, scf::ForOp loop) {
    z3::expr lb = s.model.term(loop.getLowerBound(), s.inst);
    z3::expr ub = s.model.term(loop.getUpperBound(), s.inst);
    z3::expr step = s.model.term(loop.getStep(), s.inst);
    return z3::ite(ub > lb, (ub - lb + step - 1) / step, ctx.int_val(0));
  }

  /// The global blocks a loaded tile comes from: a tile.load's block, or for
  /// a tile.read, the block of each tile.copy that may have filled the slot
  /// last.
  /// With a window, the part of the block the window reads.
  std::optional<std::vector<Source>> sources(Value v, Side s,
                                             const Window *window = nullptr) {
    Operation *def = v.getDefiningOp();
    if (auto load = llvm::dyn_cast<tile::LoadOp>(def)) {
      Block b = blockOf(s, load.getSource(), load.getType().getShape(),
                        load.getIndices(), load.getOffsets(),
                        load.getBounds(), window);
      return std::vector<Source>{{load, b, load.getType(),
                                  load.getPaddingAttr(), ctx.bool_val(true)}};
    }
    auto read = llvm::cast<tile::ReadOp>(def);
    std::vector<Source> out;
    SmallVector<Operation *> writers = s.model.bufferWriters(read.getBuffer());
    for (Operation *w : writers) {
      auto copy = llvm::dyn_cast<tile::CopyOp>(w);
      if (!copy)
        return std::nullopt;
      auto iw = std::make_unique<Instance>(Instance{
          s.inst.suffix + "w" + std::to_string(nextScope++), {},
          s.inst.program});
      z3::expr last = s.model.lastWrite(w, *iw, writers, read,
                                        read.getIndices(), s.inst);
      Block b = blockOf({s.model, *iw}, copy.getGlobal(),
                        read.getType().getShape(), copy.getBlockIndices(),
                        copy.getOffsets(), copy.getBounds(), window);
      out.push_back({copy, b, read.getType(), copy.getPaddingAttr(), last});
      ownedInstances.push_back(std::move(iw));
    }
    return out;
  }

  /// `rWindow`: the part of the reference's tile that the kernel's stands
  /// for (a shorter reduction step), or the whole.
  bool matchLoads(Value k, Value r, Scope &s,
                  const Window *rWindow = nullptr) {
    const Window *window = s.window ? &windows[s.window] : nullptr;
    auto ks = sources(k, kernelSide(opOf(k)), window),
         rs = sources(r, {rm, ri}, rWindow);
    if (!ks || !rs)
      return mismatch(k, r,
                      "the contract checker follows shared slots that "
                      "tile.copy fills, not tile.write");
    for (const Source &a : *ks)
      for (const Source &b : *rs) {
        if (operandName(a.block.memref) != operandName(b.block.memref))
          return mismatch(k, r,
                          "the kernel reads operand " +
                              operandName(a.block.memref) + " (" +
                              lineOf(a.op) + ") where the reference reads " +
                              operandName(b.block.memref));
        Type seen = window ? RankedTensorType::get(
                                 window->shape,
                                 getElementTypeOrSelf(a.tileType))
                           : a.tileType;
        Type rSeen = rWindow ? RankedTensorType::get(
                                   rWindow->shape,
                                   getElementTypeOrSelf(b.tileType))
                             : b.tileType;
        if (seen != rSeen || a.padding != b.padding)
          return mismatch(k, r,
                          "the kernel's " + describeOp(k) +
                              " has another tile type or padding than the "
                              "reference's");
        z3::expr bothEmpty = !nonEmpty(a.block) && !nonEmpty(b.block);
        Scope inner = s;
        inner.hyp = s.hyp && a.when && b.when;
        claims.push_back(
            {inner.hyp, bothEmpty || sameElements(a.block, b.block),
             "the tile loaded from " +
                 operandName(a.block.memref) + " (" +
                 lineOf(a.op) + ") is another block than the reference's",
             a.op, b.op});
      }
    return true;
  }

  /// Integer and boolean data: equal element by element.
  bool matchIntegers(Value k, Value r, Scope &s) {
    std::vector<z3::expr> coords;
    std::vector<int64_t> shape;
    if (auto t = llvm::dyn_cast<RankedTensorType>(r.getType()))
      shape.assign(t.getShape().begin(), t.getShape().end());
    z3::expr inTile = ctx.bool_val(true);
    for (int64_t extent : shape) {
      coords.push_back(
          ctx.int_const(("e#" + std::to_string(nextScope++)).c_str()));
      inTile = inTile && coords.back() >= 0 && coords.back() < ctx.int_val(extent);
    }
    std::vector<z3::expr> sideClaims;
    // The kernel's element at the same place of its window.
    std::vector<z3::expr> kCoords = coords;
    if (s.window)
      for (size_t d = 0; d < kCoords.size(); ++d)
        kCoords[d] = kCoords[d] + windows[s.window].offsets[d];
    auto kt = element(k, kernelSide(opOf(k)), kCoords, sideClaims);
    auto rt = element(r, {rm, ri}, coords, sideClaims);
    if (!kt || !rt)
      return mismatch(k, r,
                      "the contract checker does not follow the integer "
                      "computation of " +
                          describeOp(!kt ? k : r));
    Scope inner = s;
    inner.hyp = s.hyp && inTile;
    for (const z3::expr &c : sideClaims)
      claim(inner, c, "the index arithmetic can wrap around", k, r);
    claim(inner, *kt == *rt,
          "the value of " + describeOp(k) + " can differ from the reference's " +
              describeOp(r),
          k, r);
    return true;
  }

  /// Element `coords` of an integer value (a scalar: the value itself).
  std::optional<z3::expr> element(Value v, Side s,
                                  const std::vector<z3::expr> &coords,
                                  std::vector<z3::expr> &sideClaims) {
    if (!llvm::isa<ShapedType>(v.getType()))
      return s.model.term(v, s.inst);
    v = skip(v);
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    auto type = llvm::cast<RankedTensorType>(v.getType());
    unsigned width = type.getElementType().isIndex()
                         ? 64
                         : type.getElementType().getIntOrFloatBitWidth();
    auto operand = [&](Value x) { return element(x, s, coords, sideClaims); };
    // An integer of `bits` bits read as unsigned.
    auto unsignedView = [&](const z3::expr &e, unsigned bits) {
      if (e.is_bool())
        return z3::ite(e, ctx.int_val(1), ctx.int_val(0));
      z3::expr mod = ctx.int_val(1);
      for (unsigned i = 0; i < bits; ++i)
        mod = mod * 2;
      return z3::ite(e < 0, e + mod, e);
    };
    if (auto iota = llvm::dyn_cast<tile::IotaOp>(def))
      return coords[iota.getDimAttr().getInt()];
    if (auto splat = llvm::dyn_cast<tensor::SplatOp>(def))
      return s.model.term(splat.getInput(), s.inst);
    if (auto c = llvm::dyn_cast<arith::ConstantOp>(def)) {
      auto dense = llvm::dyn_cast<DenseIntElementsAttr>(c.getValue());
      if (!dense || !dense.isSplat())
        return std::nullopt;
      APInt value = dense.getSplatValue<APInt>();
      if (width == 1)
        return ctx.bool_val(!value.isZero());
      return ctx.int_val(static_cast<int64_t>(value.getSExtValue()));
    }
    if (auto b = llvm::dyn_cast<tile::BroadcastOp>(def)) {
      std::vector<z3::expr> inner;
      ArrayRef<int64_t> dims = b.getDims();
      for (size_t d = 0; d < coords.size(); ++d)
        if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
          inner.push_back(coords[d]);
      return element(b->getOperand(0), s, inner, sideClaims);
    }
    if (auto t = llvm::dyn_cast<tile::TransposeOp>(def)) {
      std::vector<z3::expr> inner(coords.size(), ctx.int_val(0));
      for (auto [j, pj] : llvm::enumerate(t.getPerm()))
        inner[pj] = coords[j];
      return element(t->getOperand(0), s, inner, sideClaims);
    }
    if (def->getNumOperands() == 2 &&
        llvm::isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp,
                  arith::OrIOp, arith::XOrIOp, arith::CmpIOp,
                  arith::MinUIOp, arith::MaxUIOp, arith::MinSIOp,
                  arith::MaxSIOp>(def)) {
      auto a = operand(def->getOperand(0)), b = operand(def->getOperand(1));
      if (!a || !b)
        return std::nullopt;
      auto range = [&](const z3::expr &e) {
        z3::expr half = ctx.int_val(1);
        for (unsigned i = 1; i < width; ++i)
          half = half * 2;
        sideClaims.push_back(e >= -half && e < half);
        return e;
      };
      if (llvm::isa<arith::AddIOp>(def) && width > 1)
        return range(*a + *b);
      if (llvm::isa<arith::SubIOp>(def) && width > 1)
        return range(*a - *b);
      if (llvm::isa<arith::MulIOp>(def) && width > 1)
        return range(*a * *b);
      if (width == 1 && a->is_bool() && b->is_bool()) {
        if (llvm::isa<arith::AndIOp>(def))
          return *a && *b;
        if (llvm::isa<arith::OrIOp>(def))
          return *a || *b;
        if (llvm::isa<arith::XOrIOp>(def))
          return *a != *b;
      }
      if (llvm::isa<arith::MinSIOp>(def))
        return z3::min(*a, *b);
      if (llvm::isa<arith::MaxSIOp>(def))
        return z3::max(*a, *b);
      if (llvm::isa<arith::MinUIOp>(def))
        return z3::ite(unsignedView(*a, width) <= unsignedView(*b, width), *a,
                       *b);
      if (llvm::isa<arith::MaxUIOp>(def))
        return z3::ite(unsignedView(*a, width) >= unsignedView(*b, width), *a,
                       *b);
      if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(def)) {
        Type operandType =
            getElementTypeOrSelf(cmp.getLhs().getType());
        unsigned w = operandType.isIndex() ? 64
                                           : operandType.getIntOrFloatBitWidth();
        if (w == 1)
          return std::nullopt;
        z3::expr ua = unsignedView(*a, w), ub = unsignedView(*b, w);
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq: return *a == *b;
        case arith::CmpIPredicate::ne: return *a != *b;
        case arith::CmpIPredicate::slt: return *a < *b;
        case arith::CmpIPredicate::sle: return *a <= *b;
        case arith::CmpIPredicate::sgt: return *a > *b;
        case arith::CmpIPredicate::sge: return *a >= *b;
        case arith::CmpIPredicate::ult: return ua < ub;
        case arith::CmpIPredicate::ule: return ua <= ub;
        case arith::CmpIPredicate::ugt: return ua > ub;
        case arith::CmpIPredicate::uge: return ua >= ub;
        }
      }
      return std::nullopt;
    }
    if (auto sel = llvm::dyn_cast<arith::SelectOp>(def)) {
      auto c = operand(sel.getCondition()), a = operand(sel.getTrueValue()),
           b = operand(sel.getFalseValue());
      if (!c || !a || !b || !c->is_bool())
        return std::nullopt;
      return z3::ite(*c, *a, *b);
    }
    return std::nullopt;
  }

  //===--------------------------------------------------------------------===//
  // The checks
  //===--------------------------------------------------------------------===//

  void checkCoverage(ArrayRef<tile::StoreOp> kStores,
                     ArrayRef<tile::StoreOp> rStores);
  void checkValues(tile::StoreOp k, tile::StoreOp r);
  void checkCombined(tile::StoreOp k, tile::StoreOp r);
  bool coveredBySplits(tile::StoreOp k, tile::StoreOp r, Fold kf,
                       scf::ForOp rLoop, const Block &rb,
                       const z3::expr &meet);
  bool proveClaims(Operation *kop, Operation *rop, const std::string &what);

  /// Each pair of stores is compared on its own.
  void reset() {
    claims.clear();
    mismatchText.clear();
    mismatchK = mismatchR = nullptr;
    matched.clear();
    foldPairs.clear();
    windows.assign(1, Window{});
    windowIds.clear();
  }

  /// All variables of an instance of `store`: program ids, then loops.
  std::vector<z3::expr> instanceVars(Side s, tile::KernelOp k, Operation *op,
                                     z3::expr &range) {
    std::vector<z3::expr> vars;
    for (int64_t d = 0; d < k.getGridAttr().getInt(); ++d) {
      z3::expr pid = s.model.programId(d, s.inst);
      vars.push_back(pid);
      range = range && pid >= 0 && pid < s.model.gridExtent(d);
    }
    for (const z3::expr &v : s.model.loopVars(op, s.inst))
      vars.push_back(v);
    return vars;
  }

  z3::context &ctx;
  Prover &prover;
  SymbolicModel km, rm;
  /// The reduction kernel of a launch chain, and the workspace store of the
  /// kernel whose slices stand for output blocks (see runChain).
  std::unique_ptr<SymbolicModel> reducer;
  tile::KernelOp follower;
  Instance ti{"@t", {}, ""};
  tile::StoreOp slicedStore;
  /// A launch chain: the first kernel's store of each workspace, and the
  /// second kernel's store whose value is being matched.
  llvm::StringMap<tile::StoreOp> workspaceStores;
  tile::StoreOp followerStore;
  llvm::DenseSet<Operation *> workspaceReadsChecked;
  tile::KernelOp kernel, ref;
  Instance ki{"@k", {}, ""}, ri{"@r", {}, ""};
  /// Instances made while matching (writers of slots, split programs).
  std::vector<std::unique_ptr<Instance>> ownedInstances;
  std::set<std::tuple<const void *, const void *, unsigned, bool, unsigned>>
      matched;
  /// Windows of the values being matched (Scope::window); 0 is none.
  std::vector<Window> windows{Window{}};
  std::map<std::string, unsigned> windowIds;
  /// Relate kernel stores of whole multiples of the reference's tiles
  /// (sameOutput): the plain stores of a kernel with its own contract.
  bool followWindows = false;
  std::map<std::tuple<Operation *, Operation *, unsigned>,
           std::unique_ptr<FoldPair>>
      foldPairs;
  std::vector<Claim> claims;
  std::string mismatchText;
  Operation *mismatchK = nullptr, *mismatchR = nullptr;
  unsigned nextScope = 1;
  unsigned proved = 0;
  bool failed = false;
};

} // namespace

/// `e` over the reference's program ids (`dims`) and the launch sizes
/// (`symbols`), or nothing where the map uses what the model does not
/// follow (a division by a non-positive constant). Program ids are
/// non-negative, and Z3's div and mod by a positive value are floor
/// division and its remainder, as in affine maps. A division by a symbolic
/// value is Z3's: the map only names a witness, which the query then checks.
static std::optional<z3::expr> affineToZ3(AffineExpr e,
                                          ArrayRef<z3::expr> dims,
                                          ArrayRef<z3::expr> symbols) {
  if (auto d = llvm::dyn_cast<AffineDimExpr>(e))
    return d.getPosition() < dims.size()
               ? std::optional<z3::expr>(dims[d.getPosition()])
               : std::nullopt;
  if (auto s = llvm::dyn_cast<AffineSymbolExpr>(e))
    return s.getPosition() < symbols.size()
               ? std::optional<z3::expr>(symbols[s.getPosition()])
               : std::nullopt;
  if (dims.empty())
    return std::nullopt;
  z3::context &ctx = dims.front().ctx();
  if (auto c = llvm::dyn_cast<AffineConstantExpr>(e))
    return ctx.int_val(static_cast<int64_t>(c.getValue()));
  auto bin = llvm::dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  std::optional<z3::expr> l = affineToZ3(bin.getLHS(), dims, symbols),
                          r = affineToZ3(bin.getRHS(), dims, symbols);
  if (!l || !r)
    return std::nullopt;
  auto divisor = llvm::dyn_cast<AffineConstantExpr>(bin.getRHS());
  bool usable = !divisor || divisor.getValue() > 0;
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    return *l + *r;
  case AffineExprKind::Mul:
    return *l * *r;
  case AffineExprKind::Mod:
    return usable ? std::optional<z3::expr>(z3::mod(*l, *r)) : std::nullopt;
  case AffineExprKind::FloorDiv:
    return usable ? std::optional<z3::expr>(*l / *r) : std::nullopt;
  case AffineExprKind::CeilDiv:
    return usable ? std::optional<z3::expr>((*l + *r - 1) / *r)
                  : std::nullopt;
  default:
    return std::nullopt;
  }
}

void ContractChecker::checkCoverage(ArrayRef<tile::StoreOp> kStores,
                                    ArrayRef<tile::StoreOp> rStores) {
  Side ks{km, ki}, rs{rm, ri};
  // Every block the reference stores, the kernel stores.
  for (tile::StoreOp r : rStores) {
    Block rb = storeBlock(rs, r);
    z3::expr stored = rm.executes(r, ri) && nonEmpty(rb);
    z3::expr missed = stored;
    std::string name = operandName(r.getDest());
    std::string what =
        "every block of " + name + " the reference stores is stored";
    // The program with the reference's program ids (or the one the
    // kernel's tag.program_map names) is the usual witness: asking whether
    // it stores the block, through any of the kernel's stores, spares Z3 the
    // search for one (a quantifier-free query); only if it does not is any
    // program sought.
    auto programMap = kernel->getAttrOfType<AffineMapAttr>(
        tag::TagDialect::kProgramMapAttrName);
    int64_t grid = kernel.getGridAttr().getInt();
    std::vector<z3::expr> refIds, sizes;
    for (int64_t d = 0; d < ref.getGridAttr().getInt(); ++d)
      refIds.push_back(rm.programId(d, ri));
    if (programMap)
      sizes = km.sizeSymbols();
    // The map names the program, and may name the loop values of the store
    // too (a persistent kernel's tile loop). Loop values it does not name
    // are witnessed by the reference's, loop for loop (a row kernel's
    // column loop), where the store sits in as many loops.
    size_t witnessed =
        programMap ? programMap.getValue().getNumResults() : grid;
    std::vector<z3::expr> refLoopVars = rm.loopVars(r, ri);
    z3::expr byWitness = ctx.bool_val(false);
    bool haveWitness = false;
    for (tile::StoreOp k : kStores) {
      if (!sameOutput(k, r))
        continue;
      Instance inst{"@c" + std::to_string(nextScope++), {}, ""};
      Side cs{km, inst};
      z3::expr range = ctx.bool_val(true);
      std::vector<z3::expr> vars = instanceVars(cs, kernel, k, range);
      Block kb = storeBlock(cs, k);
      if (k.getValue().getType() != r.getValue().getType()) {
        // A larger kernel tile: the block is one of its windows.
        Window w = windowAt(k, r, kb, rb, range);
        kb = storeBlock(cs, k, &w);
      }
      z3::expr covers = range && km.executes(k, inst) && sameElements(kb, rb);
      missed = missed && km.forAll(vars, !covers);
      bool byRefLoops = vars.size() == witnessed + refLoopVars.size() &&
                        !refLoopVars.empty();
      if ((vars.size() != witnessed && !byRefLoops) ||
          (!programMap && grid != ref.getGridAttr().getInt()))
        continue;
      // The witness's ids are functions of the reference's, substituted for
      // the instance's, so that the query asks whether that program stores
      // the block. (Not equated: the facts keep every program id symbol
      // inside its kernel's grid, and would keep the reference's there.)
      z3::expr_vector from(ctx), to(ctx);
      bool follows = true;
      for (size_t d = 0; d < witnessed && follows; ++d) {
        std::optional<z3::expr> id =
            programMap ? affineToZ3(programMap.getValue().getResult(d), refIds,
                                    sizes)
                       : std::optional<z3::expr>(refIds[d]);
        follows = id.has_value();
        if (follows) {
          from.push_back(vars[d]);
          to.push_back(*id);
        }
      }
      if (!follows)
        continue;
      if (byRefLoops)
        for (size_t i = 0; i < refLoopVars.size(); ++i) {
          from.push_back(vars[witnessed + i]);
          to.push_back(refLoopVars[i]);
        }
      byWitness = byWitness || covers.substitute(from, to);
      haveWitness = true;
    }
    bool coveredByItsProgram =
        haveWitness &&
        prover.check(facts() && stored && !byWitness,
                     what + " (by the program with its ids)")
                .kind == Verdict::Unsat;
    if (coveredByItsProgram) {
      prover.recordProof(r, what);
      ++proved;
      continue;
    }
    refute(missed, r, nullptr, what,
           "the kernel never stores a block of " + name +
               " that the reference's store here stores");
  }
  // Every block the kernel stores is one the reference stores; of a larger
  // kernel tile, every window of the reference's tile shape.
  for (tile::StoreOp k : kStores) {
    std::optional<Type> refTile;
    for (tile::StoreOp r : rStores)
      if (sameOutput(k, r) && !refTile)
        refTile = r.getValue().getType();
    z3::expr windowRange = ctx.bool_val(true);
    std::optional<Window> window;
    if (refTile && *refTile != k.getValue().getType())
      for (tile::StoreOp r : rStores)
        if (sameOutput(k, r) && !window)
          window = storeWindow(k, r, windowRange);
    Block kb = storeBlock(ks, k, window ? &*window : nullptr);
    z3::expr extra = windowRange && km.executes(k, ki) && nonEmpty(kb);
    bool any = false;
    for (tile::StoreOp r : rStores) {
      if (!sameOutput(k, r))
        continue;
      if (r.getValue().getType() != *refTile) {
        failed = true;
        mlir::emitError(k.getLoc())
            << "the reference stores " << operandName(k.getDest())
            << " with tiles of several types; the contract checker relates a "
               "kernel store to references of one";
        return;
      }
      any = true;
      Instance inst{"@d" + std::to_string(nextScope++), {}, ""};
      Side cs{rm, inst};
      z3::expr range = ctx.bool_val(true);
      std::vector<z3::expr> vars = instanceVars(cs, ref, r, range);
      Block rb = storeBlock(cs, r);
      extra = extra && rm.forAll(vars, !(range && rm.executes(r, inst) &&
                                         sameElements(kb, rb)));
    }
    std::string name = operandName(k.getDest());
    if (!any) {
      failed = true;
      mlir::emitError(k.getLoc())
          << "the reference stores no " << k.getValue().getType()
          << " tiles to " << name << "; the contract cannot say what this "
          << "store writes"
          << (followWindows ? " (a kernel tile is the reference's tile, or "
                              "holds a whole number of them along each "
                              "dimension)"
                            : "");
      continue;
    }
    refute(extra, k, nullptr,
           "every block of " + name + " stored is one the reference stores",
           "this store writes a block of " + name +
               " that the reference never stores");
  }
}

bool ContractChecker::proveClaims(Operation *kop, Operation *rop,
                                  const std::string &what) {
  if (claims.empty())
    return true;
  z3::expr anyFalse = ctx.bool_val(false);
  for (const Claim &c : claims)
    anyFalse = anyFalse || (c.hyp && !c.claim);
  std::optional<z3::model> first;
  Verdict::Kind kind = disprove(anyFalse, kop, what, first);
  if (kind != Verdict::Sat)
    return kind == Verdict::Unsat;
  Side ks = kernelSide(kop);
  std::pair<Operation *, Instance *> at[] = {{kop, &ks.inst}};
  // Name the first claim that fails, with a counterexample of its own.
  const Claim *bad = &claims.front();
  std::optional<z3::model> model = first;
  for (const Claim &c : claims) {
    Verdict one = prover.check(facts() && c.hyp && !c.claim, c.what,
                               ks.model.minimalOrder(at));
    if (one.kind == Verdict::Sat) {
      bad = &c;
      model = one.model;
      break;
    }
  }
  InFlightDiagnostic diag = mlir::emitError(kop->getLoc())
                            << "the value stored here differs from the "
                               "contract: "
                            << bad->what;
  diag.attachNote(bad->kop->getLoc()) << "in the kernel, here";
  diag.attachNote(bad->rop->getLoc()) << "in the reference, here";
  report(diag, kop, rop, *model);
  return false;
}

void ContractChecker::checkValues(tile::StoreOp k, tile::StoreOp r) {
  Side ks = kernelSide(k), rs{rm, ri};
  reset();
  // A kernel tile of several reference tiles: each window of it.
  z3::expr windowRange = ctx.bool_val(true);
  Window w = storeWindow(k, r, windowRange);
  Block kb = storeBlock(ks, k, &w), rb = storeBlock(rs, r);
  z3::expr hyp = windowRange && ks.model.executes(k, ks.inst) &&
                 rm.executes(r, ri) && nonEmpty(kb) && sameElements(kb, rb);
  Scope top{hyp, {}, 0};
  top.window = windowOf(w, k.getValue().getType(), r.getValue().getType());
  // A launch chain's second kernel may read a workspace into its store.
  top.elementwise = k == followerStore;
  std::string name = operandName(r.getDest());
  if (!match(k.getValue(), r.getValue(), top)) {
    // Different computations: an error only where the two stores meet.
    std::pair<Operation *, Instance *> at[] = {{k, &ks.inst}};
    Verdict v = prover.check(facts() && hyp,
                             "the store and the reference's store meet",
                             ks.model.minimalOrder(at));
    if (v.kind == Verdict::Unsat)
      return;
    failed = true;
    if (v.kind == Verdict::Unknown) {
      mlir::emitError(k.getLoc())
          << "could not prove that this store and the reference's store at "
          << lineOf(r) << " write different blocks: Z3 answered unknown ("
          << v.reason << ")";
      return;
    }
    // The values are compared op by op: a different computation is
    // reported where the stores meet, which is not always a different
    // value (a loop split in two computes the same sum).
    InFlightDiagnostic diag = mlir::emitError(k.getLoc())
                              << "the value stored to " << name
                              << " here is not the contract's: "
                              << mismatchText;
    if (mismatchK)
      diag.attachNote(mismatchK->getLoc()) << "in the kernel, here";
    if (mismatchR)
      diag.attachNote(mismatchR->getLoc()) << "in the reference, here";
    report(diag, k, r, *v.model,
           "the two computations store the same block at");
    return;
  }
  proveClaims(k, r,
              "the value stored to " + name + " is the reference's (" +
                  lineOf(r) + ")");
}

/// A combine-add store adds a fold `acc + x(v)` over the values v of its
/// loop; the reference stores the fold over all v. The kernel's folds for
/// one block, over all its programs and iterations, must cover the
/// reference's range exactly once, and agree on x(v).
void ContractChecker::checkCombined(tile::StoreOp k, tile::StoreOp r) {
  std::string name = operandName(r.getDest());
  auto fail = [&](const Twine &why) {
    failed = true;
    mlir::emitError(k.getLoc())
        << "the contract checker cannot relate this "
        << (slicedStore ? "workspace store (summed by the reduction kernel)"
                        : "combine-add store")
        << " to the reference's store at "
        << lineOf(r) << ": " << why;
  };
  auto kf = sumFold(k.getValue()), rf = sumFold(r.getValue());
  if (!kf || !rf)
    return fail("both must store a loop's sum `acc + x` (a tile.dot into the "
                "accumulator or an addf) from a zero tile, in steps of 1");

  Side ks{km, ki}, rs{rm, ri};
  Block kb = storeBlock(ks, k), rb = storeBlock(rs, r);
  z3::expr meet = km.executes(k, ki) && rm.executes(r, ri) && nonEmpty(kb) &&
                  sameElements(kb, rb);
  auto inLoop = [&](SymbolicModel &m, Instance &inst, scf::ForOp loop,
                    const z3::expr &v) {
    return v >= m.term(loop.getLowerBound(), inst) &&
           v < m.term(loop.getUpperBound(), inst);
  };
  z3::expr kv = km.inductionVar(kf->loop, ki), rv = rm.inductionVar(rf->loop, ri);

  // The increments agree at equal loop values.
  reset();
  auto pair = std::make_unique<FoldPair>(
      kf->loop, rf->loop,
      meet && inLoop(km, ki, kf->loop, kv) && inLoop(rm, ri, rf->loop, rv) &&
          kv == rv,
      nextScope++, true);
  Scope body{pair->bodyHyp, {pair.get()}, pair->id};
  bool same;
  if (auto kd = kf->increment.getDefiningOp<tile::DotOp>()) {
    auto rd = rf->increment.getDefiningOp<tile::DotOp>();
    same = rd ? match(kd.getLhs(), rd.getLhs(), body) &&
                    match(kd.getRhs(), rd.getRhs(), body) &&
                    sameAttributes(kd, rd)
              : mismatch(kf->increment, rf->increment,
                         "the kernel adds a tile.dot where the reference "
                         "adds " + describeOp(rf->increment));
  } else {
    same = !rf->increment.getDefiningOp<tile::DotOp>()
               ? match(kf->increment, rf->increment, body)
               : mismatch(kf->increment, rf->increment,
                          "the reference adds a tile.dot");
  }
  foldPairs[{kf->loop, rf->loop, pair->id}] = std::move(pair);
  if (!same) {
    failed = true;
    InFlightDiagnostic diag = mlir::emitError(k.getLoc())
                              << "the value added to " << name
                              << " here is not the contract's: " << mismatchText;
    if (mismatchK)
      diag.attachNote(mismatchK->getLoc()) << "in the kernel, here";
    if (mismatchR)
      diag.attachNote(mismatchR->getLoc()) << "in the reference, here";
    return;
  }
  if (!proveClaims(k, r, "the terms added to " + name + " are the reference's"))
    return;

  // Each kernel fold stays inside the reference's range.
  refute(meet && inLoop(km, ki, kf->loop, kv) && !inLoop(rm, ri, rf->loop, kv),
         kf->loop, rf->loop,
         "the loop's values lie in the reference loop's range",
         "the kernel adds a term of " + name +
             " outside the reference loop's range");
  // Every value of the reference's range is added by some kernel instance.
  if (!coveredBySplits(k, r, *kf, rf->loop, rb, meet)) {
    Instance inst{"@c" + std::to_string(nextScope++), {}, ""};
    Side cs{km, inst};
    z3::expr range = ctx.bool_val(true);
    std::vector<z3::expr> vars = instanceVars(cs, kernel, k, range);
    vars.push_back(km.inductionVar(kf->loop, inst));
    z3::expr covered =
        range && km.executes(k, inst) &&
        sameElements(storeBlock(cs, k), rb) &&
        inLoop(km, inst, kf->loop, km.inductionVar(kf->loop, inst)) &&
        km.inductionVar(kf->loop, inst) == rv;
    refute(rm.executes(r, ri) && nonEmpty(rb) &&
               inLoop(rm, ri, rf->loop, rv) && km.forAll(vars, !covered),
           k, r, "every term of the reference's sum is added to " + name,
           "a term of the reference's sum is never added to " + name);
  }
  // ... and by one instance only.
  {
    Instance other{"@o", {}, "'"};
    Side os{km, other};
    z3::expr distinct = ctx.bool_val(false);
    z3::expr range = ctx.bool_val(true), rangeOther = ctx.bool_val(true);
    std::vector<z3::expr> a = instanceVars(ks, kernel, k, range);
    std::vector<z3::expr> b = instanceVars(os, kernel, k, rangeOther);
    for (auto [x, y] : llvm::zip(a, b))
      distinct = distinct || x != y;
    z3::expr ov = km.inductionVar(kf->loop, other);
    refute(meet && rangeOther && km.executes(k, other) &&
               sameElements(storeBlock(os, k), rb) && distinct &&
               inLoop(km, ki, kf->loop, kv) &&
               inLoop(km, other, kf->loop, ov) && kv == ov,
           k, r, "no term of " + name + " is added twice",
           "two programs or iterations add the same term of the reference's "
           "sum to " + name);
  }
}

/// Coverage without an existential: when the kernel's combine-add store
/// runs outside loops and grid dimension d splits the reference's range
/// into the loop ranges R(p) = [lb(p), ub(p)) of programs p = 0 .. E-1
/// (the other program ids fixed), R(0) starts at or before the reference's
/// start, R(E-1) ends at or after its end, and no gap lies between R(p) and
/// R(p+1) (ub(p) >= lb(p+1)), then the union covers the reference's range,
/// by induction over p. Tries each grid dimension; false if none proves.
bool ContractChecker::coveredBySplits(tile::StoreOp k, tile::StoreOp r,
                                      Fold kf, scf::ForOp rLoop,
                                      const Block &rb, const z3::expr &meet) {
  if (!km.loops(k).empty() || !km.loops(kf.loop).empty())
    return false;
  int64_t grid = kernel.getGridAttr().getInt();
  for (int64_t d = 0; d < grid; ++d) {
    z3::expr p = ctx.int_const(("split#" + std::to_string(nextScope++)).c_str());
    z3::expr extent = km.gridExtent(d);
    // The program of the same block with pid d = at.
    auto program = [&](const z3::expr &at) {
      auto inst = std::make_unique<Instance>(Instance{
          "@s" + std::to_string(nextScope), {},
          "'s" + std::to_string(nextScope)});
      ++nextScope;
      z3::expr same = ctx.bool_val(true);
      for (int64_t e = 0; e < grid; ++e)
        same = same && (e == d ? km.programId(e, *inst) == at
                               : km.programId(e, *inst) ==
                                     km.programId(e, ki));
      Instance *raw = inst.get();
      ownedInstances.push_back(std::move(inst));
      return std::make_pair(raw, same);
    };
    auto [first, firstIs] = program(ctx.int_val(0));
    auto [last, lastIs] = program(extent - 1);
    auto [at, atIs] = program(p);
    auto [next, nextIs] = program(p + 1);
    auto lb = [&](Instance *i) { return km.term(kf.loop.getLowerBound(), *i); };
    auto ub = [&](Instance *i) { return km.term(kf.loop.getUpperBound(), *i); };
    z3::expr each = km.executes(k, *at) &&
                    sameElements(storeBlock({km, *at}, k), rb);
    z3::expr gapless =
        z3::implies(p + 1 < extent, ub(at) >= lb(next));
    z3::expr ends = lb(first) <= rm.term(rLoop.getLowerBound(), ri) &&
                    ub(last) >= rm.term(rLoop.getUpperBound(), ri);
    // Every program id symbol lies in the grid (a fact): program p + 1 is
    // only named where it exists, or the last split would go unchecked.
    z3::expr broken = meet && firstIs && lastIs && atIs &&
                      z3::implies(p + 1 < extent, nextIs) && p >= 0 &&
                      p < extent && !(each && gapless && ends);
    std::pair<Operation *, Instance *> where[] = {{k, &ki}};
    Verdict v = prover.check(
        facts() && broken,
        "grid dimension " + std::to_string(d) +
            " splits the reference's sum into gapless ranges",
        km.minimalOrder(where));
    if (v.kind == Verdict::Unsat) {
      prover.recordProof(k, "every term of the reference's sum is added, "
                            "split over grid dimension " +
                                std::to_string(d));
      ++proved;
      return true;
    }
  }
  return false;
}

/// Outputs are written, never read back: then the data a store writes is
/// what its value's terms say, whatever order programs run in.
bool ContractChecker::checkNoReadBack(tile::KernelOp k) {
  bool clean = true;
  llvm::DenseSet<unsigned> written;
  k.walk([&](tile::StoreOp s) { written.insert(argNumber(s.getDest())); });
  k.walk([&](Operation *op) {
    Value src;
    if (auto l = llvm::dyn_cast<tile::LoadOp>(op)) {
      src = l.getSource();
    } else if (auto c = llvm::dyn_cast<tile::CopyOp>(op)) {
      // (TMA stores are folded into tile.store before this check.)
      src = c.getSource();
    }
    if (src && llvm::isa<BlockArgument>(src) &&
        written.contains(argNumber(src))) {
      clean = false;
      op->emitError() << "reads " << k.getOperandName(argNumber(src))
                      << ", which the kernel also stores to: a kernel "
                         "with a contract never reads its outputs back";
    }
  });
  failed |= !clean;
  return clean;
}

/// The loop and load of a reduction kernel's store of
/// `scf.for %s ... iter_args(%acc = 0) { %x = tile.load %W[...];
/// arith.addf %acc, %x }`: the sum of the loaded tiles, in order from zero.
std::optional<std::pair<scf::ForOp, tile::LoadOp>>
ContractChecker::sliceSumOf(tile::StoreOp t) {
  std::optional<Fold> fold = sumFold(t.getValue());
  if (!fold || fold->increment.getDefiningOp<tile::DotOp>())
    return std::nullopt;
  auto load = skip(fold->increment).getDefiningOp<tile::LoadOp>();
  if (!load || load->getParentOp() != fold->loop)
    return std::nullopt;
  return std::make_pair(fold->loop, load);
}

/// The reduction kernel (this checker's kernel) sums, for the block b it
/// stores, the slices W[s, b] for every s from 0 to W's dimension 0.
bool ContractChecker::checkSliceSum(tile::StoreOp t, scf::ForOp loop,
                                    tile::LoadOp load) {
  Side ts{km, ki};
  Value w = load.getSource();
  std::string name = operandName(w);
  Block tb = storeBlock(ts, t);
  Block lb = blockOf(ts, w, load.getType().getShape(), load.getIndices(),
                     load.getOffsets(), load.getBounds());
  z3::expr stores = km.executes(t, ki) && nonEmpty(tb);
  z3::expr every = km.term(loop.getLowerBound(), ki) == 0 &&
                   km.term(loop.getUpperBound(), ki) == km.dimension(w, 0);
  bool ok = refute(stores && !every, loop, nullptr,
                   "the reduction sums every slice of " + name,
                   "this loop does not run over the slices of " + name +
                       " from 0 to its dimension 0");
  z3::expr aligned = lb.origin[0] == km.inductionVar(loop, ki);
  for (size_t d = 0; d < tb.origin.size(); ++d)
    aligned = aligned && lb.origin[d + 1] == tb.origin[d] &&
              lb.end[d + 1] == tb.end[d];
  return refute(stores && km.executes(load, ki) && !aligned, load, nullptr,
                "the tiles summed are the slices of the block stored",
                "the tile of " + name +
                    " read here is not the loop's slice of the block the sum "
                    "is stored to") &&
         ok;
}

/// Every block of workspace W that the chain's second kernel reads (`load`,
/// on the way to its store `t`), one program (and iteration) of the first
/// kernel stores, all of it, with its store `k`.
void ContractChecker::checkWorkspace(tile::StoreOp t, tile::LoadOp load,
                                     tile::StoreOp k) {
  tile::KernelOp reduction = follower;
  std::string name = operandName(k.getDest());
  Instance ti{"@t", {}, ""};
  Side ts{*reducer, ti};
  Block tb = storeBlock(ts, t);
  Block lb = blockOf(ts, load.getSource(), load.getType().getShape(),
                     load.getIndices(), load.getOffsets(), load.getBounds());
  {
    Instance inst{"@w" + std::to_string(nextScope++), {}, ""};
    Side ws{km, inst};
    z3::expr range = ctx.bool_val(true);
    std::vector<z3::expr> vars = instanceVars(ws, kernel, k, range);
    z3::expr stored =
        range && km.executes(k, inst) && sameElements(storeBlock(ws, k), lb);
    z3::expr missing = reducer->executes(t, ti) && nonEmpty(tb) &&
                       reducer->executes(load, ti) && km.forAll(vars, !stored);
    std::string what = "every block of " + name + " that @" +
                       reduction.getSymName().str() + " reads is stored";
    std::pair<Operation *, Instance *> at[] = {{load, &ti}};
    Verdict v = prover.check(facts() && missing, what,
                             reducer->minimalOrder(at));
    if (v.kind == Verdict::Unsat) {
      prover.recordProof(k, what);
      ++proved;
    } else {
      failed = true;
      InFlightDiagnostic diag = mlir::emitError(load.getLoc());
      if (v.kind == Verdict::Unknown) {
        diag << "could not prove " << what << ": Z3 answered unknown ("
             << v.reason << ")";
      } else {
        diag << "no program of @" << kernel.getSymName()
             << " stores the block of " << name
             << " read here: it reads memory nothing wrote";
        prover.setCounterexample(reducer->counterexample(*v.model, at));
        diag.attachNote(load.getLoc())
            << reducer->describe(*v.model, load, &ti);
        diag.attachNote(k.getLoc())
            << "the store of " << name << " in @" << kernel.getSymName();
        diag.attachNote() << "replay on the CPU: "
                          << km.replayCommand(*v.model);
      }
    }
  }
  // ... and one only: a second store of the same elements would replace
  // the slice the sum reads.
  Instance other{"@o", {}, "'"};
  Side ks{km, ki}, os{km, other};
  z3::expr range = ctx.bool_val(true), rangeOther = ctx.bool_val(true);
  std::vector<z3::expr> a = instanceVars(ks, kernel, k, range);
  std::vector<z3::expr> b = instanceVars(os, kernel, k, rangeOther);
  z3::expr distinct = ctx.bool_val(false);
  for (auto [x, y] : llvm::zip(a, b))
    distinct = distinct || x != y;
  Block ka = storeBlock(ks, k), kb = storeBlock(os, k);
  z3::expr overlap = ctx.bool_val(true);
  for (size_t d = 0; d < ka.origin.size(); ++d)
    overlap = overlap && z3::max(ka.origin[d], kb.origin[d]) <
                             z3::min(ka.end[d], kb.end[d]);
  refute(range && rangeOther && km.executes(k, ki) && km.executes(k, other) &&
             distinct && overlap,
         k, nullptr, "no element of " + name + " is stored twice",
         "two programs or iterations store the same elements of " + name +
             ", which @" + reduction.getSymName().str() + " reads");
}

/// A workspace read in the chain's second kernel, on the way to its store
/// `followerStore` through elementwise operations only, is the value the
/// first kernel stored there (store `k`): its tile is that store's block
/// (proved stored, once: checkWorkspace), and every element the store
/// writes comes from the element at the same place of the tile read. Then
/// the stored value is matched in its place, for any program of the first
/// kernel that stores the block.
bool ContractChecker::matchWorkspace(tile::LoadOp load, tile::StoreOp k,
                                     Value r, Scope &s) {
  std::string name = operandName(load.getSource());
  if (!k)
    return mismatch(load, r,
                    "the first kernel stores the workspace " + name +
                        " with more than one tile.store; the contract "
                        "checker follows one");
  if (!s.elementwise || !followerStore)
    return mismatch(load, r,
                    "the kernel reads the workspace " + name +
                        " into other than elementwise operations up to its "
                        "store, which the contract checker does not follow");
  if (load.getType() != k.getValue().getType() || !load.getOffsets().empty() ||
      !load.getBounds().empty())
    return mismatch(load, r,
                    "the kernel reads the workspace " + name +
                        " with another tile type, or offsets or bounds, than "
                        "the first kernel's store (" +
                        lineOf(k) + ")");
  if (workspaceReadsChecked.insert(load).second)
    checkWorkspace(followerStore, load, k);
  Side ts{*reducer, ti}, ks{km, ki};
  Block lb = blockOf(ts, load.getSource(), load.getType().getShape(),
                     load.getIndices(), load.getOffsets(), load.getBounds());
  Block sb = storeBlock(ts, followerStore);
  // The tile dimensions are the trailing ones of both memrefs.
  int64_t rank = load.getType().getRank();
  z3::expr aligned = ctx.bool_val(true);
  for (int64_t d = 0; d < rank; ++d) {
    size_t l = lb.origin.size() - rank + d, t = sb.origin.size() - rank + d;
    aligned = aligned && lb.origin[l] == sb.origin[t] && sb.end[t] <= lb.end[l];
  }
  Scope inner = s;
  inner.hyp = s.hyp && reducer->executes(load, ti);
  claims.push_back({inner.hyp, aligned,
                    "the tile of " + name + " read here (" + lineOf(load) +
                        ") is not the block stored (" + lineOf(followerStore) +
                        ") element by element",
                    load, opOf(r)});
  inner.hyp = inner.hyp && km.executes(k, ki) &&
              sameElements(storeBlock(ks, k), lb);
  inner.id = nextScope++;
  return match(k.getValue(), r, inner);
}

/// A launch chain's contract: the chain's first kernel (this checker's)
/// stores partial results to workspaces, operands of the chain that the
/// reference does not have; the second, a reduction kernel, stores each
/// output block b as the sum, in order from zero, of b's slices of a
/// workspace: O[b] = 0 + W[0, b] + W[1, b] + ... + W[S - 1, b], S = W's
/// dimension 0. Proved: the reduction kernel stores exactly the
/// reference's blocks (coverage) as such sums (checkSliceSum), and every
/// slice it reads is stored by one program or iteration of the first
/// kernel (checkWorkspace). The chain then computes what the first kernel
/// computes with each store of slice (s, b) adding into block b of the
/// output (`combine add`), which checkCombined proves against the
/// reference: the slices' sums cover the reference's sum exactly once, in
/// another order, as with `combine add`.
CheckerResult ContractChecker::runChain(tile::KernelOp reduction) {
  llvm::StringSet<> outputs;
  for (unsigned i = 0, e = ref.getNumArguments(); i < e; ++i)
    outputs.insert(ref.getOperandName(i));
  SmallVector<tile::StoreOp> kStores, tStores, rStores;
  kernel.walk([&](tile::StoreOp s) { kStores.push_back(s); });
  reduction.walk([&](tile::StoreOp s) { tStores.push_back(s); });
  ref.walk([&](tile::StoreOp s) { rStores.push_back(s); });
  auto refuse = [&](Operation *op, const Twine &why) {
    failed = true;
    op->emitError() << why;
  };
  checkNoReadBack(reduction);
  for (tile::StoreOp k : kStores) {
    if (outputs.contains(operandName(k.getDest())))
      refuse(k, "the first kernel of a launch chain with a contract stores "
                "workspaces only (operands the reference does not have); @" +
                    reduction.getSymName() + " stores the outputs");
    else if (k.getCombine())
      refuse(k, "a workspace is stored with plain stores, not 'combine'");
  }
  for (tile::StoreOp t : tStores)
    if (!outputs.contains(operandName(t.getDest())) || t.getCombine())
      refuse(t, "the reduction kernel of a launch chain with a contract "
                "stores the reference's outputs, with plain stores");
  if (failed)
    return {false, "contract refused"};

  reducer = std::make_unique<SymbolicModel>(reduction, ctx, "then.");
  reducer->shareInputsWith(km);
  follower = reduction;
  if (!proveSatisfiable(prover, facts(), kernel,
                        "the launch contracts of @" + kernel.getSymName() +
                            ", @" + reduction.getSymName() + " and @" +
                            ref.getSymName()))
    return {false, "contradictory launch contracts"};
  ContractChecker inner(reduction, ref, ctx, prover);
  inner.checkCoverage(tStores, rStores);
  for (tile::StoreOp k : kStores) {
    std::string name = operandName(k.getDest());
    if (workspaceStores.count(name))
      workspaceStores[name] = {}; // stored twice: followed by no one
    else
      workspaceStores[name] = k;
  }
  for (tile::StoreOp t : tStores) {
    auto sum = sliceSumOf(t);
    if (!sum) {
      // Any other store: its value is compared with the reference's, a
      // workspace read on the way standing for what the first kernel
      // stored there.
      followerStore = t;
      for (tile::StoreOp r : rStores)
        if (sameOutput(r, t))
          checkValues(t, r);
      followerStore = {};
      continue;
    }
    auto [loop, load] = *sum;
    Value w = load.getSource();
    std::string name = operandName(w);
    auto wType = llvm::cast<MemRefType>(w.getType());
    auto oType = llvm::cast<MemRefType>(t.getDest().getType());
    if (outputs.contains(name)) {
      refuse(load, "the reduction kernel sums " + name +
                       ", an operand of the reference, not a workspace");
      continue;
    }
    tile::StoreOp k = workspaceStores.lookup(name);
    if (!k) {
      refuse(load, "@" + kernel.getSymName() + " stores the workspace " +
                       name + " with no tile.store, or several; the "
                       "contract checker follows one");
      continue;
    }
    if (k.getDest().getType() != wType ||
        k.getValue().getType() != load.getType() ||
        wType.getRank() != oType.getRank() + 1) {
      refuse(load, "a workspace slice holds one block of the output: " +
                       name + " must have the output's rank plus one, the "
                       "same type in both kernels, and be stored with the "
                       "tile type read here");
      continue;
    }
    if (!inner.checkSliceSum(t, loop, load))
      continue;
    checkWorkspace(t, load, k);
    slicedStore = k;
    for (tile::StoreOp r : rStores)
      if (sameOutput(r, t))
        checkCombined(k, r);
    slicedStore = {};
  }
  proved += inner.proved;
  failed |= inner.failed;
  return {!failed, std::to_string(proved) + " contract obligations against @" +
                       ref.getSymName().str() + " (with @" +
                       reduction.getSymName().str() + ")"};
}

CheckerResult ContractChecker::run() {
  SmallVector<tile::StoreOp> kStores, rStores;
  kernel.walk([&](tile::StoreOp s) { kStores.push_back(s); });
  ref.walk([&](tile::StoreOp s) { rStores.push_back(s); });

  checkNoReadBack(kernel);
  checkNoReadBack(ref);
  for (tile::StoreOp r : rStores)
    if (r.getCombine()) {
      failed = true;
      r.emitError() << "a reference kernel states its outputs with plain "
                       "stores, not 'combine'";
    }
  if (failed)
    return {false, "contract refused"};

  SmallVector<tile::KernelOp> chain = tile::launchChain(kernel);
  bool ofChain = chain.size() > 1 && !tile::sameOperands(kernel, ref);
  if (!ofChain && !proveSatisfiable(prover, facts(), kernel,
                                    "the launch contracts of @" +
                                        kernel.getSymName() + " and @" +
                                        ref.getSymName()))
    return {false, "contradictory launch contracts"};
  if (ofChain) {
    if (chain.size() != 2) {
      kernel.emitError()
          << "the contract checker follows a launch chain of two kernels (one "
             "that stores partial results to a workspace, and a reduction "
             "kernel); this chain runs "
          << chain.size();
      return {false, "contract refused"};
    }
    return runChain(chain[1]);
  }

  followWindows = true;
  checkCoverage(kStores, rStores);
  for (tile::StoreOp k : kStores)
    for (tile::StoreOp r : rStores) {
      if (!sameOutput(k, r))
        continue;
      if (k.getCombine() && k.getValue().getType() != r.getValue().getType()) {
        failed = true;
        k.emitError() << "a combine-add store adds tiles of the reference's "
                         "type (" << r.getValue().getType() << ")";
      } else if (k.getCombine())
        checkCombined(k, r);
      else
        checkValues(k, r);
    }
  return {!failed, std::to_string(proved) + " contract obligations against @" +
                       ref.getSymName().str()};
}

/// The warp role `op` runs in ("" outside roles).
static StringRef roleNameOf(Operation *op) {
  auto role = op->getParentOfType<schedule::RoleOp>();
  return role ? role.getName() : StringRef();
}

/// Whether `op` (or an op nested in it) writes `buffer`.
static bool writesBuffer(Operation *op, Value buffer) {
  return op
      ->walk([&](Operation *inner) {
        auto write = dyn_cast<tile::WriteOp>(inner);
        auto copy = dyn_cast<tile::CopyOp>(inner);
        if ((write && write.getBuffer() == buffer) ||
            (copy && copy.isGlobalToShared() && copy.getDest() == buffer))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Rewrites each TMA store of `kernel` (a copy of the kernel checked; and
/// each tile.copy to global memory run in place) into the plain tile.store
/// it amounts to for values: the store of the tile
/// that the tile.write before it put in its slot. That holds where the
/// buffer is filled only by tile.write in the store's role, and the write
/// comes earlier in the store's block with nothing writing the buffer
/// between; the schedule checker proves that the store reads the slot
/// before it is rewritten and completes before the program ends (and a
/// kernel with a contract never reads its outputs back). Other TMA stores
/// are errors.
static LogicalResult foldTmaStores(tile::KernelOp kernel) {
  SmallVector<tile::CopyOp> stores;
  kernel.walk([&](tile::CopyOp copy) {
    if (!copy.isGlobalToShared())
      stores.push_back(copy);
  });
  bool ok = true;
  SetVector<Operation *> replaced; // erased once every copy is folded
  for (tile::CopyOp copy : stores) {
    Value buffer = copy.getShared();
    // The copy's TMA region, or the copy itself where it runs in place.
    Operation *region = isa<schedule::AsyncOp>(copy->getParentOp())
                            ? copy->getParentOp()
                            : copy.getOperation();
    tile::WriteOp fill;
    for (Operation *op = region->getPrevNode(); op && !fill;
         op = op->getPrevNode()) {
      auto write = dyn_cast<tile::WriteOp>(op);
      if (write && write.getBuffer() == buffer &&
          write.getIndices() == copy.getSlotIndices())
        fill = write;
      else if (writesBuffer(op, buffer))
        break;
    }
    bool onlyItsRole = !kernel
                            .walk([&](Operation *op) {
                              if (!isa<tile::WriteOp, tile::CopyOp>(op) ||
                                  !writesBuffer(op, buffer))
                                return WalkResult::advance();
                              return isa<tile::CopyOp>(op) ||
                                             roleNameOf(op) !=
                                                 roleNameOf(copy)
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            })
                            .wasInterrupted();
    if (!fill || !onlyItsRole) {
      copy.emitError()
          << "the contract checker follows a copy to global memory whose "
             "slot a tile.write fills just before it, in the same block and "
             "warp role (the buffer written by tile.write in that role "
             "alone)";
      ok = false;
      continue;
    }
    OpBuilder b(region);
    tile::StoreOp::create(b, copy.getLoc(), fill.getValue(), copy.getGlobal(),
                          copy.getBlockIndices(), copy.getOffsets(),
                          copy.getBounds(), tile::StoreCombineAttr());
    replaced.insert(region);
  }
  for (Operation *op : replaced)
    op->erase();
  return success(ok);
}

CheckerResult verify::checkContract(tile::KernelOp kernel, z3::context &ctx,
                                    Prover &prover) {
  auto name = kernel->getAttrOfType<FlatSymbolRefAttr>(
      tag::TagDialect::kContractAttrName);
  if (!name)
    return {true, "no contract"};
  auto ref = SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
      kernel->getParentOp(), name.getAttr());
  if (!ref) {
    kernel.emitError() << "the contract names " << name
                       << ", which is not a tile.kernel of this module";
    return {false, "no reference"};
  }
  // TMA stores are compared as the plain stores they amount to, on a copy
  // of the kernel beside it (the copy's diagnostics carry the kernel's
  // locations).
  bool tmaStores = kernel
                       .walk([](tile::CopyOp copy) {
                         return copy.isGlobalToShared()
                                    ? WalkResult::advance()
                                    : WalkResult::interrupt();
                       })
                       .wasInterrupted();
  if (!tmaStores) {
    ContractChecker checker(kernel, ref, ctx, prover);
    return checker.run();
  }
  OpBuilder b(kernel->getContext());
  b.setInsertionPointAfter(kernel);
  auto folded = cast<tile::KernelOp>(b.clone(*kernel));
  llvm::scope_exit erase([&] { folded->erase(); });
  if (failed(foldTmaStores(folded)))
    return {false, "contract refused"};
  ContractChecker checker(folded, ref, ctx, prover);
  return checker.run();
}
