//===- Prover.h - discharging verification conditions with Z3 ---*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_PROVER_H
#define TILETAG_VERIFICATION_PROVER_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Verification/CheckKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <z3++.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tiletag::verify {

/// The outcome of one satisfiability query.
struct Verdict {
  enum Kind { Unsat, Sat, Unknown } kind;
  std::optional<z3::model> model; // when Sat
  std::string reason;             // when Unknown
  uint64_t resources = 0;         // Z3's resource count spent
  bool failed = false; // Unknown because Z3 failed (an exception: memory)
};

/// Runs Z3 queries under a deterministic resource limit (Z3's rlimit, not
/// wall-clock time). A claim holds in every execution when "facts and not
/// claim" is Unsat; Sat gives a counterexample; Unknown (the limit, or a
/// nonlinear or quantified query Z3 gives up on) is never taken as a proof.
/// Counts queries, resources and time; can write each query as SMT-LIB.
class Prover {
public:
  Prover(z3::context &ctx, uint64_t resourceLimit, std::string dumpDir,
         std::string dumpPrefix);

  /// Checks `formula`; `what` heads the query in SMT-LIB dumps. A model
  /// (counterexample) is made minimal in the terms of `minimal`, in order.
  /// `generalizable`: closed terms the claim should hold for whatever their
  /// value (a loop's bounds, for a claim about its iterations). Those that
  /// are nonlinear are replaced by fresh constants first, with an eighth of
  /// the limit: Unsat there is a proof, and usually a much cheaper one
  /// (`pid * chunk` bounds make Z3 split cases); anything else is decided
  /// on `formula` itself.
  Verdict check(const z3::expr &formula, llvm::StringRef what,
                const std::vector<z3::expr> &minimal = {},
                const std::vector<z3::expr> &generalizable = {});

  /// Keeps the verdicts of queries in `dir` ("" for none) and answers a
  /// query found there without Z3. A query's verdict is a function of its
  /// SMT-LIB text, the engine, the limit and the terms a model is made
  /// minimal in (solve() makes a context of its own for each); the entry is
  /// keyed by a SHA-256 of all of them and of Z3's version. Kept: proofs,
  /// unknowns and models of integer and Boolean constants; not Z3's
  /// failures (out of memory: the machine, not the query).
  /// Whoever can write `dir` can forge proofs: it must be as private as the
  /// tools themselves (tiletag-agent uses a folder of its own per run).
  void setVerdictCache(std::string dir) { cacheDir = std::move(dir); }

  /// After `halt`, every query is answered Unknown without Z3 (a checker
  /// told to stop at its first error): never a proof.
  void halt() { halted = true; }
  bool isHalted() const { return halted; }

  /// Verdicts go to `log` (checkKernel's), as obligations of `checker`.
  void setLog(std::vector<ObligationVerdict> *log, llvm::StringRef checker) {
    this->log = log;
    this->checker = checker.str();
  }
  llvm::StringRef currentChecker() const { return checker; }
  /// Records that the obligation `what` at `op` was proved.
  void recordProof(Operation *op, const llvm::Twine &what);
  /// The counterexample of the failure about to be reported as a
  /// diagnostic; checkKernel attaches it to that failure's verdict.
  void setCounterexample(Counterexample cex) { pending = std::move(cex); }
  std::optional<Counterexample> takeCounterexample() {
    return std::exchange(pending, std::nullopt);
  }

