//===- ScheduleOps.h - schedule dialect ops, attributes, types --*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEOPS_H
#define TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEOPS_H

#include "TileTag/Dialect/Schedule/IR/ScheduleDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tiletag::schedule {
/// The synchronization state that barriers, fences and waits act on, so that
/// no generic pass erases or reorders them.
struct SyncResource : public SideEffects::Resource::Base<SyncResource> {
  StringRef getName() final { return "ScheduleSync"; }
};
} // namespace mlir::tiletag::schedule

#include "TileTag/Dialect/Schedule/IR/ScheduleEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Schedule/IR/ScheduleAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "TileTag/Dialect/Schedule/IR/ScheduleTypes.h.inc"

#define GET_OP_CLASSES
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h.inc"

#endif // TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEOPS_H
