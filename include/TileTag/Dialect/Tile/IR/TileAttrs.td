//===- TileAttrs.td - tile dialect enums and attributes ----*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_IR_TILEATTRS_TD
#define TILETAG_DIALECT_TILE_IR_TILEATTRS_TD

include "mlir/IR/EnumAttr.td"

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "combining function of a reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::mlir::tiletag::tile";
}

def Tile_StoreCombine : I32EnumAttr<"StoreCombine",
    "how a store combines with the value already in memory", [
    I32EnumAttrCase<"Overwrite", 0, "overwrite">,
    I32EnumAttrCase<"Add", 1, "add">]> {
  let cppNamespace = "::mlir::tiletag::tile";
}

#endif // TILETAG_DIALECT_TILE_IR_TILEATTRS_TD
