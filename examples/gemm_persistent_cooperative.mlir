// Persistent cooperative GEMM: C[M, N] = A[M, K] * B[K, N], bf16 inputs and
// output, f32 accumulation; two consumer warpgroups share each 256x128
// output tile, and each stores its half by TMA while the next tile's K loop
// runs.
//
// P programs (launch one per SM: P = 132 on an H200) take the 256x128
// output tiles t = pid + i P in turn, row by row. One 3-slot shared ring
// runs on across a program's tiles: a producer warpgroup issues the TMA
// copies of K step k (A's two 128-row halves and B's 64x128 tile) into slot
// k mod 3, which complete on full[k mod 3]; consumer c (warpgroup 1 + c)
// waits for that phase, issues an asynchronous wgmma on rows 128 c of the
// tile with the shared B tile, keeps one group in flight and releases the
// slot the retired group read; empty[s] expects both consumers' arrivals.
// As in gemm_persistent.mlir, each tile runs the ring on to a multiple of 6
// steps (2 x the depth; the steps past K only pass the slots round), so
// that step k of any tile is ring step k and the phases are linear in k.
//
// The epilogue: each consumer rounds its 128x128 accumulator to bf16 in
// registers, writes it to its own shared buffer, fences it for the async
// proxy and stores it to C by TMA, and leaves the store in flight: the
// wait that retires it (`wait_group tma pending 0`, its bytes read out of
// the buffer) comes only before the next tile writes the buffer, so the
// store runs while that tile's K loop does. One buffer per consumer is
// enough for that overlap: 3 x 48 KiB of ring and 2 x 32 KiB of epilogue
// buffers fill 208 KiB of the H200's 227 KiB per CTA.
//
// Sequential meaning: for every tile of the program, for every k, copy the
// tiles, read them back and accumulate, then store each half (through its
// buffer); the schedule only says how this runs in parallel. M, N, K and
// the number of programs P are symbolic; ragged edges are zero-padded on
// load and clipped on store.

