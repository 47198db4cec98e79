// RUN: tiletag-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{warpgroups must be 1 to 8 (128 to 1024 threads), got 9}}
tile.kernel @launch_wgs() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 9>} {
  tile.return
}

// -----

// expected-error @+1 {{a cluster has 1 to 3 dimensions, got 4}}
tile.kernel @launch_cluster_rank() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, cluster = [1, 1, 1, 1]>} {
  tile.return
}

// -----

// expected-error @+1 {{cluster sizes must be positive}}
tile.kernel @launch_cluster_zero() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, cluster = [0]>} {
  tile.return
}

// -----

// expected-error @+1 {{occupancy must be 1 to 32 programs per SM, got 33}}
tile.kernel @launch_occupancy_big() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, occupancy = 33>} {
  tile.return
}

// -----

// expected-error @+1 {{occupancy must be 1 to 32 programs per SM, got 0}}
tile.kernel @launch_occupancy_zero() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, occupancy = 0>} {
  tile.return
}

// -----

// expected-error @+1 {{expected 'occupancy' after the cluster}}
tile.kernel @launch_after_occupancy() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, cluster = [2], cluster = [2]>} {
  tile.return
}

// -----

// expected-error @+1 {{a cluster holds at most 16 programs, got 32}}
tile.kernel @launch_cluster_big() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1, cluster = [4, 8]>} {
  tile.return
}

// -----

// expected-error @+1 {{'schedule.launch' must be a #schedule.launch<...> attribute}}
tile.kernel @launch_kind() grid(1) attributes {schedule.launch = 3} {
  tile.return
}

// -----

tile.kernel @launch_place() grid(1) {
  // expected-error @+1 {{'schedule.launch' belongs on a kernel (tile.kernel or another function-like op), not on 'arith.constant'}}
  %c0 = arith.constant {schedule.launch = #schedule.launch<warpgroups = 1>} 0 : index
  tile.return
}

// -----

tile.kernel @map_place() grid(1) {
  // expected-error @+1 {{'schedule.map' maps loop iterations, so it belongs on a loop (scf.for, scf.forall, ...), not on 'arith.constant'}}
  %c0 = arith.constant {schedule.map = #schedule.map<warp>} 0 : index
  tile.return
}

// -----

tile.kernel @map_kind() grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'schedule.map' must be a #schedule.map<...> attribute}}
  scf.for %i = %c0 to %c0 step %c0 {
  } {schedule.map = "warp"}
  tile.return
}

// -----

// expected-error @+1 {{unknown schedule dialect attribute 'schedule.stages'}}
tile.kernel @unknown() grid(1) attributes {schedule.stages = 3} {
  tile.return
}

// -----

tile.kernel @mbarrier_size() grid(1) {
  // expected-error @+1 {{an mbarrier array needs at least one barrier, got 0}}
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<0>
  tile.return
}

// -----

tile.kernel @role_name() grid(1) {
  // expected-error @+1 {{needs a role name, e.g. "producer"}}
  schedule.role "" warpgroups [0] {
  }
  tile.return
}

// -----

tile.kernel @role_empty() grid(1) {
  // expected-error @+1 {{needs at least one warpgroup}}
  schedule.role "r" warpgroups [] {
  }
  tile.return
}

// -----

tile.kernel @role_negative() grid(1) {
  // expected-error @+1 {{warpgroup ids are non-negative, got -1}}
  schedule.role "r" warpgroups [-1] {
  }
  tile.return
}

// -----

tile.kernel @role_sorted() grid(1) {
  // expected-error @+1 {{warpgroup ids must be sorted and unique}}
  schedule.role "r" warpgroups [1, 1] {
  }
  tile.return
}

// -----

tile.kernel @role_launch() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 2>} {
  // expected-error @+1 {{warpgroup 2 does not exist: the kernel launches 2 warpgroups (ids 0 to 1)}}
  schedule.role "r" warpgroups [2] {
  }
  tile.return
}

// -----

tile.kernel @role_regs() grid(1) {
  // expected-error @+1 {{regs must be a multiple of 8 from 24 to 256 (setmaxnreg), got 100}}
  schedule.role "r" warpgroups [0] regs 100 {
  }
  tile.return
}

// -----

