/*===- TileTag-c/Kernel.h - what a tile.kernel is ------------------------===*\
|*                                                                            *|
|* Part of the TileTag project.                                               *|
|*                                                                            *|
|* Accessors of tile.kernel operations and their tile.launch attribute:      *|
|* names, operands, grid, problem sizes and contract. Strings returned here  *|
|* are owned by the context and live as long as it does.                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETAG_C_KERNEL_H
#define TILETAG_C_KERNEL_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether `op` is a tile.kernel. */
MLIR_CAPI_EXPORTED bool tiletagOperationIsAKernel(MlirOperation op);

/* The number of tile.kernel ops at the top level of `module`, and the i-th. */
MLIR_CAPI_EXPORTED intptr_t tiletagModuleGetNumKernels(MlirModule module);
MLIR_CAPI_EXPORTED MlirOperation tiletagModuleGetKernel(MlirModule module,
                                                        intptr_t pos);
/* The kernel named `name` (without '@'), or a null operation. */
MLIR_CAPI_EXPORTED MlirOperation tiletagModuleLookupKernel(MlirModule module,
                                                           MlirStringRef name);

/* The kernel's symbol name and its grid's rank (1 to 3). */
MLIR_CAPI_EXPORTED MlirStringRef tiletagKernelGetName(MlirOperation kernel);
MLIR_CAPI_EXPORTED intptr_t tiletagKernelGetGridRank(MlirOperation kernel);

/* Its operands: their number, names (tile.name, or "arg<i>") and types. */
MLIR_CAPI_EXPORTED intptr_t tiletagKernelGetNumOperands(MlirOperation kernel);
MLIR_CAPI_EXPORTED MlirStringRef
tiletagKernelGetOperandName(MlirOperation kernel, intptr_t pos);
MLIR_CAPI_EXPORTED MlirType tiletagKernelGetOperandType(MlirOperation kernel,
                                                        intptr_t pos);

/* The kernel its tag.contract names (without '@'), or an empty string. */
MLIR_CAPI_EXPORTED MlirStringRef tiletagKernelGetContract(MlirOperation kernel);

/* Whether it has a tile.launch; its problem sizes (names and defaults); the
 * workload its `check` names (or an empty string); the number of kernels
 * its `then` names, and the i-th. */
MLIR_CAPI_EXPORTED bool tiletagKernelHasLaunch(MlirOperation kernel);
MLIR_CAPI_EXPORTED intptr_t tiletagKernelGetNumSizes(MlirOperation kernel);
MLIR_CAPI_EXPORTED MlirStringRef tiletagKernelGetSizeName(MlirOperation kernel,
                                                          intptr_t pos);
MLIR_CAPI_EXPORTED int64_t tiletagKernelGetSizeDefault(MlirOperation kernel,
                                                       intptr_t pos);
MLIR_CAPI_EXPORTED MlirStringRef tiletagKernelGetCheck(MlirOperation kernel);
MLIR_CAPI_EXPORTED intptr_t tiletagKernelGetNumThen(MlirOperation kernel);
MLIR_CAPI_EXPORTED MlirStringRef tiletagKernelGetThen(MlirOperation kernel,
                                                      intptr_t pos);

/* Whether the kernel carries a proof stamp that is current (bound to its IR
 * as it is now): `tag.verified` (tags and contract) and `schedule.verified`. */
MLIR_CAPI_EXPORTED bool tiletagKernelHasCurrentTagProof(MlirOperation kernel);
MLIR_CAPI_EXPORTED bool
tiletagKernelHasCurrentScheduleProof(MlirOperation kernel);

#ifdef __cplusplus
}
#endif

#endif /* TILETAG_C_KERNEL_H */
