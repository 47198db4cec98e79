//===- SymbolicModel.h - kernels as Z3 terms over symbolic sizes -*- C++
//-*-===//
//
// Part of the TileTag project.
//
// The symbolic model both checkers share. Index values become Z3 integer
// terms over symbolic program ids, the grid extents, problem sizes (every
// dynamic memref dimension is a symbol, never a number), scalar operands and
// loop induction variables. An *instance* is one execution of an operation:
// it has its own copy of every enclosing loop's induction variable, so that
// two executions (a read and the write that reached it) can be related in one
// query. Values defined outside all loops are the same in every instance of
// the same program.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_SYMBOLICMODEL_H
#define TILETAG_VERIFICATION_SYMBOLICMODEL_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Verification/CheckKernel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/DenseSet.h"

#include <z3++.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace mlir::tiletag::verify {

/// One execution of the kernel body's operations: loop induction variables
/// are named with the instance's suffix. Instances with different `program`
/// strings run in different programs (CTAs): their program ids are distinct
/// symbols; everything else shared (sizes, scalars) stays shared.
struct Instance {
  std::string suffix;
  std::unordered_map<const void *, z3::expr> memo;
  std::string program = "";
};

/// A condition under which the model follows an operation exactly and the
/// operation is defined: no division by zero, no wrap-around of add/sub/mul,
/// a dimension inside the rank, a positive loop step. `holds` is "where `op`
/// executes, the condition is true", over the variables of `inst`; `what`
/// says what goes wrong when it is false.
struct Obligation {
  Operation *op;
  std::string what;
  z3::expr holds;
};

/// A named symbol of the model, reported in counterexamples.
struct Symbol {
  /// In the order counterexamples list them.
  enum Kind { GridExtent, Size, Dimension, ProgramId, Scalar };
  std::string name;
  z3::expr expr;
  Kind kind;
};

class SymbolicModel {
public:
  /// `scope` prefixes the symbols that belong to this kernel alone (grid
  /// extents, program ids, loop variables, opaque values), so that two
  /// kernels' models can meet in one query: a kernel and its reference
  /// share sizes, operand dimensions, scalars and input memory by name.
  SymbolicModel(tile::KernelOp kernel, z3::context &ctx,
                StringRef scope = "");

  z3::context &context() { return ctx; }
  tile::KernelOp getKernel() { return kernel; }

  /// The term of an index, integer or i1 value in `inst` (i1 as a Bool).
  /// An integer of width w is its signed value, in [-2^(w-1), 2^(w-1));
  /// operations follow MLIR's definition exactly, under the obligations of
  /// definedness(). Values the model cannot follow become fresh symbols
  /// constrained only by their type's range.
  z3::expr term(Value value, Instance &inst);

  /// The obligations of every integer operation and loop of the kernel (see
  /// Obligation), in `inst`. A checker proves them before it trusts a term.
  const std::vector<Obligation> &definedness(Instance &inst);

  /// What must hold for `op` to execute in `inst`: the domains of its
  /// enclosing loops and the conditions of its enclosing branches.
  z3::expr executes(Operation *op, Instance &inst);

  /// Facts about the symbols that hold in every run: program ids lie in the
  /// grid, sizes are non-negative, ...
  z3::expr assumptions();
  /// Every memref operand fits in memory: its bytes, the product of its
  /// sizes and element size, stay below 2^63 (no machine maps more). A
  /// nonlinear fact, given only to the definedness query, where it bounds
  /// products of tile counts (`(M ceildiv 128) * (N ceildiv 128)`).
  z3::expr operandsFitInMemory();
  /// The launch's problem sizes (`size.M`, ...), in the launch's order.
  std::vector<z3::expr> sizeSymbols();

  /// "a, executed in `ia`, comes before b, executed in `ib`" in the
  /// sequential order of one program.
  z3::expr before(Operation *a, Instance &ia, Operation *b, Instance &ib);

  /// The loops enclosing `op` inside the kernel, outermost first.
  SmallVector<scf::ForOp> loops(Operation *op);

  /// The program id in grid dimension `dim` of `inst`'s program.
  z3::expr programId(int64_t dim, Instance &inst);

