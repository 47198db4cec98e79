// transform.tiletag.split_k on the plain split-k GEMM: a new grid dimension
// of extent S (a new launch size), the K loop over the split's range, the
// store adding into C; then transform.tiletag.verify proves the result
// against the unchanged contract and stamps it. The oracle agrees at a
// ragged size.
// RUN: tiletag-opt %examples/naive/gemm_splitk.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=300,K=1000,S=3 | FileCheck %s --check-prefix=ORACLE

// CHECK-LABEL: tile.kernel @gemm_splitk(
// CHECK-SAME: grid(3)
// CHECK-SAME: schedule.verified = "
// CHECK-SAME: tag.verified = "
// CHECK-SAME: sizes = [M = 256, N = 128, K = 640, S = 4], grid = [M ceildiv 128, N ceildiv 128, S]
// CHECK: %[[N:.*]] = arith.ceildivui
// CHECK: %[[PS:.*]] = tile.program_id 2
// CHECK: %[[S:.*]] = tile.num_programs 2
// CHECK: %[[PER:.*]] = arith.ceildivui %[[N]], %[[S]]
// CHECK: %[[B0:.*]] = arith.muli %[[PS]], %[[PER]]
// CHECK: %[[B:.*]] = arith.minui %[[B0]], %[[N]]
// CHECK: %[[E0:.*]] = arith.addi %[[B]], %[[PER]]
// CHECK: %[[E:.*]] = arith.minui %[[E0]], %[[N]]
// CHECK: scf.for %{{.*}} = %[[B]] to %[[E]] step
// CHECK: tile.store {{.*}} combine add
// CHECK-LABEL: tile.kernel @gemm_splitk_reference(
// CHECK-SAME: grid(2)
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_splitk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %split = transform.tiletag.split_k %k splits(4) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %split : !transform.any_op
    transform.yield
  }
}
