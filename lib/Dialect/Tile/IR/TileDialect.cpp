//===- TileDialect.cpp - The tile dialect ---------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileDialect.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tiletag::tile;

#include "TileTag/Dialect/Tile/IR/TileDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TileTag/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != kLaunchAttrName)
    return op->emitError() << "unknown tile dialect attribute '"
                           << attr.getName().getValue()
                           << "'; the tile dialect "
                           << "defines '" << kLaunchAttrName << "'";
  auto launch = llvm::dyn_cast<LaunchAttr>(attr.getValue());
  if (!launch)
    return op->emitError() << "'" << kLaunchAttrName
                           << "' must be a #tile.launch<...> attribute";
  auto kernel = llvm::dyn_cast<KernelOp>(op);
  if (!kernel)
    return op->emitError() << "'" << kLaunchAttrName
                           << "' describes how to launch a tile.kernel, not '"
                           << op->getName() << "'";
  if (static_cast<int64_t>(launch.getGrid().size()) !=
      kernel.getGridAttr().getInt())
    return op->emitError() << "the launch grid has " << launch.getGrid().size()
                           << " extents but the kernel's grid has rank "
                           << kernel.getGridAttr().getInt();
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto memref = llvm::dyn_cast<MemRefType>(type);
    if (!memref)
      continue;
    std::string name = kernel.getOperandName(i);
    auto it = llvm::find_if(launch.getShapeNames(),
                            [&](StringAttr n) { return n.getValue() == name; });
    if (it == launch.getShapeNames().end())
      return op->emitError()
             << "the launch gives no shape for memref operand '" << name << "'";
    AffineMap shape = launch.getShapes()[it - launch.getShapeNames().begin()];
    if (static_cast<int64_t>(shape.getNumResults()) != memref.getRank())
      return op->emitError() << "the launch shape of '" << name << "' has "
                             << shape.getNumResults() << " dimensions but the "
                             << "operand has rank " << memref.getRank();
    for (auto [d, expr] : llvm::enumerate(shape.getResults())) {
      auto cst = llvm::dyn_cast<AffineConstantExpr>(expr);
      if (!memref.isDynamicDim(d) &&
          (!cst || cst.getValue() != memref.getDimSize(d)))
        return op->emitError()
               << "dimension " << d << " of '" << name << "' is static ("
               << memref.getDimSize(d)
               << "), so its launch shape must be that constant";
    }
  }
  for (FlatSymbolRefAttr next : launch.getThen())
    if (!SymbolTable::lookupNearestSymbolFrom<KernelOp>(op, next.getAttr()))
      return op->emitError()
             << "'" << kLaunchAttrName << "' names " << next
             << " in 'then', but there is no tile.kernel of that name";
  for (StringAttr name : launch.getShapeNames()) {
    bool found = false;
    for (unsigned i = 0, e = kernel.getArgumentTypes().size(); i < e; ++i)
      found |= kernel.getOperandName(i) == name.getValue() &&
               llvm::isa<MemRefType>(kernel.getArgumentTypes()[i]);
    if (!found)
      return op->emitError()
             << "the launch shapes name '" << name.getValue()
             << "', which is not a memref operand of the kernel";
  }
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == kNondecreasingAttrName) {
    auto kernel = llvm::dyn_cast<KernelOp>(op);
    auto type =
        kernel ? llvm::dyn_cast<MemRefType>(kernel.getArgumentTypes()[argIndex])
               : MemRefType();
    if (!llvm::isa<UnitAttr>(attr.getValue()) || !type || type.getRank() != 1 ||
        !type.getElementType().isIntOrIndex())
      return op->emitError()
             << "'" << kNondecreasingAttrName
             << "' is a unit attribute for a 1-d integer memref "
                "operand of a tile.kernel";
    return success();
  }
  if (attr.getName() != kNameAttrName)
    return op->emitError() << "unknown tile dialect argument attribute '"
                           << attr.getName().getValue()
                           << "'; the tile dialect "
                           << "defines '" << kNameAttrName << "' and '"
                           << kNondecreasingAttrName << "'";
  auto name = llvm::dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << kNameAttrName << "' of argument #"
                           << argIndex << " must be a non-empty string";
  if (!llvm::isa<KernelOp>(op))
    return op->emitError() << "'" << kNameAttrName
                           << "' names operands of a tile.kernel";
  return success();
}
