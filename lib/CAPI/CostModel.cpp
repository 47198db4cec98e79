//===- CostModel.cpp - C API: the cost model's estimate -------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/CostModel.h"

#include "TileTag/CostModel/CostModel.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::cost;

namespace {
/// An estimate and the machine model it was made for.
struct OwnedEstimate {
  Estimate estimate;
  TargetModel model;
};
} // namespace

static OwnedEstimate *unwrap(TileTagEstimate e) {
  return static_cast<OwnedEstimate *>(e.ptr);
}
static const Estimate &est(TileTagEstimate e) { return unwrap(e)->estimate; }

TileTagEstimate tiletagEstimateKernel(MlirOperation op, MlirStringRef chip,
                                      intptr_t numSizes,
                                      const TileTagNamedInt *sizes,
                                      intptr_t numScalars,
                                      const TileTagNamedInt *scalars,
                                      int64_t registersPerThread,
                                      MlirStringRef calibration) {
  Operation *raw = ::unwrap(op);
  auto kernel = llvm::dyn_cast<tile::KernelOp>(raw);
  if (!kernel) {
    emitError(raw->getLoc()) << "tiletagEstimateKernel expects a tile.kernel";
    return {nullptr};
  }
  const TargetModel *builtin = lookupTarget(::unwrap(chip));
  if (!builtin) {
    emitError(raw->getLoc()) << "no cost model for chip '" << ::unwrap(chip)
                             << "' (models: " << targetNames() << ")";
    return {nullptr};
  }
  auto owned = std::make_unique<OwnedEstimate>();
  owned->model = *builtin;
  std::string error;
  if (calibration.length &&
      failed(applyCalibration(owned->model, ::unwrap(calibration), error))) {
    emitError(raw->getLoc()) << error;
    return {nullptr};
  }

  EstimateOptions options;
  if (registersPerThread > 0)
    options.registersPerThread = registersPerThread;
  llvm::StringMap<int64_t> given;
  for (intptr_t i = 0; i < numSizes; ++i)
    given[::unwrap(sizes[i].name)] = sizes[i].value;
  llvm::StringSet<> used;
  options.sizes = launchSizes(kernel, given, used);
  for (auto &entry : given)
    if (!used.contains(entry.getKey())) {
      emitError(raw->getLoc()) << "@" << kernel.getSymName()
                               << " has no problem size named '"
                               << entry.getKey() << "'";
      return {nullptr};
    }
  for (intptr_t i = 0; i < numScalars; ++i)
    options.scalars[::unwrap(scalars[i].name)] = scalars[i].value;

  FailureOr<Estimate> estimate = estimateKernel(kernel, owned->model, options);
  if (failed(estimate))
    return {nullptr};
  owned->estimate = std::move(*estimate);
  return {owned.release()};
}

void tiletagEstimateDestroy(TileTagEstimate e) { delete unwrap(e); }

double tiletagEstimateGetMicroseconds(TileTagEstimate e) {
  return est(e).timeMicroseconds;
}
double tiletagEstimateGetTFlops(TileTagEstimate e) { return est(e).tflops; }
double tiletagEstimateGetFlops(TileTagEstimate e) { return est(e).flops; }
double tiletagEstimateGetBytesLoaded(TileTagEstimate e) {
  return est(e).bytesLoaded;
}
double tiletagEstimateGetBytesStored(TileTagEstimate e) {
  return est(e).bytesStored;
}
double tiletagEstimateGetDramBytes(TileTagEstimate e) {
  return est(e).dramBytes;
}
int64_t tiletagEstimateGetPrograms(TileTagEstimate e) {
  return est(e).programs;
}
int64_t tiletagEstimateGetCtasPerSM(TileTagEstimate e) {
  return est(e).ctasPerSM;
}
int64_t tiletagEstimateGetThreadsPerCTA(TileTagEstimate e) {
  return est(e).threadsPerCTA;
}
int64_t tiletagEstimateGetRegistersPerThread(TileTagEstimate e) {
  return est(e).registersPerThread;
}
int64_t tiletagEstimateGetSharedBytes(TileTagEstimate e) {
  return est(e).sharedBytes;
}
double tiletagEstimateGetWaves(TileTagEstimate e) { return est(e).waves; }
MlirStringRef tiletagEstimateGetBoundBy(TileTagEstimate e) {
  return wrap(StringRef(est(e).boundBy));
}
intptr_t tiletagEstimateGetNumAssumptions(TileTagEstimate e) {
  return est(e).assumptions.size();
}
MlirStringRef tiletagEstimateGetAssumption(TileTagEstimate e, intptr_t pos) {
  return wrap(StringRef(est(e).assumptions[pos]));
}
void tiletagEstimatePrintJSON(TileTagEstimate e, MlirStringCallback callback,
                              void *userData) {
  std::string text = llvm::formatv(
      "{0:2}", llvm::json::Value(est(e).toJSON(unwrap(e)->model)));
  callback(wrap(StringRef(text)), userData);
}
