//===- TileTagTransformOps.td - transform.tiletag.* ops ----*- tablegen -*-===//
//
// Part of the TileTag project.
//
// Transform-dialect ops that rewrite tile kernels. Each rewrite writes into
// the IR what it must preserve (loop bounds in terms of the launch sizes,
// schedule annotations, tags), drops the kernel's proof stamps, and leaves
// the proof to the checkers: `transform.tiletag.verify` runs them from a
// script.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_TRANSFORMOPS_TILETAGTRANSFORMOPS_TD
#define TILETAG_TRANSFORMOPS_TILETAGTRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Dialect/Transform/IR/TransformTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "TileTag/Dialect/Schedule/IR/ScheduleAttrs.td"

class TileTag_TransformOp<string mnemonic, list<Trait> traits = []>
    : Op<Transform_Dialect, "tiletag." # mnemonic, traits> {
  let cppNamespace = "::mlir::tiletag";
}

def TileTag_VerifyOp : TileTag_TransformOp<"verify", [
    TransformEachOpTrait, TransformOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "proves tile kernels with TileTag's checkers";
  let description = [{
    Runs the checkers (definedness, tags, contract, schedule) on every
    `tile.kernel` the handle points to, with Z3's deterministic resource
    limit `resource_limit` per query. A proved kernel gets its proof stamps
    (`tag.verified`, `schedule.verified`), bound to its IR.

    #### Return modes

    Succeeds when every kernel is proved. A silenceable failure when a
    checker refutes a kernel: the failure names the obligation and carries
    the counterexample (sizes, program ids, loop values) and the
    `tiletag-run` command that replays it; the kernel loses its stamps. A
    definite failure when Z3 cannot decide an obligation ("unknown" is never
    a proof) or when the handle points to an op that is not a `tile.kernel`.
    The handle is only read; the payload gains or loses stamps.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "10000000">:$resource_limit);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_SplitKOp : TileTag_TransformOp<"split_k", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "splits a kernel's reduction loop over a new grid dimension";
  let description = [{
    Rewrites a kernel whose output tile is the sum of a reduction loop (an
    `scf.for` from 0 in steps of 1 whose iter_arg starts at a zero tile and
    accumulates with `tile.dot` or `arith.addf`, stored once) so that `splits`
    programs share the loop: a new grid dimension `d` of extent `S` (a new
    launch size `S = splits`), program `ps` running the iterations
    `[ps * per, min((ps + 1) * per, n))` with `per = n ceildiv S`. The
    partial sums are combined in one of two ways:

    - by default, the store adds into the output (`combine add`; the output
      must hold zeros before the launch, as `tiletag-run` provides);
    - with `reduction_kernel`, the kernel stores its partial sum to slice
      `ps` of a new workspace operand `<O>_partials` of shape `[S] ++`
      (the output's shape) in place of the output `<O>`, and a new kernel
      `@<kernel>_reduce`, launched after it (`then` in the launch), sums the
      `S` slices of each output block in order from zero and stores the
      block: the result does not depend on which split finishes first. The
      store's indices must be computable in the new kernel (from program
      ids, grid extents, constants and the output's dimensions).

    Invariants instantiated: the loop bounds are stated in the launch sizes,
    so the contract checker proves that the splits cover the reduction range
    exactly once (a gapless chain over `ps`), that each split adds the
    reference's terms, and that the grid still covers every output block.
    With a reduction kernel, the kernel's contract becomes the launch
    chain's: the checker also proves that the reduction kernel stores every
    output block as the sum of all its slices, and that one program stores
    each slice it reads. The target handle is consumed; the result handle
    points to the rewritten kernel (the head of the chain).

    #### Return modes

    A silenceable failure (the payload unchanged) when the target is not a
    `tile.kernel`, already has 3 grid dimensions, has a schedule, has no
    `tile.launch`, already has a launch size `S`, or has no single store of a
    reduction loop's sum as described above; with `reduction_kernel`, also
    when the kernel already launches others (`then`), the output has no
    launch shape, is used other than by the store, or the store has offsets
    or bounds or indices the new kernel cannot compute, or the names
    `<O>_partials` or `@<kernel>_reduce` are taken. Otherwise the kernel is
    rewritten in place (and the reduction kernel inserted after it), its
    proof stamps dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntPositive]>:$splits,
                       UnitAttr:$reduction_kernel);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `splits` `(` $splits `)` (`reduction_kernel` $reduction_kernel^)? attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_CoarsenOp : TileTag_TransformOp<"coarsen", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "gives each program the output blocks of `factor` neighbours";
  let description = [{
    Grows the output tile of a program along grid dimension `dim`: program
    `p` of the rewritten kernel does the work of programs `p * factor + c`,
    `c` in `[0, factor)`, of the original, and the launch's grid extent for
    `dim` (`E ceildiv T`, `T` a constant) becomes `E ceildiv (T * factor)`.
    Work that does not depend on the program's index along `dim` and only
    reads memory is done once and shared (a GEMM's A tile); the rest is
    replicated per output block. A loop whose bounds do not depend on it
    stays one loop that carries the values of every block (the blocks' K
    loops become one loop with `factor` accumulators), so that later
    rewrites stage the shared loads once. A program near the edge may get
    blocks past the end of the output: its loads pad and its stores clip.

    Invariants instantiated: none beyond the index map `p * factor + c`; the
    contract checker proves that the programs still store every block of
    the output, once, with the reference's value.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`, it has a schedule or shared memory already, `dim` is not
    one of its grid dimensions, its launch's extent for `dim` is not
    `size ceildiv constant`, or it reads `tile.num_programs` of `dim` (whose
    meaning would change). Otherwise the kernel is rewritten in place, its
    proof stamps dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$factor);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `dim` `(` $dim `)` `factor` `(` $factor `)` attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_RetileOp : TileTag_TransformOp<"retile", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "multiplies the output tile's extent along a grid dimension";
  let description = [{
    Retypes the tiles of a plain kernel: every tile dimension that a tile
    access indexes with `tile.program_id dim` (an output tile's rows, say,
    and the rows of the loads that feed them) becomes `factor` times longer,
    and with it every tile computed from those dimensions: the operands and
    results of elementwise ops, a `tile.dot`'s rows or columns, the kept
    dimensions of a `tile.reduce`, broadcasts, transposes, splat constants
    and the values a loop carries. Block indices keep their values (a tile
    access's block index counts blocks of the new size), and the launch's
    grid extent for `dim` (`E ceildiv T`) becomes `E ceildiv (T * factor)`.
    Unlike `transform.tiletag.coarsen`, which replicates the work of the
    absorbed programs, each op now works on one larger tile: one 256x128
    `tile.dot` where there were two 128x128 ones.

    The reduction step stays: a dimension that a `tile.dot` contracts or a
    `tile.reduce` reduces must keep its extent, and so must the dimension
    of a `tile.iota` (its values are coordinates in the tile).

    Invariants instantiated: the program map `p floordiv factor` (the
    kernel's `tag.program_map`). The contract checker relates each
    reference tile to the window of the larger tile at the same place, and
    proves that every window holds the reference's value and that the
    programs store every block of the output once.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`; it has a schedule or shared memory already; `dim` is not
    one of its grid dimensions or its launch's extent is not `size ceildiv
    constant`; it reads `tile.num_programs` of `dim`; `tile.program_id dim`
    is used other than as a block index of a tile access (arithmetic on it,
    an access with offsets, a dimension the tile does not span); an op the
    rewrite does not follow computes a growing tile, a reduced, contracted
    or iota dimension would grow, or a constant that is not a splat would;
    or a tile would span more than 256 elements along a dimension (the
    largest TMA box and wgmma tile). Otherwise the kernel is rewritten in
    place, its proof stamps dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$factor);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `dim` `(` $dim `)` `factor` `(` $factor `)` attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_ReductionStepOp : TileTag_TransformOp<"reduction_step", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "multiplies or divides the extent a loop's dot contracts per step";
  let description = [{
    Retypes the tiles of a plain kernel's reduction loop (a loop that
    carries one value, `acc = tile.dot(a, b, acc)`): every tile dimension
    that a tile access indexes with the loop's induction variable (a GEMM's
    K columns of A and K rows of B) becomes `factor` times longer, or
    `divisor` times shorter, with the tiles computed from it (block indices
    now count blocks of the new length).

    - `factor(f)`: the loop, which runs over block indices from 0 in steps
      of 1, runs `ceildiv(T, f)` steps, T its trip count. A GEMM's K step
      of 64 becomes 128: half the steps, each dot twice as deep.
    - `divisor(d)`: the loop runs `d` steps for each of its old ones: where
      T is `ceildiv(X, c)` with c a multiple of d, `ceildiv(X, c / d)`
      steps (no step that reads padding only); otherwise `T * d`. A GEMM's
      K step of 64 becomes 32: shared-memory slots half the size, so a
      pipeline with as many slots fits where the deeper one does not (an
      AMD workgroup's 64 KiB of LDS).

    Invariants instantiated: none beyond the new trip count. The contract
    checker relates step n of the loop to the reference's steps
    `f * n + j`, `j < f` (window j of the kernel's contracted extent), or,
    for a divisor, step `d * m + j` of the loop to window j of the
    reference's step m; it proves that each window's operands are the other
    side's at that step, that steps past the other side's last read only
    zero padding, and that the steps reach every step of the reference: the
    sum of block products the contract states, grouped otherwise
    (docs/Verification.md, "Other reduction steps").

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not an
    `scf.for` in a `tile.kernel`; the kernel has a schedule or shared
    memory already; the loop does not run from 0 in steps of 1, or does not
    carry exactly one value accumulated by a `tile.dot`; its induction
    variable is used other than as a block index of a tile access, or does
    not index the dimension the dot contracts; an op the rewrite does not
    follow computes a resized tile, a reduced or iota dimension would
    change, or a constant that is not a splat would; a tile would span more
    than 256 elements along a dimension (the largest TMA box and wgmma
    tile); or a dimension to divide is no multiple of the divisor.
    Otherwise the loop is rewritten in place, the kernel's proof stamps
    dropped, and the result handle points to the loop. Giving both or
    neither of `factor` and `divisor` is a verifier error.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$factor,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$divisor);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target (`factor` `(` $factor^ `)`)? (`divisor` `(` $divisor^ `)`)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_UnrollOp : TileTag_TransformOp<"unroll", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "unrolls a plain kernel's loop, with a remainder loop";
  let description = [{
    Unrolls an `scf.for` of a plain kernel (steps of 1) by `factor`: an
    unrolled loop runs the first `T - T mod factor` of the loop's T steps,
    `factor` per step, its body `factor` copies of the old body (copy j at
    induction value `i + j`, starting from copy j - 1's results); the old
    loop stays as the remainder loop, from where the unrolled loop stops to
    the old upper bound, starting from the unrolled loop's results. Where T
    is a constant multiple of `factor`, there is no remainder loop. The
    copies in one step give the lowering independent loads to overlap (the
    steps of a row loop of softmax or layernorm).

    Invariants instantiated: none; the steps run in their old order. The
    contract checker relates step n of the unrolled loop to the reference's
    steps `factor * n + j` (copy j) and the remainder loop's step n to step
    `factor * T' + n`, T' the unrolled loop's trip count, by induction over
    the steps from the reference's initial values, and proves that the two
    loops together run exactly the reference's steps (docs/Verification.md,
    "Unrolled loops").

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not an
    `scf.for` in a `tile.kernel`; the kernel has a schedule or shared
    memory already; the loop's step is not 1; or its body contains a `tag`
    op (tags and assertions speak of one step: unroll the plain loop). The
    factor is between 2 and 16. Otherwise the loop is rewritten, the
    kernel's proof stamps dropped, and the result handle points to the
    unrolled loop.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntMinValue<2>, IntMaxValue<16>]>:$factor);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `factor` `(` $factor `)` attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_PersistOp : TileTag_TransformOp<"persist", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "makes a plain kernel persistent: P programs loop over its tiles";
  let description = [{
    Turns a plain kernel's grid into a loop (a persistent kernel with a
    static tile scheduler). The kernel gets a new launch size `P` (default
    `programs`, one program per SM: 132 on an H200) and a one-dimensional
    grid of `P` programs. The old programs become tiles, numbered in the
    order the hardware launched them, grid dimension 0 fastest (`t = p0 +
    E0 * (p1 + E1 * p2)` for extents `E`), so an order `rasterize` chose
    carries over; program `pid` runs tiles `t = pid + i * P` for `i` from 0 while
    `t` is below the number of tiles, each with the old body. Inside the
    loop, the old program ids are decoded from `t` and the old grid extents
    are computed from the operands' dimensions (each launch size the grid
    uses must be some operand's extent). A launch sized so that `P` exceeds
    the tiles leaves the extra programs without work.

    With a contract, `tag.program_map` names the program and loop iteration
    that store each reference block (`t mod P`, `t floordiv P`), composed
    with a map from an earlier renumbering (`rasterize`); the contract
    checker proves it. The tile loop's rings and epilogue buffers are then
    for the pipelining ops.

    Invariants instantiated: none beyond the program map; the checkers
    prove the rewritten kernel again (no two tiles' stores race, every block
    is stored once with the reference's value).

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`, it has a schedule or shared memory (persist the plain
    kernel), no `tile.launch` with its grid extents, a launch size named `P`
    already, a program map that names loop values (it is persistent
    already), or a grid extent that uses a launch size no operand's shape
    gives. Otherwise the kernel is rewritten in place, its proof stamps
    dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>,
                                         "132">:$programs);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target (`programs` `(` $programs^ `)`)? attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_RasterizeOp : TileTag_TransformOp<"rasterize", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "launches programs in groups of `group` along a grid dimension";
  let description = [{
    Changes the order in which programs are launched (CTA rasterization):
    programs run with grid dimension 0 fastest, so a wave of a plain 2-d
    GEMM covers every row block of a few column blocks and its A operand
    does not fit in L2. After the rewrite, the launch has a new leading
    dimension of extent `group` and a trailing one of extent
    `E ceildiv group` (`E` the extent of `dim`); the program that had index
    `i` along `dim` is program (`i mod group`, ..., `i floordiv group`), so
    consecutive programs sweep `group` blocks of `dim` before moving along
    the other dimension (Triton's grouped ordering). The kernel's index is
    rebuilt as `c * group + a` from the first and last program ids; the
    other program ids move to their new dimensions. When `group` does not
    divide `E`, the last group's extra programs address blocks past the end:
    their loads pad and their stores clip.

    Invariants instantiated: none beyond the index map; the contract checker
    proves that every block of the output is still stored once with the
    reference's value.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`, it already uses 3 grid dimensions, `dim` is not one of
    its grid dimensions, it has no `tile.launch`, or it reads
    `tile.num_programs` of `dim`. Otherwise the kernel is rewritten in
    place, its proof stamps dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$group);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `dim` `(` $dim `)` `group` `(` $group `)` attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_StageLoadsOp : TileTag_TransformOp<"stage_loads", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "stages a loop's tile loads through shared ring buffers";
  let description = [{
    Every `tile.load` directly in the body of the target `scf.for` (step 1)
    becomes a copy into slot `n mod stages` of a shared ring buffer of
    `stages` slots (`tile.alloc_shared`, allocated before the loop, or,
    where the loop is in loops of the kernel (a persistent kernel's tile
    loop), before the outermost, once), `n` the iteration's number from the
    loop's lower bound, followed by a
    `tile.read` of that slot. Padding, offsets and bounds carry over to the
    copy. The kernel's sequential meaning is unchanged: the tags of the data
    read back are those of the last write to the slot, which the tag and
    contract checkers follow.

    Invariants instantiated: one slot index per iteration, computed once at
    the top of the body, which later rewrites (warp specialization) reuse for
    barriers and phases.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not an
    `scf.for` in a `tile.kernel`, its step is not 1, it has no `tile.load`,
    a ring would exceed the shared memory of one CTA (227 KiB on sm_90a),
    the kernel has a schedule already, or the loop is in loops with a
    branch or a mapped loop between. Otherwise the loop is rewritten in
    place, the kernel's proof stamps dropped, and the result handle points
    to the loop.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$stages);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `stages` `(` $stages `)` attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_WarpSpecializeOp : TileTag_TransformOp<"warp_specialize", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "splits a staged loop into a TMA producer and a consumer role";
  let description = [{
    Takes a loop staged by `transform.tiletag.stage_loads` and gives its
    copies to a producer warpgroup (0) and everything else to a consumer
    warpgroup (1), synchronized by two arrays of `stages` mbarriers:
    the producer issues the copies of step n as asynchronous TMA copies that
    complete on `full[n mod stages]` (after `arrive_expect_tx` with their
    byte count), once the consumer has released the slot's previous use
    (a wait on `empty[n mod stages]` for the phase of round n / stages - 1);
    the consumer waits on `full` for round n / stages's phase, computes, and
    releases the slot on `empty`. The ops after the loop (the epilogue) run
    in the consumer. The kernel gets `schedule.launch` with 2 warpgroups and
    each role its register budget.

    Where the loop is in sequential loops of the kernel (a persistent
    kernel's tile loop), the ring runs on across their iterations: the
    barriers are created before the outermost loop; the producer also waits
    for a slot's release in the first round of every iteration but the
    loops' first (`later`, with the parity `(n / stages + 1) mod 2`); each
    consumer gets an epilogue role (where `async_mma` releases its last
    slots); and after it, the steps from the loop's end up to the next
    multiple of `2 * stages` pass the slots round empty (the producer
    arrives on `full` without a copy, each consumer waits and releases), so
    that every run of the loop starts in the same phases and the parities
    stay linear in n.

    With `consumers = C` above 1 (cooperative consumers), the loop's `n`
    carried values are shared out: consumer j (role `consumer<j>`,
    warpgroup j + 1) carries values [j n/C, (j+1) n/C), runs the ops they
    need (a read of a slot both use is done in each) and, after the loop,
    the epilogue ops that use them. Each consumer releases a slot on its own
    `empty` array; the producer waits for all of them before refilling it.

    Invariants instantiated: parities from the round number (`(n / stages)
    mod 2`), expect-tx bytes from the ring tiles' sizes, one arrival per
    phase. The schedule checker proves them; a wrong parameter gives a
    checker error with a counterexample.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a loop
    staged by `stage_loads`, the kernel already has a schedule, a copy
    depends on a value computed after the first copy, a copy has `bounds`
    (TMA clips at the operand's size only), a register budget is not
    what `setmaxnreg` accepts (a multiple of 8 in [24, 256]), the budgets
    exceed the register file (producer + C x consumer above 512 registers
    per thread), the loop's carried values do not split evenly among the
    consumers, an op (in the loop or the epilogue) combines the values of
    two consumers, or the loop is in loops with a branch or a mapped loop
    between.
    Otherwise the loop is rewritten in place, the proof stamps dropped, and
    the result handle points to the loop.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "40">:$producer_regs,
                       DefaultValuedAttr<I64Attr, "232">:$consumer_regs,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$consumers);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_AsyncMmaOp : TileTag_TransformOp<"async_mma", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "issues a specialized loop's dots on the matrix unit (wgmma or mfma)";
  let description = [{
    In every consumer role of a loop rewritten by
    `transform.tiletag.warp_specialize` (or, in a kernel without a schedule,
    in the loop itself, run by one warpgroup), every `tile.dot` becomes an
    asynchronous `schedule.async wgmma` committed as a group of its own. A
    dot whose result the step itself uses (attention's scores) is waited for
    at once (`pending 0`); after a dot whose result only flows to the next
    step (an accumulator), `schedule.wait_group wgmma pending <wait_depth>`
    keeps that many groups in flight. A wgmma reads its shared operands until it retires, so the
    release of a ring slot moves to the step where the group that read it
    has retired: step n releases the slot of step n - wait_depth. The
    epilogue of each consumer first waits for every group (`pending 0`);
    where the ring runs on across the iterations of loops around this one
    (see `warp_specialize`), it then releases the last wait_depth steps'
    slots, which the next run's producer waits for.

    `unit` is the matrix unit: `wgmma` (the default; Hopper's warpgroup
    MMA, which reads 128-byte swizzled panels: a contracted extent of 64
    16-bit elements, rows a multiple of 64) or `mfma` (AMD CDNA's MFMA,
    16x16x16 or 32x32x8 blocks: every extent a multiple of 16, or rows and
    columns of 32 and K of 8, so a K step of 32, 16 or 8 serves). The Hopper lowering refuses `mfma` regions; the AMD lowering
    runs either unit's regions on MFMA.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a loop
    rewritten by `warp_specialize` or a loop of a kernel without a schedule,
    a consumer (or the plain loop) has no `tile.dot`, a dot's inputs or
    shape are not what `unit` multiplies, `unit` is `tma` (a verifier
    error), `wait_depth` is not 0
    in a plain loop (the next step's loads would overwrite what an in-flight
    wgmma reads), or
    `wait_depth` is not below the number of stages (the producer would wait
    for a release that never comes). Otherwise the loop is rewritten in
    place, the proof stamps dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$wait_depth,
                       DefaultValuedAttr<Schedule_AsyncUnit,
                           "::mlir::tiletag::schedule::AsyncUnit::wgmma">:$unit);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `wait_depth` `(` $wait_depth `)` (`unit` `(` $unit^ `)`)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
    ::mlir::DiagnosedSilenceableFailure issuePlainLoop(
        ::mlir::RewriterBase &rewriter, ::mlir::scf::ForOp loop,
        ::mlir::Operation *kernel,
        ::mlir::transform::ApplyToEachResultList &results);
  }];
}

def TileTag_StageStoresOp : TileTag_TransformOp<"stage_stores", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "stores a kernel's output tiles through shared memory by TMA";
  let description = [{
    Every `tile.store` of the target kernel becomes a TMA-store epilogue:
    the tile is written to an epilogue buffer (`tile.alloc_shared` of
    `buffers` slots, one buffer per store, at the top of the kernel), the
    threads' writes are made visible to the async proxy
    (`schedule.fence_async_proxy`), a `schedule.async tma` region copies the
    slot to the store's block, and `schedule.commit_group tma` /
    `schedule.wait_group tma` retire it. A wgmma accumulator goes from its
    registers to the buffer; TMA writes whole 128-byte lines where stores
    from registers write a few bytes per row per instruction.

    `buffers` is the number of slots: 1 waits for the store at once
    (`pending 0`); 2, for a store in an `scf.for` of step 1, alternates
    between the slots by iteration and keeps the previous store in flight
    (`pending 1`, then a `pending 0` after the loop, in a role of the same
    name and warpgroups where the store is in a role within the loop), so
    that one tile's store overlaps the next tile's work; 0 leaves the kernel
    as it is (stores from registers: the value a recipe gives to compare
    both epilogues).

    Invariants instantiated: the buffers' slot indices and wait depths. The
    schedule checker proves that no buffer is rewritten before its store
    has read it, that every store retires before the program ends, and the
    contract checker follows the values through the buffer.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`, has no `tile.store`, or one of its stores cannot go
    through TMA: `combine add` (TMA stores here do not reduce), `bounds`
    (TMA clips at the operand's size only), a destination that is not a
    kernel operand, a tile that is not 2-D with rows of a multiple of 128
    bytes (the 128-byte swizzle), a store outside the warp roles of a
    warp-specialized kernel, or with `buffers = 2` a store not in a loop
    of step 1; or when the buffers and what the
    kernel has already exceed the shared memory of one CTA (227 KiB on
    sm_90a). Otherwise the kernel is rewritten in place, its proof stamps
    dropped, and the result handle points to the kernel.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntNonNegative,
                                              IntMaxValue<2>]>:$buffers);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = [{
    $target `buffers` `(` $buffers `)` attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_FuseEpilogueOp : TileTag_TransformOp<"fuse_epilogue", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "fuses the epilogue kernel a kernel's launch runs after it";
  let description = [{
    A kernel whose launch runs one kernel after it (`then`), which reads a
    workspace the first stores once (a GEMM storing `A * B` to `T`, then an
    epilogue storing `D = max(T + bias, 0)`), becomes one kernel: the
    epilogue's operations run where the first kernel stored the workspace,
    on the value it stored, and store the epilogue's results. The workspace
    goes; the epilogue's other operands (`bias`, `D`) join the kernel's, in
    the order of the kernel's contract when it has one (the launch chain's
    contract becomes the kernel's own), otherwise after its own. The launch
    keeps the kernel's sizes and grid, gains the epilogue's operand shapes
    and runs what the epilogue ran after it.

    Invariants instantiated: none; the contract checker proves the fused
    kernel against the contract (and the chain before it: a chain whose
    epilogue reads another block than the kernel stored is rejected with a
    counterexample).

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`, its launch does not run exactly one kernel after it, the
    two grids differ (rank or extents), the kernel does not store one
    workspace the epilogue reads once (with the load and the store in their
    kernels' bodies, outside loops and branches, and the workspace not used
    otherwise), the epilogue reads another block than the store writes (its
    indices, offsets and bounds are not computed the same way: fusing would
    change what the chain computes), the epilogue has a schedule, or an
    operand name of both kernels has two types. The target handle is consumed; the result handle
    points to the fused kernel, which replaces both.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_SkipEmptyBlocksOp : TileTag_TransformOp<"skip_empty_blocks", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "programs whose output block is empty skip their work";
  let description = [{
    A kernel whose one `tile.store` may fall entirely outside its bounds
    (MoE: a row block past the end of its expert's rows) computes, loads and
    multiplies for nothing. This op wraps the kernel's work in
    `scf.if`: in dimension d of the store, its block starts at
    `offset_d + index_d * extent_d` and is empty when that is at or past the
    bound (`bounds`, else the destination's size); the guard is
    `index_d * extent_d < bound_d - offset_d` (unsigned; an offset past the
    bound only fails to skip). The dimensions guarded are those with a
    non-zero offset (where a launch sized for the worst case has empty
    blocks), or every dimension when there are none. The guard comes right
    after the last op the store's block is computed from; everything after
    it up to the terminator moves into the `scf.if`.

    Invariants instantiated: none; the contract checker proves that a
    skipped program would have stored nothing.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`, it writes global memory other than through exactly one
    `tile.store`, the store's indices do not address every dimension, its
    block is computed inside a nested region, or a value of the work is used
    after it. Otherwise the kernel is rewritten in place, its proof stamps
    dropped, and the result handle points to it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_MapLoopOp : TileTag_TransformOp<"map_loop", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "runs a loop's iterations concurrently at a parallel level";
  let description = [{
    Marks the target `scf.for` with `schedule.map = #schedule.map<level>`:
    its iterations run concurrently, spread over programs (`cta`, a
    persistent loop), warpgroups, warps or threads of the program.

    Invariants instantiated: none beyond the annotation; the schedule
    checker proves that no two iterations touch the same elements without a
    barrier between (a race is an error with the two iterations as the
    counterexample).

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not an
    `scf.for` in a `tile.kernel`, carries values from one iteration to the
    next (iter_args: concurrent iterations cannot), is mapped already, or
    `level` is not one of `cta`, `warpgroup`, `warp`, `thread`. Otherwise
    the annotation is set, the kernel's proof stamps dropped, and the result
    handle points to the loop. The lowerings run loops mapped to threads
    (and, on Hopper, warps) in parallel; they refuse `cta` and `warpgroup`
    for now, with a reason.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, StrAttr:$level);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `to` $level attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def TileTag_OccupancyOp : TileTag_TransformOp<"occupancy", [
    FunctionalStyleTransformOpTrait, TransformEachOpTrait, TransformOpInterface,
    MemoryEffectsOpInterface, ReportTrackingListenerFailuresOpTrait]> {
  let summary = "asks for at least `programs` resident programs per SM (CU)";
  let description = [{
    Sets the `occupancy` of the kernel's `schedule.launch` (one warpgroup,
    if the kernel had none): at least `programs` programs resident on one
    SM (CU) at a time. The lowerings pass it to the register allocator
    (`.minnctapersm`; `amdgpu-waves-per-eu`), so the program's registers
    shrink to fit (or spill: `tiletag-agent` rejects a kernel that spills),
    and refuse the kernel where its shared memory, threads or role register
    budgets do not leave room for that many programs. On CDNA the waves per
    CU follow (`programs` x waves per program, over 4 SIMDs): the agent's
    MFMA recipes choose it.

    Invariants instantiated: none; occupancy changes no result.

    #### Return modes

    A silenceable failure (payload unchanged) when the target is not a
    `tile.kernel`. Otherwise the attribute is set, the kernel's proof
    stamps dropped, and the result handle points to the kernel.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<32>]>:$programs);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat =
      "$target `programs` `(` $programs `)` attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

#endif // TILETAG_TRANSFORMOPS_TILETAGTRANSFORMOPS_TD
