// MoE grouped GEMM whose K loop runs through a warp-specialized TMA ring,
// under the expert's row range: the rows come from the offsets array (data
// loaded from memory), so the guard around the ring, the copies' offsets
// and bounds all depend on loaded values. The checkers prove the ring
// protocol, the tags and the contract for every size and every sorted
// offsets array. Broken variants: the producer waits for the wrong phase of
// the empty barrier, and the X copy ignores the expert's first row.
// RUN: tiletag-opt --tiletag-verify %s | FileCheck %s --check-prefix=OK
// RUN: sed -e 's/schedule.mbarrier.wait %%empty\[%%slot\], %%prev_parity/schedule.mbarrier.wait %%empty[%%slot], %%parity/' %s > %t.phase.mlir
// RUN: not diff -q %s %t.phase.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.phase.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: sed -e 's/-> %%x_ring\[%%slot\] offset \[%%row0, %%c0\]/-> %%x_ring[%%slot] offset [%%c0, %%c0]/' %s > %t.rows.mlir
// RUN: not diff -q %s %t.rows.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.rows.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// OK-LABEL: tile.kernel @moe_ring
// OK: schedule.verified = "
// OK: tag.verified = "
// PHASE: error: the first wait on %empty (line {{[0-9]+}}) waits for parity 0 does not hold
// PHASE: note: the schedule.mbarrier.wait at line {{[0-9]+}} runs with {{.*}}iv0@line{{[0-9]+}} = 4, mbarrier [0] of %empty
// ROWS: error: the value stored here differs from the contract: the tile loaded from X (line [[X:[0-9]+]]) is another block than the reference's
// ROWS: note: in the kernel, here
// ROWS: note: counterexample:

