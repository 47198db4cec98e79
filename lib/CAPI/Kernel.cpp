//===- Kernel.cpp - C API: tile.kernel accessors --------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Kernel.h"

#include "TileTag/Dialect/Schedule/IR/ScheduleDialect.h"
#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Support/ProofStamp.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tiletag;

static tile::KernelOp kernelOf(MlirOperation op) {
  return llvm::cast<tile::KernelOp>(unwrap(op));
}

/// A string the context owns (uniqued as a StringAttr), so that the C
/// caller need not free it.
static MlirStringRef interned(tile::KernelOp kernel, StringRef text) {
  return wrap(StringAttr::get(kernel.getContext(), text).getValue());
}

static tile::LaunchAttr launchOf(MlirOperation kernel) {
  return unwrap(kernel)->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
}

bool tiletagOperationIsAKernel(MlirOperation op) {
  return llvm::isa<tile::KernelOp>(unwrap(op));
}

intptr_t tiletagModuleGetNumKernels(MlirModule module) {
  auto ops = unwrap(module).getOps<tile::KernelOp>();
  return std::distance(ops.begin(), ops.end());
}

MlirOperation tiletagModuleGetKernel(MlirModule module, intptr_t pos) {
  auto ops = unwrap(module).getOps<tile::KernelOp>();
  tile::KernelOp kernel = *std::next(ops.begin(), pos);
  return wrap(kernel.getOperation());
}

MlirOperation tiletagModuleLookupKernel(MlirModule module, MlirStringRef name) {
  auto kernel = unwrap(module).lookupSymbol<tile::KernelOp>(unwrap(name));
  return wrap(kernel ? kernel.getOperation() : nullptr);
}

MlirStringRef tiletagKernelGetName(MlirOperation kernel) {
  return wrap(kernelOf(kernel).getSymName());
}

intptr_t tiletagKernelGetGridRank(MlirOperation kernel) {
  return kernelOf(kernel).getGridAttr().getInt();
}

intptr_t tiletagKernelGetNumOperands(MlirOperation kernel) {
  return kernelOf(kernel).getArgumentTypes().size();
}

MlirStringRef tiletagKernelGetOperandName(MlirOperation kernel, intptr_t pos) {
  tile::KernelOp k = kernelOf(kernel);
  return interned(k, k.getOperandName(pos));
}

MlirType tiletagKernelGetOperandType(MlirOperation kernel, intptr_t pos) {
  return wrap(kernelOf(kernel).getArgumentTypes()[pos]);
}

MlirStringRef tiletagKernelGetContract(MlirOperation kernel) {
  if (auto ref = unwrap(kernel)->getAttrOfType<FlatSymbolRefAttr>(
          tag::TagDialect::kContractAttrName))
    return wrap(ref.getValue());
  return mlirStringRefCreate(nullptr, 0);
}

bool tiletagKernelHasLaunch(MlirOperation kernel) {
  return static_cast<bool>(launchOf(kernel));
}

intptr_t tiletagKernelGetNumSizes(MlirOperation kernel) {
  tile::LaunchAttr launch = launchOf(kernel);
  return launch ? launch.getSizeNames().size() : 0;
}

MlirStringRef tiletagKernelGetSizeName(MlirOperation kernel, intptr_t pos) {
  return wrap(launchOf(kernel).getSizeNames()[pos].getValue());
}

int64_t tiletagKernelGetSizeDefault(MlirOperation kernel, intptr_t pos) {
  return launchOf(kernel).getSizeDefaults()[pos];
}

MlirStringRef tiletagKernelGetCheck(MlirOperation kernel) {
  tile::LaunchAttr launch = launchOf(kernel);
  if (launch && launch.getCheck())
    return wrap(launch.getCheck().getValue());
  return mlirStringRefCreate(nullptr, 0);
}

intptr_t tiletagKernelGetNumThen(MlirOperation kernel) {
  tile::LaunchAttr launch = launchOf(kernel);
  return launch ? launch.getThen().size() : 0;
}

MlirStringRef tiletagKernelGetThen(MlirOperation kernel, intptr_t pos) {
  return wrap(launchOf(kernel).getThen()[pos].getValue());
}

bool tiletagKernelHasCurrentTagProof(MlirOperation kernel) {
  return stampState(unwrap(kernel), tag::TagDialect::kVerifiedAttrName) ==
         StampState::Valid;
}

bool tiletagKernelHasCurrentScheduleProof(MlirOperation kernel) {
  return stampState(unwrap(kernel),
                    schedule::ScheduleDialect::kVerifiedAttrName) ==
         StampState::Valid;
}
