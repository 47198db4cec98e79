/*===- TileTag-c/Verification.h - verdicts and counterexamples -----------===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* tiletagCheckKernel runs the checkers (definedness, tag assertions, the     *|
|* contract, the parallel schedule) on one kernel and returns its verdict: an *|
|* opaque handle with a verdict per obligation and, for a failed one, the     *|
|* structured counterexample. Failures are also emitted as diagnostics at     *|
|* their ops (attach a handler with mlirContextAttachDiagnosticHandler).      *|
|* "Proved" means proved for every problem size; an obligation Z3 could not   *|
|* decide within the resource limit is "unknown", which is not a proof.       *|
|*                                                                            *|
|* Strings returned by the accessors live as long as the verdict.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETAG_C_VERIFICATION_H
#define TILETAG_C_VERIFICATION_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

DEFINE_C_API_STRUCT(TileTagVerdict, void);
DEFINE_C_API_STRUCT(TileTagObligation, const void);
DEFINE_C_API_STRUCT(TileTagCounterexample, const void);
DEFINE_C_API_STRUCT(TileTagCounterexamplePoint, const void);

#undef DEFINE_C_API_STRUCT

/* What to check and with which limits. */
typedef struct TileTagCheckOptions {
  bool tags;     /* tag assertions, in-range accesses, the contract */
  bool schedule; /* the parallel schedule */
  /* Stamp the kernel with the proofs it got (tag.verified,
   * schedule.verified), as --tiletag-verify does; the lowering needs them. */
  bool stamp;
  /* Z3 resources per query (deterministic; 0: the default, 10 000 000). */
  uint64_t resourceLimit;
  /* Keep and reuse query verdicts in this directory (empty: none). */
  MlirStringRef verdictCacheDir;
} TileTagCheckOptions;

/* Everything checked, stamped, with the default limit. */
MLIR_CAPI_EXPORTED TileTagCheckOptions tiletagCheckOptionsGetDefault(void);

typedef enum TileTagObligationStatus {
  TileTagObligationProved = 0,
  TileTagObligationFailed = 1,
  TileTagObligationUnknown = 2
} TileTagObligationStatus;

/* Checks `kernel` (a tile.kernel; anything else gives a null verdict and an
 * error diagnostic). Destroy the verdict with tiletagVerdictDestroy. */
MLIR_CAPI_EXPORTED TileTagVerdict
tiletagCheckKernel(MlirOperation kernel, TileTagCheckOptions options);
MLIR_CAPI_EXPORTED void tiletagVerdictDestroy(TileTagVerdict verdict);
static inline bool tiletagVerdictIsNull(TileTagVerdict verdict) {
  return !verdict.ptr;
}

/* The kernel's name; whether every obligation was proved; the Z3 queries,
 * their resources (and the largest query's) and the time spent. */
MLIR_CAPI_EXPORTED MlirStringRef tiletagVerdictGetKernelName(TileTagVerdict v);
MLIR_CAPI_EXPORTED bool tiletagVerdictIsProved(TileTagVerdict v);
MLIR_CAPI_EXPORTED intptr_t tiletagVerdictGetNumQueries(TileTagVerdict v);
MLIR_CAPI_EXPORTED uint64_t tiletagVerdictGetResources(TileTagVerdict v);
MLIR_CAPI_EXPORTED uint64_t tiletagVerdictGetLargestQuery(TileTagVerdict v);
MLIR_CAPI_EXPORTED double tiletagVerdictGetMilliseconds(TileTagVerdict v);
/* The verdict as the JSON that --tiletag-verify=format=json prints for one
 * kernel (for logs; the accessors give the same data). */
MLIR_CAPI_EXPORTED void tiletagVerdictPrintJSON(TileTagVerdict v,
                                                MlirStringCallback callback,
                                                void *userData);

/* The obligations, in the order the checkers decided them. */
MLIR_CAPI_EXPORTED intptr_t tiletagVerdictGetNumObligations(TileTagVerdict v);
MLIR_CAPI_EXPORTED TileTagObligation
tiletagVerdictGetObligation(TileTagVerdict v, intptr_t pos);

