//===- CheckKernel.h - the checkers as a library call -----------*- C++ -*-===//
//
// Part of the TileTag project.
//
// One entry point for everything that verifies a kernel: the passes, the
// transform ops, the agent and the C API. `checkKernel` runs the checkers
// and returns a verdict per obligation, with the resources spent and, for a
// failure, a structured counterexample. Diagnostics are emitted as usual
// (the caller may capture them with a diagnostic handler).
//
// A proved checker stamps the kernel (`tag.verified`, `schedule.verified`)
// with the hash of the IR it proved (Support/ProofStamp.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_CHECKKERNEL_H
#define TILETAG_VERIFICATION_CHECKKERNEL_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tiletag::verify {

/// What to check and with which limits.
struct CheckOptions {
  /// Prove the tag assertions (and in-range accesses, slot bounds, ...).
  bool tags = true;
  /// Prove the parallel schedule.
  bool schedule = true;
  /// Z3 resource limit per query (deterministic: no wall-clock limit).
  uint64_t resourceLimit = 10'000'000;
  /// Write every query as SMT-LIB into this directory ("" for none).
  std::string dumpSmtDir;
  /// Keep and reuse query verdicts in this directory ("" for none; see
  /// Prover::setVerdictCache).
  std::string verdictCacheDir;
  /// Stop a kernel's checks at its first error (reported alone): a verdict
  /// without the full list, for searches and mutation testing.
  bool failFast = false;
};

/// Memory one point of a counterexample touches.
struct CounterexampleAccess {
  std::string kind;           // "slot", "block", "element" or "mbarrier"
  std::vector<int64_t> index; // the slot, block or element index
  std::string buffer;         // "%a_ring (line 32)", "A" (a kernel operand)
};

/// One program point of a counterexample: an op executed with these loop
/// values, touching this memory.
struct CounterexamplePoint {
  std::string op;       // the op's name, e.g. "tile.copy"
  std::string location; // "file:line:col"
  std::vector<std::pair<std::string, int64_t>> loops; // loop name -> value
  std::vector<CounterexampleAccess> accesses;
  std::string memory; // the accesses as text: "slot [1] of %a_ring, ..."
};

/// A concrete execution that violates an obligation.
struct Counterexample {
  /// Problem sizes, operand dimensions, grid extents, program ids and scalar
  /// operands, by name ("size.M", "A.dim1", "nprog0", "pid0", "causal").
  std::vector<std::pair<std::string, int64_t>> values;
  std::vector<CounterexamplePoint> points;
  /// The tiletag-run command line that replays it on the CPU oracle, and
  /// its flags alone (" --size M=1,N=1,K=1 --set pid0=0").
  std::string replay, replayFlags;
};

/// The verdict on one obligation.
struct ObligationVerdict {
  enum Status { Proved, Failed, Unknown };
  std::string checker; // "definedness", "tags", "contract" or "schedule"
  std::string what;    // the obligation, or the error for a failure
  std::string location;
  Status status = Proved;
  /// Z3 resources of the query that decided it (one definedness query
  /// decides all of a kernel's integer operations).
  uint64_t resources = 0;
  std::optional<Counterexample> counterexample;
  std::vector<std::string> notes; // further notes of the diagnostic
};

/// The verdicts of one kernel.
struct KernelVerdict {
  std::string kernel;
  std::vector<ObligationVerdict> obligations;
  /// Per checker: whether everything it checked was proved.
  bool tagsProved = false, scheduleProved = false;
  unsigned queries = 0;
  uint64_t resources = 0, largestQuery = 0;
  double milliseconds = 0;
  /// Summaries for the stats remark, per checker.
  std::string tagsSummary, scheduleSummary, definednessSummary;

  bool proved() const;
};

/// Runs the checkers `options` selects on `kernel`. Failures are also
/// emitted as diagnostics at their ops.
KernelVerdict checkKernel(tile::KernelOp kernel, const CheckOptions &options);

/// The verdict as JSON: {"kernel", "proved", "queries", "resources",
/// "milliseconds", "obligations": [{"checker", "status", "what", "location",
/// "counterexample": {"values", "points", "replay", "replay_flags"},
/// "notes"}]}; a point is {"op", "location", "loops", "memory",
/// "accesses": [{"kind", "index", "buffer"}]}.
llvm::json::Value toJSON(const KernelVerdict &verdict);

/// Stamps `kernel` for each checker `options` enabled that proved it
/// (`tag.verified`, `schedule.verified`, bound to the kernel's IR) and
/// removes the stamp of one that did not. True if all enabled ones proved.
bool stampVerdict(tile::KernelOp kernel, const CheckOptions &options,
                  const KernelVerdict &verdict);

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_CHECKKERNEL_H
