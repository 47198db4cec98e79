//===- ProofStamp.h - proofs bound to the IR they proved --------*- C++ -*-===//
//
// Part of the TileTag project.
//
// A checker that proves a kernel stamps it (`tag.verified`,
// `schedule.verified`) with a structural hash of the kernel as it was proved.
// Any later change -- a canonicalization, CSE, a transform step -- changes
// the hash, so the stamp no longer matches and the lowering refuses the
// kernel until it is verified again.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_SUPPORT_PROOFSTAMP_H
#define TILETAG_SUPPORT_PROOFSTAMP_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tiletag {

/// The structural hash of `kernel` without its proof stamps: its generic
/// printed form (no locations, no SSA names), hashed; with a contract
/// (tag.contract), that of the reference kernel too.
std::string proofHash(Operation *kernel);

/// Stamps `kernel` with `attrName` = its current proofHash.
void stampProof(Operation *kernel, StringRef attrName);

/// How a kernel's stamp stands.
enum class StampState { Missing, Stale, Valid };
StampState stampState(Operation *kernel, StringRef attrName);

} // namespace mlir::tiletag

#endif // TILETAG_SUPPORT_PROOFSTAMP_H
