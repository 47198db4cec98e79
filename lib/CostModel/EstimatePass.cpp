//===- EstimatePass.cpp - --tiletag-estimate ------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/CostModel/CostModel.h"
#include "TileTag/CostModel/Passes.h"

#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tiletag::cost {
#define GEN_PASS_DEF_ESTIMATEPASS
#include "TileTag/CostModel/Passes.h.inc"
} // namespace mlir::tiletag::cost

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::cost;

namespace {

struct EstimatePass : public cost::impl::EstimatePassBase<EstimatePass> {
  using EstimatePassBase::EstimatePassBase;

  /// NAME=VALUE,... into a map; fails with a message on a malformed entry.
  static LogicalResult parseSizes(StringRef text,
                                  llvm::StringMap<int64_t> &sizes,
                                  std::string &error) {
    SmallVector<StringRef> entries;
    text.split(entries, ',', -1, /*KeepEmpty=*/false);
    for (StringRef entry : entries) {
      auto [name, valueText] = entry.trim().split('=');
      int64_t value;
      if (name.empty() || valueText.trim().getAsInteger(10, value) ||
          value < 0) {
        error = ("malformed size '" + entry.trim() +
                 "': expected NAME=VALUE with VALUE >= 0")
                    .str();
        return failure();
      }
      sizes[name.trim()] = value;
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const TargetModel *builtin = lookupTarget(chip);
    if (!builtin) {
      mlir::emitError(module.getLoc()) << "--tiletag-estimate: no cost model for chip '"
                         << chip << "' (models: " << targetNames() << ")";
      return signalPassFailure();
    }
    TargetModel model = *builtin;
    std::string error;
    if (!calibration.empty() &&
        failed(applyCalibration(model, calibration, error))) {
      mlir::emitError(module.getLoc()) << "--tiletag-estimate: " << error;
      return signalPassFailure();
    }
    if (format != "text" && format != "json") {
      mlir::emitError(module.getLoc()) << "--tiletag-estimate: unknown format '" << format
                         << "' (expected 'text' or 'json')";
      return signalPassFailure();
    }
    llvm::StringMap<int64_t> given;
    if (failed(parseSizes(sizes, given, error))) {
      mlir::emitError(module.getLoc()) << "--tiletag-estimate: " << error;
      return signalPassFailure();
    }

    // Kernels that are some kernel's contract are not launched.
    llvm::StringSet<> contracts;
    module.walk([&](tile::KernelOp k) {
      if (auto ref = k->getAttrOfType<FlatSymbolRefAttr>(
              tag::TagDialect::kContractAttrName))
        contracts.insert(ref.getValue());
    });
    // A named kernel is estimated with the kernels its launch runs after it
    // (`then`): a launch costs all of them.
    SmallVector<tile::KernelOp> kernels;
    module.walk([&](tile::KernelOp k) {
      if (kernelName.empty() ? !contracts.contains(k.getSymName())
                             : k.getSymName() == kernelName)
        kernels.push_back(k);
    });
    if (!kernelName.empty() && !kernels.empty())
      kernels = tile::launchChain(kernels.front());
    if (kernels.empty()) {
      mlir::emitError(module.getLoc()) << "--tiletag-estimate: "
                         << (kernelName.empty()
                                 ? std::string("no kernel to estimate")
                                 : "no kernel named '" + kernelName + "'");
      return signalPassFailure();
    }

    llvm::StringSet<> used;
    llvm::json::Array results;
    double totalMicroseconds = 0, totalFlops = 0;
    for (tile::KernelOp kernel : kernels) {
      auto launch = kernel->getAttrOfType<tile::LaunchAttr>("tile.launch");
      EstimateOptions options;
      if (registers > 0)
        options.registersPerThread = registers;
      options.sizes = launchSizes(kernel, given, used);
      for (BlockArgument arg : kernel.getArguments())
        if (auto name = kernel.getArgAttrOfType<StringAttr>(
                arg.getArgNumber(), "tile.name"))
          if (auto it = given.find(name.getValue()); it != given.end()) {
            options.scalars[name.getValue()] = it->second;
            used.insert(name.getValue());
          }
      FailureOr<Estimate> est = estimateKernel(kernel, model, options);
      if (failed(est))
        return signalPassFailure();
      totalMicroseconds += est->timeMicroseconds;
      totalFlops += est->flops;
      if (format == "text")
        printText(*est, model, launch, options.sizes);
      llvm::json::Object object = est->toJSON(model);
      if (launch) {
        llvm::json::Object at;
        for (auto [name, value] :
             llvm::zip(launch.getSizeNames(), options.sizes))
          at[name.getValue()] = value;
        object["sizes"] = std::move(at);
      }
      results.push_back(std::move(object));
    }
    for (auto &entry : given)
      if (!used.contains(entry.getKey())) {
        mlir::emitError(module.getLoc()) << "--tiletag-estimate: no kernel has a size or "
                              "scalar operand named '"
                           << entry.getKey() << "'";
        return signalPassFailure();
      }
    if (format == "json") {
      llvm::json::Object out{
          {"target", model.chip},
          {"device", model.device},
          {"model", model.source},
          {"time_us", totalMicroseconds},
          {"tflops", totalFlops / (totalMicroseconds * 1e-6) / 1e12},
          {"kernels", std::move(results)}};
      llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(out)))
                   << "\n";
    }
  }

  static void printText(const Estimate &est, const TargetModel &model,
                        tile::LaunchAttr launch, ArrayRef<int64_t> sizes) {
    llvm::raw_ostream &os = llvm::outs();
    os << "estimate @" << est.kernel << " on " << model.device << " ("
       << model.chip << ")";
    if (launch) {
      os << " at ";
      llvm::interleaveComma(llvm::zip(launch.getSizeNames(), sizes), os,
                            [&](auto pair) {
                              os << std::get<0>(pair).getValue() << "="
                                 << std::get<1>(pair);
                            });
    }
    os << llvm::formatv(": {0:F1} us, {1:F1} TFLOP/s ({2})\n",
                        est.timeMicroseconds, est.tflops, est.boundBy);
    os << llvm::formatv("  {0} programs, {1:F2} waves of {2} x {3} CTA/SM; "
                        "{4} threads, {5} registers, {6} bytes shared\n",
                        est.programs, est.waves, model.sms, est.ctasPerSM,
                        est.threadsPerCTA, est.registersPerThread,
                        est.sharedBytes);
    os << llvm::formatv("  {0:E2} FLOP on tensor cores; {1:E2} bytes loaded, "
                        "{2:E2} stored, {3:E2} from DRAM\n",
                        est.flops, est.bytesLoaded, est.bytesStored,
                        est.dramBytes);
    os << "  model: " << model.source << "\n";
    for (const std::string &a : est.assumptions)
      os << "  assumes: " << a << "\n";
  }
};

} // namespace
