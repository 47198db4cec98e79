// transform.tiletag.split_k with `reduction_kernel` on the plain split-k
// GEMM: the output C becomes the workspace C_partials = [S, M, N] (slice ps
// of split ps), a new kernel @gemm_splitk_reduce launched after it sums each
// block's slices in order; transform.tiletag.verify proves the chain against
// the unchanged contract (the plain GEMM) and stamps both kernels. The
// oracle runs the chain at ragged sizes.
// REQUIRES: z3
// RUN: tiletag-opt %examples/naive/gemm_splitk.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=300,K=1000,S=3 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=7,N=130,K=64,S=8 | FileCheck %s --check-prefix=ORACLE

// CHECK-LABEL: tile.kernel @gemm_splitk(
// CHECK-SAME: %[[W:[^:]*]]: memref<?x?x?xf32> {tile.name = "C_partials"}) grid(3)
// CHECK-SAME: schedule.verified = "
// CHECK-SAME: tag.contract = @gemm_splitk_reference, tag.verified = "
// CHECK-SAME: sizes = [M = 256, N = 128, K = 640, S = 4], grid = [M ceildiv 128, N ceildiv 128, S], shapes = [A = [M, K], B = [K, N], C_partials = [S, M, N]], check = "gemm", then = [@gemm_splitk_reduce]
// CHECK: %[[I:.*]] = tile.program_id 0
// CHECK: %[[J:.*]] = tile.program_id 1
// CHECK: %[[PS:.*]] = tile.program_id 2
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: tile.store %[[SUM]], %[[W]][%[[PS]], %[[I]], %[[J]]] : tensor<128x128xf32> -> memref<?x?x?xf32>
// CHECK-LABEL: tile.kernel @gemm_splitk_reduce(
// CHECK-SAME: %[[RW:[^:]*]]: memref<?x?x?xf32> {tile.name = "C_partials"}, %[[C:[^:]*]]: memref<?x?xf32> {tile.name = "C"}) grid(2)
// CHECK-SAME: schedule.verified = "
// CHECK-SAME: tag.verified = "
// CHECK-SAME: grid = [M ceildiv 128, N ceildiv 128], shapes = [C_partials = [S, M, N], C = [M, N]]>
// CHECK: %[[RI:.*]] = tile.program_id 0
// CHECK: %[[RJ:.*]] = tile.program_id 1
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[S:.*]] = memref.dim %[[RW]], %[[C0]]
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK: %[[R:.*]] = scf.for %[[SL:.*]] = %[[C0]] to %[[S]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK: %[[P:.*]] = tile.load %[[RW]][%[[SL]], %[[RI]], %[[RJ]]] padding(0.000000e+00 : f32)
// CHECK: %[[N:.*]] = arith.addf %[[ACC]], %[[P]]
// CHECK: scf.yield %[[N]]
// CHECK: tile.store %[[R]], %[[C]][%[[RI]], %[[RJ]]] : tensor<128x128xf32> -> memref<?x?xf32>
// CHECK-LABEL: tile.kernel @gemm_splitk_reference(
// ORACLE: run @gemm_splitk then @gemm_splitk_reduce
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_splitk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %split = transform.tiletag.split_k %k splits(4) reduction_kernel : (!transform.any_op) -> !transform.any_op
    %reduce = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_splitk_reduce"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %split : !transform.any_op
    transform.tiletag.verify %reduce : !transform.any_op
    transform.yield
  }
}
