// examples/scripts/gemm.mlir for AMD CDNA (gfx942, gfx90a), whose workgroup
// has 64 KiB of LDS where Hopper's CTA has 227 KiB: the plain GEMM's K step
// is cut from 64 to 32 (reduction_step, proved against the contract's
// 64-deep steps), so each slot of A and B takes 16 KiB and a 3-slot ring
// fits; producer waves fill it, a consumer warpgroup issues the dots on
// MFMA with one group in flight.
//
//   tiletag-opt examples/naive/gemm.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/cdna/gemm.mlir" \
//     --transform-interpreter --tiletag-compile-rocm="chip=gfx942 output=gemm.hsaco"
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
