// From the plain flash attention (examples/naive/attention.mlir) to the
// structure of examples/attention.mlir, for both head dims: the K and V
// tiles of each key block staged through 2-slot shared rings, a TMA producer
// and a consumer warpgroup on full/empty mbarriers, both dots on wgmma. The
// scores are used within the step, and the rescaled accumulator at the next
// one, so every group is waited for at once (wait_depth 0). The consumer
// gets 256 registers: the lowering keeps d128's P V accumulator (128 a
// thread) and d64's scores beside its accumulator (64 + 64) in registers
// only where the role's budget covers them and 112 more; with 232, d128's
// accumulator went through the workspace (64 KiB stored, read back and
// added at every key step).
//
//   tiletag-opt examples/naive/attention.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/attention.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @pipeline(%kernel: !transform.any_op {transform.readonly}) {
    %kv_loop = transform.structured.match ops{["scf.for"]} in %kernel
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %kv_loop stages(2)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 256}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(0)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %kernel : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %d64 = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "attention_fwd_d64"} in %root
        : (!transform.any_op) -> !transform.any_op
    %d128 = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "attention_fwd_d128"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.include @pipeline failures(propagate) (%d64) : (!transform.any_op) -> ()
    transform.include @pipeline failures(propagate) (%d128) : (!transform.any_op) -> ()
    transform.yield
  }
}
