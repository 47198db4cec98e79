//===- Passes.h - cost model passes -----------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_COSTMODEL_PASSES_H
#define TILETAG_COSTMODEL_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::cost {

#define GEN_PASS_DECL
#include "TileTag/CostModel/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/CostModel/Passes.h.inc"

} // namespace mlir::tiletag::cost

#endif // TILETAG_COSTMODEL_PASSES_H
