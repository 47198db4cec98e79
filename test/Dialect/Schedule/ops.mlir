// RUN: tiletag-opt %s | tiletag-opt | FileCheck %s
// RUN: tiletag-opt %s --mlir-print-op-generic | tiletag-opt | FileCheck %s

// CHECK-LABEL: tile.kernel @resident
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 2, occupancy = 2>
tile.kernel @resident() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 2, occupancy = 2>} {
  tile.return
}

// CHECK-LABEL: tile.kernel @clustered_resident
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2], occupancy = 3>
tile.kernel @clustered_resident() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2], occupancy = 3>} {
  tile.return
}

// CHECK-LABEL: tile.kernel @pipeline
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 3, cluster = [2, 1]>
tile.kernel @pipeline(%A: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(2)
    attributes {schedule.launch = #schedule.launch<warpgroups = 3, cluster = [2, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %epi = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  // CHECK: schedule.mbarrier.init count 1 : <2>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  // CHECK: schedule.mbarrier.init count 2 : <2>
  %empty = schedule.mbarrier.init count 2 : !schedule.mbarrier<2>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // CHECK: scf.for
  %acc = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc_k = %zero) -> (tensor<64x64xf32>) {
    // CHECK: schedule.role "producer" warpgroups [0] regs 40 {
    schedule.role "producer" warpgroups [0] regs 40 {
      // CHECK: schedule.mbarrier.wait %{{.*}}[%{{.*}}], %{{.*}} : <2>, index
      schedule.mbarrier.wait %empty[%k], %c0 : !schedule.mbarrier<2>, index
      // CHECK: schedule.mbarrier.arrive_expect_tx %{{.*}}[%{{.*}}], 8192 : <2>
      schedule.mbarrier.arrive_expect_tx %full[%k], 8192 : !schedule.mbarrier<2>
      // CHECK: schedule.async tma arrive %{{.*}}[%{{.*}}] : !schedule.mbarrier<2> {
      // CHECK-NEXT: tile.copy
      // CHECK-NEXT: }
      schedule.async tma arrive %full[%k] : !schedule.mbarrier<2> {
        tile.copy %A[%c0, %k] -> %ring[%k] padding(0.0 : bf16)
            : memref<?x?xbf16> -> memref<2x64x64xbf16, #gpu.address_space<workgroup>>
      }
    }
    // CHECK: schedule.role "consumer" warpgroups [1, 2] regs 232 {
    %r = schedule.role "consumer" warpgroups [1, 2] regs 232 {
      %i1 = arith.constant 1 : i1
      // CHECK: schedule.mbarrier.wait %{{.*}}[%{{.*}}], %{{.*}} : <2>, i1
      schedule.mbarrier.wait %full[%k], %i1 : !schedule.mbarrier<2>, i1
      %a = tile.read %ring[%k] : memref<2x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
      // CHECK: schedule.async wgmma {
      // CHECK: schedule.yield %{{.*}} : tensor<64x64xf32>
      // CHECK: } : tensor<64x64xf32>
      %d = schedule.async wgmma {
        %x = tile.dot %a, %a, %acc_k : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
        schedule.yield %x : tensor<64x64xf32>
      } : tensor<64x64xf32>
      // CHECK: schedule.commit_group wgmma
      schedule.commit_group wgmma
      // CHECK: schedule.wait_group wgmma pending 1
      schedule.wait_group wgmma pending 1
      // CHECK: schedule.mbarrier.arrive %{{.*}}[%{{.*}}] : <2>
      schedule.mbarrier.arrive %empty[%k] : !schedule.mbarrier<2>
      schedule.yield %d : tensor<64x64xf32>
    } : tensor<64x64xf32>
    scf.yield %r : tensor<64x64xf32>
  }
  // CHECK: schedule.role "consumer" warpgroups [1, 2] {
  schedule.role "consumer" warpgroups [1, 2] {
    schedule.wait_group wgmma pending 0
    tile.write %acc, %epi[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
    // CHECK: schedule.fence_async_proxy
    schedule.fence_async_proxy
    // CHECK: schedule.async tma {
    schedule.async tma {
      tile.copy %epi[%c0] -> %C[%c0, %c0] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    }
    // CHECK: schedule.commit_group tma
    schedule.commit_group tma
    // CHECK: schedule.wait_group tma pending 0
    schedule.wait_group tma pending 0
  }
  // CHECK: schedule.barrier cta
  schedule.barrier cta
  // CHECK: schedule.barrier cluster
  schedule.barrier cluster
  tile.return
}

// CHECK-LABEL: tile.kernel @mapping
tile.kernel @mapping(%X: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: } {schedule.map = #schedule.map<thread>}
  // CHECK: } {schedule.map = #schedule.map<warp>}
  // CHECK: } {schedule.map = #schedule.map<warpgroup>}
  scf.for %wg = %c0 to %c4 step %c1 {
    scf.for %w = %c0 to %c4 step %c1 {
      scf.for %t = %c0 to %c4 step %c1 {
      } {schedule.map = #schedule.map<thread>}
    } {schedule.map = #schedule.map<warp>}
  } {schedule.map = #schedule.map<warpgroup>}
  // CHECK: } {schedule.map = #schedule.map<cta>}
  scf.for %tile = %c0 to %c4 step %c1 {
  } {schedule.map = #schedule.map<cta>}
  // CHECK: } {schedule.map = #schedule.map<sequential>}
  scf.for %s = %c0 to %c4 step %c1 {
  } {schedule.map = #schedule.map<sequential>}
  %zero = arith.constant dense<0.0> : tensor<16x16xf16>
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  // CHECK: schedule.async mfma {
  %m = schedule.async mfma {
    %x = tile.dot %zero, %zero, %acc : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    schedule.yield %x : tensor<16x16xf32>
  } : tensor<16x16xf32>
  // CHECK: schedule.commit_group mfma
  schedule.commit_group mfma
  // CHECK: schedule.wait_group mfma pending 0
  schedule.wait_group mfma pending 0
  tile.return
}

// Annotations sit on upstream ops too: a plain func.func with a launch.
// CHECK-LABEL: func.func @upstream
// CHECK-SAME: schedule.launch = #schedule.launch<warpgroups = 1>
func.func @upstream() attributes {schedule.launch = #schedule.launch<warpgroups = 1>} {
  return
}

// CHECK-LABEL: tile.kernel @named_barriers
tile.kernel @named_barriers() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: schedule.mbarrier.init count 2 named : <2>
  %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<2>
  schedule.role "first" warpgroups [0] {
    // CHECK: schedule.mbarrier.arrive %{{.*}}[%{{.*}}] : <2>
    schedule.mbarrier.arrive %order[%c1] : !schedule.mbarrier<2>
  }
  schedule.role "second" warpgroups [1] {
    // CHECK: schedule.mbarrier.sync %{{.*}}[%{{.*}}], %{{.*}} : <2>, index
    schedule.mbarrier.sync %order[%c1], %c0 : !schedule.mbarrier<2>, index
  }
  tile.return
}
