// Kernels the Hopper lowering refuses, with the reason at the right op. The
// kernels are not proved (allow-unverified): each warning says so.
// RUN: tiletag-opt %s -split-input-file -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified"

// TMA clips at the operand's size; a smaller bound cannot be expressed.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @tma_bounds(%X: memref<?x?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 8192 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    // expected-error @+1 {{cannot be lowered to NVGPU: TMA copies clip at the operand's size; `bounds` is not supported on them}}
    tile.copy %X[%c0, %c0] -> %ring[%c0] bounds [%c8, %c8] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

// TMA fills with zeros only.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @tma_padding(%X: memref<?x?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  %ring = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 8192 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    // expected-error @+1 {{TMA fills out-of-range elements with zero; the padding must be 0}}
    tile.copy %X[%c0, %c0] -> %ring[%c0] padding(1.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

// Slots whose rows are not 128-byte multiples have no TMA swizzle here.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @tma_narrow(%X: memref<?x?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  %ring = tile.alloc_shared : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<1>
  schedule.mbarrier.arrive_expect_tx %full[%c0], 4096 : !schedule.mbarrier<1>
  schedule.async tma arrive %full[%c0] : !schedule.mbarrier<1> {
    // expected-error @+1 {{TMA copies need 2-D slots whose rows are a multiple of 128 bytes}}
    tile.copy %X[%c0, %c0] -> %ring[%c0] padding(0.0 : bf16)
        : memref<?x?xbf16> -> memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  }
  tile.return
}

// -----

// The same holds for a TMA store's buffer, and its tile is bounded by the
// operand alone.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @tma_store_narrow(%X: memref<?x?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  %epi = tile.alloc_shared : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  schedule.async tma {
    // expected-error @+1 {{TMA copies need 2-D slots whose rows are a multiple of 128 bytes}}
    tile.copy %epi[%c0] -> %X[%c0, %c0]
        : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> memref<?x?xbf16>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0
  tile.return
}

// -----

// expected-warning @+1 {{allow-unverified}}
tile.kernel @tma_store_bounds(%X: memref<?x?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %epi = tile.alloc_shared : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  schedule.async tma {
    // expected-error @+1 {{TMA copies clip at the operand's size; `bounds` is not supported on them}}
    tile.copy %epi[%c0] -> %X[%c0, %c0] bounds [%c8, %c8]
        : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> memref<?x?xbf16>
  }
  schedule.commit_group tma
  schedule.wait_group tma pending 0
  tile.return
}

// -----

// Writes outside the roles of a warp-specialized kernel would run once per role.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @store_outside_roles(%X: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %t = arith.constant dense<1.0> : tensor<64x64xf32>
  schedule.role "a" warpgroups [0] {
    schedule.yield
  }
  // expected-error @+1 {{in a kernel with warp roles, memory writes must sit inside a role}}
  tile.store %t, %X[%c0, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// A CTA barrier outside the roles is reached by every role; a warpgroup in
// no role would never reach it.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @barrier_unreached(%X: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 3>} {
  schedule.role "a" warpgroups [0] {
    schedule.yield
  }
  // expected-error @+1 {{a CTA barrier outside the warp roles is reached by every role, but warpgroup 1 is in no role and would never reach it}}
  schedule.barrier cta
  schedule.role "c" warpgroups [2] {
    schedule.yield
  }
  tile.return
}

// -----

// So is a cluster barrier (its other programs would wait too).
// expected-warning @+1 {{allow-unverified}}
tile.kernel @cluster_barrier_unreached(%X: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2, cluster = [2]>} {
  schedule.role "a" warpgroups [0] {
    schedule.yield
  }
  // expected-error @+1 {{a cluster barrier outside the warp roles is reached by every role, but warpgroup 1 is in no role and would never reach it}}
  schedule.barrier cluster
  tile.return
}

// -----

// A tag's ghost field has no run-time value.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @ghost_bound(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tile.load %X[%c0, %c0] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
  %f = tag.field %t["X", 0] : tensor<64x64xf32>
  // expected-error @+1 {{cannot be lowered to NVGPU: uses the ghost value of a tag, which has no run-time value}}
  scf.for %i = %c0 to %f step %c1 {
    tile.store %t, %X[%i, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  }
  tile.return
}

