// examples/scripts/gemm.mlir's pipeline with a TMA-store epilogue: the
// consumer writes its accumulator to a shared buffer and one of its threads
// stores the tile by TMA (whole 128-byte lines, where stores from registers
// write 8 bytes of a row per thread). The checkers then prove the result
// against the contract.
//
//   tiletag-opt examples/naive/gemm.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm_tma_store.mlir" \
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
    %epilogue = transform.tiletag.stage_stores %kernel buffers(1)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %epilogue : !transform.any_op
    transform.yield
  }
}
