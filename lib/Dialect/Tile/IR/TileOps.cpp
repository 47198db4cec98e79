//===- TileOps.cpp - tile dialect operations ------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tiletag::tile;

#include "TileTag/Dialect/Tile/IR/TileEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Memory spaces and block addressing
//===----------------------------------------------------------------------===//

static std::optional<int64_t> numericMemorySpace(MemRefType type) {
  if (auto intAttr =
          llvm::dyn_cast_if_present<IntegerAttr>(type.getMemorySpace()))
    return intAttr.getInt();
  return std::nullopt;
}

bool mlir::tiletag::tile::isSharedMemory(MemRefType type) {
  if (auto space = llvm::dyn_cast_if_present<gpu::AddressSpaceAttr>(
          type.getMemorySpace()))
    return space.getValue() == gpu::AddressSpace::Workgroup;
  return numericMemorySpace(type) == 3;
}

bool mlir::tiletag::tile::isGlobalMemory(MemRefType type) {
  if (!type.getMemorySpace())
    return true;
  if (auto space = llvm::dyn_cast<gpu::AddressSpaceAttr>(type.getMemorySpace()))
    return space.getValue() == gpu::AddressSpace::Global;
  std::optional<int64_t> numeric = numericMemorySpace(type);
  return numeric == 0 || numeric == 1;
}

mlir::tiletag::tile::ReadOp mlir::tiletag::tile::slotReadOf(DotOp dot,
                                                        unsigned i) {
  Value operand = dot->getOperand(i);
  if (auto t = operand.getDefiningOp<TransposeOp>(); t && i == 1)
    operand = t.getInput();
  return operand.getDefiningOp<ReadOp>();
}

bool mlir::tiletag::tile::isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(t);
}

SmallVector<int64_t>
mlir::tiletag::tile::blockShape(ArrayRef<int64_t> tileShape,
                                int64_t memrefRank) {
  SmallVector<int64_t> shape(memrefRank - tileShape.size(), 1);
  llvm::append_range(shape, tileShape);
  return shape;
}

ArrayRef<int64_t> mlir::tiletag::tile::slotTileShape(MemRefType buffer,
                                                     unsigned numSlotIndices) {
  return buffer.getShape().drop_front(numSlotIndices);
}

SmallVector<mlir::tiletag::tile::KernelOp>
mlir::tiletag::tile::launchChain(KernelOp head) {
  SmallVector<KernelOp> chain{head};
  for (size_t i = 0; i < chain.size(); ++i) {
    auto launch =
        chain[i]->getAttrOfType<LaunchAttr>(TileDialect::kLaunchAttrName);
    if (!launch)
      continue;
    for (FlatSymbolRefAttr next : launch.getThen()) {
      auto k = SymbolTable::lookupNearestSymbolFrom<KernelOp>(chain[i],
                                                              next.getAttr());
      if (k && !llvm::is_contained(chain, k))
        chain.push_back(k);
    }
  }
  return chain;
}

bool mlir::tiletag::tile::sameOperands(KernelOp a, KernelOp b) {
  if (a.getNumArguments() != b.getNumArguments())
    return false;
  for (unsigned i = 0, e = a.getNumArguments(); i < e; ++i)
    if (a.getOperandName(i) != b.getOperandName(i) ||
        a.getArgument(i).getType() != b.getArgument(i).getType())
      return false;
  return true;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        os << (ShapedType::isDynamic(d) ? "?" : std::to_string(d));
      },
      "x");
  return s;
}

