//===- Passes.td - cost model passes -----------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_COSTMODEL_PASSES_TD
#define TILETAG_COSTMODEL_PASSES_TD

include "mlir/Pass/PassBase.td"

def EstimatePass : Pass<"tiletag-estimate", "::mlir::ModuleOp"> {
  let summary = "Estimate each kernel's time on a GPU at given problem sizes";
  let description = [{
    An analytic estimate, not a measurement (lib/CostModel): every program
    of the grid is walked with its index arithmetic evaluated exactly at the
    sizes given, its tile operations counted (tensor-core FLOPs, element
    operations, bytes loaded by threads or by TMA, bytes stored, and what
    the chip's lowering would hold in its global workspace, stored and
    loaded back at each run); each loop's
    time follows from how its loads overlap its compute (prefetched ring
    slots hide the memory latency up to the ring's depth; loads the
    computing threads wait for expose it every iteration); programs fill
    the SMs' CTA slots in launch order (occupancy from registers, shared
    memory and threads; wave quantization); the kernel takes at least the
    DRAM time of what misses L2, modelled as least recently used over
    every program's tile reads in time order (so the order in which
    programs take their tiles counts). The figure comes with the
    assumptions it rests on.

    The kernels estimated are those no other kernel names as its contract
    (`tag.contract`), or the one named by `kernel`. Kernels chained by
    `tile.launch`'s `then` are summed in the JSON's `time_us`.

    Example: `tiletag-opt --tiletag-estimate="sizes=M=8192,N=8192,K=8192
    format=json" -o /dev/null examples/gemm_wide.mlir`.
  }];
  // What the lowerings build when they plan the kernel for the estimate
  // (cost::registerLoweringPlanner).
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target chip whose model to use (sm_90a: NVIDIA H200; gfx942: "
           "AMD MI300X; gfx90a: one die of an AMD MI250X)">,
    Option<"sizes", "sizes", "std::string", /*default=*/"\"\"",
           "Problem sizes and scalar integer operands as NAME=VALUE,... "
           "(default: the kernel's 'tile.launch' sizes; scalars 0)">,
    Option<"kernelName", "kernel", "std::string", /*default=*/"\"\"",
           "Estimate only this kernel">,
    Option<"registers", "regs", "int64_t", /*default=*/"0",
           "Registers per thread (from ptxas, or the HSACO's VGPR count); "
           "0: from the roles' budgets or the model's default">,
    Option<"calibration", "calibration", "std::string", /*default=*/"\"\"",
           "JSON file overriding the model's constants (measured on a GPU)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "`text`: a summary per kernel on stdout; `json`: one JSON object">,
  ];
}

#endif // TILETAG_COSTMODEL_PASSES_TD