// -----

// A persistent kernel: lowering the CTA-mapped loop as a plain loop would run
// every tile in every CTA. Not implemented yet, so refused at the loop.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @persistent(%X: memref<?xf32>, %Y: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{cannot be lowered to NVGPU: loops mapped to `cta` are not implemented by the Hopper lowering yet; map the loop `sequential` or remove the mapping (transform.tiletag.persist writes a persistent loop over the grid's tiles)}}
  scf.for %tile = %c0 to %c8 step %c1 {
    %t = tile.load %X[%tile] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
    tile.store %t, %Y[%tile] : tensor<128xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<cta>}
  tile.return
}

// -----

// Warpgroups as the units of a loop: not implemented (each would need a
// named barrier of its own).
// expected-warning @+1 {{allow-unverified}}
tile.kernel @warpgroup_loop(%X: memref<?xf32>) grid(1) attributes {schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{loops mapped to `warpgroup` are not implemented by the Hopper lowering yet}}
  scf.for %w = %c0 to %c4 step %c1 {
    %t = tile.load %X[%w] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%w] : tensor<32xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<warpgroup>}
  tile.return
}

// -----

// The schedule runs the dot on wgmma, but its 128-deep operands span two
// 128-byte swizzle panels and B has two column panels: one wgmma group per
// K panel would read B rows that are not a plain [64, 128] tile. Refused
// rather than run element by element (slower than the schedule asks).
// expected-warning @+1 {{allow-unverified}}
tile.kernel @deep_k(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %d = schedule.async wgmma {
    // expected-error @below {{the schedule runs this tile.dot on wgmma, which cannot serve it: its contracted extent of 128 is not one 128-byte swizzle panel (64 elements), or whole panels with B K-major or at most 64 columns}}
    %r = tile.dot %a, %b, %zero : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
    schedule.yield %r : tensor<64x128xf32>
  } : tensor<64x128xf32>
  schedule.commit_group wgmma
  schedule.wait_group wgmma pending 0
  tile.store %d, %C[%c0, %c0] : tensor<64x128xf32> -> memref<?x?xf32>
  tile.return
}

// -----

// A role is one branch on the warpgroup index with one register budget
// (setmaxnreg at its entry): its ops may state the budget once or repeat
// it, not state two.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @two_budgets(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the other budget}}
  schedule.role "consumer" warpgroups [1] regs 232 {
    %t = tile.load %X[%c0] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%c0] : tensor<32xf32> -> memref<?xf32>
  }
  // expected-error @+1 {{cannot be lowered to NVGPU: role "consumer" states regs 240 here and 232 elsewhere; a role has one register budget (setmaxnreg at its entry)}}
  schedule.role "consumer" warpgroups [1] regs 240 {
    %t = tile.load %X[%c0] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%c0] : tensor<32xf32> -> memref<?xf32>
  }
  tile.return
}

// -----

// Nor may a role's ops run on different warpgroups.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @two_homes(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{first appears here}}
  schedule.role "worker" warpgroups [0] {
    %t = tile.load %X[%c0] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%c0] : tensor<32xf32> -> memref<?xf32>
  }
  // expected-error @+1 {{cannot be lowered to NVGPU: role "worker" runs on other warpgroups here than where it first appears; a role is one branch on the warpgroup index}}
  schedule.role "worker" warpgroups [1] {
    %t = tile.load %X[%c0] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
    tile.store %t, %X[%c0] : tensor<32xf32> -> memref<?xf32>
  }
  tile.return
}

// -----

// Inside a loop mapped to threads or warps, what one thread or warp cannot
// run alone is refused at the op.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @sync_inside(%X: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %w = %c0 to %c4 step %c1 {
    // expected-error @+1 {{inside a loop mapped to threads or warps, the Hopper lowering runs plain tile and scalar operations only}}
    schedule.fence_async_proxy
  } {schedule.map = #schedule.map<warp>}
  tile.return
}

// -----

