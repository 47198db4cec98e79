// From the plain GEMM (examples/naive/gemm.mlir) to the kernel of
// examples/gemm_wide.mlir: each program computes two neighbouring 128x128
// blocks of C (a 128x256 tile; its A tile is loaded once for both), the K
// loop's tiles staged through 4-slot shared rings filled by a TMA producer
// warpgroup, and two cooperative consumer warpgroups, one per block, each
// with one wgmma group in flight and its own release barrier.
//
//   tiletag-opt examples/naive/gemm.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm_wide.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %wide = transform.tiletag.coarsen %kernel dim(1) factor(2)
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %wide
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %k_loop stages(4)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232, consumers = 2}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %wide : !transform.any_op
    transform.yield
  }
}
