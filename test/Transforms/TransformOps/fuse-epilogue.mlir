// transform.tiletag.fuse_epilogue on the GEMM + epilogue chain of
// examples/naive/gemm_bias_relu.mlir: the epilogue's operations run where the
// GEMM stored the workspace T, on the stored value; T goes, bias and D join
// the kernel's operands in the contract's order, the epilogue kernel is
// erased. transform.tiletag.verify proves the fused kernel against the
// contract; the oracle agrees at ragged sizes. An epilogue that reads the
// transposed block of T is not fused (the fused kernel would compute
// something else than the chain).
// REQUIRES: z3
// RUN: tiletag-opt %examples/naive/gemm_bias_relu.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --size M=200,N=130,K=100 | FileCheck %s --check-prefix=ORACLE
// RUN: sed -e 's/%%t = tile.load %%T\[%%i, %%j\]/%%t = tile.load %%T[%%j, %%i]/' %examples/naive/gemm_bias_relu.mlir > %t.swapped.mlir
// RUN: not diff -q %examples/naive/gemm_bias_relu.mlir %t.swapped.mlir > /dev/null
// RUN: not tiletag-opt %t.swapped.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: tile.kernel @gemm_bias_relu(
// CHECK-SAME: %[[A:[^:]*]]: memref<?x?xbf16> {tile.name = "A"}, %[[B:[^:]*]]: memref<?x?xbf16> {tile.name = "B"}, %[[BIAS:[^:]*]]: memref<?xf32> {tile.name = "bias"}, %[[D:[^:]*]]: memref<?x?xf32> {tile.name = "D"}) grid(2)
// CHECK-SAME: schedule.verified = "
// CHECK-SAME: tag.contract = @gemm_bias_relu_reference, tag.verified = "
// CHECK-SAME: shapes = [A = [M, K], B = [K, N], bias = [N], D = [M, N]], check = "gemm_bias_relu">
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: tile.dot
// CHECK: tile.load %[[BIAS]]
// CHECK: %[[BB:.*]] = tile.broadcast
// CHECK: %[[S:.*]] = arith.addf %[[SUM]], %[[BB]]
// CHECK: %[[R:.*]] = arith.maximumf %[[S]],
// CHECK: tile.store %[[R]], %[[D]]
// CHECK-NOT: tile.kernel @bias_relu
// CHECK-LABEL: tile.kernel @gemm_bias_relu_reference(
// CHECK-NOT: tile.kernel @bias_relu
// ORACLE: run @gemm_bias_relu (
// ORACLE: check gemm_bias_relu: D matches
// BAD: error: cannot fuse the epilogue of @gemm_bias_relu: @bias_relu reads another block of T than the kernel's program stores

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_bias_relu"} in %root
        : (!transform.any_op) -> !transform.any_op
    %fused = transform.tiletag.fuse_epilogue %k : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %fused : !transform.any_op
    transform.yield
  }
}
