//===- TagOps.td - tag dialect operations ------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TAG_IR_TAGOPS_TD
#define TILETAG_DIALECT_TAG_IR_TAGOPS_TD

include "TileTag/Dialect/Tag/IR/TagDialect.td"
include "TileTag/Dialect/Tag/IR/TagAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Assertions have no effect on the program; they are modelled as writing a
// ghost resource so that generic passes neither drop nor reorder them.
def Tag_GhostResource : Resource<"::mlir::tiletag::tag::GhostResource">;

def Tag_AttachOp : Tag_Op<"attach", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "attaches a tag to a value";
  let description = [{
    The result is `value`, carrying in addition the tag `name(fields...)`.
    Uses of the result see the tag; the tag then flows with the data through
    computations, control flow and memory.

    <!-- doctest: kernel(%pm: index, %pn: index) given %acc0 = arith.constant dense<0.0> : tensor<128x128xf32> -->
    ```mlir
    %acc1 = tag.attach %acc0 as "Acc"(%pm, %pn) : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins AnyType:$value, StrAttr:$name, Variadic<Index>:$fields);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $value `as` $name `(` $fields `)` attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def Tag_FieldOp : Tag_Op<"field", [Pure]> {
  let summary = "a field of a tag that a value carries (a ghost index)";
  let description = [{
    The value of field `index` of the tag `name` that `value` carries. It is
    a ghost value: it may feed assertions and index arithmetic that feeds
    assertions, never the computation itself. If `value` carries no tag of
    that name, or several with different fields, the tag checker reports it
    at this op.

    <!-- doctest: kernel() given %a = arith.constant dense<0.0> : tensor<128x64xbf16> -->
    ```mlir
    %ka = tag.field %a["A", 1] : tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins AnyType:$value, StrAttr:$name, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $value `[` $name `,` $index `]` attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def Tag_AssertOp : Tag_Op<"assert", [AllTypesMatch<["lhs", "rhs"]>,
    MemoryEffects<[MemWrite<Tag_GhostResource>]>]> {
  let summary = "asserts a comparison between two index values";
  let description = [{
    Asserts `lhs <predicate> rhs` (signed comparison) wherever this point is
    reached, for every problem size. Operands are typically tag fields or
    index values of the kernel; affine relations are written with index
    arithmetic on them, or with `tag.assert_affine`.

    <!-- doctest: kernel(%ka: index, %kb: index) -->
    ```mlir
    tag.assert eq %ka, %kb, "A and B tiles come from the same K block" : index
    ```
  }];
  let arguments = (ins Tag_Predicate:$predicate,
                       AnySignlessIntegerOrIndex:$lhs,
                       AnySignlessIntegerOrIndex:$rhs,
                       OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs (`,` $message^)? attr-dict `:` type($lhs)
  }];
}

def Tag_AssertAffineOp : Tag_Op<"assert_affine", [
    MemoryEffects<[MemWrite<Tag_GhostResource>]>]> {
  let summary = "asserts that index values satisfy an affine integer set";
  let description = [{
    Asserts that `(dims)[symbols]` lies in the integer set `condition`
    (every constraint holds). The operands bind the set's dimensions, then
    its symbols.

    <!-- doctest: kernel(%kq: index, %kv: index) -->
    ```mlir
    tag.assert_affine affine_set<(d0, d1) : (d1 - d0 * 2 == 0)>(%kq, %kv), "two kv blocks per q block"
    ```
  }];
  let arguments = (ins IntegerSetAttr:$condition, Variadic<Index>:$operands,
                       OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $condition `(` $operands `)` (`,` $message^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Tag_AssertRangeOp : Tag_Op<"assert_range", [
    AllTypesMatch<["value", "lower", "upper"]>,
    MemoryEffects<[MemWrite<Tag_GhostResource>]>]> {
  let summary = "asserts lower <= value < upper";
  let description = [{
    Asserts that `value` lies in the half-open range `[lower, upper)`
    (signed), e.g. that a key block is at or below the query block in causal
    attention.

    <!-- doctest: kernel(%kv: index, %c0: index, %qend: index) -->
    ```mlir
    tag.assert_range %kv in [%c0, %qend), "causal: no key after the query block" : index
    ```
  }];
  let arguments = (ins AnySignlessIntegerOrIndex:$value,
                       AnySignlessIntegerOrIndex:$lower,
                       AnySignlessIntegerOrIndex:$upper,
                       OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $value `in` ` ` `[` $lower `,` $upper `)` (`,` $message^)? attr-dict `:` type($value)
  }];
}

def Tag_AssertCarriesOp : Tag_Op<"assert_carries", [
    MemoryEffects<[MemWrite<Tag_GhostResource>]>]> {
  let summary = "asserts that a value carries a given tag";
  let description = [{
    Asserts that `value` carries the tag `name(fields...)` with exactly these
    field values, e.g. that the B tile a GEMM multiplies came from the same
    expert as the tokens.

    <!-- doctest: kernel(%e: index, %k: index, %pn: index) given %w = arith.constant dense<0.0> : tensor<64x128xbf16> -->
    ```mlir
    tag.assert_carries %w, "W"(%e, %k, %pn), "weights of this expert" : tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins AnyType:$value, StrAttr:$name, Variadic<Index>:$fields,
                       OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $value `,` $name `(` $fields `)` (`,` $message^)? attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

#endif // TILETAG_DIALECT_TAG_IR_TAGOPS_TD
