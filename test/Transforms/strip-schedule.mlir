// RUN: tiletag-opt %s --tiletag-strip-schedule | FileCheck %s
// RUN: tiletag-opt %s --tiletag-strip-schedule --tiletag-strip-tags | FileCheck %s --check-prefix=SEQ

// Roles and async regions dissolve into the sequential program; barriers,
// waits, groups and fences go, with the slot and parity arithmetic that only
// fed them; mapping and launch attributes are dropped.

// CHECK-LABEL: tile.kernel @pipeline
// CHECK-NOT: schedule.launch
tile.kernel @pipeline(%A: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(2)
    attributes {schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = {{.*}})
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc_k = %zero) -> (tensor<64x64xf32>) {
    // CHECK-NEXT: %[[SLOT:.*]] = arith.remui %[[K]]
    %slot = arith.remui %k, %c2 : index
    %round = arith.divui %k, %c2 : index
    %parity = arith.remui %round, %c2 : index
    schedule.role "producer" warpgroups [0] {
      %reuse = arith.cmpi uge, %k, %c2 : index
      scf.if %reuse {
        schedule.mbarrier.wait %empty[%slot], %parity : !schedule.mbarrier<2>, index
      }
      schedule.mbarrier.arrive_expect_tx %full[%slot], 8192 : !schedule.mbarrier<2>
      schedule.async tma arrive %full[%slot] : !schedule.mbarrier<2> {
        // CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %[[K]]] -> %{{.*}}[%[[SLOT]]]
        tile.copy %A[%c0, %k] -> %ring[%slot] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
      }
    }
    %r = schedule.role "consumer" warpgroups [1] {
      schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<2>, index
      // CHECK-NEXT: %[[A:.*]] = tile.read
      %a = tile.read %ring[%slot] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      %ka = tag.field %a["A", 1] : tensor<64x64xbf16>
      // CHECK-NEXT: tag.field
      // CHECK-NEXT: tag.assert
      tag.assert eq %ka, %k : index
      // CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[A]], %[[ACC]]
      %d = schedule.async wgmma {
        %x = tile.dot %a, %a, %acc_k : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
        schedule.yield %x : tensor<64x64xf32>
      } : tensor<64x64xf32>
      schedule.commit_group wgmma
      schedule.wait_group wgmma pending 0
      schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<2>
      schedule.fence_async_proxy
      schedule.yield %d : tensor<64x64xf32>
    } : tensor<64x64xf32>
    // CHECK-NEXT: scf.yield %[[D]]
    scf.yield %r : tensor<64x64xf32>
  // CHECK-NEXT: }
  // CHECK-NOT: schedule.map
  } {schedule.map = #schedule.map<sequential>}
  schedule.barrier cta
  // CHECK-NEXT: tile.store
  tile.store %acc, %C[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  // CHECK-NEXT: tile.return
  tile.return
}
// CHECK-NOT: schedule.
// SEQ-NOT: schedule.
// SEQ-NOT: tag.
// SEQ-NOT: arith.divui
