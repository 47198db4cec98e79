// Every bundled example compiles to sm_90a PTX that ptxas accepts without
// spilling. Attention's K/V ring is filled by TMA and guarded by mbarriers;
// its dots run on wgmma: Q, K^T and P are staged into swizzled shared memory
// (then fenced for the async proxy), V is read in place from its slot.
// Split-k and MoE stage their loaded tiles for wgmma the same way.
// REQUIRES: ptxas
// RUN: tiletag-opt %examples/attention.mlir --tiletag-compile-cuda="format=isa output=%t.attention.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=ATTN < %t.attention.ptx
// RUN: %ptxas -arch=sm_90a -v %t.attention.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// Every dot of both head dims on wgmma: d64's QK^T and PV (8 m64n64k16
// each), d128's QK^T in one group per 64-wide panel of its head dim (16
// m64n64k16) and PV (8 m64n128k16).
// The P V accumulator stays in wgmma registers across the key loop: each
// step rescales it register by register and feeds the result to the next
// wgmma as its accumulator (no workspace round trip). In d64 the scores
// stay in registers too: the masked scores and then P are computed once
// into registers of their own, their row maximum and sum fold each
// thread's registers and then the 4 lanes of a row (shuffles by xor 1 and
// 2), and P goes from the registers into its wgmma staging slot, a bf16
// pair per store. In d128 the consumer's 256 registers hold the 128 of the
// P V accumulator but not the scores' 64 beside it and the rest ptxas needs,
// so the scores go through memory there.
// RUN: tiletag-opt %examples/attention.mlir --tiletag-verify --tiletag-convert-to-nvgpu | FileCheck %s --check-prefix=ATTN-IR
// Q arrives by TMA into a slot that wgmma reads in place, and so does K^T (a
// K-major B). In d64 nothing goes through the workspace: the row maximum
// and sum stay in the registers of the rows each thread holds (4 of the
// 128), carried by the key loop beside the accumulator; P goes to the P V
// wgmma from registers, packed from the scores' (not through shared
// memory); the accumulator that wgmma adds to is O * alpha, built in
// registers. In d128 the workspace holds the scores and the row statistics
// their element-parallel softmax reads.
// ATTN-IR-LABEL: gpu.func @attention_fwd_d64(
// ATTN-IR-SAME: workspace_bytes = 0
// ATTN-IR: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, !nvgpu.warpgroup.accumulator<fragmented = vector<128x64xf32>>)
// ATTN-IR: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}} : f32
// ATTN-IR: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}} : f32
// ATTN-IR: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to !nvgpu.warpgroup.accumulator<fragmented = vector<128x64xf32>>
// ATTN-IR: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}} : f32
// ATTN-IR: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}} : f32
// ATTN-IR-NOT: vector.store {{.*}}vector<2xbf16>
// ATTN-IR: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// ATTN-IR: %[[ACC64:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to !nvgpu.warpgroup.accumulator<fragmented = vector<128x64xf32>>
// ATTN-IR: builtin.unrealized_conversion_cast %[[ACC64]] : !nvgpu.warpgroup.accumulator<fragmented = vector<128x64xf32>> to !llvm.struct
// ATTN-IR: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// ATTN-IR-LABEL: gpu.func @attention_fwd_d128(
// ATTN-IR-SAME: workspace_bytes = 34304
// ATTN-IR: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>)
// ATTN-IR-NOT: gpu.shuffle  xor
// ATTN-IR: llvm.insertvalue
// ATTN-IR: %[[ACC128:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
// ATTN-IR: nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC128]]
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n64k16" %t.attention.ptx | FileCheck %s --check-prefix=N64
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k16" %t.attention.ptx | FileCheck %s --check-prefix=N128
// N64: {{^}}32{{$}}
// N128: {{^}}8{{$}}
// RUN: tiletag-opt %examples/gemm_wide.mlir --tiletag-compile-cuda="format=isa output=%t.wide.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.wide.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=WIDE < %t.wide.ptx
// RUN: tiletag-opt %examples/gemm_splitk.mlir --tiletag-compile-cuda="format=isa output=%t.splitk.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.splitk.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=WGMMA < %t.splitk.ptx
// RUN: tiletag-opt %examples/moe.mlir --tiletag-compile-cuda="format=isa output=%t.moe.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.moe.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: FileCheck %s --check-prefix=WGMMA < %t.moe.ptx
// RUN: tiletag-opt %examples/softmax.mlir --tiletag-compile-cuda="format=isa output=%t.softmax.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.softmax.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// RUN: tiletag-opt %examples/layernorm.mlir --tiletag-compile-cuda="format=isa output=%t.layernorm.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.layernorm.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// cubin straight from tiletag-opt (ptxas through gpu-module-to-binary).
// RUN: tiletag-opt %examples/softmax.mlir --tiletag-compile-cuda="format=bin output=%t.cubin" | FileCheck %s --check-prefix=BIN
// RUN: od -c -N 4 %t.cubin | FileCheck %s --check-prefix=ELF

// ATTN-DAG: .entry attention_fwd_d64(
// ATTN-DAG: .entry attention_fwd_d128(
// ATTN-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// ATTN-DAG: mbarrier.try_wait.parity.shared.b64
// ATTN-DAG: mbarrier.arrive.expect_tx.shared.b64
// Each role's budget, stated on its loop body's op and not on the op that
// first names the role (the query block's copy and wait), holds from the
// role's entry.
// ATTN-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// ATTN-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}240;
// ATTN-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}256;
// ATTN-DAG: fence.proxy.async.shared::cta
// ATTN-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// ATTN-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// ATTN-DAG: wgmma.wait_group.sync.aligned 0

// WIDE-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// WIDE-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// WIDE-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WIDE-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// WIDE-DAG: mbarrier.try_wait.parity.shared.b64

// WGMMA: fence.proxy.async.shared::cta
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// NOSPILL-NOT: error
// NOSPILL-NOT: instructions are serialized
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}

// BIN: gpu.binary @tiletag_kernels
// ELF: 177   E   L   F
