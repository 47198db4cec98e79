// relay-chain.mlir with two relays: the copy's completion reaches the
// consumer through full, relay and relay2 (three edges, two relay roles).
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// OK: schedule.verified
// The second relay does not wait:
// RUN: sed -e '/mbarrier.wait %%relay\[/d' %s > %t.nowait.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.nowait.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: read-after-write on %ring (line {{[0-9]+}}): the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// CHECK: note: counterexample:
tile.kernel @chain2(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [N = 256], grid = [1], shapes = [X = [64, N], Y = [64, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 4>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %N = memref.dim %X, %c1 : memref<?x?xf32>
  %steps = arith.ceildivui %N, %c64 : index
  %ring = tile.alloc_shared : memref<2x64x64xf32, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %relay = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %relay2 = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  scf.for %k = %c0 to %steps step %c1 {
    %slot = arith.remui %k, %c2 : index
    %round = arith.divui %k, %c2 : index
    %parity = arith.remui %round, %c2 : index
    schedule.role "producer" warpgroups [0] {
      %reuse = arith.cmpi uge, %k, %c2 : index
      scf.if %reuse {
        %prev = arith.subi %round, %c1 : index
        %pp = arith.remui %prev, %c2 : index
        schedule.mbarrier.wait %empty[%slot], %pp : !schedule.mbarrier<2>, index
      }
      schedule.mbarrier.arrive_expect_tx %full[%slot], 16384 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<2> {
        tile.copy %X[%c0, %k] -> %ring[%slot] padding(0.0 : f32)
            : memref<?x?xf32> -> memref<2x64x64xf32, #gpu.address_space<workgroup>>
      }
    }
    schedule.role "relay" warpgroups [1] {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      schedule.mbarrier.arrive %relay[%slot] : !schedule.mbarrier<2>
    }
    schedule.role "second" warpgroups [2] {
      schedule.mbarrier.wait %relay[%slot], %parity : !schedule.mbarrier<2>, index
      schedule.mbarrier.arrive %relay2[%slot] : !schedule.mbarrier<2>
    }
    schedule.role "consumer" warpgroups [3] {
      schedule.mbarrier.wait %relay2[%slot], %parity : !schedule.mbarrier<2>, index
      %t = tile.read %ring[%slot] : memref<2x64x64xf32, #gpu.address_space<workgroup>> -> tensor<64x64xf32>
      tile.store %t, %Y[%c0, %k] : tensor<64x64xf32> -> memref<?x?xf32>
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
    }
  }
  tile.return
}
