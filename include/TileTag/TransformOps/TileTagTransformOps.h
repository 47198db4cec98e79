//===- TileTagTransformOps.h - transform.tiletag.* ops -----------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_TRANSFORMOPS_TILETAGTRANSFORMOPS_H
#define TILETAG_TRANSFORMOPS_TILETAGTRANSFORMOPS_H

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"

#define GET_OP_CLASSES
#include "TileTag/TransformOps/TileTagTransformOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tiletag {
/// Registers the transform.tiletag.* ops with the transform dialect.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace mlir::tiletag

#endif // TILETAG_TRANSFORMOPS_TILETAGTRANSFORMOPS_H
