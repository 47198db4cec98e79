//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILETAG_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tiletag::tile";
  let summary = "Tile-level GPU kernels with a sequential meaning";
  let description = [{
    The `tile` dialect describes what a GPU kernel computes, one program
    (CTA / workgroup) at a time, on whole tiles. A kernel's meaning is
    sequential: run every program of its grid one after another, each body
    top to bottom. Tiles are builtin ranked tensors, so `arith` and `math`
    ops apply elementwise to them; global operands are memrefs with dynamic
    sizes and shared buffers are memrefs in `#gpu.address_space<workgroup>`.

    Global memory is addressed in *blocks*: a tile of shape `T` (rank `r`)
    read from or written to a memref of rank `R >= r` at indices
    `[i_0, ..., i_(R-1)]` covers the block of shape `B = [1] * (R - r) ++ T`
    whose first element is `offset[d] + i_d * B[d]` in each dimension `d`.
    Elements at or past `bound[d]` (by default the memref's size) are outside
    the block: loads give the padding value there, stores skip them.

    A kernel operand may carry the argument attribute `tile.name = "A"`: the
    operand's name in diagnostics and counterexamples, in the printed IR, and
    in the tags that loads from it carry (`A(i, j)` for the block at `[i, j]`).
    A 1-d integer operand may carry `tile.nondecreasing`: a promise about the
    data (sorted offsets) that the checkers assume and `tiletag-run` checks on
    its inputs.
  }];
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The argument attribute that names a kernel operand.
    static constexpr ::llvm::StringLiteral kNameAttrName = "tile.name";
    /// The argument attribute promising that a 1-d integer operand holds a
    /// nondecreasing sequence (e.g. MoE expert offsets).
    static constexpr ::llvm::StringLiteral kNondecreasingAttrName = "tile.nondecreasing";
    /// The discardable kernel attribute with the launch description.
    static constexpr ::llvm::StringLiteral kLaunchAttrName = "tile.launch";
  private:
    void registerAttributes();
  public:
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::gpu::GPUDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILETAG_DIALECT_TILE_IR_TILEDIALECT_TD
