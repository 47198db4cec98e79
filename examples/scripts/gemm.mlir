// From the plain GEMM (examples/naive/gemm.mlir) to the kernel of
// examples/gemm.mlir: the K loop's A and B tiles staged through 4-slot shared
// rings, a TMA producer warpgroup and a consumer warpgroup synchronized by
// full/empty mbarriers, the dots on asynchronous wgmma with one group in
// flight. The checkers then prove the result against the contract.
//
//   tiletag-opt examples/naive/gemm.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm.mlir" \
//     --transform-interpreter
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %kernel
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %k_loop stages(4)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %kernel : !transform.any_op
    transform.yield
  }
}