/// Checks the global side of a block access (tile.load, tile.store,
/// tile.copy): the memory space, the number of indices, offsets and bounds,
/// the tile rank and element type, static block sizes against static memref
/// sizes, and the padding value.
static LogicalResult
verifyGlobalBlockAccess(Operation *op, MemRefType memref, ShapedType tile,
                        size_t numIndices, size_t numOffsets, size_t numBounds,
                        Attribute padding, StringRef role) {
  if (!isGlobalMemory(memref))
    return op->emitOpError()
           << role << " must be a global memref, but has memory space "
           << memref.getMemorySpace()
           << "; shared buffers are accessed with tile.read, "
              "tile.write and the shared side of tile.copy";
  int64_t rank = memref.getRank();
  if (rank == 0)
    return op->emitOpError() << role << " must have rank 1 or more";
  if (static_cast<int64_t>(numIndices) != rank)
    return op->emitOpError()
           << "expects " << rank << " block indices, one per dimension of the "
           << role << ", but got " << numIndices;
  if (numOffsets != 0 && static_cast<int64_t>(numOffsets) != rank)
    return op->emitOpError() << "expects 'offset' to have " << rank
                             << " values, one per dimension of the " << role
                             << ", but got " << numOffsets;
  if (numBounds != 0 && static_cast<int64_t>(numBounds) != rank)
    return op->emitOpError() << "expects 'bounds' to have " << rank
                             << " values, one per dimension of the " << role
                             << ", but got " << numBounds;
  if (tile.getRank() == 0 || tile.getRank() > rank)
    return op->emitOpError()
           << "tile rank " << tile.getRank() << " must be between 1 and the "
           << role << " rank " << rank;
  if (tile.getElementType() != memref.getElementType())
    return op->emitOpError() << "tile element type " << tile.getElementType()
                             << " does not match the " << role
                             << " element type " << memref.getElementType();
  for (int64_t d : tile.getShape())
    if (d <= 0)
      return op->emitOpError() << "tile dimensions must be positive, got "
                               << shapeString(tile.getShape());
  if (padding) {
    auto typed = llvm::dyn_cast<TypedAttr>(padding);
    if (!typed || typed.getType() != memref.getElementType()) {
      std::string elem;
      llvm::raw_string_ostream os(elem);
      os << memref.getElementType();
      return op->emitOpError()
             << "padding must be a constant of the element type " << elem
             << ", e.g. padding(0.0 : " << elem << ")";
    }
  }
  return success();
}

/// Checks a slot access to a shared buffer (tile.read, tile.write, the shared
/// side of tile.copy).
static LogicalResult verifySharedSlotAccess(Operation *op, MemRefType buffer,
                                            ShapedType tile,
                                            size_t numIndices) {
  if (!isSharedMemory(buffer))
    return op->emitOpError()
           << "expects a shared buffer in #gpu.address_space<workgroup>, but "
              "got memory space "
           << buffer.getMemorySpace()
           << "; global memory is accessed with tile.load, tile.store and the "
              "global side of tile.copy";
  if (static_cast<int64_t>(numIndices) >= buffer.getRank())
    return op->emitOpError()
           << "expects fewer slot indices (" << numIndices
           << ") than the shared buffer's rank (" << buffer.getRank()
           << "): the remaining dimensions form the tile";
  ArrayRef<int64_t> expected = slotTileShape(buffer, numIndices);
  if (tile.getShape() != expected)
    return op->emitOpError()
           << "tile shape " << shapeString(tile.getShape())
           << " does not match the slot shape " << shapeString(expected)
           << " of the shared buffer";
  if (tile.getElementType() != buffer.getElementType())
    return op->emitOpError()
           << "tile element type " << tile.getElementType()
           << " does not match the shared buffer element type "
           << buffer.getElementType();
  return success();
}

/// The kernel that encloses `op`, with a diagnostic when there is none.
static FailureOr<KernelOp> enclosingKernel(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return op->emitOpError() << "must be nested in a tile.kernel";
  return kernel;
}

