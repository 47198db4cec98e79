//===- OracleBench.cpp - CPU oracle speed against a plain C++ GEMM --------===//
//
// Part of the TileTag project.
//
// Times the sequential run of examples/gemm.mlir at M = N = K = 1024 through
// the tiletag-run interpreter against a plain C++ triple loop (i-k-j order,
// f32 accumulation of the same bf16 inputs, same compiler flags) in the same
// process, alternating the two, and prints the median of each and the ratio.
//
// Usage: tiletag-bench-oracle GEMM.mlir [SIZE] [REPEATS]
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Execution/Interpreter.h"
#include "TileTag/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>

using namespace mlir;
using namespace mlir::tiletag;

static double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: tiletag-bench-oracle GEMM.mlir [SIZE] [REPEATS]\n";
    return 2;
  }
  int64_t n = argc > 2 ? std::atoll(argv[2]) : 1024;
  int repeats = argc > 3 ? std::atoi(argv[3]) : 3;

  MLIRContext context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 2;
  auto kernel = module->lookupSymbol<tile::KernelOp>("gemm");
  if (!kernel) {
    llvm::errs() << "no kernel @gemm in " << argv[1] << "\n";
    return 2;
  }

  Builder b(&context);
  auto a =
      std::make_shared<exec::Array>(b.getBF16Type(), ArrayRef<int64_t>{n, n});
  auto bm =
      std::make_shared<exec::Array>(b.getBF16Type(), ArrayRef<int64_t>{n, n});
  auto c =
      std::make_shared<exec::Array>(b.getF32Type(), ArrayRef<int64_t>{n, n});
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (double &x : a->data)
    x = exec::roundTo(a->elementType, dist(rng));
  for (double &x : bm->data)
    x = exec::roundTo(bm->elementType, dist(rng));
  SmallVector<exec::RuntimeValue> operands{a, bm, c};
  SmallVector<int64_t> grid{(n + 127) / 128, (n + 127) / 128};

  // The peer: the same inputs as float, f32 accumulation, k ascending.
  std::vector<float> fa(a->data.begin(), a->data.end()),
      fb(bm->data.begin(), bm->data.end()), fc(n * n);
  auto loop = [&] {
    std::fill(fc.begin(), fc.end(), 0.0f);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < n; ++k) {
        float av = fa[i * n + k];
        const float *brow = &fb[k * n];
        float *crow = &fc[i * n];
        for (int64_t j = 0; j < n; ++j)
          crow[j] += av * brow[j];
      }
  };

  std::vector<double> oracleTimes, loopTimes;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (failed(exec::runKernel(kernel, operands, grid)))
      return 1;
    oracleTimes.push_back(seconds(t0));
    auto t1 = std::chrono::steady_clock::now();
    loop();
    loopTimes.push_back(seconds(t1));
  }
  double maxDiff = 0;
  for (int64_t i = 0; i < n * n; ++i)
    maxDiff = std::max(maxDiff, std::fabs(c->data[i] - fc[i]));

  double to = median(oracleTimes), tl = median(loopTimes);
  double gflop = 2.0 * n * n * n / 1e9;
  llvm::outs() << "GEMM " << n << "^3 bf16 -> f32, median of " << repeats
               << " runs\n";
  llvm::outs() << llvm::format(
      "  tiletag-run oracle (examples/gemm.mlir): %8.3f s  %6.2f GFLOP/s\n", to,
      gflop / to);
  llvm::outs() << llvm::format(
      "  plain C++ triple loop:                   %8.3f s  %6.2f GFLOP/s\n", tl,
      gflop / tl);
  llvm::outs() << llvm::format(
      "  ratio oracle / loop: %.2f   max |C_oracle - C_loop| = %.3g\n", to / tl,
      maxDiff);
  return maxDiff <= 1e-3 * std::sqrt(static_cast<double>(n)) ? 0 : 1;
}
