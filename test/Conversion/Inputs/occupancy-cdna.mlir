// examples/scripts/cdna/gemm.mlir (K steps of 32, a 3-slot ring, MFMA)
// with two programs per CU asked for.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %kernel
        : (!transform.any_op) -> !transform.any_op
    %short = transform.tiletag.reduction_step %k_loop divisor(4)
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %short stages(2)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1) unit(mfma)
        : (!transform.any_op) -> !transform.any_op
    %resident = transform.tiletag.occupancy %kernel programs(2)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %resident : !transform.any_op
    transform.yield
  }
}
