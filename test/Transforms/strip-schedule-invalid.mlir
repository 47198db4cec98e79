// RUN: tiletag-opt %s --tiletag-strip-schedule --verify-diagnostics

// A schedule value that flows into the computation cannot be erased.
tile.kernel @leak(%c: i1) grid(1) {
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  // expected-error @+1 {{uses a value of the schedule dialect, which --tiletag-strip-schedule erases}}
  %b = arith.select %c, %full, %empty : !schedule.mbarrier<2>
  tile.return
}
