//===- Passes.h - target lowerings ------------------------------*- C++ -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_CONVERSION_PASSES_H
#define TILETAG_CONVERSION_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletag::conversion {

#define GEN_PASS_DECL
#include "TileTag/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TileTag/Conversion/Passes.h.inc"

/// Options every `tiletag-compile-*` pipeline has.
template <typename Derived>
struct CompileOptions : public PassPipelineOptions<Derived> {
  using Base = PassPipelineOptions<Derived>;
  typename Base::template Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level"),
      llvm::cl::init(3)};
  typename Base::template Option<bool> verify{
      *this, "verify",
      llvm::cl::desc("Prove tags and schedule first (--tiletag-verify)"),
      llvm::cl::init(true)};
  typename Base::template Option<bool> allowUnverified{
      *this, "allow-unverified",
      llvm::cl::desc("Lower kernels that were not proved (warns)"),
      llvm::cl::init(false)};
  typename Base::template Option<bool> reportFallbacks{
      *this, "report-fallbacks",
      llvm::cl::desc("Remark at each op the lowering runs on a slower path "
                     "than the target offers"),
      llvm::cl::init(false)};
};

/// Options of the `tiletag-compile-cuda` pipeline.
struct CompileCUDAOptions : public CompileOptions<CompileCUDAOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target GPU"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features"),
                               llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX), bin (cubin), "
                     "fatbin, or offload (LLVM IR)"),
      llvm::cl::init("bin")};
  Option<std::string> output{*this, "output",
                             llvm::cl::desc("Also write the PTX/cubin here"),
                             llvm::cl::init("")};
};

/// Tile IR to PTX or cubin for NVIDIA Hopper: verify, lower to gpu + nvgpu,
/// then NVVM, PTX and (through ptxas) cubin.
void buildCompileCUDAPipeline(OpPassManager &pm,
                              const CompileCUDAOptions &options);

/// Options of the `tiletag-compile-rocm` pipeline.
struct CompileROCMOptions : public CompileOptions<CompileROCMOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU: gfx942, gfx940, gfx941 or gfx90a"),
      llvm::cl::init("gfx942")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (AMDGPU assembly), bin "
                     "(an HSA code object, linked with ld.lld), or llvm "
                     "(LLVM bitcode)"),
      llvm::cl::init("bin")};
  Option<std::string> output{
      *this, "output", llvm::cl::desc("Also write the assembly/HSACO here"),
      llvm::cl::init("")};
};

/// Tile IR to AMDGPU assembly or an HSACO for AMD CDNA: verify, lower to
/// gpu + amdgpu, then ROCDL, LLVM's AMDGPU back end and ld.lld.
void buildCompileROCMPipeline(OpPassManager &pm,
                              const CompileROCMOptions &options);
/// Its part after --tiletag-convert-to-amdgpu: gpu + amdgpu to a gpu.binary.
void buildROCMBinaryPipeline(OpPassManager &pm,
                             const CompileROCMOptions &options);

/// `--tiletag-compile-cuda` and `--tiletag-compile-rocm`.
void registerCompileCUDAPipeline();
void registerCompileROCMPipeline();

} // namespace mlir::tiletag::conversion

#endif // TILETAG_CONVERSION_PASSES_H
