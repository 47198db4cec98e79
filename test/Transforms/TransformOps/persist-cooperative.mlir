// The recipe gemm-persistent-cooperative on the plain GEMM: 256x128 tiles
// (coarsen), persistent (persist), a 2-slot ring that runs on across tiles
// for two consumer warpgroups, each with its own empty barriers and its own
// TMA-store buffer. Proved, matches the oracle, and compiles without spills.
// REQUIRES: ptxas, plain-build
// (The sanitizer build runs the same rewrites in gemm-persistent-script.test.)
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --kernel gemm --size M=300,N=200,K=200,P=3 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-opt %t.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 3>
// CHECK-SAME: schedule.verified = "
// CHECK-SAME: tag.verified = "
// CHECK: %[[FULL:.*]] = schedule.mbarrier.init count 1 : <2>
// CHECK: %[[EMPTY0:.*]] = schedule.mbarrier.init count 1 : <2>
// CHECK: %[[EMPTY1:.*]] = schedule.mbarrier.init count 1 : <2>
// CHECK: scf.for
// CHECK: schedule.role "consumer0" warpgroups [1] {
// CHECK-NEXT: schedule.wait_group wgmma pending 0
// CHECK: schedule.mbarrier.arrive %[[EMPTY0]]
// CHECK: schedule.role "consumer1" warpgroups [2] {
// CHECK-NEXT: schedule.wait_group wgmma pending 0
// CHECK: schedule.mbarrier.arrive %[[EMPTY1]]
// The steps past K: the producer waits for both consumers' releases.
// CHECK: schedule.role "producer" warpgroups [0] regs 40 {
// CHECK: schedule.mbarrier.wait %[[EMPTY0]]
// CHECK-NEXT: schedule.mbarrier.wait %[[EMPTY1]]
// CHECK: schedule.mbarrier.arrive %[[FULL]]
// CHECK: schedule.role "consumer0" warpgroups [1] regs 232 {
// CHECK: schedule.mbarrier.arrive %[[EMPTY0]]
// CHECK: schedule.role "consumer1" warpgroups [2] regs 232 {
// CHECK: schedule.mbarrier.arrive %[[EMPTY1]]
// ORACLE: check gemm: C matches
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %tall = transform.tiletag.coarsen %kernel dim(0) factor(2)
        : (!transform.any_op) -> !transform.any_op
    %persistent = transform.tiletag.persist %tall
        : (!transform.any_op) -> !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %persistent
        : (!transform.any_op) -> !transform.any_op
    %k_loop, %tile_loop = transform.split_handle %loops
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %staged = transform.tiletag.stage_loads %k_loop stages(2)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232, consumers = 2}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    %epilogue = transform.tiletag.stage_stores %persistent buffers(1)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %epilogue : !transform.any_op
    transform.yield
  }
}
