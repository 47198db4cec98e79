// The bundled kernels without Hopper-only schedule constructs compile for
// CDNA3 (gfx942) and CDNA2 (gfx90a): their dots run on MFMA, their padded
// loads from kernel operands are buffer loads (the hardware's bounds check
// gives the zero padding at ragged edges), and format=bin links an HSA code
// object that llvm-objdump disassembles.
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.gemm.s" -o /dev/null
// RUN: FileCheck %s --check-prefixes=GEMM,NOSPILL < %t.gemm.s
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-compile-rocm="chip=gfx90a format=isa output=%t.gemm90a.s" -o /dev/null
// RUN: FileCheck %s --check-prefixes=GEMM90A,NOSPILL < %t.gemm90a.s
// RUN: tiletag-opt %examples/naive/moe.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.moe.s" -o /dev/null
// RUN: FileCheck %s --check-prefixes=MFMA,NOSPILL < %t.moe.s
// RUN: tiletag-opt %examples/naive/attention.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.attention.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=ATTN < %t.attention.s
// RUN: tiletag-opt %examples/gemm_splitk.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.splitk.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=MFMA < %t.splitk.s
// RUN: tiletag-opt %examples/softmax.mlir --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.softmax.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=NOSPILL < %t.softmax.s
// RUN: tiletag-opt %examples/layernorm.mlir --tiletag-compile-rocm="chip=gfx90a format=isa output=%t.layernorm.s" -o /dev/null
// RUN: FileCheck %s --check-prefixes=BUF,NOSPILL < %t.layernorm.s
// RUN: tiletag-opt %examples/naive/gemm.mlir --tiletag-compile-rocm="chip=gfx942 output=%t.gemm.hsaco" | FileCheck %s --check-prefix=BIN
// RUN: od -c -N 4 %t.gemm.hsaco | FileCheck %s --check-prefix=ELF
// RUN: llvm-objdump -d %t.gemm.hsaco | FileCheck %s --check-prefix=DISASM
// RUN: llvm-readelf --notes %t.gemm.hsaco | FileCheck %s --check-prefix=NOTES

// GEMM: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GEMM: buffer_load_ushort
// GEMM: v_mfma_f32_16x16x16_bf16
// GEMM90A: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
// GEMM90A: v_mfma_f32_16x16x16bf16_1k
// MFMA: v_mfma_f32_16x16x16_bf16
// BUF: buffer_load_dword
// ATTN-DAG: .name: attention_fwd_d64
// ATTN-DAG: .name: attention_fwd_d128
// ATTN-DAG: v_mfma_f32_16x16x16_bf16

// NOSPILL-NOT: .vgpr_spill_count: {{[1-9]}}
// NOSPILL-NOT: .sgpr_spill_count: {{[1-9]}}

// BIN: gpu.binary @tiletag_kernels [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">, bin =
// ELF: 177   E   L   F
// DISASM: v_mfma_f32_16x16x16_bf16
// NOTES: .wavefront_size: 64
