//===- InitAll.h - register every TileTag dialect and pass ------*- C++ -*-===//
//
// Part of the TileTag project.
//
// The one registration point: tiletag-opt and every other tool or embedding
// compiler call these.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_INITALL_H
#define TILETAG_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tiletag {

/// Registers the tile, tag and schedule dialects (and, in a build with
/// verification, the transform.tiletag extension).
void registerTileTagDialects(DialectRegistry &registry);

/// Registers TileTag's dialects plus the upstream dialects and dialect
/// extensions that TileTag pipelines use (func, arith, math, scf, memref,
/// tensor, linalg, gpu, nvgpu, nvvm, amdgpu, rocdl, llvm, transform).
void registerAllDialects(DialectRegistry &registry);

/// Registers TileTag's passes (without verification: the strip, describe
/// and estimate passes only).
void registerTileTagPasses();

/// Registers TileTag's passes and the upstream passes.
void registerAllPasses();

} // namespace mlir::tiletag

#endif // TILETAG_INITALL_H
