//===- Prover.cpp - discharging verification conditions with Z3 -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Verification/Prover.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir::tiletag::verify;

static llvm::cl::opt<std::string>
    clDumpSmt("tiletag-dump-smt",
              llvm::cl::desc("Write every query of the TileTag checkers as "
                             "SMT-LIB into this directory"),
              llvm::cl::value_desc("dir"), llvm::cl::init(""));

std::string mlir::tiletag::verify::defaultDumpDir() { return clDumpSmt; }

Prover::Prover(z3::context &ctx, uint64_t resourceLimit, std::string dumpDir,
               std::string dumpPrefix)
    : ctx(ctx), resourceLimit(resourceLimit), dumpDir(std::move(dumpDir)),
      dumpPrefix(std::move(dumpPrefix)) {}


/// The resources a solver spent on its checks ("rlimit count").
static uint64_t resourceCount(z3::solver &solver) {
  z3::stats stats = solver.statistics();
  for (unsigned i = 0; i < stats.size(); ++i)
    if (stats.key(i) == "rlimit count")
      return stats.is_uint(i) ? stats.uint_value(i)
                              : static_cast<uint64_t>(stats.double_value(i));
  return 0;
}

/// Makes the model of a satisfiable `solver` minimal in `terms`, one after
/// the other: each term as small as it can be with the ones before it fixed
/// (non-negative terms from 0 upwards: exponential, then binary search).
/// The search spends at most `budget` resources in all; a term whose search
/// runs out keeps its value.
static z3::model minimize(z3::solver &solver,
                          const std::vector<z3::expr> &terms,
                          uint64_t budget) {
  z3::model best = solver.get_model();
  z3::context &ctx = solver.ctx();
  uint64_t start = resourceCount(solver);
  auto left = [&]() -> uint64_t {
    uint64_t spent = resourceCount(solver) - start;
    return spent >= budget ? 0 : budget - spent;
  };
  // A check with what is left of the budget; unknown counts as "no".
  auto check = [&]() {
    if (left() == 0)
      return false;
    z3::params params(ctx);
    params.set("rlimit", static_cast<unsigned>(left()));
    solver.set(params);
    return solver.check() == z3::sat;
  };
  auto satisfiable = [&](const z3::expr &bound) {
    solver.push();
    solver.add(bound);
    bool sat = check();
    solver.pop();
    return sat;
  };
  // First one step into a small world (every term at most 1024): cheap
  // when it holds, and the searches below then start from small values.
  if (!terms.empty()) {
    z3::expr small = ctx.bool_val(true);
    for (const z3::expr &t : terms)
      small = small && t <= 1024;
    solver.push();
    solver.add(small);
    if (check())
      best = solver.get_model();
    else
      solver.pop();
  }
  for (const z3::expr &t : terms) {
    int64_t current;
    if (!best.eval(t, true).is_numeral_i64(current))
      continue;
    if (current > 0 && satisfiable(t <= 0)) {
      current = satisfiable(t == 0) ? 0 : current;
    } else if (current > 0) {
      // Smallest positive value: find a power-of-two bracket, then bisect.
      int64_t lo = 0, hi = 1;
      while (hi < current && !satisfiable(t <= ctx.int_val(hi))) {
        lo = hi;
        hi = hi > current / 2 ? current : hi * 2;
      }
      hi = std::min(hi, current);
      while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (satisfiable(t <= ctx.int_val(mid)))
          hi = mid;
        else
          lo = mid;
      }
      current = hi;
    }
    solver.add(t == ctx.int_val(current));
    if (!check())
      return best; // out of resources: the last model is as small as it gets
    best = solver.get_model();
  }
  return best;
}

