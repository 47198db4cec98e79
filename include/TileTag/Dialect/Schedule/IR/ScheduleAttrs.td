//===- ScheduleAttrs.td - schedule attributes and types ----*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEATTRS_TD
#define TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEATTRS_TD

include "TileTag/Dialect/Schedule/IR/ScheduleDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Schedule_ParallelLevel : I32EnumAttr<"ParallelLevel",
    "the hardware level that runs a loop's iterations", [
    I32EnumAttrCase<"sequential", 0>, I32EnumAttrCase<"cta", 1>,
    I32EnumAttrCase<"warpgroup", 2>, I32EnumAttrCase<"warp", 3>,
    I32EnumAttrCase<"thread", 4>]> {
  let cppNamespace = "::mlir::tiletag::schedule";
  let genSpecializedAttr = 0;
}

def Schedule_AsyncUnit : I32EnumAttr<"AsyncUnit",
    "an asynchronous unit that runs operations apart from the issuing threads", [
    I32EnumAttrCase<"tma", 0>, I32EnumAttrCase<"wgmma", 1>,
    I32EnumAttrCase<"mfma", 2>]> {
  let cppNamespace = "::mlir::tiletag::schedule";
}

def Schedule_BarrierScope : I32EnumAttr<"BarrierScope",
    "the threads a barrier synchronizes", [
    I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"cluster", 1>]> {
  let cppNamespace = "::mlir::tiletag::schedule";
}

def Schedule_MapAttr : EnumAttr<Schedule_Dialect, Schedule_ParallelLevel, "map"> {
  let summary = "the parallel level of a loop";
  let description = [{
    On a loop, as `schedule.map`: its iterations run concurrently at this
    level (`cta`: spread over programs, as in persistent kernels;
    `warpgroup`, `warp`, `thread`: spread over the program's threads), or
    one after another (`sequential`, the default).

    <!-- doctest: kernel(%X: memref<?xf32>) given %c0 = arith.constant 0 : index; %c1 = arith.constant 1 : index; %c2 = arith.constant 2 : index; %one = arith.constant 1.0 : f32 -->
    ```mlir
    scf.for %wg = %c0 to %c2 step %c1 {
      memref.store %one, %X[%wg] : memref<?xf32>
    } {schedule.map = #schedule.map<warpgroup>}
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Schedule_LaunchAttr : AttrDef<Schedule_Dialect, "Launch"> {
  let mnemonic = "launch";
  let summary = "warpgroups per program, cluster shape and occupancy";
  let description = [{
    On a kernel, as `schedule.launch`: each program runs `warpgroups`
    warpgroups of 128 threads (1 to 8); `cluster` (optional, 1 to 3 positive
    sizes, product at most 16) groups programs into thread-block clusters;
    `occupancy` (optional, 1 to 32) asks that at least that many programs
    be resident on one SM (CU) at a time: the lowerings tell the register
    allocator so (`.minnctapersm` on Hopper; `amdgpu-waves-per-eu` on CDNA,
    the waves of that many programs spread over the CU's 4 SIMDs), and
    refuse a kernel whose shared memory, threads or role register budgets
    leave room for fewer. It changes no result: the checkers ignore it.

    ```mlir
    tile.kernel @k(%X: memref<?xf32> {tile.name = "X"}) grid(2) attributes {
        schedule.launch = #schedule.launch<warpgroups = 3, cluster = [2, 1]>} {
      tile.return
    }
    tile.kernel @two_per_cu(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
        schedule.launch = #schedule.launch<warpgroups = 2, occupancy = 2>} {
      tile.return
    }
    ```
  }];
  let parameters = (ins "int64_t":$warpgroups,
                        OptionalArrayRefParameter<"int64_t">:$cluster,
                        DefaultValuedParameter<"int64_t", "0">:$occupancy);
  // <warpgroups = N[, cluster = [..]][, occupancy = K]>
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Schedule_MBarrierType : TypeDef<Schedule_Dialect, "MBarrier"> {
  let mnemonic = "mbarrier";
  let summary = "an array of mbarriers in shared memory";
  let description = [{
    `!schedule.mbarrier<N>` is an array of `N` mbarriers (transaction
    barriers) in shared memory, typically one per ring-buffer slot. Each
    mbarrier completes a *phase* when its expected arrivals and expected
    transaction bytes have all arrived; waiters test the phase's parity.

    <!-- doctest: kernel() -->
    ```mlir
    %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
    ```
  }];
  let parameters = (ins "int64_t":$size);
  let assemblyFormat = "`<` $size `>`";
  let genVerifyDecl = 1;
}

#endif // TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEATTRS_TD
