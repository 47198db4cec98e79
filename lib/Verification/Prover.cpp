//===- Prover.cpp - discharging verification conditions with Z3 -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Verification/Prover.h"

#include "llvm/Support/CommandLine.h"
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

Prover::Prover(z3::context &ctx, unsigned timeoutMs, std::string dumpDir,
               std::string dumpPrefix)
    : ctx(ctx), timeoutMs(timeoutMs), dumpDir(std::move(dumpDir)),
      dumpPrefix(std::move(dumpPrefix)) {}

Verdict Prover::check(const z3::expr &formula, llvm::StringRef what) {
  auto start = std::chrono::steady_clock::now();
  z3::solver solver(ctx);
  z3::params params(ctx);
  params.set("timeout", timeoutMs);
  solver.set(params);
  solver.add(formula);
  if (!dumpDir.empty()) {
    llvm::sys::fs::create_directories(dumpDir);
    llvm::SmallString<128> path(dumpDir);
    llvm::sys::path::append(path, dumpPrefix + "-" + std::to_string(queries) +
                                      ".smt2");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      os << "; " << what << "\n" << solver.to_smt2();
  }
  ++queries;
  Verdict verdict{Verdict::Unknown, std::nullopt, ""};
  try {
    switch (solver.check()) {
    case z3::unsat:
      verdict.kind = Verdict::Unsat;
      break;
    case z3::sat:
      verdict.kind = Verdict::Sat;
      verdict.model = solver.get_model();
      break;
    case z3::unknown:
      verdict.reason = solver.reason_unknown();
      break;
    }
  } catch (const z3::exception &e) {
    verdict.reason = e.msg();
  }
  millis += std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  return verdict;
}

bool mlir::tiletag::verify::checkKernels(
    ModuleOp module, unsigned timeoutMs, llvm::StringRef dumpDir,
    llvm::StringRef suffix, bool stats, llvm::StringRef verifiedAttr,
    llvm::function_ref<KernelVerdict(tile::KernelOp, z3::context &, Prover &)>
        check) {
  std::string dir = dumpDir.empty() ? defaultDumpDir() : dumpDir.str();
  bool allProved = true;
  module.walk([&](tile::KernelOp kernel) {
    z3::context ctx;
    Prover prover(ctx, timeoutMs, dir, (kernel.getSymName() + suffix).str());
    KernelVerdict verdict = check(kernel, ctx, prover);
    if (stats) {
      std::string millis;
      llvm::raw_string_ostream(millis)
          << llvm::format("%.1f", prover.milliseconds());
      mlir::emitRemark(kernel.getLoc())
          << "@" << kernel.getSymName() << ": " << verdict.summary
          << (verdict.proved ? " proved" : " checked") << " with "
          << prover.numQueries() << " Z3 queries in " << millis << " ms";
    }
    if (verdict.proved)
      kernel->setAttr(verifiedAttr, UnitAttr::get(kernel.getContext()));
    allProved &= verdict.proved;
  });
  return allProved;
}
