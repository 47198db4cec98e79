// examples/scripts/gemm_bias_relu.mlir for AMD CDNA (gfx942, gfx90a): the
// epilogue (bias, clamp) fused into the GEMM's store as on Hopper; for the
// 64 KiB of LDS the K step is cut from 64 to 32 before the loop is staged
// through a 3-slot ring (16 KiB slots), and the dots run on MFMA.
//
//   tiletag-opt examples/naive/gemm_bias_relu.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/cdna/gemm_bias_relu.mlir" \
//     --transform-interpreter --tiletag-compile-rocm="chip=gfx942 output=gemm_bias_relu.hsaco"
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_bias_relu"} in %root
        : (!transform.any_op) -> !transform.any_op
    %fused = transform.tiletag.fuse_epilogue %kernel
        : (!transform.any_op) -> !transform.any_op
    %k_loop = transform.structured.match ops{["scf.for"]} in %fused
        : (!transform.any_op) -> !transform.any_op
    %short = transform.tiletag.reduction_step %k_loop divisor(2)
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %short stages(3)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1) unit(mfma)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %fused : !transform.any_op
    transform.yield
  }
}
