// Two warp roles take turns on one shared buffer, ordered by named
// (hardware) barriers as FA3 orders its consumer warpgroups: the loader
// writes row r of X into the buffer and arrives on %ready (bar.arrive);
// the storer syncs on %ready (bar.sync), copies the buffer to row r of Y
// and arrives on %free, on which the loader syncs before the next row. A
// phase is 2 role arrivals: the arriving role's and the syncing role's
// own. The storer's arrival before the loop lets the loader's first sync
// complete.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/@free-arrive/d' %s > %t.free.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.free.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: sed -e '/@first/d' %s > %t.first.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.first.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: sed -e 's/%%ready\[%%c0\], %%parity/%%ready[%%c0], %%c0/' %s > %t.parity.mlir
// RUN: not diff -q %s %t.parity.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.parity.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARITY
// OK: tile.kernel @turns{{.*}}schedule.verified
// FREE: error: the phase this wait waits for completes: 2 arrivals on %free (line {{[0-9]+}}) after the wait before it on that element, which waits for the previous phase (otherwise this sync never returns; where two roles meet, one arrives and the other syncs) does not hold
// FIRST: error: the phase the first wait on that element waits for completes: 2 arrivals on %free (line {{[0-9]+}}) before it (otherwise this sync never returns; where two roles meet, one arrives and the other syncs) does not hold
// PARITY: error: this wait on %ready (line {{[0-9]+}}) waits for the phase after the previous wait's (parities alternate) does not hold

tile.kernel @turns(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 5, N = 256], grid = [N ceildiv 128],
                               shapes = [X = [R, N], Y = [R, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %R = memref.dim %X, %c0 : memref<?x?xf32>
  %buf = tile.alloc_shared : memref<1x1x128xf32, #gpu.address_space<workgroup>>
  %ready = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  %free = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  schedule.role "storer" warpgroups [1] {
    schedule.mbarrier.arrive %free[%c0] : !schedule.mbarrier<1> // @first
  }
  scf.for %r = %c0 to %R step %c1 {
    %parity = arith.remui %r, %c2 : index
    schedule.role "loader" warpgroups [0] {
      schedule.mbarrier.sync %free[%c0], %parity : !schedule.mbarrier<1>, index
      %x = tile.load %X[%r, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<1x128xf32>
      tile.write %x, %buf[%c0] : tensor<1x128xf32> -> memref<1x1x128xf32, #gpu.address_space<workgroup>>
      schedule.mbarrier.arrive %ready[%c0] : !schedule.mbarrier<1>
    }
    schedule.role "storer" warpgroups [1] {
      schedule.mbarrier.sync %ready[%c0], %parity : !schedule.mbarrier<1>, index // @ready-sync
      %t = tile.read %buf[%c0] : memref<1x1x128xf32, #gpu.address_space<workgroup>> -> tensor<1x128xf32>
      tile.store %t, %Y[%r, %p] : tensor<1x128xf32> -> memref<?x?xf32>
      schedule.mbarrier.arrive %free[%c0] : !schedule.mbarrier<1> // @free-arrive
    }
  }
  tile.return
}
