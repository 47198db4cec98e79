//===- ScheduleDialect.h - The schedule dialect -----------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEDIALECT_H
#define TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEDIALECT_H

#include "TileTag/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/Dialect.h"

#include "TileTag/Dialect/Schedule/IR/ScheduleDialect.h.inc"

#endif // TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEDIALECT_H
