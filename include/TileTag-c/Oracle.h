/*===- TileTag-c/Oracle.h - run kernels on the CPU oracle ----------------===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* Runs a kernel (and the kernels its tile.launch runs `then`) with its       *|
|* sequential meaning on buffers the caller owns, and optionally checks the   *|
|* outputs against the float64 reference of the kernel's workload (what       *|
|* tiletag-run --check does on random inputs).                                *|
|*                                                                            *|
|* Buffers are dense, row-major, in the host form of the operand's element    *|
|* type: f64 double, f32 float, f16 and bf16 their 16-bit patterns (uint16_t),*|
|* the fp8 types their 8-bit patterns (uint8_t),                              *|
|* i1 one byte (0 or 1), i8/i16/i32/i64 the signed integer of that width,     *|
|* index int64_t. Every memref operand must be given; problem sizes are read  *|
|* off the buffers' shapes where the launch's shapes name them (A = [M, K]),  *|
|* or given by name.                                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETAG_C_ORACLE_H
#define TILETAG_C_ORACLE_H

#include "TileTag-c/CostModel.h"

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A memref operand's memory, owned by the caller. */
typedef struct TileTagBuffer {
  MlirStringRef name; /* the operand's tile.name */
  void *data;
  intptr_t rank;
  const int64_t *shape;
} TileTagBuffer;

/* A scalar operand's value (rounded to the operand's type). */
typedef struct TileTagNamedDouble {
  MlirStringRef name;
  double value;
} TileTagNamedDouble;

struct TileTagOracleRun {
  void *ptr;
};
typedef struct TileTagOracleRun TileTagOracleRun;

typedef enum TileTagOracleStatus {
  /* The kernels ran (and, if checked, every output matches). */
  TileTagOracleSuccess = 0,
  /* A checked output is out of tolerance. */
  TileTagOracleMismatch = 1,
  /* A kernel failed at run time (an unchecked access out of range, ...);
   * the diagnostic is emitted at its op. */
  TileTagOracleRuntimeFailure = 2,
  /* The run could not be made: a missing operand, a shape the launch does
   * not give, no workload to check against, ... (see the message). */
  TileTagOracleBadInput = 3
} TileTagOracleStatus;

/* Runs `kernel`'s launch on `buffers`, writing every buffer back after the
 * run. With `check`, compares the workload's outputs against its float64
 * reference computed from the buffers as they were before the run. */
MLIR_CAPI_EXPORTED TileTagOracleRun tiletagOracleRun(
    MlirOperation kernel, intptr_t numBuffers, const TileTagBuffer *buffers,
    intptr_t numScalars, const TileTagNamedDouble *scalars, intptr_t numSizes,
    const TileTagNamedInt *sizes, bool check);
MLIR_CAPI_EXPORTED void tiletagOracleRunDestroy(TileTagOracleRun run);

MLIR_CAPI_EXPORTED TileTagOracleStatus
tiletagOracleRunGetStatus(TileTagOracleRun run);
/* Why a run was bad input or failed (empty on success). */
MLIR_CAPI_EXPORTED MlirStringRef tiletagOracleRunGetMessage(TileTagOracleRun run);
/* The sizes the run used, by name. */
MLIR_CAPI_EXPORTED intptr_t tiletagOracleRunGetNumSizes(TileTagOracleRun run);
MLIR_CAPI_EXPORTED TileTagNamedInt tiletagOracleRunGetSize(TileTagOracleRun run,
                                                          intptr_t pos);
/* Programs run, over all kernels of the launch, and the wall time. */
MLIR_CAPI_EXPORTED int64_t tiletagOracleRunGetPrograms(TileTagOracleRun run);
MLIR_CAPI_EXPORTED double tiletagOracleRunGetMilliseconds(TileTagOracleRun run);

/* With `check`: one comparison per output of the workload. */
MLIR_CAPI_EXPORTED intptr_t tiletagOracleRunGetNumChecks(TileTagOracleRun run);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagOracleRunGetCheckName(TileTagOracleRun run, intptr_t pos);
MLIR_CAPI_EXPORTED bool tiletagOracleRunGetCheckMatches(TileTagOracleRun run,
                                                        intptr_t pos);
MLIR_CAPI_EXPORTED int64_t
tiletagOracleRunGetCheckElements(TileTagOracleRun run, intptr_t pos);
MLIR_CAPI_EXPORTED int64_t
tiletagOracleRunGetCheckMismatches(TileTagOracleRun run, intptr_t pos);
/* The row-major position of the element furthest out of tolerance, its
 * value and the reference's (-1 for an empty output). */
MLIR_CAPI_EXPORTED int64_t tiletagOracleRunGetCheckWorst(TileTagOracleRun run,
                                                         intptr_t pos);
MLIR_CAPI_EXPORTED double tiletagOracleRunGetCheckGot(TileTagOracleRun run,
                                                      intptr_t pos);
MLIR_CAPI_EXPORTED double tiletagOracleRunGetCheckExpected(TileTagOracleRun run,
                                                           intptr_t pos);
MLIR_CAPI_EXPORTED double
tiletagOracleRunGetCheckMaxAbsDiff(TileTagOracleRun run, intptr_t pos);
/* The tolerance: |x - ref| <= atol + rtol * |ref|. */
MLIR_CAPI_EXPORTED double tiletagOracleRunGetCheckRtol(TileTagOracleRun run,
                                                       intptr_t pos);
MLIR_CAPI_EXPORTED double tiletagOracleRunGetCheckAtol(TileTagOracleRun run,
                                                       intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_ORACLE_H */
