//===- CheckKernel.cpp - the checkers as a library call and as passes -----===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Verification/CheckKernel.h"

#include "Checkers.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleDialect.h"
#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "TileTag/Support/ProofStamp.h"
#include "TileTag/Verification/Passes.h"
#include "TileTag/Verification/Prover.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir::tiletag::verify {
#define GEN_PASS_DEF_VERIFYTAGSPASS
#define GEN_PASS_DEF_VERIFYSCHEDULEPASS
#define GEN_PASS_DEF_VERIFYPASS
#include "TileTag/Verification/Passes.h.inc"
} // namespace mlir::tiletag::verify

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

bool KernelVerdict::proved() const {
  return llvm::none_of(obligations, [](const ObligationVerdict &o) {
    return o.status != ObligationVerdict::Proved;
  });
}

KernelVerdict verify::checkKernel(tile::KernelOp kernel,
                                  const CheckOptions &options) {
  KernelVerdict verdict;
  verdict.kernel = kernel.getSymName().str();
  std::string dir =
      options.dumpSmtDir.empty() ? defaultDumpDir() : options.dumpSmtDir;

  // Every error a checker reports is a failed (or undecided) obligation;
  // the structured counterexample comes from the prover. The diagnostic
  // still reaches the caller's handlers.
  Prover *current = nullptr;
  ScopedDiagnosticHandler capture(
      kernel.getContext(), [&](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Error || !current)
          return failure();
        ObligationVerdict v;
        v.checker = current->currentChecker().str();
        v.what = diag.str();
        v.location = locationString(diag.getLocation());
        v.status = StringRef(v.what).contains("could not")
                       ? ObligationVerdict::Unknown
                       : ObligationVerdict::Failed;
        v.counterexample = current->takeCounterexample();
        for (Diagnostic &note : diag.getNotes())
          v.notes.push_back(note.str());
        verdict.obligations.push_back(std::move(v));
        return failure();
      });

  // Each checker runs with its own context, prover and model.
  auto run = [&](StringRef checker, StringRef suffix, auto &&body) {
    z3::context ctx;
    Prover prover(ctx, options.resourceLimit, dir,
                  (kernel.getSymName() + suffix).str());
    prover.setLog(&verdict.obligations, checker);
    current = &prover;
    size_t before = verdict.obligations.size();
    std::string summary = body(ctx, prover);
    current = nullptr;
    verdict.queries += prover.numQueries();
    verdict.resources += prover.resourcesSpent();
    verdict.largestQuery = std::max(verdict.largestQuery, prover.largestQuery());
    verdict.milliseconds += prover.milliseconds();
    bool proved = std::all_of(
        verdict.obligations.begin() + before, verdict.obligations.end(),
        [](const ObligationVerdict &o) {
          return o.status == ObligationVerdict::Proved;
        });
    return std::make_pair(proved, summary);
  };

  // Integer operations are defined and followed exactly: what both
  // checkers' terms rely on.
  auto [defined, definedSummary] =
      run("definedness", "-defined", [&](z3::context &ctx, Prover &prover) {
        SymbolicModel model(kernel, ctx);
        Instance inst{"", {}, ""};
        FailureOr<unsigned> n = proveDefinedness(model, prover, inst);
        return std::to_string(succeeded(n) ? *n : 0) +
               " definedness obligations";
      });
  verdict.definednessSummary = definedSummary;
  if (options.tags) {
    auto [proved, summary] =
        run("tags", "", [&](z3::context &ctx, Prover &prover) {
          CheckerResult r = checkTags(kernel, ctx, prover);
          return r.summary;
        });
    // The contract is part of the tag-level proof: what the kernel computes.
    auto [met, contract] =
        run("contract", "-contract", [&](z3::context &ctx, Prover &prover) {
          return checkContract(kernel, ctx, prover).summary;
        });
    verdict.tagsProved = defined && proved && met;
    verdict.tagsSummary = summary + "; " + contract;
  }
  if (options.schedule) {
    auto [proved, summary] =
        run("schedule", "-schedule", [&](z3::context &ctx, Prover &prover) {
          CheckerResult r = checkSchedule(kernel, ctx, prover);
          return r.summary;
        });
    verdict.scheduleProved = defined && proved;
    verdict.scheduleSummary = summary;
  }
  return verdict;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static llvm::json::Value toJSON(const Counterexample &cex) {
  llvm::json::Object values;
  for (auto &[name, value] : cex.values)
    values[name] = value;
  llvm::json::Array points;
  for (const CounterexamplePoint &p : cex.points) {
    llvm::json::Object loops;
    for (auto &[name, value] : p.loops)
      loops[name] = value;
    points.push_back(llvm::json::Object{{"op", p.op},
                                        {"location", p.location},
                                        {"loops", std::move(loops)},
                                        {"memory", p.memory}});
  }
  return llvm::json::Object{{"values", std::move(values)},
                            {"points", std::move(points)},
                            {"replay", cex.replay}};
}

