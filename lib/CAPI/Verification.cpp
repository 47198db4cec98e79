//===- Verification.cpp - C API: verdicts and counterexamples -------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Verification.h"

#include "TileTag/Verification/CheckKernel.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

static KernelVerdict *unwrap(TileTagVerdict v) {
  return static_cast<KernelVerdict *>(v.ptr);
}
static const ObligationVerdict *unwrap(TileTagObligation o) {
  return static_cast<const ObligationVerdict *>(o.ptr);
}
static const Counterexample *unwrap(TileTagCounterexample c) {
  return static_cast<const Counterexample *>(c.ptr);
}
static const CounterexamplePoint *unwrap(TileTagCounterexamplePoint p) {
  return static_cast<const CounterexamplePoint *>(p.ptr);
}

TileTagCheckOptions tiletagCheckOptionsGetDefault(void) {
  return {/*tags=*/true, /*schedule=*/true, /*stamp=*/true,
          /*resourceLimit=*/0, mlirStringRefCreate(nullptr, 0)};
}

TileTagVerdict tiletagCheckKernel(MlirOperation op,
                                  TileTagCheckOptions options) {
  auto kernel = llvm::dyn_cast<tile::KernelOp>(::unwrap(op));
  if (!kernel) {
    emitError(::unwrap(op)->getLoc())
        << "tiletagCheckKernel expects a tile.kernel, not '"
        << ::unwrap(op)->getName() << "'";
    return {nullptr};
  }
  CheckOptions check;
  check.tags = options.tags;
  check.schedule = options.schedule;
  if (options.resourceLimit)
    check.resourceLimit = options.resourceLimit;
  check.verdictCacheDir = ::unwrap(options.verdictCacheDir).str();
  auto *verdict = new KernelVerdict(checkKernel(kernel, check));
  if (options.stamp)
    stampVerdict(kernel, check, *verdict);
  return {verdict};
}

void tiletagVerdictDestroy(TileTagVerdict v) { delete unwrap(v); }

MlirStringRef tiletagVerdictGetKernelName(TileTagVerdict v) {
  return wrap(StringRef(unwrap(v)->kernel));
}
bool tiletagVerdictIsProved(TileTagVerdict v) { return unwrap(v)->proved(); }
intptr_t tiletagVerdictGetNumQueries(TileTagVerdict v) {
  return unwrap(v)->queries;
}
uint64_t tiletagVerdictGetResources(TileTagVerdict v) {
  return unwrap(v)->resources;
}
uint64_t tiletagVerdictGetLargestQuery(TileTagVerdict v) {
  return unwrap(v)->largestQuery;
}
double tiletagVerdictGetMilliseconds(TileTagVerdict v) {
  return unwrap(v)->milliseconds;
}

void tiletagVerdictPrintJSON(TileTagVerdict v, MlirStringCallback callback,
                             void *userData) {
  std::string text = llvm::formatv("{0:2}", toJSON(*unwrap(v)));
  callback(wrap(StringRef(text)), userData);
}

intptr_t tiletagVerdictGetNumObligations(TileTagVerdict v) {
  return unwrap(v)->obligations.size();
}
TileTagObligation tiletagVerdictGetObligation(TileTagVerdict v, intptr_t pos) {
  return {&unwrap(v)->obligations[pos]};
}

MlirStringRef tiletagObligationGetChecker(TileTagObligation o) {
  return wrap(StringRef(unwrap(o)->checker));
}
TileTagObligationStatus tiletagObligationGetStatus(TileTagObligation o) {
  switch (unwrap(o)->status) {
  case ObligationVerdict::Proved:
    return TileTagObligationProved;
  case ObligationVerdict::Failed:
    return TileTagObligationFailed;
  case ObligationVerdict::Unknown:
    return TileTagObligationUnknown;
  }
  llvm_unreachable("unknown obligation status");
}
MlirStringRef tiletagObligationGetWhat(TileTagObligation o) {
  return wrap(StringRef(unwrap(o)->what));
}
MlirStringRef tiletagObligationGetLocation(TileTagObligation o) {
  return wrap(StringRef(unwrap(o)->location));
}
uint64_t tiletagObligationGetResources(TileTagObligation o) {
  return unwrap(o)->resources;
}
intptr_t tiletagObligationGetNumNotes(TileTagObligation o) {
  return unwrap(o)->notes.size();
}
MlirStringRef tiletagObligationGetNote(TileTagObligation o, intptr_t pos) {
  return wrap(StringRef(unwrap(o)->notes[pos]));
}
TileTagCounterexample tiletagObligationGetCounterexample(TileTagObligation o) {
  const std::optional<Counterexample> &cex = unwrap(o)->counterexample;
  return {cex ? &*cex : nullptr};
}

intptr_t tiletagCounterexampleGetNumValues(TileTagCounterexample c) {
  return unwrap(c)->values.size();
}
MlirStringRef tiletagCounterexampleGetValueName(TileTagCounterexample c,
                                                intptr_t pos) {
  return wrap(StringRef(unwrap(c)->values[pos].first));
}
int64_t tiletagCounterexampleGetValue(TileTagCounterexample c, intptr_t pos) {
  return unwrap(c)->values[pos].second;
}
MlirStringRef tiletagCounterexampleGetReplay(TileTagCounterexample c) {
  return wrap(StringRef(unwrap(c)->replay));
}
MlirStringRef tiletagCounterexampleGetReplayFlags(TileTagCounterexample c) {
  return wrap(StringRef(unwrap(c)->replayFlags));
}
intptr_t tiletagCounterexampleGetNumPoints(TileTagCounterexample c) {
  return unwrap(c)->points.size();
}
TileTagCounterexamplePoint
tiletagCounterexampleGetPoint(TileTagCounterexample c, intptr_t pos) {
  return {&unwrap(c)->points[pos]};
}

MlirStringRef tiletagPointGetOpName(TileTagCounterexamplePoint p) {
  return wrap(StringRef(unwrap(p)->op));
}
MlirStringRef tiletagPointGetLocation(TileTagCounterexamplePoint p) {
  return wrap(StringRef(unwrap(p)->location));
}
intptr_t tiletagPointGetNumLoops(TileTagCounterexamplePoint p) {
  return unwrap(p)->loops.size();
}
MlirStringRef tiletagPointGetLoopName(TileTagCounterexamplePoint p,
                                      intptr_t pos) {
  return wrap(StringRef(unwrap(p)->loops[pos].first));
}
int64_t tiletagPointGetLoopValue(TileTagCounterexamplePoint p, intptr_t pos) {
  return unwrap(p)->loops[pos].second;
}
intptr_t tiletagPointGetNumAccesses(TileTagCounterexamplePoint p) {
  return unwrap(p)->accesses.size();
}
MlirStringRef tiletagPointGetAccessKind(TileTagCounterexamplePoint p,
                                        intptr_t pos) {
  return wrap(StringRef(unwrap(p)->accesses[pos].kind));
}
MlirStringRef tiletagPointGetAccessBuffer(TileTagCounterexamplePoint p,
                                          intptr_t pos) {
  return wrap(StringRef(unwrap(p)->accesses[pos].buffer));
}
intptr_t tiletagPointGetAccessRank(TileTagCounterexamplePoint p,
                                   intptr_t pos) {
  return unwrap(p)->accesses[pos].index.size();
}
int64_t tiletagPointGetAccessIndex(TileTagCounterexamplePoint p, intptr_t pos,
                                   intptr_t dim) {
  return unwrap(p)->accesses[pos].index[dim];
}
