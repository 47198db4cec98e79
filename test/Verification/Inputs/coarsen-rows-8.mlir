// coarsen rows x8.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "softmax"} in %root
        : (!transform.any_op) -> !transform.any_op
    %wide = transform.tiletag.coarsen %kernel dim(0) factor(8)
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