/* "definedness", "tags", "contract" or "schedule". */
MLIR_CAPI_EXPORTED MlirStringRef
tiletagObligationGetChecker(TileTagObligation o);
MLIR_CAPI_EXPORTED TileTagObligationStatus
tiletagObligationGetStatus(TileTagObligation o);
/* The obligation, or for a failure the error. */
MLIR_CAPI_EXPORTED MlirStringRef tiletagObligationGetWhat(TileTagObligation o);
/* "file:line:col" of the op it is about. */
MLIR_CAPI_EXPORTED MlirStringRef
tiletagObligationGetLocation(TileTagObligation o);
/* Z3 resources of the query that decided it. */
MLIR_CAPI_EXPORTED uint64_t tiletagObligationGetResources(TileTagObligation o);
/* The further notes of its diagnostic. */
MLIR_CAPI_EXPORTED intptr_t tiletagObligationGetNumNotes(TileTagObligation o);
MLIR_CAPI_EXPORTED MlirStringRef tiletagObligationGetNote(TileTagObligation o,
                                                          intptr_t pos);
/* The counterexample of a failure (a null handle when there is none). */
MLIR_CAPI_EXPORTED TileTagCounterexample
tiletagObligationGetCounterexample(TileTagObligation o);
static inline bool
tiletagCounterexampleIsNull(TileTagCounterexample counterexample) {
  return !counterexample.ptr;
}

/* Its values: problem sizes ("size.M"), operand dimensions ("A.dim1"), grid
 * extents ("nprog0"), program ids ("pid0", "pid0'" for a second program)
 * and scalar operands, by name. */
MLIR_CAPI_EXPORTED intptr_t
tiletagCounterexampleGetNumValues(TileTagCounterexample c);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagCounterexampleGetValueName(TileTagCounterexample c, intptr_t pos);
MLIR_CAPI_EXPORTED int64_t
tiletagCounterexampleGetValue(TileTagCounterexample c, intptr_t pos);
/* The tiletag-run command that replays it on the CPU oracle, and its flags
 * alone (" --size M=1,N=1,K=1 --set pid0=0"), for another file name. */
MLIR_CAPI_EXPORTED MlirStringRef
tiletagCounterexampleGetReplay(TileTagCounterexample c);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagCounterexampleGetReplayFlags(TileTagCounterexample c);

/* The program points involved (one, or two for a race). */
MLIR_CAPI_EXPORTED intptr_t
tiletagCounterexampleGetNumPoints(TileTagCounterexample c);
MLIR_CAPI_EXPORTED TileTagCounterexamplePoint
tiletagCounterexampleGetPoint(TileTagCounterexample c, intptr_t pos);
/* The op's name ("tile.copy") and location ("file:line:col"). */
MLIR_CAPI_EXPORTED MlirStringRef
tiletagPointGetOpName(TileTagCounterexamplePoint p);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagPointGetLocation(TileTagCounterexamplePoint p);
/* The values of the loops around it ("iv0@line38" -> 4). */
MLIR_CAPI_EXPORTED intptr_t
tiletagPointGetNumLoops(TileTagCounterexamplePoint p);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagPointGetLoopName(TileTagCounterexamplePoint p, intptr_t pos);
MLIR_CAPI_EXPORTED int64_t
tiletagPointGetLoopValue(TileTagCounterexamplePoint p, intptr_t pos);
/* The memory it touches: kind ("slot", "block", "element", "mbarrier"), the
 * index, and the buffer ("A", or "%a_ring (line 32)"). */
MLIR_CAPI_EXPORTED intptr_t
tiletagPointGetNumAccesses(TileTagCounterexamplePoint p);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagPointGetAccessKind(TileTagCounterexamplePoint p, intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagPointGetAccessBuffer(TileTagCounterexamplePoint p, intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t
tiletagPointGetAccessRank(TileTagCounterexamplePoint p, intptr_t pos);
MLIR_CAPI_EXPORTED int64_t
tiletagPointGetAccessIndex(TileTagCounterexamplePoint p, intptr_t pos,
                           intptr_t dim);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_VERIFICATION_H */
