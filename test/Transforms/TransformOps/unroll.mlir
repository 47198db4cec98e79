// transform.tiletag.unroll on the plain GEMM's K loop, factor 3: an
// unrolled loop over the first T - T mod 3 blocks, three copies of the body
// per step (the second and third at k + 1 and k + 2, each from the previous
// copy's accumulator), then the old loop as the remainder from where the
// unrolled loop stops. Proved against the unchanged contract; the oracle
// agrees at ragged sizes: K = 300 (5 blocks: one unrolled step, two
// remainder steps), K = 384 (6 blocks, no remainder), K = 64 (the unrolled
// loop runs no step) and K = 1.
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=300,K=300 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=130,N=129,K=384 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=130,N=129,K=64 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --size M=1,N=1,K=1 | FileCheck %s --check-prefix=ORACLE

// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: tag.verified = "
// CHECK: %[[T:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[STEPS:.*]] = arith.maxsi %[[T]], %c0
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[REST:.*]] = arith.remsi %[[STEPS]], %[[C3]]
// CHECK: %[[STOP:.*]] = arith.subi %[[STEPS]], %[[REST]]
// CHECK: %[[MAIN:.*]] = scf.for %[[K:.*]] = %c0 to %[[STOP]] step %[[C3]] iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK:   %[[A0:.*]] = tile.load %A[%{{.*}}, %[[K]]]
// CHECK:   %[[B0:.*]] = tile.load %B[%[[K]], %{{.*}}]
// CHECK:   %[[D0:.*]] = tile.dot %[[A0]], %[[B0]], %[[ACC]]
// CHECK:   %[[K1:.*]] = arith.addi %[[K]], %[[C1]]
// CHECK:   %[[A1:.*]] = tile.load %A[%{{.*}}, %[[K1]]]
// CHECK:   %[[B1:.*]] = tile.load %B[%[[K1]], %{{.*}}]
// CHECK:   %[[D1:.*]] = tile.dot %[[A1]], %[[B1]], %[[D0]]
// CHECK:   %[[K2:.*]] = arith.addi %[[K]], %[[C2]]
// CHECK:   %[[D2:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[D1]]
// CHECK:   scf.yield %[[D2]]
// CHECK: %[[REM:.*]] = scf.for %[[R:.*]] = %[[STOP]] to %[[T]] step %c1 iter_args(%{{.*}} = %[[MAIN]])
// CHECK: tile.store %[[REM]], %C
// CHECK-LABEL: tile.kernel @gemm_reference(
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %k
        : (!transform.any_op) -> !transform.any_op
    %unrolled = transform.tiletag.unroll %loop factor(3) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %k : !transform.any_op
    transform.yield
  }
}
