// From the plain GEMM of the split-k workload (examples/naive/gemm_splitk.mlir)
// to the one-kernel split-k of examples/gemm_splitk.mlir (@gemm_splitk_atomic):
// the K loop split over a third grid dimension of 4 programs, each adding its
// partial into C. The contract checker proves that the splits cover every K
// block exactly once.
//
//   tiletag-opt examples/naive/gemm_splitk.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm_splitk.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_splitk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %split = transform.tiletag.split_k %kernel splits(4) : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %split : !transform.any_op
    transform.yield
  }
}