static LogicalResult verifyGridDim(Operation *op, int64_t dim) {
  FailureOr<KernelOp> kernel = enclosingKernel(op);
  if (failed(kernel))
    return failure();
  int64_t rank = kernel->getGridAttr().getInt();
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << "grid dimension " << dim << " is out of range: kernel @"
           << kernel->getSymName() << " has a grid of rank " << rank
           << " (dimensions 0 to " << rank - 1 << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  SMLoc signatureLoc = parser.getCurrentLocation();
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, args, isVariadic, resultTypes,
          resultAttrs))
    return failure();
  if (!resultTypes.empty())
    return parser.emitError(signatureLoc)
           << "a tile.kernel returns no values; write results to a memref "
              "operand instead";

  SmallVector<Type> argTypes;
  for (OpAsmParser::Argument &arg : args)
    argTypes.push_back(arg.type);
  Builder &builder = parser.getBuilder();
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(argTypes, {})));
  call_interface_impl::addArgAndResultAttrs(builder, result, args, resultAttrs,
                                            getArgAttrsAttrName(result.name),
                                            getResAttrsAttrName(result.name));

  int64_t grid = 0;
  if (parser.parseKeyword("grid") || parser.parseLParen() ||
      parser.parseInteger(grid) || parser.parseRParen())
    return failure();
  result.addAttribute(getGridAttrName(result.name),
                      builder.getI64IntegerAttr(grid));

  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, args);
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  ArrayRef<Type> argTypes = getArgumentTypes();
  function_interface_impl::printFunctionSignature(p, *this, argTypes,
                                                  /*isVariadic=*/false, {});
  p << " grid(" << getGridAttr().getInt() << ")";
  function_interface_impl::printFunctionAttributes(
      p, *this,
      {getGridAttrName(), getFunctionTypeAttrName(), getArgAttrsAttrName(),
       getResAttrsAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

std::string KernelOp::getOperandName(unsigned i) {
  if (auto name = getArgAttrOfType<StringAttr>(i, TileDialect::kNameAttrName))
    return name.getValue().str();
  return "arg" + std::to_string(i);
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (&region != &getBody() || region.empty())
    return;
  for (BlockArgument arg : region.front().getArguments())
    if (auto name = getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                 TileDialect::kNameAttrName))
      setNameFn(arg, name.getValue());
}

LogicalResult KernelOp::verify() {
  int64_t grid = getGridAttr().getInt();
  if (grid < 1 || grid > 3)
    return emitOpError() << "grid rank must be 1, 2 or 3, got " << grid;
  if (!getResultTypes().empty())
    return emitOpError()
           << "returns no values; write results to a memref operand";
  llvm::StringMap<unsigned> names;
  for (unsigned i = 0, e = getArgumentTypes().size(); i < e; ++i)
    if (auto name =
            getArgAttrOfType<StringAttr>(i, TileDialect::kNameAttrName)) {
      auto [it, inserted] = names.try_emplace(name.getValue(), i);
      if (!inserted)
        return emitOpError() << "operands #" << it->second << " and #" << i
                             << " are both named \"" << name.getValue()
                             << "\"; operand names must be unique";
    }
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    if (auto memref = llvm::dyn_cast<MemRefType>(type)) {
      if (!isGlobalMemory(memref))
        return emitOpError()
               << "operand #" << i << " must be a memref in global memory, got "
               << type
               << "; allocate shared buffers in the body with "
                  "tile.alloc_shared";
      continue;
    }
    if (type.isIntOrIndexOrFloat())
      continue;
    return emitOpError() << "operand #" << i << " has type " << type
                         << "; kernel operands are global memrefs or scalars "
                            "(integer, index or float)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramIdOp, NumProgramsOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramIdOp::verify() {
  return verifyGridDim(*this, getDimAttr().getInt());
}
LogicalResult NumProgramsOp::verify() {
  return verifyGridDim(*this, getDimAttr().getInt());
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  return verifyGlobalBlockAccess(
      *this, getSource().getType(), getType(), getIndices().size(),
      getOffsets().size(), getBounds().size(), getPaddingAttr(), "source");
}

LogicalResult StoreOp::verify() {
  if (failed(verifyGlobalBlockAccess(
          *this, getDest().getType(), getValue().getType(), getIndices().size(),
          getOffsets().size(), getBounds().size(), {}, "destination")))
    return failure();
  if (getCombine() == StoreCombine::Add &&
      !getValue().getType().getElementType().isIntOrFloat())
    return emitOpError()
           << "'combine add' needs an integer or float element type";
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult AllocSharedOp::verify() {
  MemRefType type = getType();
  if (!isSharedMemory(type))
    return emitOpError()
           << "allocates shared memory: the result type must be in "
              "#gpu.address_space<workgroup>, got "
           << type;
  if (!type.getLayout().isIdentity())
    return emitOpError() << "shared buffers use the identity layout";
  if (type.getRank() == 0)
    return emitOpError() << "shared buffers must have rank 1 or more";
  for (int64_t d : type.getShape())
    if (d <= 0)
      return emitOpError() << "shared buffer dimensions must be positive, got "
                           << shapeString(type.getShape());
  return success();
}

bool CopyOp::isGlobalToShared() { return isSharedMemory(getDest().getType()); }

Value CopyOp::getShared() {
  return isGlobalToShared() ? getDest() : getSource();
}

OperandRange CopyOp::getSlotIndices() {
  return isGlobalToShared() ? getDestIndices() : getSourceIndices();
}

Value CopyOp::getGlobal() {
  return isGlobalToShared() ? getSource() : getDest();
}

OperandRange CopyOp::getBlockIndices() {
  return isGlobalToShared() ? getSourceIndices() : getDestIndices();
}

ArrayRef<int64_t> CopyOp::getTileShape() {
  return slotTileShape(llvm::cast<MemRefType>(getShared().getType()),
                       getSlotIndices().size());
}

LogicalResult CopyOp::verify() {
  MemRefType src = getSource().getType(), dst = getDest().getType();
  bool toShared = isSharedMemory(dst) && !isSharedMemory(src);
  bool fromShared = isSharedMemory(src) && !isSharedMemory(dst);
  if (!toShared && !fromShared)
    return emitOpError() << "copies between global memory and a shared buffer: "
                            "exactly one side must be in "
                            "#gpu.address_space<workgroup>";
  MemRefType shared = toShared ? dst : src;
  MemRefType global = toShared ? src : dst;
  size_t numSlotIndices =
      toShared ? getDestIndices().size() : getSourceIndices().size();
  size_t numBlockIndices =
      toShared ? getSourceIndices().size() : getDestIndices().size();
  if (static_cast<int64_t>(numSlotIndices) >= shared.getRank())
    return emitOpError() << "expects fewer slot indices (" << numSlotIndices
                         << ") than the shared buffer's rank ("
                         << shared.getRank()
                         << "): the remaining dimensions form the tile";
  auto tile = RankedTensorType::get(slotTileShape(shared, numSlotIndices),
                                    shared.getElementType());
  if (fromShared && getPaddingAttr())
    return emitOpError() << "padding applies to copies from global memory; a "
                            "copy to global memory skips out-of-range elements";
  if (failed(verifyGlobalBlockAccess(*this, global, tile, numBlockIndices,
                                     getOffsets().size(), getBounds().size(),
                                     getPaddingAttr(),
                                     toShared ? "source" : "destination")))
    return failure();
  return verifySharedSlotAccess(*this, shared, tile, numSlotIndices);
}

LogicalResult ReadOp::verify() {
  return verifySharedSlotAccess(*this, getBuffer().getType(), getType(),
                                getIndices().size());
}

LogicalResult WriteOp::verify() {
  return verifySharedSlotAccess(*this, getBuffer().getType(),
                                getValue().getType(), getIndices().size());
}

//===----------------------------------------------------------------------===//
// Computations
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType(),
                   acc = getAcc().getType();
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || acc.getRank() != 2)
    return emitOpError()
           << "expects 2-d tiles (M x K, K x N, M x N), got ranks "
           << lhs.getRank() << ", " << rhs.getRank() << ", " << acc.getRank();
  int64_t m = lhs.getDimSize(0), k = lhs.getDimSize(1), n = rhs.getDimSize(1);
  if (rhs.getDimSize(0) != k)
    return emitOpError() << "contraction sizes differ: lhs is "
                         << shapeString(lhs.getShape()) << " (K = " << k
                         << ") but rhs is " << shapeString(rhs.getShape())
                         << " (K = " << rhs.getDimSize(0) << ")";
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n)
    return emitOpError() << "accumulator shape " << shapeString(acc.getShape())
                         << " must be " << m << "x" << n
                         << " (lhs rows x rhs columns)";
  Type in = lhs.getElementType();
  if (!(in.isBF16() || in.isF16() || in.isF32() || tile::isFp8(in)))
    return emitOpError() << "input element type must be bf16, f16, f32 or an "
                            "fp8 type (f8E4M3FN, f8E5M2, f8E4M3FNUZ, "
                            "f8E5M2FNUZ), got "
                         << in;
  if (rhs.getElementType() != in)
    return emitOpError() << "lhs and rhs element types differ (" << in << " vs "
                         << rhs.getElementType()
                         << "); convert one with arith.extf/truncf";
  if (!acc.getElementType().isF32())
    return emitOpError() << "accumulates in f32, but the accumulator has "
                            "element type "
                         << acc.getElementType();
  return success();
}

