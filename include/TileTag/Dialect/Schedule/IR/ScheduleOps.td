//===- ScheduleOps.td - schedule dialect operations --------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEOPS_TD
#define TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEOPS_TD

include "TileTag/Dialect/Schedule/IR/ScheduleDialect.td"
include "TileTag/Dialect/Schedule/IR/ScheduleAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Synchronization is modelled as an effect on a resource of its own, so that
// no generic pass drops or reorders it.
def Schedule_SyncResource : Resource<"::mlir::tiletag::schedule::SyncResource">;
defvar SyncEffects = MemoryEffects<[MemRead<Schedule_SyncResource>,
                                    MemWrite<Schedule_SyncResource>]>;

//===----------------------------------------------------------------------===//
// Regions: warp roles and asynchronous units
//===----------------------------------------------------------------------===//

def Schedule_RoleOp : Schedule_Op<"role", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "code that only some warpgroups run (warp specialization)";
  let description = [{
    The body runs only on the warpgroups listed in `warpgroups`; the other
    warpgroups skip it. With `regs`, those warpgroups set their register
    budget to that many registers per thread (setmaxnreg: a multiple of 8
    from 24 to 256). Sequentially the body simply runs in place; its results
    are the yielded values.

    A loop whose body holds a producer role and a consumer role is the
    warp-specialized pipeline: each role runs its own copy of the loop,
    synchronized only by mbarriers.

    <!-- doctest: kernel(%A: memref<?x?xbf16>, %pm: index, %k: index, %slot: index) given %ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>; %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4> -->
    ```mlir
    schedule.role "producer" warpgroups [0] regs 40 {
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<4> {
        tile.copy %A[%pm, %k] -> %ring[%slot]
            : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
      }
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, DenseI64ArrayAttr:$warpgroups,
                       OptionalAttr<I64Attr>:$regs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `warpgroups` $warpgroups (`regs` $regs^)? $body attr-dict
    (`:` type($results)^)?
  }];
  let hasVerifier = 1;
}

def Schedule_AsyncOp : Schedule_Op<"async", [
    AttrSizedOperandSegments, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "operations that run on an asynchronous unit";
  let description = [{
    The body runs on the asynchronous unit `unit` instead of the issuing
    threads; the issuing threads go on at once.
    - `tma`: the body holds `tile.copy` ops in one direction. Copies into
      shared memory complete transaction bytes on the mbarrier named by
      `arrive` (required); copies out of shared memory complete with
      `schedule.commit_group tma` / `schedule.wait_group tma`.
    - `wgmma`, `mfma`: the body holds `tile.dot` ops; they complete with
      `schedule.commit_group` / `schedule.wait_group` on the same unit. The
      results are not ready until the wait that covers them.

    <!-- doctest: kernel() given %a = arith.constant dense<0.0> : tensor<128x64xbf16>; %b = arith.constant dense<0.0> : tensor<64x128xbf16>; %acc = arith.constant dense<0.0> : tensor<128x128xf32> -->
    ```mlir
    %d = schedule.async wgmma {
      %r = tile.dot %a, %b, %acc
          : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      schedule.yield %r : tensor<128x128xf32>
    } : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Schedule_AsyncUnit:$unit,
                       Optional<Schedule_MBarrierType>:$barrier,
                       Optional<Index>:$barrier_index);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $unit (`arrive` $barrier^ `[` $barrier_index `]` `:` type($barrier))?
    $body attr-dict (`:` type($results)^)?
  }];
  let hasVerifier = 1;
}

