// From the GEMM + epilogue chain of examples/naive/gemm_bias_relu.mlir to one
// pipelined kernel: the epilogue (bias, clamp) fused into the GEMM's store,
// then the K loop staged through 4-slot TMA rings, a producer and a consumer
// warpgroup (the epilogue runs in the consumer), and the dots on wgmma with
// one group in flight. The contract checker proves the fused kernel against
// the chain's contract.
//
//   tiletag-opt examples/naive/gemm_bias_relu.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm_bias_relu.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_bias_relu"} in %root
        : (!transform.any_op) -> !transform.any_op
    %fused = transform.tiletag.fuse_epilogue %kernel
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %fused
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %k_loop stages(4)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %fused : !transform.any_op
    transform.yield
  }
}
