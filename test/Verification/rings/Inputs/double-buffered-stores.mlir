// Stages @gemm_persistent's stores through two TMA-store buffers
// alternating by tile (transform.tiletag.stage_stores buffers(2)).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm_persistent"} in %root
        : (!transform.any_op) -> !transform.any_op
    %r = transform.tiletag.stage_stores %k buffers(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
