// From the plain GEMM of the split-k workload (examples/naive/gemm_splitk.mlir)
// to the split-k of examples/gemm_splitk.mlir (@gemm_splitk_partial and
// @splitk_reduce): the K loop split over a third grid dimension of 4
// programs, each storing its partial sum to its own slice of a workspace
// C_partials = [S, M, N]; a reduction kernel, launched after it, sums the
// slices of each block of C in order, so the result does not depend on which
// split finishes first. The dots run on wgmma. The contract checker proves
// the chain against the plain GEMM's contract: the splits cover every K block
// exactly once, and every slice the reduction reads is written once.
// (`splits(4)` without `reduction_kernel` gives the one-kernel variant,
// @gemm_splitk_atomic: each split adds its partial into C.)
//
//   tiletag-opt examples/naive/gemm_splitk.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm_splitk.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_splitk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %split = transform.tiletag.split_k %kernel splits(4) reduction_kernel
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %split
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %k_loop wait_depth(0)
        : (!transform.any_op) -> !transform.any_op
    %reduce = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_splitk_reduce"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %split : !transform.any_op
    transform.tiletag.verify %reduce : !transform.any_op
    transform.yield
  }
}
