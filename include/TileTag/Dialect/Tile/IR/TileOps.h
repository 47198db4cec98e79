//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_TILE_IR_TILEOPS_H
#define TILETAG_DIALECT_TILE_IR_TILEOPS_H

#include "TileTag/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TileTag/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "TileTag/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tiletag::tile {

/// True for memrefs in workgroup (shared) memory:
/// `#gpu.address_space<workgroup>` or the numeric address space 3.
bool isSharedMemory(MemRefType type);

/// True for memrefs in global memory: no memory space,
/// `#gpu.address_space<global>`, or the numeric address spaces 0 and 1.
bool isGlobalMemory(MemRefType type);

/// Whether `t` is one of the fp8 types tile.dot takes: f8E4M3FN, f8E5M2 (the
/// OCP encodings), f8E4M3FNUZ, f8E5M2FNUZ (CDNA3's).
bool isFp8(Type t);

/// The shape of the block that a tile of `tileShape` covers in a global memref
/// of rank `memrefRank`: leading unit dimensions, then the tile's shape.
SmallVector<int64_t> blockShape(ArrayRef<int64_t> tileShape,
                                int64_t memrefRank);

/// The tile shape of a shared buffer addressed with `numSlotIndices` slot
/// indices: the buffer's shape without its leading slot dimensions.
ArrayRef<int64_t> slotTileShape(MemRefType buffer, unsigned numSlotIndices);

/// The kernels a launch of `head` runs: `head`, then the kernels its
/// tile.launch names in `then`, transitively, in order (a name without a
/// kernel is skipped; a chain that repeats a kernel stops there).
SmallVector<KernelOp> launchChain(KernelOp head);

/// True when `a` and `b` have the same operands: names, types and order.
bool sameOperands(KernelOp a, KernelOp b);

/// The tile.read of a shared slot that operand `i` of `dot` is: the operand
/// itself, or for B (i == 1) the read it is the transpose of (B K-major,
/// which a matrix unit reads from the slot as it is); null otherwise.
ReadOp slotReadOf(DotOp dot, unsigned i);

} // namespace mlir::tiletag::tile

#endif // TILETAG_DIALECT_TILE_IR_TILEOPS_H