llvm::json::Value verify::toJSON(const KernelVerdict &verdict) {
  llvm::json::Array obligations;
  for (const ObligationVerdict &o : verdict.obligations) {
    llvm::json::Object obj{
        {"checker", o.checker},
        {"status", o.status == ObligationVerdict::Proved   ? "proved"
                   : o.status == ObligationVerdict::Failed ? "failed"
                                                           : "unknown"},
        {"what", o.what},
        {"location", o.location}};
    if (o.counterexample)
      obj["counterexample"] = ::toJSON(*o.counterexample);
    if (!o.notes.empty())
      obj["notes"] = llvm::json::Array(o.notes);
    obligations.push_back(std::move(obj));
  }
  return llvm::json::Object{{"kernel", verdict.kernel},
                            {"proved", verdict.proved()},
                            {"queries", verdict.queries},
                            {"resources", verdict.resources},
                            {"largest_query", verdict.largestQuery},
                            {"milliseconds",
                             std::round(verdict.milliseconds * 10) / 10},
                            {"obligations", std::move(obligations)}};
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

namespace {

/// What the three verification passes share: check every kernel, report,
/// stamp the proved ones, and print the verdicts as JSON if asked.
LogicalResult verifyModule(ModuleOp module, const CheckOptions &options,
                           bool stats, StringRef format) {
  if (format != "text" && format != "json")
    return module.emitError() << "unknown format '" << format
                              << "' (expected 'text' or 'json')";
  bool allProved = true;
  llvm::json::Array kernels;
  for (tile::KernelOp kernel :
       llvm::make_early_inc_range(module.getOps<tile::KernelOp>())) {
    KernelVerdict verdict = checkKernel(kernel, options);
    if (stats) {
      SmallVector<std::string> parts;
      if (options.tags)
        parts.push_back(verdict.tagsSummary);
      if (options.schedule)
        parts.push_back(verdict.scheduleSummary);
      parts.push_back(verdict.definednessSummary);
      std::string line;
      llvm::raw_string_ostream os(line);
      os << "@" << kernel.getSymName() << ": " << llvm::join(parts, ", ")
         << (verdict.proved() ? " proved" : " checked") << " with "
         << verdict.queries << " Z3 queries in "
         << llvm::format("%.1f", verdict.milliseconds) << " ms, "
         << verdict.resources << " resources (largest query "
         << verdict.largestQuery << ")";
      emitRemark(kernel.getLoc()) << line;
    }
    // A proof stamp holds the hash of the kernel it proved; a failed check
    // removes an earlier stamp.
    auto stamp = [&](bool enabled, bool proved, StringRef attr) {
      if (!enabled)
        return;
      if (proved)
        stampProof(kernel, attr);
      else
        kernel->removeAttr(attr);
      allProved &= proved;
    };
    stamp(options.tags, verdict.tagsProved, tag::TagDialect::kVerifiedAttrName);
    stamp(options.schedule, verdict.scheduleProved,
          schedule::ScheduleDialect::kVerifiedAttrName);
    if (format == "json")
      kernels.push_back(toJSON(verdict));
  }
  if (format == "json")
    llvm::outs() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"kernels", std::move(kernels)}}));
  return success(allProved);
}

CheckOptions optionsOf(uint64_t resourceLimit, StringRef dumpSmt, bool tags,
                       bool schedule) {
  CheckOptions options;
  options.resourceLimit = resourceLimit;
  options.dumpSmtDir = dumpSmt.str();
  options.tags = tags;
  options.schedule = schedule;
  return options;
}

struct VerifyTagsPass
    : public verify::impl::VerifyTagsPassBase<VerifyTagsPass> {
  using VerifyTagsPassBase::VerifyTagsPassBase;
  void runOnOperation() override {
    if (failed(verifyModule(
            getOperation(),
            optionsOf(resourceLimit, dumpSmtDir, true, false), printStats,
            format)))
      signalPassFailure();
  }
};

struct VerifySchedulePass
    : public verify::impl::VerifySchedulePassBase<VerifySchedulePass> {
  using VerifySchedulePassBase::VerifySchedulePassBase;
  void runOnOperation() override {
    if (failed(verifyModule(
            getOperation(),
            optionsOf(resourceLimit, dumpSmtDir, false, true), printStats,
            format)))
      signalPassFailure();
  }
};

struct VerifyPass : public verify::impl::VerifyPassBase<VerifyPass> {
  using VerifyPassBase::VerifyPassBase;
  void runOnOperation() override {
    if (failed(verifyModule(
            getOperation(),
            optionsOf(resourceLimit, dumpSmtDir, true, true), printStats,
            format)))
      signalPassFailure();
  }
};

} // namespace
