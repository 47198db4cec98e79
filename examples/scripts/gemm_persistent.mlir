// The persistent GEMM of examples/gemm_persistent.mlir, made from the plain
// kernel of examples/naive/gemm.mlir:
// - persist: P programs (one per SM) loop over the 128x128 tiles of C, in
//   the order the plain kernel's programs launch (row blocks fastest; the
//   hand-written kernel goes row by row);
// - stage_loads: the K loop's tiles go through 3-slot shared rings, created
//   once, before the tile loop;
// - warp_specialize: a TMA producer and a wgmma consumer; inside the tile
//   loop the ring runs on across tiles: each tile's K loop is followed by
//   the steps up to a multiple of 6 that pass the slots round, and a slot's
//   first fill in a later tile waits for its release;
// - async_mma: one wgmma group in flight; the consumer releases the last
//   slot in the epilogue, once its group has retired;
// - stage_stores buffers(2): the epilogue stores by TMA through two
//   buffers, the store of a tile in flight during the next tile's K loop.
// The checkers prove the result for every M, N, K and P.
//
//   tiletag-opt examples/naive/gemm.mlir \
//     --transform-preload-library="transform-library-paths=examples/scripts/gemm_persistent.mlir" \
//     --transform-interpreter

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %persistent = transform.tiletag.persist %kernel
        : (!transform.any_op) -> !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %persistent
        : (!transform.any_op) -> !transform.any_op
    // Matched in post-order: the K loop, then the tile loop around it.
    %k_loop, %tile_loop = transform.split_handle %loops
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %staged = transform.tiletag.stage_loads %k_loop stages(3)
        : (!transform.any_op) -> !transform.any_op
    %specialized = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 232}
        : (!transform.any_op) -> !transform.any_op
    %async = transform.tiletag.async_mma %specialized wait_depth(1)
        : (!transform.any_op) -> !transform.any_op
    %epilogue = transform.tiletag.stage_stores %persistent buffers(2)
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %epilogue : !transform.any_op
    transform.yield
  }
}
