// Two warp roles take turns with one epilogue buffer (as a ping-pong GEMM's
// consumers share theirs): each writes the buffer, stores it with TMA,
// retires the store (wait_group tma) and then hands the buffer to the
// other role through an mbarrier. The store's reads end at the wait_group,
// so the arrival after it orders them before the other role's next write.
// (An earlier checker never credited a retired TMA store as ordered.)
// A role that hands over before the wait_group, or never retires its
// store, is rejected with a counterexample.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// OK: schedule.verified
// RUN: tiletag-run %s --size M=64,N=300 | FileCheck %s --check-prefix=ORACLE
// ORACLE: run @handoff (M=64, N=300)
// RUN: sed -e '0,/^ *schedule.wait_group tma pending 0$/{/^ *schedule.wait_group tma pending 0$/{h;d;}}' -e '/^ *schedule.mbarrier.arrive %%turn\[%%c0\]/G' %s > %t.early.mlir
// RUN: not diff -q %s %t.early.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.early.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: write-after-read on %epi (line {{[0-9]+}}): the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// EARLY: note: counterexample:
// RUN: sed -e '0,/^ *schedule.wait_group tma pending 0$/{/^ *schedule.wait_group tma pending 0$/d}' %s > %t.never.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.never.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEVER
// NEVER: error: a wait_group tma retires the TMA store at line {{[0-9]+}} before this write to its shared buffer does not hold
// NEVER: note: counterexample:
tile.kernel @handoff(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 64, N = 256], grid = [M ceildiv 64],
                               shapes = [X = [M, N], C = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %N = memref.dim %X, %c1 : memref<?x?xf32>
  %tiles = arith.ceildivui %N, %c64 : index
  %epi = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  %turn = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  scf.for %j = %c0 to %tiles step %c1 {
    %even = arith.remui %j, %c2 : index
    %round = arith.divui %j, %c2 : index
    %parity = arith.remui %round, %c2 : index
    %is_a = arith.cmpi eq, %even, %c0 : index
    %is_b = arith.cmpi ne, %even, %c0 : index
    schedule.role "a" warpgroups [0] {
      scf.if %is_a {
        %has = arith.cmpi uge, %j, %c2 : index
        scf.if %has {
          %pr = arith.subi %round, %c1 : index
          %pp = arith.remui %pr, %c2 : index
          schedule.mbarrier.wait %turn[%c1], %pp : !schedule.mbarrier<2>, index
        }
        %t = tile.load %X[%pm, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
        tile.write %t, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
        schedule.fence_async_proxy
        schedule.async tma {
          tile.copy %epi[%c0] -> %C[%pm, %j] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
        }
        schedule.commit_group tma
        schedule.wait_group tma pending 0
        schedule.mbarrier.arrive %turn[%c0] : !schedule.mbarrier<2>
      }
    }
    schedule.role "b" warpgroups [1] {
      scf.if %is_b {
        schedule.mbarrier.wait %turn[%c0], %parity : !schedule.mbarrier<2>, index
        %t = tile.load %X[%pm, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
        tile.write %t, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
        schedule.fence_async_proxy
        schedule.async tma {
          tile.copy %epi[%c0] -> %C[%pm, %j] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
        }
        schedule.commit_group tma
        schedule.wait_group tma pending 0
        schedule.mbarrier.arrive %turn[%c1] : !schedule.mbarrier<2>
      }
    }
  }
  tile.return
}
