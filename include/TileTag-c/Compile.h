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

/* Says where the lowering for `chip` (an sm_ or gfx name) would take a
 * slower path than the target offers: a dot on the SIMT cores, a wgmma
 * operand staged through shared memory, a tile held in the global
 * workspace. Each is a remark at its op, emitted on the module's context
 * (its diagnostic handlers receive them), one per op and reason; the
 * remarks of --tiletag-convert-to-nvgpu=report-fallbacks (-amdgpu for gfx
 * chips). The kernels are proved first and a copy is lowered; fails where
 * a kernel does not verify or the lowering refuses it (with the errors). */
MLIR_CAPI_EXPORTED MlirLogicalResult
tiletagReportFallbacks(MlirModule module, MlirStringRef chip);

/* Applies the transform script `script` (a module with
 * transform.with_named_sequence and a @__transform_main sequence, in the
 * same context) to `payload`, as --transform-interpreter does. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tiletagApplyTransformScript(MlirModule payload, MlirModule script);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_COMPILE_H */