  /// The grid's extent in dimension `dim` (this kernel's, by its scope).
  z3::expr gridExtent(int64_t dim);

  /// The induction variable of `loop` in `inst`.
  z3::expr inductionVar(scf::ForOp loop, Instance &inst);

  /// Dimension `d` of a memref: its static size, or the size symbol of a
  /// kernel operand.
  z3::expr dimension(Value memref, int64_t d);

  /// The induction variables of the loops around `op`, in `inst`.
  std::vector<z3::expr> loopVars(Operation *op, Instance &inst);

  /// `body` for all (for some) values of `vars`; just `body` without vars.
  z3::expr forAll(const std::vector<z3::expr> &vars, const z3::expr &body);
  /// The same, with `body` at each of `instances` (a value per var)
  /// conjoined. An instance follows from the quantified formula, so the
  /// formula means the same; it hands Z3 the iteration a proof needs, which
  /// its quantifier instantiation would otherwise search for (hundreds of
  /// thousands of resources for one step of a ring protocol).
  z3::expr forAll(const std::vector<z3::expr> &vars, const z3::expr &body,
                  ArrayRef<std::vector<z3::expr>> instances);
  /// Only `body` at each of `instances`: what the quantified formula
  /// implies without its quantifier (true for no instance).
  z3::expr instances(const std::vector<z3::expr> &vars, const z3::expr &body,
                     ArrayRef<std::vector<z3::expr>> instances);

  /// The loop variables of `op` at `anchor`'s iteration in `ianchor`, moved
  /// by `shift` iterations of the innermost loop around `op` (the loops
  /// outside it at `anchor`'s values); none where a loop around `op` is not
  /// around `anchor` too, or `op` is in no loop.
  std::optional<std::vector<z3::expr>>
  shiftedIteration(Operation *op, Operation *anchor, Instance &ianchor,
                   int64_t shift);
  z3::expr exists(const std::vector<z3::expr> &vars, const z3::expr &body);

  /// A fresh integer constant (for ghost values and existential variables).
  z3::expr fresh(StringRef prefix);

  /// Converts an affine expression over `dims` and `symbols` to a term.
  z3::expr affine(AffineExpr expr, ArrayRef<z3::expr> dims,
                  ArrayRef<z3::expr> symbols = {});

  /// The symbols shared by all instances (program ids, sizes, scalars), for
  /// counterexamples.
  ArrayRef<Symbol> symbols() { return shared; }

  /// A readable name of the loop at `loop` (its induction variable).
  std::string loopName(scf::ForOp loop);

  /// The tiletag-run flags that replay a model: sizes (by the names of the
  /// kernel's tile.launch), program ids and scalar operands.
  std::string replayFlags(const z3::model &model);

  /// "counterexample: size.M = 1; ...; pid0 = 0; iv0@line38 = 4;": every
  /// shared symbol, then the loop variables around `op` in `inst`, if given.
  /// `label` replaces "counterexample" where the model is a witness of
  /// something else.
  std::string describe(const z3::model &model, Operation *op = nullptr,
                       Instance *inst = nullptr,
                       llvm::StringRef label = "counterexample");

  /// What a counterexample is made minimal in, in order: problem sizes,
  /// operand dimensions, grid extents, program ids, scalar operands, then
  /// the loop variables around each of `points` (outer loops first).
  std::vector<z3::expr>
  minimalOrder(ArrayRef<std::pair<Operation *, Instance *>> points = {});

  /// The structured counterexample of `model`: every shared symbol, and for
  /// each point its op, location and loop values (and the memory it
  /// touches, if given, in the same order as `points`), and the command
  /// that replays it.
  Counterexample
  counterexample(const z3::model &model,
                 ArrayRef<std::pair<Operation *, Instance *>> points,
                 ArrayRef<std::vector<CounterexampleAccess>> accesses = {});

  /// The tiletag-run command line that replays `model`.
  std::string replayCommand(const z3::model &model);

  /// An i1 term as 0 or 1; integer terms unchanged.
  z3::expr asInt(const z3::expr &e);

