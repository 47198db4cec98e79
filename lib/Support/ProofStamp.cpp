//===- ProofStamp.cpp - proofs bound to the IR they proved ----------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Support/ProofStamp.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

/// The stamp attributes, which the hash leaves out.
static constexpr StringLiteral kStamps[] = {"tag.verified",
                                            "schedule.verified"};

/// The generic printed form of `op` without its stamps.
static void printUnstamped(Operation *op, raw_ostream &os) {
  // Set the stamps aside while printing: the hash covers everything else.
  SmallVector<std::pair<StringRef, Attribute>> saved;
  for (StringRef name : kStamps)
    if (Attribute a = op->getAttr(name)) {
      saved.push_back({name, a});
      op->removeAttr(name);
    }
  op->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  for (auto [name, a] : saved)
    op->setAttr(name, a);
}

std::string tiletag::proofHash(Operation *kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printUnstamped(kernel, os);
  // A contract proof holds for the reference it was proved against: a
  // changed (or missing) reference makes the stamp stale.
  if (auto ref = kernel->getAttrOfType<FlatSymbolRefAttr>("tag.contract")) {
    Operation *reference =
        kernel->getParentOp()
            ? SymbolTable::lookupNearestSymbolFrom(kernel->getParentOp(),
                                                   ref.getAttr())
            : nullptr;
    os << "\ncontract:";
    if (reference)
      printUnstamped(reference, os);
  }
  // A chain head's contract covers the kernels its launch runs after it
  // (the symbols its tile.launch names): a change to any makes it stale.
  SmallVector<Operation *> chain{kernel};
  for (size_t i = 0; i < chain.size() && kernel->getParentOp(); ++i) {
    Attribute launch = chain[i]->getAttr("tile.launch");
    if (!launch)
      continue;
    launch.walk([&](FlatSymbolRefAttr name) {
      Operation *next = SymbolTable::lookupNearestSymbolFrom(
          kernel->getParentOp(), name.getAttr());
      if (next && !llvm::is_contained(chain, next)) {
        chain.push_back(next);
        os << "\nthen:";
        printUnstamped(next, os);
      }
    });
  }
  std::string hex;
  llvm::raw_string_ostream(hex)
      << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  return hex;
}

void tiletag::stampProof(Operation *kernel, StringRef attrName) {
  kernel->setAttr(attrName,
                  StringAttr::get(kernel->getContext(), proofHash(kernel)));
}

tiletag::StampState tiletag::stampState(Operation *kernel,
                                        StringRef attrName) {
  auto stamp = kernel->getAttrOfType<StringAttr>(attrName);
  if (!stamp)
    return StampState::Missing;
  return stamp.getValue() == proofHash(kernel) ? StampState::Valid
                                               : StampState::Stale;
}
