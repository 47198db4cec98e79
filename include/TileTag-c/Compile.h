/*===- TileTag-c/Compile.h - lowering, transform scripts -----------------===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* Compiling a module's kernels for NVIDIA Hopper (the --tiletag-compile-cuda *|
|* pipeline: verify, lower, PTX, cubin) or AMD CDNA (--tiletag-compile-rocm:  *|
|* AMDGPU assembly, HSACO), and applying a transform script to a module.      *|
|* Errors are emitted as diagnostics on the module's context.                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETAG_C_COMPILE_H
#define TILETAG_C_COMPILE_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compiles the kernels of `module` for `chip` (e.g. "sm_90a"). `format` is
 * "isa" (PTX text) or "bin" (a cubin, through ptxas). The kernels are proved
 * first (a kernel that does not verify is refused) unless `allowUnverified`;
 * the module itself is left as it is (a copy is lowered). Calls `callback`
 * with each binary's bytes, once per gpu.binary the lowering makes. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tiletagCompileCUDA(MlirModule module, MlirStringRef chip, MlirStringRef format,
                   bool allowUnverified, MlirStringCallback callback,
                   void *userData);

/* The same for AMD CDNA: `chip` is "gfx942", "gfx940", "gfx941" or
 * "gfx90a"; `format` is "isa" (AMDGPU assembly) or "bin" (an HSA code
 * object, linked with ld.lld). */
MLIR_CAPI_EXPORTED MlirLogicalResult
tiletagCompileROCM(MlirModule module, MlirStringRef chip, MlirStringRef format,
                   bool allowUnverified, MlirStringCallback callback,
                   void *userData);

/* Applies the transform script `script` (a module with
 * transform.with_named_sequence and a @__transform_main sequence, in the
 * same context) to `payload`, as --transform-interpreter does. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tiletagApplyTransformScript(MlirModule payload, MlirModule script);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_COMPILE_H */
