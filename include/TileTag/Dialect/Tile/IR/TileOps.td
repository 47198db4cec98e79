//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_IR_TILEOPS_TD
#define TILETAG_DIALECT_TILE_IR_TILEOPS_TD

include "TileTag/Dialect/Tile/IR/TileDialect.td"
include "TileTag/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AffineScope, AutomaticAllocationScope, FunctionOpInterface,
    IsolatedFromAbove, DeclareOpInterfaceMethods<OpAsmOpInterface,
                                                 ["getAsmBlockArgumentNames"]>]> {
  let summary = "a tile kernel: one program of a grid of rank 1 to 3";
  let description = [{
    Defines a kernel launched over a grid of `grid` dimensions (1 to 3). Each
    grid point is one program (a CTA on NVIDIA, a workgroup on AMD); its body
    operates on whole tiles. The sequential meaning runs every program one
    after another, in row-major order of the grid, each body top to bottom.

    Operands are global memrefs (dynamic sizes are problem-size symbols) or
    scalars (integers, index, floats). The kernel returns nothing; it writes
    its results to memory.

    Example:

    ```mlir
    tile.kernel @scale(%X: memref<?x?xf32> {tile.name = "X"},
                       %Y: memref<?x?xf32> {tile.name = "Y"}) grid(2) {
      %i = tile.program_id 0
      %j = tile.program_id 1
      %t = tile.load %X[%i, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
      %s = arith.addf %t, %t : tensor<64x64xf32>
      tile.store %s, %Y[%i, %j] : tensor<64x64xf32> -> memref<?x?xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       I64Attr:$grid,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let extraClassDeclaration = [{
    /// FunctionOpInterface: the types of the kernel operands.
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    /// FunctionOpInterface: kernels have no results.
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// CallableOpInterface: the kernel body.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// The name of operand `i`: its `tile.name` attribute, or "arg<i>".
    std::string getOperandName(unsigned i);
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">,
                                       ReturnLike, Terminator]> {
  let summary = "ends a kernel body";
  let description = [{
    Terminates the body of a `tile.kernel`. Kernels return no values.

    <!-- doctest: same as examples/naive/gemm.mlir -->
    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "the coordinate of this program in one grid dimension";
  let description = [{
    The coordinate, in grid dimension `dim`, of the program that runs the
    kernel body. `dim` must be below the kernel's grid rank.

    <!-- doctest: kernel() -->
    ```mlir
    %pm = tile.program_id 0
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "the number of programs in one grid dimension";
  let description = [{
    The extent of the launch grid in dimension `dim` (a problem-size symbol
    for the verifier). `dim` must be below the kernel's grid rank.

    <!-- doctest: kernel() -->
    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global memory <-> registers
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments]> {
  let summary = "loads one tile from global memory at block coordinates";
  let description = [{
    Reads the block at `indices` (block coordinates, see the dialect
    description) of a global memref into a tile. With `offset`, the block
    grid starts at those element offsets; with `bounds`, elements at or past
    the bound in a dimension are out of range instead of the memref size.
    Out-of-range elements read as `padding`. Without `padding` the load is
    *unchecked*: every element must be in range, and the tag checker proves
    it. The tile's rank may be lower than the memref's: leading memref
    dimensions are then indexed one element at a time.

    <!-- doctest: kernel(%A: memref<?x?xbf16>, %X: memref<?x?xbf16>, %pm: index, %k: index, %m: index, %row0: index, %row1: index, %c0: index, %H: index) -->
    ```mlir
    %a = tile.load %A[%pm, %k] padding(0.0 : bf16)
        : memref<?x?xbf16> -> tensor<128x64xbf16>
    %x = tile.load %X[%m, %k] offset [%row0, %c0] bounds [%row1, %H]
        padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "global source", [MemRead]>:$source,
                       Variadic<Index>:$indices,
                       Variadic<Index>:$offsets,
                       Variadic<Index>:$bounds,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`offset` ` ` `[` $offsets^ `]`)?
    (`bounds` ` ` `[` $bounds^ `]`)? (`padding` `(` $padding^ `)`)?
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [AttrSizedOperandSegments]> {
  let summary = "stores one tile to global memory at block coordinates";
  let description = [{
    Writes a tile to the block at `indices` of a global memref (addressing as
    for `tile.load`). Elements out of range are skipped, so ragged edges are
    safe. With `combine add` the tile is added to what memory holds (an
    atomic add when programs run in parallel, e.g. split-k).

    <!-- doctest: kernel(%C: memref<?x?xf32>, %pm: index, %pn: index) given %c = arith.constant dense<0.0> : tensor<128x128xf32>; %p = arith.constant dense<0.0> : tensor<128x128xf32> -->
    ```mlir
    tile.store %c, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
    tile.store %p, %C[%pm, %pn] combine add : tensor<128x128xf32> -> memref<?x?xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$value,
                       Arg<AnyMemRef, "global destination", [MemRead, MemWrite]>:$dest,
                       Variadic<Index>:$indices,
                       Variadic<Index>:$offsets,
                       Variadic<Index>:$bounds,
                       OptionalAttr<Tile_StoreCombine>:$combine);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` (`offset` ` ` `[` $offsets^ `]`)?
    (`bounds` ` ` `[` $bounds^ `]`)? (`combine` $combine^)?
    attr-dict `:` type($value) `->` type($dest)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared"> {
  let summary = "allocates a shared-memory buffer, often a ring of tile slots";
  let description = [{
    Allocates a statically shaped buffer in workgroup (shared) memory for the
    lifetime of the program. A ring buffer of `S` tiles of shape `T` is a
    buffer of shape `[S] ++ T`; its leading dimensions are *slot* dimensions,
    indexed by `tile.copy`, `tile.read` and `tile.write`.

    <!-- doctest: kernel() -->
    ```mlir
    %ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let results = (outs Res<AnyStaticShapeMemRef, "shared buffer",
                          [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copies one tile between global memory and a shared slot";
  let description = [{
    Copies a tile from a block of a global memref into a slot of a shared
    buffer, or from a shared slot to a global block. The tile shape is the
    shared buffer's shape without its slot dimensions (one index per slot
    dimension is given on the shared side). On the global side, addressing,
    `offset`, `bounds` and `padding` are as for `tile.load` (loads) and
    `tile.store` (stores: out-of-range elements are skipped; `padding` is not
    allowed). This is the operation the TMA copy engine runs when it sits in
    a `schedule.async tma` region.

    <!-- doctest: kernel(%A: memref<?x?xbf16>, %C: memref<?x?xf32>, %pm: index, %pn: index, %k: index, %slot: index, %c0: index) given %ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>; %epi = tile.alloc_shared : memref<1x128x128xf32, #gpu.address_space<workgroup>> -->
    ```mlir
    tile.copy %A[%pm, %k] -> %ring[%slot] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
    tile.copy %epi[%c0] -> %C[%pm, %pn]
        : memref<1x128x128xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "copy source", [MemRead]>:$source,
                       Variadic<Index>:$source_indices,
                       Arg<AnyMemRef, "copy destination", [MemWrite]>:$dest,
                       Variadic<Index>:$dest_indices,
                       Variadic<Index>:$offsets,
                       Variadic<Index>:$bounds,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let assemblyFormat = [{
    $source `[` $source_indices `]` `->` $dest `[` $dest_indices `]`
    (`offset` ` ` `[` $offsets^ `]`)? (`bounds` ` ` `[` $bounds^ `]`)?
    (`padding` `(` $padding^ `)`)?
    attr-dict `:` type($source) `->` type($dest)
  }];
  let extraClassDeclaration = [{
    /// True when the copy reads global memory and writes shared memory.
    bool isGlobalToShared();
    // The copy decoded by side, whichever its direction: every pass asks
    // these instead of choosing between source and dest itself.
    /// The shared buffer and the indices of its slot.
    ::mlir::Value getShared();
    ::mlir::OperandRange getSlotIndices();
    /// The global memref and the block indices into it.
    ::mlir::Value getGlobal();
    ::mlir::OperandRange getBlockIndices();
    /// The shape of the tile moved: the shared buffer's slot.
    ::llvm::ArrayRef<int64_t> getTileShape();
  }];
  let hasVerifier = 1;
}

def Tile_ReadOp : Tile_Op<"read"> {
  let summary = "reads the tile in one slot of a shared buffer into registers";
  let description = [{
    Reads the tile in slot `indices` of a shared buffer (one index per slot
    dimension). The result shape is the buffer shape without its slot
    dimensions.

    <!-- doctest: kernel(%slot: index) given %ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -->
    ```mlir
    %a = tile.read %ring[%slot]
        : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "shared buffer", [MemRead]>:$buffer,
                       Variadic<Index>:$indices);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $buffer `[` $indices `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_WriteOp : Tile_Op<"write"> {
  let summary = "writes a tile from registers into one slot of a shared buffer";
  let description = [{
    Writes a tile into slot `indices` of a shared buffer (one index per slot
    dimension), e.g. to stage an epilogue for a TMA store.

    <!-- doctest: kernel(%c0: index) given %c = arith.constant dense<0.0> : tensor<128x128xf32>; %epi = tile.alloc_shared : memref<1x128x128xf32, #gpu.address_space<workgroup>> -->
    ```mlir
    tile.write %c, %epi[%c0]
        : tensor<128x128xf32> -> memref<1x128x128xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$value,
                       Arg<AnyStaticShapeMemRef, "shared buffer", [MemWrite]>:$buffer,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $buffer `[` $indices `]` attr-dict `:` type($value) `->` type($buffer)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile computations
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix multiply-accumulate of two tiles";
  let description = [{
    `result = lhs * rhs + acc` for an `M x K` and a `K x N` tile with an
    `M x N` accumulator. Inputs are bf16, f16, f32 or an fp8 type
    (f8E4M3FN and f8E5M2, the OCP encodings; f8E4M3FNUZ and f8E5M2FNUZ, the
    ones CDNA3's MFMA multiplies), both the same; the accumulator and result
    are f32. Products are formed and summed in f32 (every fp8 and 16-bit
    product is exact in f32).

    <!-- doctest: kernel() given %a = arith.constant dense<0.0> : tensor<128x64xbf16>; %b = arith.constant dense<0.0> : tensor<64x128xbf16>; %acc = arith.constant dense<0.0> : tensor<128x128xf32> -->
    ```mlir
    %d = tile.dot %a, %b, %acc
        : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs,
                       AnyStaticShapeTensor:$acc);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a tile along one axis with sum, max or min";
  let description = [{
    Combines the elements of `input` along `axis` with `kind`; the result
    has the input's shape without that axis and the same element type.
    Sums of floats are formed in the element type, in index order.

    <!-- doctest: kernel() given %s = arith.constant dense<0.0> : tensor<128x64xf32> -->
    ```mlir
    %m = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, AnyStaticShapeTensor:$input,
                       I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $kind $input `axis` $axis attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeats a tile along new dimensions";
  let description = [{
    Inserts the result dimensions listed in `dims` (sorted, unique) and
    repeats the input along them. The remaining result dimensions, in order,
    equal the input's dimensions.

    <!-- doctest: kernel() given %m = arith.constant dense<0.0> : tensor<128xf32> -->
    ```mlir
    %b = tile.broadcast %m dims [1] : tensor<128xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "a tile whose elements are their own coordinate along one dimension";
  let description = [{
    Element `(i_0, ..., i_{r-1})` of the result is `i_dim`. The element type
    is a signless integer or index. Add a splat to shift the range.

    <!-- doctest: kernel() -->
    ```mlir
    %cols = tile.iota dim 1 : tensor<128x64xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "permutes the dimensions of a tile";
  let description = [{
    Result dimension `d` is input dimension `perm[d]`.

    <!-- doctest: kernel() given %k = arith.constant dense<0.0> : tensor<64x128xbf16> -->
    ```mlir
    %kt = tile.transpose %k perm [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `perm` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TILETAG_DIALECT_TILE_IR_TILEOPS_TD
