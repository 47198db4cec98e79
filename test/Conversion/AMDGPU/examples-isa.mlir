// The plain GEMM's assembly for CDNA3 (gfx942) and CDNA2 (gfx90a): its dot
// runs on the chip's bf16 MFMA, its padded loads from kernel operands are
// buffer loads (the hardware's bounds check gives the zero padding at
// ragged edges), nothing spills; format=bin links an HSA code object whose
// metadata says wave64. (examples-all.test compiles every kernel.)
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.gemm.s" -o /dev/null
// RUN: FileCheck %s --check-prefixes=GEMM,NOSPILL < %t.gemm.s
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-compile-rocm="chip=gfx90a format=isa output=%t.gemm90a.s" -o /dev/null
// RUN: FileCheck %s --check-prefixes=GEMM90A,NOSPILL < %t.gemm90a.s
// RUN: tiletag-opt %examples/softmax.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.softmax.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=NOSPILL < %t.softmax.s
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-compile-rocm="chip=gfx942 output=%t.gemm.hsaco" | FileCheck %s --check-prefix=BIN
// RUN: od -c -N 4 %t.gemm.hsaco | FileCheck %s --check-prefix=ELF
// RUN: llvm-objdump -d %t.gemm.hsaco | FileCheck %s --check-prefix=DISASM
// RUN: llvm-readelf --notes %t.gemm.hsaco | FileCheck %s --check-prefix=NOTES

// GEMM: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GEMM: buffer_load_ushort
// GEMM: v_mfma_f32_32x32x8_bf16
// GEMM90A: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
// GEMM90A: v_mfma_f32_32x32x8bf16_1k

// NOSPILL-NOT: .vgpr_spill_count: {{[1-9]}}
// NOSPILL-NOT: .sgpr_spill_count: {{[1-9]}}

// BIN: gpu.binary @tiletag_kernels [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">, bin =
// ELF: 177   E   L   F
// DISASM: v_mfma_f32_32x32x8_bf16
// NOTES: .wavefront_size: 64