  /// Makes this model's reads of sorted (tile.nondecreasing) operands
  /// ordered against `other`'s too: the two kernels read the same memory.
  void shareInputsWith(SymbolicModel &other) {
    sortedReads = other.sortedReads;
  }

  /// The operations that write slots of shared buffer `buffer`: tile.copy
  /// into it and tile.write, in program order.
  SmallVector<Operation *> bufferWriters(Value buffer);

  /// "`w`, executed in `iw`, is the last write to slot `slots` (of `reader`
  /// in `ir`) before the read": it wrote that slot earlier in sequential
  /// order and no write of `writers` comes between (quantified over the
  /// later writes' iterations). `iw` and `ir` run in the same program.
  z3::expr lastWrite(Operation *w, Instance &iw, ArrayRef<Operation *> writers,
                     Operation *reader, ValueRange slots, Instance &ir);

  /// True if `v` is never negative as a signed value, by its definition
  /// (where it is defined): its unsigned reading needs no case split.
  bool nonNegative(Value v);

private:
  z3::expr conjoinInstances(z3::expr start, const std::vector<z3::expr> &vars,
                            const z3::expr &body,
                            ArrayRef<std::vector<z3::expr>> instances);
  z3::expr symbol(const std::string &name, Symbol::Kind kind,
                  bool isBool = false);
  z3::expr compute(Value value, Instance &inst);
  z3::expr computeInteger(Operation *op, Instance &inst);
  /// 2^n as a term.
  z3::expr pow2(unsigned n);
  /// `e` lies in the range of a signed integer of `width` bits.
  z3::expr inRange(const z3::expr &e, unsigned width);
  /// The value of an integer term read as unsigned (i1: 0 or 1).
  z3::expr unsignedView(Value v, const z3::expr &e);
  /// The value of an integer term read as signed (i1: 0 or -1).
  z3::expr signedView(Value v, const z3::expr &e);
  /// Two's complement wrap-around of a mathematical value to `width` bits.
  z3::expr wrap(const z3::expr &e, unsigned width);
  /// Records that `cond` must hold where the op of `value` executes.
  void require(Operation *op, Instance &inst, const z3::expr &cond,
               const Twine &what);

  z3::context &ctx;
  tile::KernelOp kernel;
  std::string scope;
  std::vector<Symbol> shared;
  std::map<std::string, unsigned> sharedIndex;
  /// Stable numbers for the values the model does not follow.
  std::unordered_map<const void *, unsigned> opaqueIds;
  void addFact(const z3::expr &fact);
  std::vector<z3::expr> facts;
  llvm::DenseSet<unsigned> factIds;
  /// Reads of each tile.nondecreasing operand: (index, value).
  using SortedReads =
      std::map<std::string, std::vector<std::pair<z3::expr, z3::expr>>>;
  SortedReads ownSortedReads;
  SortedReads *sortedReads = &ownSortedReads;
  unsigned freshCounter = 0;
  /// The instance whose terms record obligations (definedness()).
  Instance *recording = nullptr;
  std::vector<Obligation> obligations;
  DenseMap<Value, bool> nonNegativeMemo, ghostMemo;
};

/// The slot indices `w` (a tile.copy into a shared buffer or a tile.write)
/// writes in `buffer`, or none if it does not write `buffer`.
std::optional<ValueRange> slotsWritten(Operation *w, Value buffer);

/// "line N" of an op's location, for diagnostics.
std::string lineOf(Operation *op);

/// The SSA name `op`'s result has in the source file (`%a_ring`), read back
/// from the line of its location; none if the file or the name is not there.
/// SSA names do not survive parsing, but users know their buffers by them.
std::optional<std::string> sourceName(Operation *op);

/// "file:line:col" of a location (its printed form if it has no file).
std::string locationString(Location loc);

/// Calls `fn` once for every constant (0-ary application) in `e`, visiting
/// each shared subterm once; into quantifier bodies only if asked.
void forEachConstant(const z3::expr &e,
                     llvm::function_ref<void(const z3::expr &)> fn,
                     bool intoQuantifiers);

/// Prints `value` (an integer or Bool term) as evaluated in `model`.
std::string evalString(const z3::model &model, const z3::expr &value);

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_SYMBOLICMODEL_H
