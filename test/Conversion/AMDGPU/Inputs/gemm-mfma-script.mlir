// The GEMM pipeline for CDNA on the 128x128 plain GEMM: K steps of 32
// (reduction_step divisor(2): 16 KiB slots), 3 ring slots, dots on MFMA.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %kernel
        : (!transform.any_op) -> !transform.any_op
    %short = transform.tiletag.reduction_step %k_loop divisor(2)
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %short stages(3)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1) unit(mfma)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %kernel : !transform.any_op
    transform.yield
  }
}
