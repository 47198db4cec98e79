// From the plain MoE grouped GEMM (examples/naive/moe.mlir) to the kernel
// of examples/moe.mlir: a program whose row block starts past its expert's
// rows skips its work, and the K loop's dots run on wgmma in one warpgroup,
// each waited for before the next step's loads. (No TMA ring: the X tile is
// clipped at the expert's last row, and TMA clips at the operand's size
// only.)
//
//   tiletag-opt examples/naive/moe.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/moe.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "moe_grouped_gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %guarded = transform.tiletag.skip_empty_blocks %kernel
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %guarded
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %k_loop wait_depth(0)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %guarded : !transform.any_op
    transform.yield
  }
}
