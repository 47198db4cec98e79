// transform.tiletag.unroll on every loop of the plain row kernels: softmax
// (its max and sum loops, each carrying one row vector) and layernorm (the
// sum loop, the variance loop with its column mask computed from the
// induction value, and the store loop, which carries nothing), factor 4.
// Each is proved against its unchanged contract, and the oracle agrees at
// row lengths of 3 column blocks (the unrolled loops run no step), 6 (one
// unrolled step and a remainder of two) and 8 (two unrolled steps, an empty
// remainder).
// RUN: tiletag-opt %examples/naive/softmax.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.softmax.mlir
// RUN: FileCheck %s --check-prefix=SOFTMAX < %t.softmax.mlir
// RUN: tiletag-run %t.softmax.mlir --check --size R=37,C=600 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.softmax.mlir --check --size R=17,C=1300 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.softmax.mlir --check --size R=3,C=2048 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-opt %examples/naive/layernorm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.layernorm.mlir
// RUN: FileCheck %s --check-prefix=LAYERNORM < %t.layernorm.mlir
// RUN: tiletag-run %t.layernorm.mlir --check --size R=37,C=600 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.layernorm.mlir --check --size R=17,C=1300 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.layernorm.mlir --check --size R=3,C=2048 | FileCheck %s --check-prefix=ORACLE

// SOFTMAX-LABEL: tile.kernel @softmax(
// SOFTMAX-SAME: tag.verified = "
// SOFTMAX-COUNT-2: scf.for {{.*}} step %c4{{.*}} iter_args
// SOFTMAX-LABEL: tile.kernel @softmax_reference(

// LAYERNORM-LABEL: tile.kernel @layernorm(
// LAYERNORM-SAME: tag.verified = "
// LAYERNORM-COUNT-4: tile.store
// LAYERNORM: tile.store
// LAYERNORM-LABEL: tile.kernel @layernorm_reference(

// ORACLE: matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %softmax = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "softmax"} in %root
        : (!transform.any_op) -> !transform.any_op
    %layernorm = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "layernorm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %kernels = transform.merge_handles %softmax, %layernorm : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %kernels
        : (!transform.any_op) -> !transform.any_op
    %unrolled = transform.tiletag.unroll %loops factor(4) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %kernels : !transform.any_op
    transform.yield
  }
}
