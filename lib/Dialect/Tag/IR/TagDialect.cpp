//===- TagDialect.cpp - The tag dialect -----------------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/SymbolTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::tag;

#include "TileTag/Dialect/Tag/IR/TagDialect.cpp.inc"
#include "TileTag/Dialect/Tag/IR/TagEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Tag/IR/TagAttrs.cpp.inc"

void TagDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileTag/Dialect/Tag/IR/TagAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "TileTag/Dialect/Tag/IR/TagOps.cpp.inc"
      >();
}

LogicalResult LabelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, AffineMap fields) {
  if (name.empty())
    return emitError() << "a tag needs a non-empty name";
  if (fields.getNumSymbols() != 0)
    return emitError() << "tag fields are affine in the operation's index "
                          "operands (dimensions); symbols are not allowed";
  return success();
}

/// `tag.contract` names a reference kernel with the same operands: names,
/// types and order, so that "the same memory" means the same thing. On the
/// first kernel of a launch chain (`then`) whose operands are not the
/// reference's, the contract is the whole chain's: every operand of the
/// reference is an operand of some kernel of the chain, by name and type;
/// the chain's other operands are its workspaces.
static LogicalResult verifyContract(Operation *op, Attribute value) {
  auto ref = llvm::dyn_cast<FlatSymbolRefAttr>(value);
  auto kernel = llvm::dyn_cast<tile::KernelOp>(op);
  if (!ref || !kernel)
    return op->emitError() << "'" << TagDialect::kContractAttrName
                           << "' belongs on a tile.kernel and names its "
                              "reference kernel (@name)";
  auto reference = SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
      op->getParentOp() ? op->getParentOp() : op, ref.getAttr());
  if (!reference)
    return op->emitError() << "the contract names " << ref
                           << ", which is not a tile.kernel of this module";
  if (reference == kernel)
    return op->emitError() << "a kernel cannot be its own contract";
  if (reference->hasAttr(TagDialect::kContractAttrName))
    return op->emitError() << "the reference kernel " << ref
                           << " has a contract itself; a reference states "
                              "the meaning and needs none";
  SmallVector<tile::KernelOp> chain = tile::launchChain(kernel);
  if (chain.size() > 1 && !tile::sameOperands(kernel, reference)) {
    for (unsigned i = 0, e = reference.getNumArguments(); i < e; ++i) {
      std::string name = reference.getOperandName(i);
      Type type = reference.getArgument(i).getType();
      bool found = false;
      for (tile::KernelOp k : chain)
        for (unsigned j = 0, n = k.getNumArguments(); j < n; ++j)
          if (k.getOperandName(j) == name) {
            if (k.getArgument(j).getType() != type)
              return op->emitError()
                     << "operand " << name << " of the reference kernel "
                     << ref << " is " << type << ", but @" << k.getSymName()
                     << " of this launch chain has it as "
                     << k.getArgument(j).getType();
            found = true;
          }
      if (!found)
        return op->emitError()
               << "operand " << name << " of the reference kernel " << ref
               << " is no operand of this launch chain (the contract of a "
                  "chain's first kernel names the chain's inputs and "
                  "outputs)";
    }
    return success();
  }
  if (reference.getNumArguments() != kernel.getNumArguments())
    return op->emitError() << "the reference kernel " << ref << " has "
                           << reference.getNumArguments()
                           << " operands, this kernel "
                           << kernel.getNumArguments();
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    std::string name = kernel.getOperandName(i),
                refName = reference.getOperandName(i);
    if (name != refName ||
        kernel.getArgument(i).getType() != reference.getArgument(i).getType())
      return op->emitError()
             << "operand " << i << " of the reference kernel " << ref << " is "
             << refName << " : " << reference.getArgument(i).getType()
             << ", but here it is " << name << " : "
             << kernel.getArgument(i).getType()
             << " (a reference has the kernel's operands)";
  }
  return success();
}

/// `tag.program_map` maps the reference's program ids to the kernel's (and
/// to the loop values of the store that writes the block).
static LogicalResult verifyProgramMap(Operation *op, Attribute value) {
  auto map = llvm::dyn_cast<AffineMapAttr>(value);
  auto kernel = llvm::dyn_cast<tile::KernelOp>(op);
  if (!map || !kernel)
    return op->emitError() << "'" << TagDialect::kProgramMapAttrName
                           << "' belongs on a tile.kernel and is an affine map";
  auto ref = kernel->getAttrOfType<FlatSymbolRefAttr>(
      TagDialect::kContractAttrName);
  auto reference =
      ref ? SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
                op->getParentOp() ? op->getParentOp() : op, ref.getAttr())
          : tile::KernelOp();
  if (!reference)
    return op->emitError() << "'" << TagDialect::kProgramMapAttrName
                           << "' needs the kernel's contract ('"
                           << TagDialect::kContractAttrName << "')";
  AffineMap m = map.getValue();
  auto launch = kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
  size_t sizes = launch ? launch.getSizeNames().size() : 0;
  if (static_cast<int64_t>(m.getNumDims()) !=
          reference.getGridAttr().getInt() ||
      static_cast<int64_t>(m.getNumResults()) <
          kernel.getGridAttr().getInt() ||
      m.getNumSymbols() > sizes)
    return op->emitError()
           << "'" << TagDialect::kProgramMapAttrName << "' must map the "
           << reference.getGridAttr().getInt()
           << " program ids of the reference to the "
           << kernel.getGridAttr().getInt()
           << " of this kernel (then, optionally, the values of the loops "
              "around its store), with at most "
           << sizes << " symbols (the launch sizes, in order); got " << map;
  return success();
}

LogicalResult TagDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == kVerifiedAttrName) {
    // Set by the checker: the hash of the kernel it proved.
    if (!llvm::isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kVerifiedAttrName
                             << "' is a proof stamp: the hash string of the "
                                "kernel the checker proved";
    return success();
  }
  if (attr.getName() == kContractAttrName)
    return verifyContract(op, attr.getValue());
  if (attr.getName() == kProgramMapAttrName)
    return verifyProgramMap(op, attr.getValue());
  if (attr.getName() != kLabelsAttrName)
    return op->emitError() << "unknown tag dialect attribute '"
                           << attr.getName().getValue()
                           << "'; the tag dialect defines '" << kLabelsAttrName
                           << "', '" << kContractAttrName << "', '"
                           << kProgramMapAttrName << "' and '"
                           << kVerifiedAttrName << "'";
  auto labels = llvm::dyn_cast<ArrayAttr>(attr.getValue());
  if (!labels || labels.empty() || !llvm::all_of(labels, [](Attribute a) {
        return llvm::isa<LabelAttr>(a);
      }))
    return op->emitError() << "'" << kLabelsAttrName
                           << "' must be a non-empty array of #tag.label";
  if (op->getNumResults() == 0)
    return op->emitError() << "'" << kLabelsAttrName
                           << "' tags the operation's first result, but this "
                              "operation has no results";
  unsigned numIndexOperands =
      llvm::count_if(op->getOperandTypes(), [](Type t) { return t.isIndex(); });
  for (Attribute a : labels) {
    auto label = llvm::cast<LabelAttr>(a);
    if (label.getFields().getNumDims() != numIndexOperands)
      return op->emitError()
             << "tag \"" << label.getName() << "\" has a field map over "
             << label.getFields().getNumDims()
             << " dimensions, but the operation has " << numIndexOperands
             << " index operands (the map's dimensions are those operands, in "
                "order)";
  }
  return success();
}
