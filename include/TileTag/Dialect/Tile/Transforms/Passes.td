//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILETAG_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DescribeKernelsPass : Pass<"tiletag-describe", "::mlir::ModuleOp"> {
  let summary = "Print what each tile kernel is: grid, operands, memory, tags, schedule";
  let description = [{
    Prints to standard output one summary per `tile.kernel`: its grid rank
    and operands, its shared buffers and their size, the tile operations it
    uses, its tags and assertions, and its schedule (launch, warp roles,
    asynchronous units, barriers). The IR itself is left unchanged; run with
    `-o /dev/null` to see only the summary.

    Example: `tiletag-opt --tiletag-describe -o /dev/null examples/gemm.mlir`.
  }];
}

#endif // TILETAG_DIALECT_TILE_TRANSFORMS_PASSES_TD
