//===- Passes.td - verification passes ---------------------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_VERIFICATION_PASSES_TD
#define TILETAG_VERIFICATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyTagsPass : Pass<"tiletag-verify-tags", "::mlir::ModuleOp"> {
  let summary = "Prove every tag assertion with Z3, for every problem size";
  let description = [{
    Builds the symbolic model of each `tile.kernel` (program ids, problem
    sizes and loop variables as Z3 integers; the `tile.launch` contract
    relates sizes, operand shapes and the grid), propagates tags through
    computations, `scf.for` iter_args (by induction: a candidate invariant
    from the yield, checked against the init; otherwise the union over the
    iterations so far), `scf.if` results (path-insensitive join) and shared
    memory (a read carries the tags of the last write to its slot in
    sequential order, found with a quantified last-writer query), and proves
    each `tag.assert*`. It also proves that unchecked loads stay in range,
    that `bounds` never exceed the memref, that slot indices stay in the
    buffer, and that no read finds a slot without an earlier write.

    A failed proof is an error at the assertion with a note naming a
    concrete counterexample (program ids, sizes, loop variables, the tag
    fields and the write that reached the read) and the `tiletag-run` flags
    that replay it. UNKNOWN (the resource limit reached) is an error ("could
    not prove"). Before any of it, the integer operations are proved defined
    and exact (no wrap-around, no division by zero, ...). On success each
    kernel gets `tag.verified`, the hash of the IR that was proved.

    Example: `tiletag-opt --tiletag-verify-tags examples/gemm.mlir`;
    `--tiletag-verify-tags=stats=1` reports the queries and the time.
  }];
  let options = [
    Option<"resourceLimit", "rlimit", "uint64_t", /*default=*/"10000000",
           "Z3 resource limit per query (deterministic, unlike a time "
           "limit); a query that reaches it is an error">,
    Option<"dumpSmtDir", "dump-smt", "std::string", /*default=*/"\"\"",
           "Write every query as SMT-LIB into this directory "
           "(also --tiletag-dump-smt=DIR)">,
    Option<"verdictCacheDir", "verdict-cache", "std::string",
           /*default=*/"\"\"",
           "Keep each query's verdict (proof, counterexample, limit "
           "reached) in this directory and reuse it when the same query "
           "comes again; whoever can write the directory can forge proofs">,
    Option<"failFast", "fail-fast", "bool", /*default=*/"false",
           "Stop checking a kernel at its first error, which is reported "
           "alone (a verdict without the full list of failures, for "
           "searches and mutation testing)">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Report, per kernel, what was proved, the number of Z3 queries, "
           "the time and the resources spent (as a remark)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "`text`: diagnostics only; `json`: also print every kernel's "
           "verdicts (per obligation: proved / failed / unknown, with a "
           "structured counterexample) as JSON on stdout">,
  ];
}

