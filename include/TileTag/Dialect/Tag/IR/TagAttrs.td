//===- TagAttrs.td - tag dialect attributes ----------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_IR_TAGATTRS_TD
#define TILETAG_DIALECT_TAG_IR_TAGATTRS_TD

include "TileTag/Dialect/Tag/IR/TagDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tag_Predicate : I32EnumAttr<"Predicate", "comparison of two index values", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::tiletag::tag";
}

def Tag_LabelAttr : AttrDef<Tag_Dialect, "Label"> {
  let mnemonic = "label";
  let summary = "a tag attached to an operation's first result";
  let description = [{
    `#tag.label<"NAME", MAP>` attaches the tag `NAME(f_0, ..., f_n)` to the
    first result of the operation that carries it in its `tag.labels` array.
    The fields are the results of the affine map applied to the operation's
    index-typed operands, in order.

    <!-- doctest: kernel(%s: index) given %ring = tile.alloc_shared : memref<4x64x64xf32, #gpu.address_space<workgroup>> -->
    ```mlir
    %t = tile.read %ring[%s] {tag.labels = [#tag.label<"Stage", (d0) -> (d0 mod 4)>]}
        : memref<4x64x64xf32, #gpu.address_space<workgroup>> -> tensor<64x64xf32>
    ```
  }];
  let parameters = (ins StringRefParameter<"tag name">:$name,
                        "::mlir::AffineMap":$fields);
  let assemblyFormat = "`<` $name `,` $fields `>`";
  let genVerifyDecl = 1;
}

#endif // TILETAG_DIALECT_TAG_IR_TAGATTRS_TD
