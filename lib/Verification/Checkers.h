//===- Checkers.h - the checkers behind checkKernel -------------*- C++ -*-===//
//
// Part of the TileTag project.
//
// Private to the verification library: checkKernel (CheckKernel.cpp) runs
// these on one kernel with its own Z3 context and prover.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_LIB_VERIFICATION_CHECKERS_H
#define TILETAG_LIB_VERIFICATION_CHECKERS_H

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Verification/Prover.h"

#include <string>

namespace mlir::tiletag::verify {

/// What one checker concluded, with a summary for the stats remark.
struct CheckerResult {
  bool proved;
  std::string summary;
};

/// Proves the tag assertions, in-range unchecked accesses, slot bounds and
/// initialized slot reads (VerifyTags.cpp).
CheckerResult checkTags(tile::KernelOp kernel, z3::context &ctx,
                        Prover &prover);

/// Proves that the parallel schedule computes the sequential result
/// (VerifySchedule.cpp).
CheckerResult checkSchedule(tile::KernelOp kernel, z3::context &ctx,
                            Prover &prover);

/// Proves that the kernel computes what its reference kernel
/// (`tag.contract`) computes (VerifyContract.cpp); a kernel without a
/// contract passes with the summary "no contract".
CheckerResult checkContract(tile::KernelOp kernel, z3::context &ctx,
                            Prover &prover);

} // namespace mlir::tiletag::verify

#endif // TILETAG_LIB_VERIFICATION_CHECKERS_H