def VerifySchedulePass : Pass<"tiletag-verify-schedule", "::mlir::ModuleOp"> {
  let summary = "Prove that the parallel schedule computes what the sequential kernel does";
  let description = [{
    Proves, with Z3 over symbolic sizes, that running a kernel in parallel as
    its schedule says gives the sequential result:

    - no two accesses that may run concurrently conflict (RAW, WAR, WAW on
      overlapping elements): accesses of different programs (CTAs) to global
      memory (`combine add` stores are atomic and commute), and accesses of
      different iterations of a loop mapped to warpgroups, warps or threads
      unless a `schedule.barrier` lies between them in sequential order;
    - every use of a `schedule.async wgmma`/`mfma` result comes after a
      `schedule.wait_group` that covers its group (enough commits since, or
      `pending 0` after its loop), except as the accumulator of the next
      asynchronous `tile.dot`, which the unit orders itself;
    - `schedule.mbarrier.arrive_expect_tx` announces exactly the bytes that
      the TMA copies completing on the same mbarrier deliver;
    - loops mapped to a parallel level carry no values; roles that run at the
      same time use disjoint warpgroups; no barrier sits under a branch that
      differs between the threads it synchronizes.

    - values computed in a warp role never reach another role (roles share
      data through memory only), and a `wait_group` retires only its own
      role's groups;
    - shared memory of different roles (and of a role and its TMA unit) is
      ordered by mbarrier phases; a wgmma reads its shared operands until a
      `wait_group` retires it, whoever writes them next (its own TMA refills
      and restaged register operands included); TMA stores are committed
      and retired before their buffer is written again and before the
      program ends.

    Before any of it, the integer operations are proved defined and exact
    (no wrap-around, no division by zero, ...). On success a kernel gets
    `schedule.verified`, the hash of the IR that was proved.

    Example: `tiletag-opt --tiletag-verify-schedule examples/softmax.mlir`.
  }];
  let options = [
    Option<"resourceLimit", "rlimit", "uint64_t", /*default=*/"10000000",
           "Z3 resource limit per query (deterministic, unlike a time "
           "limit); a query that reaches it is an error">,
    Option<"dumpSmtDir", "dump-smt", "std::string", /*default=*/"\"\"",
           "Write every query as SMT-LIB into this directory "
           "(also --tiletag-dump-smt=DIR)">,
    Option<"verdictCacheDir", "verdict-cache", "std::string",
           /*default=*/"\"\"",
           "Keep each query's verdict (proof, counterexample, limit "
           "reached) in this directory and reuse it when the same query "
           "comes again; whoever can write the directory can forge proofs">,
    Option<"failFast", "fail-fast", "bool", /*default=*/"false",
           "Stop checking a kernel at its first error, which is reported "
           "alone (a verdict without the full list of failures, for "
           "searches and mutation testing)">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Report, per kernel, what was proved, the number of Z3 queries, "
           "the time and the resources spent (as a remark)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "`text`: diagnostics only; `json`: also print every kernel's "
           "verdicts (per obligation: proved / failed / unknown, with a "
           "structured counterexample) as JSON on stdout">,
  ];
}

def VerifyPass : Pass<"tiletag-verify", "::mlir::ModuleOp"> {
  let summary = "Prove every kernel: its integer operations, its tags and its schedule";
  let description = [{
    Runs both checkers (`--tiletag-verify-tags`, `--tiletag-verify-schedule`)
    on every `tile.kernel`, after proving that its integer operations are
    defined and followed exactly (no division by zero, no wrap-around of
    index arithmetic, dimensions inside the rank, positive loop steps).
    Each proved checker stamps the kernel (`tag.verified`,
    `schedule.verified`) with the hash of the IR it proved; a later change
    to the kernel makes the stamp stale, and the lowering refuses it.

    With `format=json` the verdicts are printed on stdout, one object per
    kernel and one entry per obligation:

    ```sh
    tiletag-opt --tiletag-verify=format=json -o /dev/null examples/gemm.mlir
    ```
  }];
  let options = [
    Option<"resourceLimit", "rlimit", "uint64_t", /*default=*/"10000000",
           "Z3 resource limit per query (deterministic, unlike a time "
           "limit); a query that reaches it is an error">,
    Option<"dumpSmtDir", "dump-smt", "std::string", /*default=*/"\"\"",
           "Write every query as SMT-LIB into this directory "
           "(also --tiletag-dump-smt=DIR)">,
    Option<"verdictCacheDir", "verdict-cache", "std::string",
           /*default=*/"\"\"",
           "Keep each query's verdict (proof, counterexample, limit "
           "reached) in this directory and reuse it when the same query "
           "comes again; whoever can write the directory can forge proofs">,
    Option<"failFast", "fail-fast", "bool", /*default=*/"false",
           "Stop checking a kernel at its first error, which is reported "
           "alone (a verdict without the full list of failures, for "
           "searches and mutation testing)">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Report, per kernel, what was proved, the number of Z3 queries, "
           "the time and the resources spent (as a remark)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "`text`: diagnostics only; `json`: also print every kernel's "
           "verdicts (per obligation: proved / failed / unknown, with a "
           "structured counterexample) as JSON on stdout">,
  ];
}

#endif // TILETAG_VERIFICATION_PASSES_TD
