// Two neighbouring 128x128 blocks per program (coarsen), K steps of 16
// (reduction_step divisor(4)), 4 ring slots of 12 KiB, two consumer
// warpgroups issuing their block's dots on MFMA.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %kernel
        : (!transform.any_op) -> !transform.any_op
    %short = transform.tiletag.reduction_step %loop divisor(4)
        : (!transform.any_op) -> !transform.any_op
    %wide = transform.tiletag.coarsen %kernel dim(1) factor(2)
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %wide
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %k_loop stages(4)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232, consumers = 2}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1) unit(mfma)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %wide : !transform.any_op
    transform.yield
  }
}