// expected-warning @+1 {{allow-unverified}}
tile.kernel @nested(%X: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %w = %c0 to %c4 step %c1 {
    // expected-error @+1 {{inside a loop mapped to threads or warps, the Hopper lowering runs plain tile and scalar operations only}}
    scf.for %t = %c0 to %c4 step %c1 {
      %i = arith.muli %w, %c4 : index
      %j = arith.addi %i, %t : index
      %x = tile.load %X[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<8xf32>
      tile.store %x, %X[%j] : tensor<8xf32> -> memref<?xf32>
    } {schedule.map = #schedule.map<thread>}
  } {schedule.map = #schedule.map<warp>}
  tile.return
}

// -----

// Clusters of more than 8 programs need a non-portable launch.
// expected-warning @+2 {{allow-unverified}}
// expected-error @+1 {{cannot be lowered to NVGPU: a cluster of 16 programs exceeds the 8 every Hopper GPU launches (larger ones need a non-portable launch)}}
tile.kernel @cluster16(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [16]>} {
  schedule.barrier cluster
  tile.return
}

// -----

// A cluster along a dimension the grid does not have.
// expected-warning @+2 {{allow-unverified}}
// expected-error @+1 {{cannot be lowered to NVGPU: its cluster spans grid dimension 1, which its grid of 1 dimension(s) does not have}}
tile.kernel @cluster_rank(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [1, 2]>} {
  schedule.barrier cluster
  tile.return
}

// -----

// A phase of a named barrier counts threads: the roles arriving on one
// have as many each.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @named_uneven(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 3>} {
  %c0 = arith.constant 0 : index
  %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  schedule.role "one" warpgroups [0] {
    // expected-error @below {{cannot be lowered to NVGPU: the roles arriving on a named barrier must have as many threads each (a phase counts threads): this one has 128, another 256}}
    schedule.mbarrier.arrive %order[%c0] : !schedule.mbarrier<1>
  }
  schedule.role "two" warpgroups [1, 2] {
    schedule.mbarrier.sync %order[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  tile.return
}

// -----

// Named barriers share the 16 hardware ids with CTA barriers (0) and the
// roles' own (1 to the number of roles).
// expected-warning @+1 {{allow-unverified}}
tile.kernel @named_ids(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{cannot be lowered to NVGPU: the named barriers need hardware ids up to 16, but there are 16 (0 for CTA barriers, 1 to 2 for the roles' own)}}
  %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<14>
  schedule.role "one" warpgroups [0] {
    schedule.mbarrier.arrive %order[%c0] : !schedule.mbarrier<14>
  }
  schedule.role "two" warpgroups [1] {
    schedule.mbarrier.sync %order[%c0], %c0 : !schedule.mbarrier<14>, index
  }
  tile.return
}

// -----

// All threads of a role arrive on a named barrier, not the warps or
// threads of a mapped loop (which hold no synchronization).
// expected-warning @+1 {{allow-unverified}}
tile.kernel @named_mapped(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  schedule.role "one" warpgroups [0] {
    scf.for %w = %c0 to %c4 step %c1 {
      // expected-error @below {{cannot be lowered to NVGPU: inside a loop mapped to threads or warps, the Hopper lowering runs plain tile and scalar operations only}}
      schedule.mbarrier.arrive %order[%c0] : !schedule.mbarrier<1>
    } {schedule.map = #schedule.map<warp>}
  }
  schedule.role "two" warpgroups [1] {
    schedule.mbarrier.sync %order[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  tile.return
}

// -----

// A named barrier outside the roles would be arrived on by every role's
// copy of the code.
// expected-warning @+1 {{allow-unverified}}
tile.kernel @named_outside(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %order = schedule.mbarrier.init count 2 named : !schedule.mbarrier<1>
  // expected-error @below {{cannot be lowered to NVGPU: a named barrier orders warp roles: arrive and sync on it inside schedule.role}}
  schedule.mbarrier.arrive %order[%c0] : !schedule.mbarrier<1>
  schedule.role "two" warpgroups [1] {
    schedule.mbarrier.sync %order[%c0], %c0 : !schedule.mbarrier<1>, index
  }
  tile.return
}
