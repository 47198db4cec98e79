//===- Passes.td - schedule dialect passes -----------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_TRANSFORMS_PASSES_TD
#define TILETAG_DIALECT_SCHEDULE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def StripSchedulePass : Pass<"tiletag-strip-schedule"> {
  let summary = "Erase schedule annotations, leaving the sequential specification";
  let description = [{
    Dissolves `schedule.role` and `schedule.async` regions into the code
    around them, erases barriers, fences, commit and wait groups and every
    mbarrier operation, removes the `schedule.map` and `schedule.launch`
    attributes, and erases the index arithmetic that only fed the removed
    operations (slots and parities of barriers). What remains is the
    sequential program that the schedule checker compares the parallel one
    against.

    Example: `tiletag-opt --tiletag-strip-schedule examples/gemm.mlir`.
  }];
}

#endif // TILETAG_DIALECT_SCHEDULE_TRANSFORMS_PASSES_TD
