// The main GEMM (examples/gemm.mlir: 128x128x64 tiles, 4-stage TMA ring,
// producer and consumer warpgroups) compiles to sm_90a PTX with TMA loads,
// mbarrier waits, wgmma and register reallocation, and ptxas accepts it
// without spilling.
// REQUIRES: ptxas
// RUN: tiletag-opt %examples/gemm.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o %t.mlir
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=HAS < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=MLIR < %t.mlir

// CHECK: .target sm_90a
// CHECK: .entry gemm(
// CHECK: mbarrier.init.shared.b64
// CHECK: setmaxnreg.dec
// CHECK: setmaxnreg.inc
// HAS-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// HAS-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// HAS-DAG: mbarrier.arrive.expect_tx.shared.b64
// HAS-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// HAS-DAG: mbarrier.try_wait.parity.shared.b64
// HAS-DAG: mbarrier.arrive.shared.b64
// CHECK: wgmma.fence.sync.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;

// The warpgroup index is broadcast with shfl.sync so that ptxas sees the role
// branches as warp-uniform (else it serializes the wgmmas), and the CTA count
// per SM lets it honour setmaxnreg.
// HAS-DAG: .minnctapersm 1
// HAS-DAG: shfl.sync.idx.b32

// PTXAS-NOT: setmaxnreg' ignored
// PTXAS-NOT: instructions are serialized
// PTXAS: Compiling entry function 'gemm' for 'sm_90a'
// PTXAS-NOT: setmaxnreg' ignored
// PTXAS-NOT: instructions are serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// MLIR: gpu.binary @tiletag_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
