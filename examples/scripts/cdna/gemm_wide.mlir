// examples/scripts/gemm_wide.mlir for AMD CDNA (gfx942, gfx90a): the
// 128x256 tile with its A tile loaded once for both 128x128 blocks and two
// cooperative consumer warpgroups, as on Hopper; for the 64 KiB of LDS the
// K step is cut from 64 to 32 first (slots of 24 KiB, 2 of them), and the
// dots run on MFMA.
//
//   tiletag-opt examples/naive/gemm.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/cdna/gemm_wide.mlir" \
//     --transform-interpreter --tiletag-compile-rocm="chip=gfx942 output=gemm_wide.hsaco"
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %kernel
        : (!transform.any_op) -> !transform.any_op
    %short = transform.tiletag.reduction_step %k_loop divisor(2)
        : (!transform.any_op) -> !transform.any_op
    %wide = transform.tiletag.coarsen %kernel dim(1) factor(2)
        : (!transform.any_op) -> !transform.any_op
    %wide_loop = transform.structured.match ops{["scf.for"]} in %wide
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %wide_loop stages(2)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232, consumers = 2}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1) unit(mfma)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %wide : !transform.any_op
    transform.yield
  }
}