tile.kernel @moe_ring(%X: memref<?x?xbf16> {tile.name = "X"},
                              %W: memref<?x?x?xbf16> {tile.name = "W"},
                              %offsets: memref<?xi32> {tile.name = "offsets", tile.nondecreasing},
                              %gate: memref<?xf32> {tile.name = "gate"},
                              %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(3) attributes {
        tag.contract = @moe_reference,
        tile.launch = #tile.launch<sizes = [T = 300, H = 192, F = 256, E = 4],
            grid = [E, T ceildiv 64, F ceildiv 128],
            shapes = [X = [T, H], W = [E, H, F], offsets = [E + 1], gate = [T], Y = [T, F]],
            check = "moe">,
        schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %pe = tile.program_id 0
  %pm = tile.program_id 1
  %pn = tile.program_id 2
  %H = memref.dim %X, %c1 : memref<?x?xbf16>
  %F = memref.dim %Y, %c1 : memref<?x?xf32>
  %pe1 = arith.addi %pe, %c1 : index
  %row0_i32 = memref.load %offsets[%pe] : memref<?xi32>
  %row1_i32 = memref.load %offsets[%pe1] : memref<?xi32>
  // The routing table is data: clamp it to the token rows so that no
  // offsets array can send a tile past X, gate or Y.
  %T = memref.dim %X, %c0 : memref<?x?xbf16>
  %row0_raw = arith.index_cast %row0_i32 : i32 to index
  %row1_raw = arith.index_cast %row1_i32 : i32 to index
  %row1 = arith.minui %row1_raw, %T : index
  %row0 = arith.minui %row0_raw, %row1 : index
  %rows = arith.subi %row1, %row0 : index
  %first = arith.muli %pm, %c64 : index
  %active = arith.cmpi ult, %first, %rows : index
  scf.if %active {
    %kblocks = arith.ceildivui %H, %c64 : index
    %x_ring = tile.alloc_shared : memref<4x64x64xbf16, #gpu.address_space<workgroup>>
    %w_ring = tile.alloc_shared : memref<4x64x128xbf16, #gpu.address_space<workgroup>>
    %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
    %empty = schedule.mbarrier.init count 1 : !schedule.mbarrier<4>
    %zero = arith.constant dense<0.0> : tensor<64x128xf32>
    %acc = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc_k = %zero) -> (tensor<64x128xf32>) {
      %slot = arith.remui %k, %c4 : index
      %round = arith.divui %k, %c4 : index
      %parity = arith.remui %round, %c2 : index
      schedule.role "producer" warpgroups [0] regs 40 {
        %reuse = arith.cmpi uge, %k, %c4 : index
        scf.if %reuse {
          %prev_round = arith.subi %round, %c1 : index
          %prev_parity = arith.remui %prev_round, %c2 : index
          schedule.mbarrier.wait %empty[%slot], %prev_parity : !schedule.mbarrier<4>, index
        }
        // 64x64 + 64x128 bf16 tiles: 12288 elements * 2 bytes.
        schedule.mbarrier.arrive_expect_tx %full[%slot], 24576 : !schedule.mbarrier<4>
        schedule.async tma arrive %full[%slot] : !schedule.mbarrier<4> {
          tile.copy %X[%pm, %k] -> %x_ring[%slot] offset [%row0, %c0] bounds [%row1, %H] padding(0.0 : bf16)
              : memref<?x?xbf16> -> memref<4x64x64xbf16, #gpu.address_space<workgroup>>
          tile.copy %W[%pe, %k, %pn] -> %w_ring[%slot] padding(0.0 : bf16)
              : memref<?x?x?xbf16> -> memref<4x64x128xbf16, #gpu.address_space<workgroup>>
        }
      }
      %next = schedule.role "consumer" warpgroups [1] regs 232 {
        schedule.mbarrier.wait %full[%slot], %parity : !schedule.mbarrier<4>, index
        %x = tile.read %x_ring[%slot]
            : memref<4x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>
        %w = tile.read %w_ring[%slot]
            : memref<4x64x128xbf16, #gpu.address_space<workgroup>> -> tensor<64x128xbf16>
        %kx = tag.field %x["X", 1] : tensor<64x64xbf16>
        %ew = tag.field %w["W", 0] : tensor<64x128xbf16>
        %kw = tag.field %w["W", 1] : tensor<64x128xbf16>
        tag.assert eq %ew, %pe, "tokens meet their own expert's weights" : index
        tag.assert eq %kx, %kw, "X and W tiles come from the same K block" : index
        %d = schedule.async wgmma {
          %r = tile.dot %x, %w, %acc_k
              : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
          schedule.yield %r : tensor<64x128xf32>
        } : tensor<64x128xf32>
        schedule.commit_group wgmma
        schedule.wait_group wgmma pending 1
        %has_prev = arith.cmpi uge, %k, %c1 : index
        scf.if %has_prev {
          %k_prev = arith.subi %k, %c1 : index
          %prev_slot = arith.remui %k_prev, %c4 : index
          schedule.mbarrier.arrive %empty[%prev_slot] : !schedule.mbarrier<4>
        }
        schedule.yield %d : tensor<64x128xf32>
      } : tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    schedule.role "consumer" warpgroups [1] {
    schedule.wait_group wgmma pending 0
    %g = tile.load %gate[%pm] offset [%row0] bounds [%row1] padding(0.0 : f32)
        : memref<?xf32> -> tensor<64xf32>
    %g_b = tile.broadcast %g dims [1] : tensor<64xf32> -> tensor<64x128xf32>
    %y = arith.mulf %acc, %g_b : tensor<64x128xf32>
    tile.store %y, %Y[%pm, %pn] offset [%row0, %c0] bounds [%row1, %F]
        : tensor<64x128xf32> -> memref<?x?xf32>
    }
  }
  tile.return
}

tile.kernel @moe_reference(%X: memref<?x?xbf16> {tile.name = "X"},
                           %W: memref<?x?x?xbf16> {tile.name = "W"},
                           %offsets: memref<?xi32> {tile.name = "offsets", tile.nondecreasing},
                           %gate: memref<?xf32> {tile.name = "gate"},
                           %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(3) attributes {
        tile.launch = #tile.launch<sizes = [T = 300, H = 192, F = 256, E = 4],
            grid = [E, T ceildiv 64, F ceildiv 128],
            shapes = [X = [T, H], W = [E, H, F], offsets = [E + 1], gate = [T], Y = [T, F]],
            check = "moe">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %e = tile.program_id 0
  %m = tile.program_id 1
  %n = tile.program_id 2
  %T = memref.dim %X, %c0 : memref<?x?xbf16>
  %H = memref.dim %X, %c1 : memref<?x?xbf16>
  %F = memref.dim %Y, %c1 : memref<?x?xf32>
  %e1 = arith.addi %e, %c1 : index
  %begin_i32 = memref.load %offsets[%e] : memref<?xi32>
  %end_i32 = memref.load %offsets[%e1] : memref<?xi32>
  %begin_raw = arith.index_cast %begin_i32 : i32 to index
  %end_raw = arith.index_cast %end_i32 : i32 to index
  %end = arith.minui %end_raw, %T : index
  %begin = arith.minui %begin_raw, %end : index
  %kblocks = arith.ceildivui %H, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32>) {
    %x = tile.load %X[%m, %k] offset [%begin, %c0] bounds [%end, %H] padding(0.0 : bf16)
        : memref<?x?xbf16> -> tensor<64x64xbf16>
    %w = tile.load %W[%e, %k, %n] padding(0.0 : bf16) : memref<?x?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %x, %w, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %g = tile.load %gate[%m] offset [%begin] bounds [%end] padding(0.0 : f32)
      : memref<?xf32> -> tensor<64xf32>
  %g_b = tile.broadcast %g dims [1] : tensor<64xf32> -> tensor<64x128xf32>
  %y = arith.mulf %sum, %g_b : tensor<64x128xf32>
  tile.store %y, %Y[%m, %n] offset [%begin, %c0] bounds [%end, %F]
      : tensor<64x128xf32> -> memref<?x?xf32>
  tile.return
}
