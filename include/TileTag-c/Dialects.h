/*===- TileTag-c/Dialects.h - register TileTag's dialects and passes -----===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* The C entry points for registration: TileTag's dialects (tile, tag,        *|
|* schedule) as dialect handles, the transform.tiletag extension, the passes  *|
|* and pipelines. Everything else works on upstream's mlir-c types            *|
|* (MlirContext, MlirModule, MlirOperation), so TileTag mixes with any MLIR C *|
|* API code; libTileTagCAPI also exports upstream's mlir-c IR, pass and       *|
|* diagnostic functions.                                                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETAG_C_DIALECTS_H
#define TILETAG_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__tile__(), __tag__(), __schedule__(). */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tag, tag);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Schedule, schedule);

/* The version of TileTag, e.g. "0.4.0". */
MLIR_CAPI_EXPORTED MlirStringRef tiletagGetVersion(void);

/* Registers the tile, tag and schedule dialects and the transform.tiletag
 * extension of the transform dialect. */
MLIR_CAPI_EXPORTED void tiletagRegisterDialects(MlirDialectRegistry registry);

/* Registers the transform.tiletag ops (an extension of the transform
 * dialect; also done by tiletagRegisterDialects). */
MLIR_CAPI_EXPORTED void
tiletagRegisterTransformExtension(MlirDialectRegistry registry);

/* Registers TileTag's dialects plus the upstream dialects and extensions its
 * pipelines use (func, arith, math, scf, memref, tensor, linalg, gpu, nvgpu,
 * nvvm, amdgpu, rocdl, llvm, transform, vector, cf), the GPU targets and the
 * translations to LLVM IR: what tiletag-opt registers. */
MLIR_CAPI_EXPORTED void
tiletagRegisterAllDialects(MlirDialectRegistry registry);

/* Registers TileTag's passes and pipelines (--tiletag-verify,
 * --tiletag-compile-cuda, ...) for pass-pipeline strings. */
MLIR_CAPI_EXPORTED void tiletagRegisterPasses(void);

/* Registers TileTag's passes and every upstream pass. */
MLIR_CAPI_EXPORTED void tiletagRegisterAllPasses(void);

/* A new context with tiletagRegisterAllDialects's registry appended; the
 * caller destroys it with mlirContextDestroy. */
MLIR_CAPI_EXPORTED MlirContext tiletagContextCreate(void);

/* Parses `source` as a module (top-level ops without a builtin.module get
 * one), naming the buffer `sourceName` in locations and diagnostics; a null
 * module on error (the errors go to the context's diagnostic handlers). */
MLIR_CAPI_EXPORTED MlirModule tiletagModuleCreateParse(MlirContext context,
                                                       MlirStringRef source,
                                                       MlirStringRef sourceName);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_DIALECTS_H */
