/*===- TileTag-c/CostModel.h - the cost model's time estimate ------------===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* The analytic estimate of a kernel's time on a GPU at given problem sizes   *|
|* (what --tiletag-estimate prints), as an opaque handle with accessors.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETAG_C_COSTMODEL_H
#define TILETAG_C_COSTMODEL_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

struct TileTagEstimate {
  void *ptr;
};
typedef struct TileTagEstimate TileTagEstimate;

/* A name and an integer: a problem size or a scalar operand. */
typedef struct TileTagNamedInt {
  MlirStringRef name;
  int64_t value;
} TileTagNamedInt;

/* Estimates `kernel` on `chip` ("sm_90a") at the given sizes (the others at
 * their tile.launch defaults) and integer scalar operands (the others taken
 * as 0). `registersPerThread` is ptxas's count, or 0 when unknown;
 * `calibration` a JSON file of measured constants, or empty. A null handle
 * and an error diagnostic when the model cannot follow the kernel. */
MLIR_CAPI_EXPORTED TileTagEstimate tiletagEstimateKernel(
    MlirOperation kernel, MlirStringRef chip, intptr_t numSizes,
    const TileTagNamedInt *sizes, intptr_t numScalars,
    const TileTagNamedInt *scalars, int64_t registersPerThread,
    MlirStringRef calibration);
MLIR_CAPI_EXPORTED void tiletagEstimateDestroy(TileTagEstimate e);
static inline bool tiletagEstimateIsNull(TileTagEstimate e) { return !e.ptr; }

MLIR_CAPI_EXPORTED double tiletagEstimateGetMicroseconds(TileTagEstimate e);
MLIR_CAPI_EXPORTED double tiletagEstimateGetTFlops(TileTagEstimate e);
/* Tensor-core FLOPs, bytes loaded and stored by all programs, DRAM bytes
 * (L2 misses, least recently used over the reads in time order, and the
 * stores). */
MLIR_CAPI_EXPORTED double tiletagEstimateGetFlops(TileTagEstimate e);
MLIR_CAPI_EXPORTED double tiletagEstimateGetBytesLoaded(TileTagEstimate e);
MLIR_CAPI_EXPORTED double tiletagEstimateGetBytesStored(TileTagEstimate e);
MLIR_CAPI_EXPORTED double tiletagEstimateGetDramBytes(TileTagEstimate e);
MLIR_CAPI_EXPORTED int64_t tiletagEstimateGetPrograms(TileTagEstimate e);
MLIR_CAPI_EXPORTED int64_t tiletagEstimateGetCtasPerSM(TileTagEstimate e);
MLIR_CAPI_EXPORTED int64_t tiletagEstimateGetThreadsPerCTA(TileTagEstimate e);
MLIR_CAPI_EXPORTED int64_t
tiletagEstimateGetRegistersPerThread(TileTagEstimate e);
MLIR_CAPI_EXPORTED int64_t tiletagEstimateGetSharedBytes(TileTagEstimate e);
MLIR_CAPI_EXPORTED double tiletagEstimateGetWaves(TileTagEstimate e);
/* "tensor", "memory latency", "L2 bandwidth", "DRAM bandwidth", "CUDA cores"
 * or "occupancy". */
MLIR_CAPI_EXPORTED MlirStringRef tiletagEstimateGetBoundBy(TileTagEstimate e);
/* What the estimate assumed (scalars taken as 0, registers guessed, ...). */
MLIR_CAPI_EXPORTED intptr_t tiletagEstimateGetNumAssumptions(TileTagEstimate e);
MLIR_CAPI_EXPORTED MlirStringRef tiletagEstimateGetAssumption(TileTagEstimate e,
                                                              intptr_t pos);
/* The estimate as --tiletag-estimate=format=json prints it. */
MLIR_CAPI_EXPORTED void tiletagEstimatePrintJSON(TileTagEstimate e,
                                                 MlirStringCallback callback,
                                                 void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_COSTMODEL_H */