tile.kernel @gemm_persistent_cooperative(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xbf16> {tile.name = "C"})
    grid(1) attributes {
        tag.contract = @gemm_reference,
        tag.program_map = affine_map<(d0, d1)[s0, s1, s2, s3] -> (((d0 floordiv 2) * (s1 ceildiv 128) + d1) mod s3, ((d0 floordiv 2) * (s1 ceildiv 128) + d1) floordiv s3)>,
        tile.launch = #tile.launch<sizes = [M = 640, N = 256, K = 320, P = 4], grid = [P],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm_bf16">,
        schedule.launch = #schedule.launch<warpgroups = 3>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cS = arith.constant 3 : index
  %c2S = arith.constant 6 : index
  %c2Sm1 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pid = tile.program_id 0
  %P = tile.num_programs 0
  %M = memref.dim %A, %c0 : memref<?x?xbf16>
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %N = memref.dim %B, %c1 : memref<?x?xbf16>
  %mt = arith.ceildivui %M, %c256 : index
  %nt = arith.ceildivui %N, %c128 : index
  %tiles = arith.muli %mt, %nt : index
  %ksteps = arith.ceildivui %K, %c64 : index
  // Each tile runs its ring to a multiple of 2 x 3 steps (the steps past
  // the K loop only pass the slots round), so every tile starts the ring in
  // the same phases: step k of any tile is ring step k.
  %kp = arith.addi %ksteps, %c2Sm1 : index
  %krounds = arith.divui %kp, %c2S : index
  %kpad = arith.muli %krounds, %c2S : index
  %left = arith.subi %tiles, %pid : index
  %mine = arith.ceildivsi %left, %P : index

  %epi0 = tile.alloc_shared : memref<1x128x128xbf16, #gpu.address_space<workgroup>>
  %epi1 = tile.alloc_shared : memref<1x128x128xbf16, #gpu.address_space<workgroup>>
  %a0_ring = tile.alloc_shared : memref<3x128x64xbf16, #gpu.address_space<workgroup>>
  %a1_ring = tile.alloc_shared : memref<3x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<3x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<3>
  %empty = schedule.mbarrier.init count 2 : !schedule.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>

  scf.for %i = %c0 to %mine step %c1 {
    %iP = arith.muli %i, %P : index
    %t = arith.addi %pid, %iP : index
    %pm = arith.divui %t, %nt : index
    %pn = arith.remui %t, %nt : index
    // The tile's two 128-row blocks, one per consumer.
    %r0 = arith.muli %pm, %c2 : index
    %r1 = arith.addi %r0, %c1 : index
    %later = arith.cmpi uge, %i, %c1 : index
    %acc:2 = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc0 = %zero, %acc1 = %zero) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
      %slot = arith.remui %k, %cS : index
      %round = arith.divui %k, %cS : index
      %parity = arith.remui %round, %c2 : index
      schedule.role "producer" warpgroups [0] regs 40 {
        %second = arith.cmpi uge, %k, %cS : index
        %reuse = arith.ori %second, %later : i1
        scf.if %reuse {
          %next_round = arith.addi %round, %c1 : index
          %prev_parity = arith.remui %next_round, %c2 : index
          schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<3>, index
        }
        schedule.mbarrier.arrive_expect_tx %full[%slot], 49152 : !schedule.mbarrier<3>
        schedule.async tma arrive %full[%slot] : !schedule.mbarrier<3> {
          tile.copy %A[%r0, %k] -> %a0_ring[%slot] padding(0.0 : bf16)
              : memref<?x?xbf16> -> memref<3x128x64xbf16, #gpu.address_space<workgroup>>
          tile.copy %A[%r1, %k] -> %a1_ring[%slot] padding(0.0 : bf16)
              : memref<?x?xbf16> -> memref<3x128x64xbf16, #gpu.address_space<workgroup>>
          tile.copy %B[%k, %pn] -> %b_ring[%slot] padding(0.0 : bf16)
              : memref<?x?xbf16> -> memref<3x64x128xbf16, #gpu.address_space<workgroup>>
        }
      }
      %next0 = schedule.role "consumer0" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<3>, index
        %a = tile.read %a0_ring[%slot]
            : memref<3x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
        %b = tile.read %b_ring[%slot]
            : memref<3x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
        %d = schedule.async wgmma {
          %r = tile.dot %a, %b, %acc0
              : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
          schedule.yield %r : tensor<128x128xf32>
        } : tensor<128x128xf32>
        schedule.commit_group wgmma
        schedule.wait_group wgmma pending 1
        %has_prev = arith.cmpi uge, %k, %c1 : index
        scf.if %has_prev {
          %k_prev = arith.subi %k, %c1 : index
          %prev_slot = arith.remui %k_prev, %cS : index
          schedule.mbarrier.arrive %empty[%prev_slot] : !schedule.mbarrier<3>
        }
        schedule.yield %d : tensor<128x128xf32>
      } : tensor<128x128xf32>
      %next1 = schedule.role "consumer1" warpgroups [2] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<3>, index
        %a = tile.read %a1_ring[%slot]
            : memref<3x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
        %b = tile.read %b_ring[%slot]
            : memref<3x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
        %d = schedule.async wgmma {
          %r = tile.dot %a, %b, %acc1
              : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
          schedule.yield %r : tensor<128x128xf32>
        } : tensor<128x128xf32>
        schedule.commit_group wgmma
        schedule.wait_group wgmma pending 1
        %has_prev = arith.cmpi uge, %k, %c1 : index
        scf.if %has_prev {
          %k_prev = arith.subi %k, %c1 : index
          %prev_slot = arith.remui %k_prev, %cS : index
          schedule.mbarrier.arrive %empty[%prev_slot] : !schedule.mbarrier<3>
        }
        schedule.yield %d : tensor<128x128xf32>
      } : tensor<128x128xf32>
      scf.yield %next0, %next1 : tensor<128x128xf32>, tensor<128x128xf32>
    }
    %any = arith.cmpi uge, %ksteps, %c1 : index
    schedule.role "consumer0" warpgroups [1] {
      schedule.wait_group wgmma pending 0
      // The last K step's slot, released once its wgmma has retired.
      scf.if %any {
        %k_last = arith.subi %ksteps, %c1 : index
        %last_slot = arith.remui %k_last, %cS : index
        schedule.mbarrier.arrive %empty[%last_slot] : !schedule.mbarrier<3>
      }
      // The epilogue: the previous tile's store has read the buffer before
      // this tile writes it; this tile's store stays in flight.
      %h = arith.truncf %acc#0 : tensor<128x128xf32> to tensor<128x128xbf16>
      schedule.wait_group tma pending 0
      tile.write %h, %epi0[%c0] : tensor<128x128xbf16> -> memref<1x128x128xbf16, #gpu.address_space<workgroup>>
      schedule.fence_async_proxy
      schedule.async tma {
        tile.copy %epi0[%c0] -> %C[%r0, %pn]
            : memref<1x128x128xbf16, #gpu.address_space<workgroup>> -> memref<?x?xbf16>
      }
      schedule.commit_group tma
    }
    schedule.role "consumer1" warpgroups [2] {
      schedule.wait_group wgmma pending 0
      scf.if %any {
        %k_last = arith.subi %ksteps, %c1 : index
        %last_slot = arith.remui %k_last, %cS : index
        schedule.mbarrier.arrive %empty[%last_slot] : !schedule.mbarrier<3>
      }
      %h = arith.truncf %acc#1 : tensor<128x128xf32> to tensor<128x128xbf16>
      schedule.wait_group tma pending 0
      tile.write %h, %epi1[%c0] : tensor<128x128xbf16> -> memref<1x128x128xbf16, #gpu.address_space<workgroup>>
      schedule.fence_async_proxy
      schedule.async tma {
        tile.copy %epi1[%c0] -> %C[%r1, %pn]
            : memref<1x128x128xbf16, #gpu.address_space<workgroup>> -> memref<?x?xbf16>
      }
      schedule.commit_group tma
    }
    // The steps past K: the slots pass round empty, phases kept in step.
    scf.for %k = %ksteps to %kpad step %c1 {
      %slot = arith.remui %k, %cS : index
      %round = arith.divui %k, %cS : index
      %parity = arith.remui %round, %c2 : index
      schedule.role "producer" warpgroups [0] regs 40 {
        %second = arith.cmpi uge, %k, %cS : index
        %reuse = arith.ori %second, %later : i1
        scf.if %reuse {
          %next_round = arith.addi %round, %c1 : index
          %prev_parity = arith.remui %next_round, %c2 : index
          schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<3>, index
        }
        schedule.mbarrier.arrive %full[%slot] : !schedule.mbarrier<3>
      }
      schedule.role "consumer0" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<3>, index
        schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<3>
      }
      schedule.role "consumer1" warpgroups [2] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<3>, index
        schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<3>
      }
    }
  }
  // Every store retired before the CTA exits.
  schedule.role "consumer0" warpgroups [1] {
    schedule.wait_group tma pending 0
  }
  schedule.role "consumer1" warpgroups [2] {
    schedule.wait_group tma pending 0
  }
  tile.return
}

// The contract: what @gemm_persistent_cooperative computes, as a plain
// kernel over the same operands. Block (i, j) of C, in 128x128 blocks, is
// the sum over every K block k, in order, of A(i, k) * B(k, j), starting
// from zero, rounded to bf16. tag.program_map names the program and
// tile-loop iteration that store block (i, j): tile t = (i floordiv 2)
// (N ceildiv 128) + j is program t mod P's iteration t floordiv P.
tile.kernel @gemm_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xbf16> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm_bf16">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = arith.truncf %sum : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %h, %C[%i, %j] : tensor<128x128xbf16> -> memref<?x?xbf16>
  tile.return
}
