//===- Passes.td - target lowerings ------------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_CONVERSION_PASSES_TD
#define TILETAG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVGPUPass : Pass<"tiletag-convert-to-nvgpu", "::mlir::ModuleOp"> {
  let summary = "Lower verified tile + schedule kernels to gpu + nvgpu for Hopper";
  let description = [{
    Turns every `tile.kernel` into a `gpu.func` kernel in one `gpu.module`
    (`@tiletag_kernels`) of a `gpu.container_module`. The schedule the
    checker proved is what the kernel does; the lowering adds no
    synchronization of its own beyond what executing one op on many threads
    needs (a barrier among the threads of one role after they fill a buffer):

    - warp roles become branches on the warpgroup index, with
      `nvvm.setmaxregister` for `regs`; each role runs its own copy of the
      loops around it (values of other roles are not computed there);
    - `tile.alloc_shared` rings live in dynamic shared memory, 1024-byte
      aligned; 2-D slots whose rows are a multiple of 128 bytes use the
      128-byte swizzle of TMA and wgmma, split into 128-byte column panels;
    - `schedule.mbarrier.*` become `nvgpu.mbarrier.*` (one elected thread
      arrives for its role); `schedule.async tma` copies into swizzled slots
      become `nvgpu.tma.async.load` with one tensor-map argument per global
      operand and box;
    - `schedule.async wgmma` dots whose operands are slots read from such
      rings become `nvgpu.warpgroup.mma` (the accumulator stays in registers
      across loop iterations; the following `commit_group` and `wait_group`
      become its commit and wait depth);
    - every other tile operation runs element-parallel on the threads of its
      role: element-wise ops are fused into their consumers, and what must
      be held (dot and reduce results, loop-carried tiles, loaded tiles) is
      kept in a per-program global workspace (the last kernel argument).

    The kernel's interface for a runner is recorded on the `gpu.func`:
    `tiletag.block` (threads), `tiletag.shared_bytes` (dynamic shared memory),
    `tiletag.workspace_bytes` (per program), `tiletag.tensor_maps` (per
    tensor-map argument: the global operand, box and swizzle),
    `tiletag.grid_rank`.

    Kernels that carry tags or schedule ops must have been proved
    (`tag.verified`, `schedule.verified`, set by `--tiletag-verify`);
    otherwise the pass fails, unless `allow-unverified` turns that into a
    warning.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::math::MathDialect"
  ];
  let options = [
    Option<"allowUnverified", "allow-unverified", "bool", /*default=*/"false",
           "Lower kernels whose tags or schedule were not proved (warns)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target GPU; the lowering emits wgmma, TMA and setmaxnreg, which "
           "need sm_90a">,
  ];
}

def WriteGPUBinaryPass : Pass<"tiletag-write-gpu-binary", "::mlir::ModuleOp"> {
  let summary = "Write the object of each gpu.binary (PTX or cubin) to a file";
  let description = [{
    After `gpu-module-to-binary`, writes the object of every `gpu.binary` to
    `path` (with several binaries, `path` gets `.<name>` inserted before its
    extension). Used by `--tiletag-compile-cuda=output=FILE`.
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"\"",
           "File to write">,
  ];
}

#endif // TILETAG_CONVERSION_PASSES_TD