tile.kernel @role_nest() grid(1) {
  schedule.role "outer" warpgroups [0] {
    // expected-error @+1 {{roles do not nest: an enclosing role already chose the warpgroups}}
    schedule.role "inner" warpgroups [0] {
    }
  }
  tile.return
}

// -----

tile.kernel @role_in_async() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = schedule.async wgmma {
    // expected-error @+1 {{cannot run on the wgmma unit: its region holds only tile.dot operations}}
    schedule.role "r" warpgroups [0] {
    }
    %d = tile.dot %a, %a, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    schedule.yield %d : tensor<16x16xf32>
  } : tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @yield_types() grid(1) {
  %c0 = arith.constant 0 : index
  %r = "schedule.role"() <{name = "r", warpgroups = array<i64: 0>}> ({
    // expected-error @+1 {{yields 1 values of types 'index' but the enclosing 'schedule.role' has result types 'f32'}}
    "schedule.yield"(%c0) : (index) -> ()
  }) : () -> f32
  tile.return
}

// -----

tile.kernel @tma_results(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{a tma region copies memory and yields no values}}
  %r = schedule.async tma arrive %b[%c0] : !schedule.mbarrier<1> {
    tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xf32> -> memref<1x8x8xf32, #gpu.address_space<workgroup>>
    schedule.yield %c0 : index
  } : index
  tile.return
}

// -----

tile.kernel @tma_op(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.async tma arrive %b[%c0] : !schedule.mbarrier<1> {
    // expected-error @+1 {{cannot run on the TMA unit: a tma region holds only tile.copy operations}}
    %t = tile.load %A[%c0, %c0] : memref<?x?xf32> -> tensor<8x8xf32>
  }
  tile.return
}

// -----

tile.kernel @tma_mixed(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  schedule.async tma {
    tile.copy %s[%c0] -> %A[%c0, %c0] : memref<1x8x8xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    // expected-error @+1 {{mixes directions in one tma region: put loads and stores in separate regions}}
    tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xf32> -> memref<1x8x8xf32, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

tile.kernel @tma_empty() grid(1) {
  // expected-error @+1 {{a tma region needs at least one tile.copy}}
  schedule.async tma {
  }
  tile.return
}

// -----

tile.kernel @tma_load_barrier(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{TMA loads complete on an mbarrier: add 'arrive %bar[%i] : !schedule.mbarrier<N>'}}
  schedule.async tma {
    tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xf32> -> memref<1x8x8xf32, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

tile.kernel @tma_store_barrier(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{TMA stores complete through commit_group / wait_group on tma, not on an mbarrier}}
  schedule.async tma arrive %b[%c0] : !schedule.mbarrier<1> {
    tile.copy %s[%c0] -> %A[%c0, %c0] : memref<1x8x8xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  }
  tile.return
}

// -----

tile.kernel @tma_barrier_index(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{mbarrier index 4 is out of range for an array of 4}}
  schedule.async tma arrive %b[%c4] : !schedule.mbarrier<4> {
    tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xf32> -> memref<1x8x8xf32, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

tile.kernel @wgmma_barrier() grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %a = arith.constant dense<0.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{wgmma operations complete through commit_group / wait_group, not on an mbarrier}}
  %r = schedule.async wgmma arrive %b[%c0] : !schedule.mbarrier<1> {
    %d = tile.dot %a, %a, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    schedule.yield %d : tensor<16x16xf32>
  } : tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @wgmma_op() grid(1) {
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = schedule.async wgmma {
    // expected-error @+1 {{cannot run on the wgmma unit: its region holds only tile.dot operations}}
    %d = arith.addf %c, %c : tensor<16x16xf32>
    schedule.yield %d : tensor<16x16xf32>
  } : tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @mfma_empty() grid(1) {
  // expected-error @+1 {{a mfma region needs at least one tile.dot}}
  schedule.async mfma {
  }
  tile.return
}

// -----

tile.kernel @async_nest() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = schedule.async wgmma {
    // expected-error @+1 {{cannot run on the wgmma unit: its region holds only tile.dot operations}}
    %d = schedule.async wgmma {
      %e = tile.dot %a, %a, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      schedule.yield %e : tensor<16x16xf32>
    } : tensor<16x16xf32>
    schedule.yield %d : tensor<16x16xf32>
  } : tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @barrier_in_role() grid(1) {
  schedule.role "r" warpgroups [0] {
    // expected-error @+1 {{a cta barrier inside a warp role deadlocks: the other roles never reach it; synchronize roles with mbarriers}}
    schedule.barrier cta
  }
  tile.return
}

// -----

tile.kernel @cluster_barrier() grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 1>} {
  // expected-error @+1 {{a cluster barrier needs a kernel launched with a cluster}}
  schedule.barrier cluster
  tile.return
}

// -----

tile.kernel @wait_pending() grid(1) {
  // expected-error @+1 {{pending must be 0 to 7, got 8}}
  schedule.wait_group wgmma pending 8
  tile.return
}

// -----

tile.kernel @init_count() grid(1) {
  // expected-error @+1 {{an mbarrier expects at least one arrival per phase, got count 0}}
  %b = schedule.mbarrier.init count 0 : !schedule.mbarrier<1>
  tile.return
}

// -----

tile.kernel @init_in_loop() grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    // expected-error @+1 {{initialize mbarriers once per program, outside loops, roles and async regions (found inside 'scf.for')}}
    %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  }
  tile.return
}

