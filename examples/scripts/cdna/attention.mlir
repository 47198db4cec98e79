// examples/scripts/attention.mlir for AMD CDNA (gfx942, gfx90a): the d64
// kernel as on Hopper (K and V through 2-slot rings, 32 KiB of LDS, filled
// by producer waves; both dots on MFMA, waited for at once). The d128
// kernel's 2-slot K and V rings alone take the whole 64 KiB of a
// workgroup's LDS, leaving none for their barriers, and no transform
// shortens the key block of an online softmax (the rescaling makes a
// shorter step a different computation): it stays the plain kernel, whose
// dots also run on MFMA.
//
//   tiletag-opt examples/naive/attention.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/cdna/attention.mlir" \
//     --transform-interpreter --tiletag-compile-rocm="chip=gfx942 output=attention.hsaco"
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %d64 = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "attention_fwd_d64"} in %root
        : (!transform.any_op) -> !transform.any_op
    %kv_loop = transform.structured.match ops{["scf.for"]} in %d64
        : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %kv_loop stages(2)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(0) unit(mfma)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %d64 : !transform.any_op
    transform.yield
  }
}
