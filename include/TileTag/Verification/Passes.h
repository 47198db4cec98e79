//===- Passes.h - verification passes ---------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_PASSES_H
#define TILETAG_VERIFICATION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::verify {

#define GEN_PASS_DECL
#include "TileTag/Verification/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/Verification/Passes.h.inc"

} // namespace mlir::tiletag::verify

#endif // TILETAG_VERIFICATION_PASSES_H