// -----

tile.kernel @arrive_index() grid(1) {
  %c2 = arith.constant 2 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  // expected-error @+1 {{mbarrier index 2 is out of range for an array of 2}}
  schedule.mbarrier.arrive %b[%c2] : !schedule.mbarrier<2>
  tile.return
}

// -----

tile.kernel @arrive_in_async(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  schedule.async tma arrive %b[%c0] : !schedule.mbarrier<1> {
    // expected-error @+1 {{cannot run on the TMA unit: a tma region holds only tile.copy operations}}
    schedule.mbarrier.arrive %b[%c0] : !schedule.mbarrier<1>
    tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xf32> -> memref<1x8x8xf32, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

tile.kernel @expect_bytes() grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  // expected-error @+1 {{expected transaction bytes must be 1 to 2^20 - 1, got 1048576}}
  schedule.mbarrier.arrive_expect_tx %b[%c0], 1048576 : !schedule.mbarrier<1>
  tile.return
}

// -----

tile.kernel @wait_index() grid(1) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  // expected-error @+1 {{mbarrier index 5 is out of range for an array of 1}}
  schedule.mbarrier.wait %b[%c5], %c0 : !schedule.mbarrier<1>, index
  tile.return
}

// -----

tile.kernel @named_count() grid(1) {
  // expected-error @+1 {{a named barrier orders roles: it expects at least 2 role arrivals per phase}}
  %b = schedule.mbarrier.init count 1 named : !schedule.mbarrier<1>
  tile.return
}

// -----

tile.kernel @named_wait() grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  // expected-error @+1 {{a named barrier is waited on by schedule.mbarrier.sync, which arrives too (bar.sync): the hardware has no wait alone}}
  schedule.mbarrier.wait %b[%c0], %c0 : !schedule.mbarrier<1>, index
  tile.return
}

// -----

tile.kernel @sync_mbarrier() grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 2 : !schedule.mbarrier<1>
  // expected-error @+1 {{syncs on named barriers (schedule.mbarrier.init ... named); on an mbarrier in shared memory, arrive and wait}}
  schedule.mbarrier.sync %b[%c0], %c0 : !schedule.mbarrier<1>, index
  tile.return
}

// -----

tile.kernel @sync_index() grid(1) {
  %c2 = arith.constant 2 : index
  %b = schedule.mbarrier.init count 2 named : !schedule.mbarrier<2>
  // expected-error @+1 {{mbarrier index 2 is out of range for an array of 2}}
  schedule.mbarrier.sync %b[%c2], %c2 : !schedule.mbarrier<2>, index
  tile.return
}

// -----

tile.kernel @named_expect_tx() grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  // expected-error @+1 {{arrive_expect_tx needs an mbarrier in shared memory, not a named (hardware) barrier, which counts arrivals only}}
  schedule.mbarrier.arrive_expect_tx %b[%c0], 1024 : !schedule.mbarrier<1>
  tile.return
}

// -----

tile.kernel @named_tma(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %b = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  %s = tile.alloc_shared : memref<1x8x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{a TMA copy's completion needs an mbarrier in shared memory, not a named (hardware) barrier, which counts arrivals only}}
  schedule.async tma arrive %b[%c0] : !schedule.mbarrier<1> {
    tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xf32> -> memref<1x8x8xf32, #gpu.address_space<workgroup>>
  }
  tile.return
}
