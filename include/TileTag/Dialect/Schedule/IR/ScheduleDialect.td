//===- ScheduleDialect.td - The schedule dialect -----------*- tablegen -*-===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEDIALECT_TD
#define TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEDIALECT_TD

include "mlir/IR/OpBase.td"

def Schedule_Dialect : Dialect {
  let name = "schedule";
  let cppNamespace = "::mlir::tiletag::schedule";
  let summary = "How a sequential tile kernel runs in parallel";
  let description = [{
    Schedule annotations say how a kernel with a sequential meaning runs on
    the GPU: which loops are spread over CTAs, warpgroups, warps or threads
    (`schedule.map` on a loop), which warpgroups play which role
    (`schedule.role`), which operations run on an asynchronous unit (the TMA
    copy engine, the wgmma or MFMA pipe: `schedule.async`), and the
    synchronization between them (CTA barriers, mbarriers with phases, wgmma
    commit groups, async-proxy fences).

    Removing every annotation (`--tiletag-strip-schedule`) leaves the
    sequential program, which is the specification: the schedule checker
    proves that the parallel program computes the same thing.

    Discardable attributes:
    - `schedule.map = #schedule.map<LEVEL>` on a loop (any op with the
      LoopLikeOpInterface): its iterations run at that parallel level.
    - `schedule.launch = #schedule.launch<warpgroups = N, cluster = [...]>`
      on a kernel: the warpgroups per program and the thread-block cluster.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::tiletag::tile::TileDialect"];
  let extraClassDeclaration = [{
    /// The discardable attribute that maps a loop to a parallel level.
    static constexpr ::llvm::StringLiteral kMapAttrName = "schedule.map";
    /// The discardable attribute with a kernel's launch configuration.
    static constexpr ::llvm::StringLiteral kLaunchAttrName = "schedule.launch";
    /// Set on a kernel whose schedule --tiletag-verify-schedule proved.
    static constexpr ::llvm::StringLiteral kVerifiedAttrName = "schedule.verified";
  }];
}

class Schedule_Op<string mnemonic, list<Trait> traits = []>
    : Op<Schedule_Dialect, mnemonic, traits>;

#endif // TILETAG_DIALECT_SCHEDULE_IR_SCHEDULEDIALECT_TD
