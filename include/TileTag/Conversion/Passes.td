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
      operand and box; copies out of them (TMA stores) become
      `nvgpu.tma.async.store`, issued after the role's threads meet, and
      their `commit_group` / `wait_group tma` the bulk-group commit and wait
      of the issuing thread (`.read` unless the kernel accesses the stored
      operand otherwise), after which the role meets again;
    - `schedule.async wgmma` dots whose operands are slots read from such
      rings become `nvgpu.warpgroup.mma` (the accumulator stays in registers
      across loop iterations; the following `commit_group` and `wait_group`
      become its commit and wait depth);
    - every other tile operation runs element-parallel on the threads of its
      role: element-wise ops are fused into their consumers, and what must
      be held (dot and reduce results, loop-carried tiles, loaded tiles) is
      kept in a per-program global workspace (the last kernel argument).
      `report-fallbacks` makes each such slower path a remark at its op
      (a dot on the SIMT cores, a staged wgmma operand, a tile held in the
      workspace), with what it costs and why.

    The kernel's interface for a runner is recorded on the `gpu.func` in
    one dictionary, `tiletag.abi`: `block` (threads), `grid_rank`,
    `shared_bytes` (dynamic shared memory), `workspace_bytes` (per
    program), `tensor_maps` (per tensor-map argument: the global operand,
    box and swizzle) and `wgmma`.

    Kernels that carry tags or schedule ops must have been proved
    (`tag.verified`, `schedule.verified`, set by `--tiletag-verify`);
    otherwise the pass fails, unless `allow-unverified` turns that into a
    warning.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::math::MathDialect", "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"allowUnverified", "allow-unverified", "bool", /*default=*/"false",
           "Lower kernels whose tags or schedule were not proved (warns)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target GPU; the lowering emits wgmma, TMA and setmaxnreg, which "
           "need sm_90a">,
    Option<"reportFallbacks", "report-fallbacks", "bool", /*default=*/"false",
           "Emit a remark at each op the lowering runs on a slower path than "
           "the target offers (SIMT dots, staged wgmma operands, tiles held "
           "in the global workspace)">,
  ];
}

def ConvertTileToAMDGPUPass : Pass<"tiletag-convert-to-amdgpu", "::mlir::ModuleOp"> {
  let summary = "Lower verified tile + schedule kernels to gpu + amdgpu for CDNA";
  let description = [{
    Turns every `tile.kernel` into a `gpu.func` kernel in one `gpu.module`
    (`@tiletag_kernels`) of a `gpu.container_module`, for AMD CDNA2/CDNA3
    (gfx90a, gfx940-gfx942; wave64). It shares its core with
    `--tiletag-convert-to-nvgpu` (warp roles, shared rings, element-parallel
    code, addressing, the runner attributes); what differs:

    - `tile.dot` with bf16 or f16 operands and an f32 result whose shape is
      made of 16x16x16 blocks runs on MFMA (`amdgpu.mfma` 16x16x16): the
      group's waves share the 16x16 blocks of the accumulator (block b on
      wave b mod waves), which stays in registers along `scf.for` chains
      that start from zero, and `tile.store` writes it from the registers;
      a dot in a `schedule.async wgmma` or `mfma` region that does not
      qualify is refused with the reason;
    - loads padded with zero from kernel operands are `amdgpu.raw_buffer_load`:
      an element out of range reads past the buffer, where the hardware's
      bounds check returns zero, so ragged edges need no branch (32-bit
      offsets: operands up to 2 GiB);
    - `tile.alloc_shared` rings are in LDS (128-byte aligned), slots with
      128-byte-multiple rows under the 128-byte XOR swizzle (fewer bank
      conflicts for MFMA operand reads), others row-major;
    - Hopper's schedule constructs are translated: an mbarrier is a 64-bit
      LDS word changed only by atomic adds (phase, pending arrivals and
      bytes), whose wait spins on the phase's parity; a TMA copy is copied
      element-parallel by its role's threads, which then count its bytes on
      the mbarrier (a TMA store is copied the same way, and the role meets
      at its `wait_group`); a warp role's barrier is a software barrier in LDS
      between its waves; `regs` has no meaning (registers are allocated per
      kernel);
    - `schedule.fence_async_proxy` has nothing to order (no async proxy)
      and `wait_group` nothing to wait for (MFMA is synchronous).

    Thread-block clusters are refused, by both lowerings. The runner
    interface is `tiletag.abi` as on Hopper, with `mfma` as the target's
    entry.

    Kernels that carry tags or schedule ops must have been proved
    (`--tiletag-verify`); otherwise the pass fails, unless
    `allow-unverified` turns that into a warning.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::scf::SCFDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"allowUnverified", "allow-unverified", "bool", /*default=*/"false",
           "Lower kernels whose tags or schedule were not proved (warns)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target GPU: gfx942 (MI300X), gfx940, gfx941 or gfx90a (MI200)">,
    Option<"reportFallbacks", "report-fallbacks", "bool", /*default=*/"false",
           "Emit a remark at each op the lowering runs on a slower path than "
           "the target offers (SIMT dots, tiles held in the global "
           "workspace)">,
  ];
}

def LinkHSACOPass : Pass<"tiletag-link-hsaco", "::mlir::ModuleOp"> {
  let summary = "Turn the AMDGPU assembly of each gpu.binary into an HSACO";
  let description = [{
    After `gpu-module-to-binary{format=isa}` on ROCDL-targeted modules:
    assembles each object's AMDGPU assembly in process (LLVM's AMDGPU
    back end) and links it into an HSA code object with `ld.lld -shared`
    (`linker`, by default the one of the LLVM TileTag was built with), which
    replaces the assembly as the object (format `bin`). Used by
    `--tiletag-compile-rocm=format=bin`: unlike `gpu-module-to-binary`'s own
    `bin`, it needs no ROCm installation.
  }];
  let options = [
    Option<"linker", "linker", "std::string", /*default=*/"\"\"",
           "ld.lld to link with (default: the build's LLVM's)">,
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
