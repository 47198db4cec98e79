//===- Prover.h - discharging verification conditions with Z3 ---*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_PROVER_H
#define TILETAG_VERIFICATION_PROVER_H

#include "llvm/ADT/StringRef.h"

#include <z3++.h>

#include <optional>
#include <string>

namespace mlir::tiletag::verify {

/// The outcome of one satisfiability query.
struct Verdict {
  enum Kind { Unsat, Sat, Unknown } kind;
  std::optional<z3::model> model; // when Sat
  std::string reason;             // when Unknown
};

/// Runs Z3 queries with a timeout. A claim holds in every execution when
/// "facts and not claim" is Unsat; Sat gives a counterexample; Unknown (a
/// timeout, or a nonlinear or quantified query Z3 gives up on) is never
/// taken as a proof. Counts queries and time; can write each as SMT-LIB.
class Prover {
public:
  Prover(z3::context &ctx, unsigned timeoutMs, std::string dumpDir,
         std::string dumpPrefix);

  /// Checks `formula`; `what` heads the query in SMT-LIB dumps.
  Verdict check(const z3::expr &formula, llvm::StringRef what);

  unsigned numQueries() const { return queries; }
  double milliseconds() const { return millis; }

private:
  z3::context &ctx;
  unsigned timeoutMs;
  std::string dumpDir, dumpPrefix;
  unsigned queries = 0;
  double millis = 0;
};

/// The directory of --tiletag-dump-smt, or "".
std::string defaultDumpDir();

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_PROVER_H
