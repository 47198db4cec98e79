//===- TileAttrs.td - tile dialect enums and attributes ----*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_IR_TILEATTRS_TD
#define TILETAG_DIALECT_TILE_IR_TILEATTRS_TD

include "TileTag/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
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

def Tile_LaunchAttr : AttrDef<Tile_Dialect, "Launch"> {
  let mnemonic = "launch";
  let summary = "how to launch a kernel: problem sizes, grid and operand shapes";
  let description = [{
    On a kernel, as `tile.launch`: the problem-size symbols and their default
    values, the grid extents and the shapes of the memref operands (named by
    `tile.name`) as affine expressions of the sizes. Runners (`tiletag-run`)
    use it to make inputs and launch the grid; `check` names the workload
    whose float64 reference `tiletag-run --check` compares against, and
    `then` lists kernels launched after this one on the same operands (e.g.
    the reduction of a split-k GEMM).

    ```mlir
    tile.kernel @gemm(%A: memref<?x?xbf16> {tile.name = "A"},
                      %B: memref<?x?xbf16> {tile.name = "B"},
                      %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {
        tile.launch = #tile.launch<
            sizes = [M = 256, N = 256, K = 192],
            grid = [M ceildiv 128, N ceildiv 128],
            shapes = [A = [M, K], B = [K, N], C = [M, N]],
            check = "gemm">} {
      tile.return
    }
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr", "size names">:$sizeNames,
    ArrayRefParameter<"int64_t", "default sizes">:$sizeDefaults,
    ArrayRefParameter<"::mlir::AffineExpr", "grid extents">:$grid,
    ArrayRefParameter<"::mlir::StringAttr", "operand names">:$shapeNames,
    ArrayRefParameter<"::mlir::AffineMap", "operand shapes">:$shapes,
    "::mlir::StringAttr":$check,
    ArrayRefParameter<"::mlir::FlatSymbolRefAttr", "kernels to launch next">:$then);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Evaluates the grid extents for the given size values.
    ::llvm::SmallVector<int64_t> evaluateGrid(::llvm::ArrayRef<int64_t> sizes) const;
    /// Evaluates the shape of operand `name` for the given size values, or
    /// returns std::nullopt if the attribute has no shape for it.
    std::optional<::llvm::SmallVector<int64_t>>
    evaluateShape(::llvm::StringRef name, ::llvm::ArrayRef<int64_t> sizes) const;
  }];
}

#endif // TILETAG_DIALECT_TILE_IR_TILEATTRS_TD
