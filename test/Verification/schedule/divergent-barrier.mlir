// A barrier that each thread reaches on its own, or only some threads reach,
// deadlocks: barriers belong outside parallel loops.
// RUN: not tiletag-opt --tiletag-verify-schedule %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: a barrier inside a loop mapped to thread is reached by each unit on its own (and not at all by units a branch skips); place it outside the parallel loop
// CHECK: error: a barrier inside a loop mapped to warp is reached by each unit

tile.kernel @divergent(%X: memref<?xf32> {tile.name = "X"}) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %t = %c0 to %c32 step %c1 {
    %lane0 = arith.cmpi eq, %t, %c0 : index
    scf.if %lane0 {
      schedule.barrier cta
    }
  } {schedule.map = #schedule.map<thread>}
  scf.for %w = %c0 to %c4 step %c1 {
    schedule.barrier cta
  } {schedule.map = #schedule.map<warp>}
  tile.return
}