def Schedule_YieldOp : Schedule_Op<"yield", [
    Pure, ReturnLike, Terminator, ParentOneOf<["RoleOp", "AsyncOp"]>]> {
  let summary = "the results of a role or async region";
  let description = [{
    Ends the body of `schedule.role` or `schedule.async` and gives its
    results. It may be left out when there are none.

    <!-- doctest: same as examples/gemm.mlir -->
    ```mlir
    schedule.yield %r : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, ::mlir::ValueRange());
  }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Barriers, groups and fences
//===----------------------------------------------------------------------===//

def Schedule_BarrierOp : Schedule_Op<"barrier", [SyncEffects]> {
  let summary = "a barrier for every thread of the CTA or cluster";
  let description = [{
    Every thread of the scope waits here until all have arrived; memory
    accesses before it happen before those after it. A CTA barrier must be
    reached by all warpgroups, so it cannot sit inside a warp role. A
    cluster barrier (in a kernel launched with a cluster) waits for every
    thread of every program of the cluster, and orders their global memory
    accesses; each program must reach it at the same loop iterations, which
    the schedule checker proves.

    <!-- doctest: kernel() -->
    ```mlir
    schedule.barrier cta
    ```
  }];
  let arguments = (ins Schedule_BarrierScope:$scope);
  let assemblyFormat = "$scope attr-dict";
  let hasVerifier = 1;
}

def Schedule_FenceAsyncProxyOp : Schedule_Op<"fence_async_proxy", [SyncEffects]> {
  let summary = "orders generic-proxy and async-proxy accesses to shared memory";
  let description = [{
    Shared-memory writes by threads (the generic proxy) become visible to
    the TMA engine and wgmma (the async proxy) only after this fence, e.g.
    between `tile.write` of an epilogue and the TMA store that reads it.

    <!-- doctest: kernel() -->
    ```mlir
    schedule.fence_async_proxy
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Schedule_CommitGroupOp : Schedule_Op<"commit_group", [SyncEffects]> {
  let summary = "closes the group of asynchronous operations issued so far";
  let description = [{
    Groups every `schedule.async` op on `unit` issued by this thread since
    the previous commit; `schedule.wait_group` waits for groups.

    <!-- doctest: kernel() -->
    ```mlir
    schedule.commit_group wgmma
    ```
  }];
  let arguments = (ins Schedule_AsyncUnit:$unit);
  let assemblyFormat = "$unit attr-dict";
}

def Schedule_WaitGroupOp : Schedule_Op<"wait_group", [SyncEffects]> {
  let summary = "waits until at most `pending` committed groups are unfinished";
  let description = [{
    Blocks until at most `pending` of the groups committed on `unit` are
    still running (0 to 7). With `pending 1`, one wgmma group stays in
    flight while the next is issued.

    <!-- doctest: kernel() -->
    ```mlir
    schedule.wait_group wgmma pending 1
    ```
  }];
  let arguments = (ins Schedule_AsyncUnit:$unit, I64Attr:$pending);
  let assemblyFormat = "$unit `pending` $pending attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def Schedule_MBarrierInitOp : Schedule_Op<"mbarrier.init", [SyncEffects]> {
  let summary = "creates and initializes an array of mbarriers";
  let description = [{
    Creates `N` mbarriers in shared memory, each expecting `count` arrivals
    per phase, all in phase 0. Initialize once per program, outside loops.

    With `named`, the `N` barriers are the CTA's hardware barriers instead
    (`bar.sync` / `bar.arrive`, with which FA3 orders its consumer
    warpgroups), with the same phases: `count` role arrivals complete one. A role arrives with all of its threads, by
    `schedule.mbarrier.arrive` (`bar.arrive`, which does not wait) or
    `schedule.mbarrier.sync` (`bar.sync`: arrive, then wait for the phase
    that arrival belongs to). A named barrier has no other wait and counts
    no TMA bytes, and the lowering gives it barrier ids of its own.

    <!-- doctest: kernel() -->
    ```mlir
    %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
    %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
    ```
  }];
  let arguments = (ins I64Attr:$count, UnitAttr:$named);
  let results = (outs Schedule_MBarrierType:$result);
  let assemblyFormat = "`count` $count (`named` $named^)? attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The init of `barriers` if it is a named (hardware) barrier array.
    static MBarrierInitOp namedInit(::mlir::Value barriers);
  }];
  let hasVerifier = 1;
}

def Schedule_MBarrierArriveOp : Schedule_Op<"mbarrier.arrive", [SyncEffects]> {
  let summary = "arrives on one mbarrier of an array";
  let description = [{
    Counts one arrival on mbarrier `index`; memory accesses before the
    arrival happen before whatever follows a wait that sees its phase
    complete (release semantics).

    <!-- doctest: kernel(%slot: index) given %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<4> -->
    ```mlir
    schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<4>
    ```
  }];
  let arguments = (ins Schedule_MBarrierType:$barriers, Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def Schedule_MBarrierArriveExpectTxOp
    : Schedule_Op<"mbarrier.arrive_expect_tx", [SyncEffects]> {
  let summary = "arrives on an mbarrier and expects transaction bytes";
  let description = [{
    Counts one arrival on mbarrier `index` and raises the bytes it expects
    in the current phase by `bytes`; the phase completes when the TMA
    copies that name this barrier have delivered them.

    <!-- doctest: kernel(%slot: index) given %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4> -->
    ```mlir
    schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<4>
    ```
  }];
  let arguments = (ins Schedule_MBarrierType:$barriers, Index:$index,
                       I64Attr:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

def Schedule_MBarrierWaitOp : Schedule_Op<"mbarrier.wait", [SyncEffects]> {
  let summary = "waits until an mbarrier completes the phase of a given parity";
  let description = [{
    Blocks until mbarrier `index` has completed the phase whose parity is
    `parity` (0 or 1; an integer or index value, only its low bit counts).
    What happened before the arrivals of that phase, and the bytes of the
    TMA copies it counted, are then visible (acquire semantics).

    <!-- doctest: kernel(%slot: index, %parity: index) given %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4> -->
    ```mlir
    schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
    ```
  }];
  let arguments = (ins Schedule_MBarrierType:$barriers, Index:$index,
                       AnySignlessIntegerOrIndex:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers) `,` type($parity)
  }];
  let hasVerifier = 1;
}

def Schedule_MBarrierSyncOp : Schedule_Op<"mbarrier.sync", [SyncEffects]> {
  let summary = "arrives on a named barrier and waits for that phase";
  let description = [{
    One arrival of the role on named barrier `index` (`bar.sync`: every
    thread of the role), then a wait until the phase it arrived in
    completes. `parity` is that phase's parity (0 or 1; only its low bit
    counts): the hardware tracks phases itself, and the schedule checker
    proves the stated parity is the phase the sync lands in, with the same
    rules as for `schedule.mbarrier.wait`. Memory accesses before the
    phase's arrivals happen before what follows the sync.

    <!-- doctest: kernel(%parity: index) given %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>; %c0 = arith.constant 0 : index -->
    ```mlir
    schedule.mbarrier.sync %order[%c0], %parity : !schedule.mbarrier<1>, index
    ```
  }];
  let arguments = (ins Schedule_MBarrierType:$barriers, Index:$index,
                       AnySignlessIntegerOrIndex:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers) `,` type($parity)
  }];
  let hasVerifier = 1;
}

#endif // TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEOPS_TD
