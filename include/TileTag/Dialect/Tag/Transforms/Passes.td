//===- Passes.td - tag dialect passes ----------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_TRANSFORMS_PASSES_TD
#define TILETAG_DIALECT_TAG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def StripTagsPass : Pass<"tiletag-strip-tags"> {
  let summary = "Erase every tag, field and assertion: the code that runs carries no check";
  let description = [{
    Tags are ghost state. This pass replaces every `tag.attach` by the value
    it tags, erases `tag.field` and every assertion, removes `tag.labels`
    attributes and kernel contracts (`tag.contract`, with the reference
    kernels they name), and erases the index arithmetic that only fed them. It fails
    with an error if a tag field reaches the computation itself (a value
    stored, returned, or used by an operation with effects), since erasing
    it would change what the kernel computes.

    Example: `tiletag-opt --tiletag-strip-tags examples/gemm.mlir`.
  }];
  let dependentDialects = [];
}

#endif // TILETAG_DIALECT_TAG_TRANSFORMS_PASSES_TD