Verdict Prover::check(const z3::expr &formula, llvm::StringRef what,
                      const std::vector<z3::expr> &minimal) {
  auto start = std::chrono::steady_clock::now();
  // The query's SMT-LIB text (without a solver: making one costs ~15 ms).
  std::string text = Z3_benchmark_to_smtlib_string(
      ctx, "", "", "unknown", "", 0, nullptr, formula);
  if (!dumpDir.empty()) {
    llvm::sys::fs::create_directories(dumpDir);
    llvm::SmallString<128> path(dumpDir);
    llvm::sys::path::append(path, dumpPrefix + "-" + std::to_string(queries) +
                                      ".smt2");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      os << "; " << what << "\n" << text;
  }
  ++queries;
  // Each query runs in a context of its own, parsed from its SMT-LIB text:
  // the verdict and the resources spent then depend on the query alone, not
  // on what the process asked before (Z3's heuristics follow the order in
  // which a context created its terms). The limit counts resources, not
  // time, so that a verdict is the same on a loaded or an idle machine.
  Verdict verdict{Verdict::Unknown, std::nullopt, "", 0};
  try {
    z3::context local;
    z3::solver solver(local);
    z3::params params(local);
    params.set("rlimit", static_cast<unsigned>(resourceLimit));
    solver.set(params);
    solver.from_string(text.c_str());
    switch (solver.check()) {
    case z3::unsat:
      verdict.kind = Verdict::Unsat;
      break;
    case z3::sat: {
      verdict.kind = Verdict::Sat;
      std::vector<z3::expr> terms;
      for (const z3::expr &t : minimal)
        terms.push_back(z3::to_expr(local, Z3_translate(ctx, t, local)));
      // Minimizing may cost about as much as the query itself, not more.
      uint64_t first = resourceCount(solver);
      z3::model m = minimize(
          solver, terms,
          std::min<uint64_t>(resourceLimit, std::max<uint64_t>(500000, first)));
      verdict.model = z3::model(m, ctx, z3::model::translate());
      break;
    }
    case z3::unknown:
      verdict.reason = solver.reason_unknown();
      if (verdict.reason == "max. resource limit exceeded")
        verdict.reason = "the resource limit of " +
                         std::to_string(resourceLimit) + " was reached";
      break;
    }
    verdict.resources = resourceCount(solver);
  } catch (const z3::exception &e) {
    verdict.reason = e.msg();
  }
  resources += verdict.resources;
  maxResources = std::max(maxResources, verdict.resources);
  millis += std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  return verdict;
}

void Prover::recordProof(Operation *op, const llvm::Twine &what) {
  if (!log)
    return;
  ObligationVerdict v;
  v.checker = checker;
  v.what = what.str();
  v.location = locationString(op->getLoc());
  log->push_back(std::move(v));
}

mlir::FailureOr<unsigned> mlir::tiletag::verify::proveDefinedness(
    SymbolicModel &model, Prover &prover, Instance &inst) {
  const std::vector<Obligation> &obligations = model.definedness(inst);
  if (obligations.empty())
    return 0u;
  z3::context &ctx = model.context();
  z3::expr all = ctx.bool_val(true);
  for (const Obligation &o : obligations)
    all = all && o.holds;
  Verdict v = prover.check(model.assumptions() && !all,
                           "integer operations are defined and exact",
                           model.minimalOrder());
  if (v.kind == Verdict::Unsat) {
    for (const Obligation &o : obligations)
      prover.recordProof(o.op, "ruled out: " + o.what);
    return static_cast<unsigned>(obligations.size());
  }
  if (v.kind == Verdict::Unknown) {
    mlir::emitError(model.getKernel().getLoc())
        << "could not prove that the kernel's integer operations are "
           "defined (no division by zero, no wrap-around, ...): Z3 answered "
           "unknown ("
        << v.reason << ")";
    return failure();
  }
  for (const Obligation &o : obligations) {
    if (v.model->eval(o.holds, true).is_true())
      continue;
    std::pair<Operation *, Instance *> at[] = {{o.op, &inst}};
    prover.setCounterexample(model.counterexample(*v.model, at));
    InFlightDiagnostic diag = mlir::emitError(o.op->getLoc()) << o.what;
    diag.attachNote(o.op->getLoc()) << model.describe(*v.model, o.op, &inst);
    diag.attachNote() << "replay on the CPU: "
                      << model.replayCommand(*v.model);
  }
  return failure();
}

