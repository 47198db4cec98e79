//===- Prover.h - discharging verification conditions with Z3 ---*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_PROVER_H
#define TILETAG_VERIFICATION_PROVER_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
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

/// What one checker did for one kernel.
struct KernelVerdict {
  bool proved;
  std::string summary; // e.g. "4 assertions and 6 obligations"
};

/// The driver both checker passes share: runs `check` on every kernel of
/// `module` with its own Z3 context and prover (queries named
/// KERNEL<suffix>-N.smt2 in `dumpDir`), reports "@kernel: SUMMARY proved
/// with N Z3 queries in T ms" as a remark when `stats`, and marks proved
/// kernels with the unit attribute `verifiedAttr`. False if any failed.
bool checkKernels(
    ModuleOp module, unsigned timeoutMs, llvm::StringRef dumpDir,
    llvm::StringRef suffix, bool stats, llvm::StringRef verifiedAttr,
    llvm::function_ref<KernelVerdict(tile::KernelOp, z3::context &, Prover &)>
        check);

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_PROVER_H
