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

#include "mlir/Dialect/SCF/IR/SCF.h"

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

/// A named symbol of the model, reported in counterexamples.
struct Symbol {
  enum Kind { Size, Dimension, GridExtent, ProgramId, Scalar };
  std::string name;
  z3::expr expr;
  Kind kind;
};

class SymbolicModel {
public:
  SymbolicModel(tile::KernelOp kernel, z3::context &ctx);

  z3::context &context() { return ctx; }
  tile::KernelOp getKernel() { return kernel; }

  /// The term of an index, integer or i1 value in `inst` (i1 as a Bool).
  /// Values the model cannot follow become fresh, unconstrained symbols.
  z3::expr term(Value value, Instance &inst);

  /// What must hold for `op` to execute in `inst`: the domains of its
  /// enclosing loops and the conditions of its enclosing branches.
  z3::expr executes(Operation *op, Instance &inst);

  /// Facts about the symbols that hold in every run: program ids lie in the
  /// grid, sizes are non-negative, ...
  z3::expr assumptions();

  /// "a, executed in `ia`, comes before b, executed in `ib`" in the
  /// sequential order of one program.
  z3::expr before(Operation *a, Instance &ia, Operation *b, Instance &ib);

  /// The loops enclosing `op` inside the kernel, outermost first.
  SmallVector<scf::ForOp> loops(Operation *op);

  /// The program id in grid dimension `dim` of `inst`'s program.
  z3::expr programId(int64_t dim, Instance &inst);

  /// The induction variable of `loop` in `inst`.
  z3::expr inductionVar(scf::ForOp loop, Instance &inst);

  /// Dimension `d` of a memref: its static size, or the size symbol of a
  /// kernel operand.
  z3::expr dimension(Value memref, int64_t d);

  /// The induction variables of the loops around `op`, in `inst`.
  std::vector<z3::expr> loopVars(Operation *op, Instance &inst);

  /// `body` for all (for some) values of `vars`; just `body` without vars.
  z3::expr forAll(const std::vector<z3::expr> &vars, const z3::expr &body);
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
  std::string describe(const z3::model &model, Operation *op = nullptr,
                       Instance *inst = nullptr);

  /// An i1 term as 0 or 1; integer terms unchanged.
  z3::expr asInt(const z3::expr &e);

private:
  z3::expr symbol(const std::string &name, Symbol::Kind kind,
                  bool isBool = false);
  z3::expr compute(Value value, Instance &inst);

  z3::context &ctx;
  tile::KernelOp kernel;
  std::vector<Symbol> shared;
  std::map<std::string, unsigned> sharedIndex;
  /// Stable numbers for the values the model does not follow.
  std::unordered_map<const void *, unsigned> opaqueIds;
  std::vector<z3::expr> facts;
  /// Reads of each tile.nondecreasing operand: (index, value).
  std::map<std::string, std::vector<std::pair<z3::expr, z3::expr>>> sortedReads;
  unsigned freshCounter = 0;
};

/// "line N" of an op's location, for diagnostics.
std::string lineOf(Operation *op);

/// Prints `value` (an integer or Bool term) as evaluated in `model`.
std::string evalString(const z3::model &model, const z3::expr &value);

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_SYMBOLICMODEL_H
