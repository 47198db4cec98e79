// Persistent GEMM: C[M, N] = A[M, K] * B[K, N], bf16 inputs, f32
// accumulation and output, with a TMA-store epilogue whose store of one tile
// runs while the next tile's K loop does.
//
// P programs (launch one per SM: P = 132 on an H200) take the 128x128 output
// tiles t = pid + i P in turn. One 3-slot shared ring runs on across a
// program's tiles: a producer warpgroup issues the TMA copies of A and B for
// K step k into slot k mod 3, which complete on full[k mod 3]; a consumer
// warpgroup waits for that phase, issues an asynchronous wgmma, keeps one
// group in flight and releases the slot the retired group read. Each tile
// runs the ring on to a multiple of 6 steps (2 x the depth: the steps past
// K only pass the slots round), so that every tile starts the ring in the
// same phases and step k of any tile is ring step k: the phases are linear
// in k, which the checker proves for every M, N, K and P (with the ring's
// step counted across tiles, `i * ksteps + k`, they are not). K = 4096
// runs 64 K steps and passes 2 slots round empty per tile, K = 8192 128
// and 4; a K that is a multiple of 384 passes none.
//
// The epilogue writes the accumulator from its registers to one of two
// shared buffers (tile i into buffer i mod 2), fences it for the async
// proxy, and stores it to C by TMA; `wait_group tma pending 1` keeps that
// store in flight through the next tile's K loop and retires the one
// before, whose buffer the next tile writes; `pending 0` after the tile loop
// retires the last. 3 x 32 KiB of ring and 2 x 64 KiB of epilogue buffers
// fill 224 KiB of the H200's 227 KiB per CTA.
//
// Sequential meaning: for every tile of the program, for every k, copy the
// tiles, read them back and accumulate, then store the tile (through the
// buffer); the schedule only says how this runs in parallel. M, N, K and
// the number of programs P are symbolic; ragged edges are zero-padded on
// load and clipped on store.
//
// examples/scripts/gemm_persistent.mlir makes this kernel (tiles in launch
// order) from examples/naive/gemm.mlir; ptxas gives both the same figures
// (test/Transforms/TransformOps/gemm-persistent-script.test).

tile.kernel @gemm_persistent(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(1) attributes {
        tag.contract = @gemm_reference,
        tag.program_map = affine_map<(d0, d1)[s0, s1, s2, s3] -> ((d0 * (s1 ceildiv 128) + d1) mod s3, (d0 * (s1 ceildiv 128) + d1) floordiv s3)>,
        tile.launch = #tile.launch<sizes = [M = 384, N = 256, K = 320, P = 4], grid = [P],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cS = arith.constant 3 : index
  %c2S = arith.constant 6 : index
  %c2Sm1 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid = tile.program_id 0
  %P = tile.num_programs 0
  %M = memref.dim %A, %c0 : memref<?x?xbf16>
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %N = memref.dim %B, %c1 : memref<?x?xbf16>
  %mt = arith.ceildivui %M, %c128 : index
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

  %epi = tile.alloc_shared : memref<2x128x128xf32, #gpu.address_space<workgroup>>
  %a_ring = tile.alloc_shared : memref<3x128x64xbf16, #gpu.address_space<workgroup>>
  %b_ring = tile.alloc_shared : memref<3x64x128xbf16, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<3>
  %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<3>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>

  scf.for %i = %c0 to %mine step %c1 {
    %iP = arith.muli %i, %P : index
    %t = arith.addi %pid, %iP : index
    %pm = arith.divui %t, %nt : index
    %pn = arith.remui %t, %nt : index
    %later = arith.cmpi uge, %i, %c1 : index
    %acc = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
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
        schedule.mbarrier.arrive_expect_tx %full[%slot], 32768 : !schedule.mbarrier<3>
        schedule.async tma arrive %full[%slot] : !schedule.mbarrier<3> {
          tile.copy %A[%pm, %k] -> %a_ring[%slot] padding(0.0 : bf16)
              : memref<?x?xbf16> -> memref<3x128x64xbf16, #gpu.address_space<workgroup>>
          tile.copy %B[%k, %pn] -> %b_ring[%slot] padding(0.0 : bf16)
              : memref<?x?xbf16> -> memref<3x64x128xbf16, #gpu.address_space<workgroup>>
        }
      }
      %next = schedule.role "consumer" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<3>, index
        %a = tile.read %a_ring[%slot]
            : memref<3x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
        %b = tile.read %b_ring[%slot]
            : memref<3x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
        %d = schedule.async wgmma {
          %r = tile.dot %a, %b, %acc_k
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
      scf.yield %next : tensor<128x128xf32>
    }
    schedule.role "consumer" warpgroups [1] {
      schedule.wait_group wgmma pending 0
      // The last K step's slot, released once its wgmma has retired.
      %any = arith.cmpi uge, %ksteps, %c1 : index
      scf.if %any {
        %k_last = arith.subi %ksteps, %c1 : index
        %last_slot = arith.remui %k_last, %cS : index
        schedule.mbarrier.arrive %empty[%last_slot] : !schedule.mbarrier<3>
      }
      // The epilogue: the tile through buffer i mod 2, stored by TMA; the
      // store stays in flight while the next tile's K loop runs.
      %buf = arith.remui %i, %c2 : index
      tile.write %acc, %epi[%buf] : tensor<128x128xf32> -> memref<2x128x128xf32, #gpu.address_space<workgroup>>
      schedule.fence_async_proxy
      schedule.async tma {
        tile.copy %epi[%buf] -> %C[%pm, %pn]
            : memref<2x128x128xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
      }
      schedule.commit_group tma
      schedule.wait_group tma pending 1
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
      schedule.role "consumer" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<3>, index
        schedule.mbarrier.arrive %empty[%slot] : !schedule.mbarrier<3>
      }
    }
  }
  schedule.role "consumer" warpgroups [1] {
    schedule.wait_group tma pending 0
  }
  tile.return
}

// The contract: what @gemm_persistent computes, as a plain kernel over the
// same operands. Block (i, j) of C is the sum over every K block k, in
// order, of A(i, k) * B(k, j), starting from zero. tag.program_map names
// the program and tile-loop iteration that store block (i, j): tile t = i
// (N ceildiv 128) + j is program t mod P's iteration t floordiv P.
tile.kernel @gemm_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
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
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
