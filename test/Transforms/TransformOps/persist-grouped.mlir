// A grouped persistent GEMM: rasterize groups 8 row blocks, persist keeps
// that launch order for its tiles (t = (c * (N ceildiv 128) + j) * 8 + a for
// row c * 8 + a, column j), and the ring runs on across them. Proved for
// every M, N, K and P, matches the oracle where the row blocks are not a
// multiple of 8, and lowers to PTX that ptxas accepts without spills.
// REQUIRES: ptxas, plain-build
// (The sanitizer build runs the same rewrites in gemm-persistent-script.test.)
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --kernel gemm --size M=1100,N=300,K=200,P=5 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-opt %t.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// Tiles counted and decoded with 7 rows a group where the rasterized row is
// c * 8 + a: the last row block of each group is never stored.
// RUN: sed -e 's/%%c8 = arith.constant 8 : index/%%c8 = arith.constant 7 : index/' %t.mlir > %t.bad.mlir
// RUN: not diff -q %t.mlir %t.bad.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify=fail-fast %t.bad.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: the kernel never stores a block of C that the reference's store here stores

// CHECK: #[[PMAP:.*]] = affine_map<(d0, d1)[s0, s1, s2, s3] -> ((((d0 floordiv 8) * (s1 ceildiv 128) + d1) * 8 + d0 mod 8) mod s3, (((d0 floordiv 8) * (s1 ceildiv 128) + d1) * 8 + d0 mod 8) floordiv s3)>
// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: grid(1)
// CHECK-SAME: tag.program_map = #[[PMAP]]
// CHECK-SAME: tag.verified = "
// CHECK-SAME: grid = [P]
// CHECK: schedule.role "producer"
// CHECK: schedule.async tma arrive
// CHECK: schedule.async wgmma
// CHECK: schedule.wait_group tma pending 1
// ORACLE: check gemm: C matches
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %grouped = transform.tiletag.rasterize %kernel dim(0) group(8)
        : (!transform.any_op) -> !transform.any_op
    %persistent = transform.tiletag.persist %grouped
        : (!transform.any_op) -> !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %persistent
        : (!transform.any_op) -> !transform.any_op
    %k_loop, %tile_loop = transform.split_handle %loops
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %staged = transform.tiletag.stage_loads %k_loop stages(3)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    %epilogue = transform.tiletag.stage_stores %persistent buffers(2)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %epilogue : !transform.any_op
    transform.yield
  }
}