  unsigned numQueries() const { return queries; }
  double milliseconds() const { return millis; }
  uint64_t resourcesSpent() const { return resources; }
  uint64_t largestQuery() const { return maxResources; }
  /// The resources of the last query checked.
  uint64_t lastQueryResources() const { return lastResources; }

private:
  /// How a query is solved. None of them uses a wall-clock limit (Z3's
  /// default tactics for quantifier-free formulas do: `try_for`).
  enum class Engine {
    Core,         // Z3's SMT core alone: no setup cost
    Preprocessed, // simplification and equation solving, then the core
    Default,      // Z3's default solver (quantified arithmetic: qsat, MBQI)
    Nonlinear,    // quantifier-free nonlinear integer arithmetic: nlsat
  };
  /// check() without generalizing, within `budget` (the share of it each
  /// attempt gets is as check() describes); `suffix` marks the dumped
  /// queries.
  Verdict decide(const z3::expr &formula, llvm::StringRef what,
                 const std::vector<z3::expr> &minimal, uint64_t budget,
                 llvm::StringRef suffix);
  /// Decides `text` (SMT-LIB) in a context of its own within `limit`.
  Verdict solve(const std::string &text, const std::vector<z3::expr> &minimal,
                uint64_t limit, Engine engine);
  /// solve() without the verdict cache.
  Verdict solveInOwnContext(const std::string &text,
                            const std::vector<z3::expr> &minimal,
                            uint64_t limit, Engine engine);
  /// Writes a query to the dump directory, if one is set.
  void dump(llvm::StringRef what, const std::string &text,
            llvm::StringRef suffix);

  z3::context &ctx;
  uint64_t resourceLimit;
  std::vector<ObligationVerdict> *log = nullptr;
  std::string checker;
  std::optional<Counterexample> pending;
  uint64_t resources = 0, maxResources = 0, lastResources = 0;
  std::string dumpDir, dumpPrefix, cacheDir;
  bool halted = false;
  unsigned queries = 0;
  double millis = 0;
};

/// The directory of --tiletag-dump-smt, or "".
std::string defaultDumpDir();

/// A formula with its nonlinear subterms abstracted.
struct AbstractedFormula {
  z3::expr formula;
  /// The formula before abstraction, simplified, with launch-contract
  /// equations substituted (equivalent to the input): what an instance of a
  /// candidate is checked on.
  z3::expr prepared;
  /// Linear facts the abstracted terms satisfy (sign rules, x * 1 = x,
  /// 0 <= a mod b < |b|, ...): true of the terms they stand for.
  z3::expr facts;
  /// The constants the abstracted terms are built from.
  std::vector<z3::expr> inputs;
  bool changed;
  /// Whether `formula` has quantifiers (their bodies keep nonlinear terms
  /// that mention bound variables).
  bool quantified;
  /// "nonlinear#3 = (* a b)", one line per fresh constant: written as
  /// comments into dumped queries.
  std::string legend;
  /// What each fresh constant stands for: `fresh = lhs * rhs`, `lhs div
  /// rhs` or `lhs mod rhs` (terms of the abstracted formula).
  struct Term {
    enum Kind { Product, Quotient, Remainder } kind;
    z3::expr fresh, lhs, rhs;
  };
  std::vector<Term> terms;
  /// Linear lemmas that rule out the model's values of the abstracted
  /// terms where they are not those of the terms they stand for (one
  /// factor's value fixes the product: `x = 3 -> p = 3 * y`); true of
  /// every model of the exact formula.
  z3::expr refinement(const z3::model &model) const;
};

/// Replaces the subterms of `formula` that no quantifier binds and that Z3
/// decides poorly -- a product of two non-constant terms, a division or
/// remainder by one, a value loaded from memory -- by fresh constants. Every
/// model of `formula` extends to one of `facts && formula'` (each constant
/// takes its subterm's value), so when that is unsatisfiable, so is
/// `formula`. Loop invariants such as `pid * per_split` or `K ceildiv S`
/// become symbols that cancel where a query compares two uses of them.
AbstractedFormula abstractNonlinear(const z3::expr &formula);

class SymbolicModel;
struct Instance;

/// Checks that some run meets `facts` (the launch contracts of the kernels
/// in a query, and the facts every run has): from contradictory facts any
/// claim would follow. Reports at `at` when none does (or Z3 cannot tell)
/// and returns false.
bool proveSatisfiable(Prover &prover, const z3::expr &facts, Operation *at,
                      const llvm::Twine &what);

/// Proves the definedness obligations of every integer operation of the
/// model's kernel (SymbolicModel::definedness) in one query; reports each
/// violated one at its op with a counterexample. Returns how many were
/// proved.
FailureOr<unsigned> proveDefinedness(SymbolicModel &model, Prover &prover,
                                     Instance &inst);

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_PROVER_H
