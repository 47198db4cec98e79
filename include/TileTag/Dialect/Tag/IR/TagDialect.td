//===- TagDialect.td - The tag dialect ---------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_IR_TAGDIALECT_TD
#define TILETAG_DIALECT_TAG_IR_TAGDIALECT_TD

include "mlir/IR/OpBase.td"

def Tag_Dialect : Dialect {
  let name = "tag";
  let cppNamespace = "::mlir::tiletag::tag";
  let summary = "Data-flow invariants: symbolic tags on values and assertions over them";
  let description = [{
    A *tag* is a symbolic label on data: a name and integer fields, written
    `A(pm, k)`. Tags say where data came from (which operand, which block);
    they propagate through computations, control flow and memory, and
    *assertions* state relations between tag fields at the points where data
    meets (the `k` block of A's tile equals the `k` block of B's tile; the
    key block is at or below the query block). The tag checker proves every
    assertion for every problem size, or names a counterexample.

    Tags are ghost state: `--tiletag-strip-tags` erases every tag op and
    attribute, and the code that runs carries no check.

    Tags can be attached with the `tag.attach` op, or with the discardable
    attribute `tag.labels` on any single-result operation, TileTag's or not:

    <!-- doctest: kernel(%A: memref<?x?xbf16>, %i: index, %k: index) -->
    ```mlir
    %t = tile.load %A[%i, %k] {tag.labels = [#tag.label<"A", (d0, d1) -> (d0, d1)>]}
        : memref<?x?xbf16> -> tensor<128x64xbf16>
    ```

    The affine map's dimensions are the operation's index-typed operands, in
    order; its results are the tag's fields.

    A kernel's *contract* is the attribute `tag.contract = @reference` on
    the kernel: a plain sequential kernel of the same module, with the same
    operands, that states what the kernel computes. The checker proves that
    every block the kernel stores holds what the reference stores there, and
    that both store the same blocks (docs/Verification.md, "Contracts"). On the
    first kernel of a launch chain (`then`), a reference with the chain's
    inputs and outputs (not the kernel's own operands) is the contract of
    the whole chain.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute that attaches tags to any operation.
    static constexpr ::llvm::StringLiteral kLabelsAttrName = "tag.labels";
    /// Set on a kernel whose tag assertions --tiletag-verify-tags proved.
    static constexpr ::llvm::StringLiteral kVerifiedAttrName = "tag.verified";
    /// On a kernel: the reference kernel whose results it must compute (its
    /// contract), as a symbol reference.
    static constexpr ::llvm::StringLiteral kContractAttrName = "tag.contract";
    /// On a kernel with a contract: which of its programs stores what
    /// program (i, j, ...) of the reference stores, as an affine map from
    /// the reference's program ids to the kernel's. A hint the contract
    /// checker proves (a rewrite that reorders programs writes it).
    static constexpr ::llvm::StringLiteral kProgramMapAttrName = "tag.program_map";
  }];
}

class Tag_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tag_Dialect, mnemonic, traits>;

#endif // TILETAG_DIALECT_TAG_IR_TAGDIALECT_TD