LogicalResult ReduceOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << in.getRank() << " tile";
  SmallVector<int64_t> expected(in.getShape());
  expected.erase(expected.begin() + axis);
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << shapeString(out.getShape())
                         << " must be the input shape without axis " << axis
                         << ": " << shapeString(expected)
                         << (expected.empty() ? " (a 0-d tensor)" : "");
  if (out.getElementType() != in.getElementType())
    return emitOpError() << "result element type " << out.getElementType()
                         << " must equal the input element type "
                         << in.getElementType();
  if (!in.getElementType().isIntOrIndexOrFloat())
    return emitOpError() << "reduces integer, index or float tiles only";
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  ArrayRef<int64_t> dims = getDims();
  if (out.getRank() != in.getRank() + static_cast<int64_t>(dims.size()))
    return emitOpError() << "result rank " << out.getRank()
                         << " must be the input rank " << in.getRank()
                         << " plus the number of new dimensions "
                         << dims.size();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank())
      return emitOpError() << "new dimension " << d
                           << " is out of range for a rank-" << out.getRank()
                           << " result";
    if (i > 0 && dims[i - 1] >= d)
      return emitOpError() << "new dimensions must be sorted and unique";
  }
  int64_t inDim = 0;
  for (int64_t d = 0; d < out.getRank(); ++d) {
    if (llvm::is_contained(dims, d))
      continue;
    if (out.getDimSize(d) != in.getDimSize(inDim))
      return emitOpError() << "result dimension " << d << " has size "
                           << out.getDimSize(d) << " but input dimension "
                           << inDim << " has size " << in.getDimSize(inDim);
    ++inDim;
  }
  if (out.getElementType() != in.getElementType())
    return emitOpError() << "result element type " << out.getElementType()
                         << " must equal the input element type "
                         << in.getElementType();
  return success();
}

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= type.getRank())
    return emitOpError() << "dimension " << dim
                         << " is out of range for a rank-" << type.getRank()
                         << " tile";
  if (!type.getElementType().isSignlessIntOrIndex())
    return emitOpError()
           << "element type must be a signless integer or index, got "
           << type.getElementType();
  return success();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  ArrayRef<int64_t> perm = getPerm();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError() << "permutation has " << perm.size()
                         << " entries but the tile has rank " << in.getRank();
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError() << "perm must be a permutation of 0.."
                           << in.getRank() - 1;
    seen[p] = true;
  }
  if (out.getRank() != in.getRank())
    return emitOpError() << "result rank must equal the input rank";
  for (auto [d, p] : llvm::enumerate(perm))
    if (out.getDimSize(d) != in.getDimSize(p))
      return emitOpError() << "result dimension " << d << " has size "
                           << out.getDimSize(d) << " but input dimension " << p
                           << " has size " << in.getDimSize(p);
  if (out.getElementType() != in.getElementType())
    return emitOpError()
           << "result element type must equal the input element type";
  return success();
}

#define GET_OP_CLASSES
#include "TileTag/Dialect/Tile/IR/TileOps.cpp.inc"
