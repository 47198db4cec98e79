// transform.tiletag.rasterize on the plain GEMM, then the pipeline of
// examples/scripts/gemm.mlir: programs launch in groups of 8 row blocks
// (grid [8, N ceildiv 128, (M ceildiv 128) ceildiv 8], row = c * 8 + a),
// the kernel records which program stores each reference block
// (tag.program_map), and the result is proved, matches the oracle where the
// row blocks are not a multiple of 8 (the last group's extra programs pad
// and clip), and lowers to PTX that ptxas accepts.
// REQUIRES: ptxas
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --kernel gemm --size M=1100,N=136,K=100 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-opt %t.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// Stripping the specification takes the program map with the contract.
// RUN: tiletag-opt --tiletag-strip-tags %t.mlir | FileCheck %s --check-prefix=STRIP
// STRIP-NOT: tag.program_map
// STRIP-NOT: tag.contract
// STRIP: tile.kernel @gemm(
// STRIP-NOT: tag.program_map
// STRIP-NOT: tag.contract
//
// A group size that disagrees with the grid (7 rows per group, a grid of
// 8): two programs store the same block and some block is never stored.
// RUN: sed -e 's/%%c8 = arith.constant 8 : index/%%c8 = arith.constant 7 : index/' %t.mlir > %t.bad.mlir
// RUN: not tiletag-opt --tiletag-verify %t.bad.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD-DAG: error: the kernel never stores a block of C that the reference's store here stores
// BAD-DAG: write-write race between programs
//
// A program map that names the wrong program is only a hint: the checker
// does not take it for a proof.
// RUN: sed -e 's/floordiv 8)>/floordiv 4)>/' %t.mlir > %t.map.mlir
// RUN: not diff -q %t.mlir %t.map.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify=rlimit=1000000 %t.map.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAP
// MAP: error: {{.*}}every block of C the reference stores is stored

// CHECK: #[[PMAP:.*]] = affine_map<(d0, d1) -> (d0 mod 8, d1, d0 floordiv 8)>
// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: grid(3)
// CHECK-SAME: tag.program_map = #[[PMAP]]
// CHECK-SAME: tag.verified = "
// CHECK-SAME: grid = [8, N ceildiv 128, (M ceildiv 128) ceildiv 8]
// CHECK: %[[A:.*]] = tile.program_id 0
// CHECK: %[[C:.*]] = tile.program_id 2
// CHECK: %[[BASE:.*]] = arith.muli %[[C]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[BASE]], %[[A]] : index
// CHECK: %[[COL:.*]] = tile.program_id 1
// CHECK: tile.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]]
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %grouped = transform.tiletag.rasterize %kernel dim(0) group(8)
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %grouped
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %k_loop stages(4)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %grouped : !transform.any_op
    transform.yield
  }
}
