// Split-k GEMM: C[M, N] = A[M, K] * B[K, N], bf16 inputs, f32 accumulation.
//
// Grid dimension 2 splits the K blocks into S contiguous ranges. Each
// program writes its partial sum to its own slice W[s] of an f32 workspace;
// a second kernel sums the S slices into C in a fixed order, so the result
// does not depend on which split finishes first. @gemm_splitk_atomic is the
// one-kernel variant: every split adds its partial into C (`combine add`).

tile.kernel @gemm_splitk_partial(%A: memref<?x?xbf16> {tile.name = "A"},
                                 %B: memref<?x?xbf16> {tile.name = "B"},
                                 %W: memref<?x?x?xf32> {tile.name = "W"})
    grid(3) attributes {
        tag.contract = @gemm_splitk_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640, S = 3],
            grid = [M ceildiv 128, N ceildiv 128, S],
            shapes = [A = [M, K], B = [K, N], W = [S, M, N]], check = "gemm_splitk",
            then = [@splitk_reduce]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %ps = tile.program_id 2
  %splits = tile.num_programs 2
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %per_split = arith.ceildivui %kblocks, %splits : index
  %kbegin_raw = arith.muli %ps, %per_split : index
  %kbegin = arith.minui %kbegin_raw, %kblocks : index
  %kend_raw = arith.addi %kbegin, %per_split : index
  %kend = arith.minui %kend_raw, %kblocks : index
  // Split ps owns K blocks [ps * per_split, (ps + 1) * per_split).
  %owned_end = arith.addi %kbegin_raw, %per_split : index

  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %kbegin to %kend step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%pm, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %pn] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %ka = tag.field %a["A", 1] : tensor<128x64xbf16>
    %kb = tag.field %b["B", 0] : tensor<64x128xbf16>
    tag.assert eq %ka, %kb, "A and B tiles come from the same K block" : index
    tag.assert_range %ka in [%kbegin_raw, %owned_end), "the K block belongs to this split" : index
    %d = schedule.async wgmma {
      %r = tile.dot %a, %b, %acc_k
          : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      schedule.yield %r : tensor<128x128xf32>
    } : tensor<128x128xf32>
    schedule.commit_group wgmma
    schedule.wait_group wgmma pending 0
    scf.yield %d : tensor<128x128xf32>
  }
  // Each split owns the workspace slice W[ps]: no two programs write the same
  // element.
  %partial = tag.attach %acc as "Partial"(%ps, %pm, %pn) : tensor<128x128xf32>
  %slice = arith.addi %ps, %c0 : index
  %split = tag.field %partial["Partial", 0] : tensor<128x128xf32>
  tag.assert eq %split, %slice, "each split stores its partial to its own slice" : index
  tile.store %partial, %W[%slice, %pm, %pn] : tensor<128x128xf32> -> memref<?x?x?xf32>
  tile.return
}

tile.kernel @splitk_reduce(%W: memref<?x?x?xf32> {tile.name = "W"},
                           %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, S = 3],
            grid = [M ceildiv 128, N ceildiv 128], shapes = [W = [S, M, N], C = [M, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %splits = memref.dim %W, %c0 : memref<?x?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %s = %c0 to %splits step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %p = tile.load %W[%s, %pm, %pn] padding(0.0 : f32) : memref<?x?x?xf32> -> tensor<128x128xf32>
    tag.assert_carries %p, "W"(%s, %pm, %pn), "partial of split s for this tile" : tensor<128x128xf32>
    %next = arith.addf %acc, %p : tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  tile.store %sum, %C[%pm, %pn] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// C must hold zeros before the launch.
tile.kernel @gemm_splitk_atomic(%A: memref<?x?xbf16> {tile.name = "A"},
                                %B: memref<?x?xbf16> {tile.name = "B"},
                                %C: memref<?x?xf32> {tile.name = "C"})
    grid(3) attributes {
        tag.contract = @gemm_splitk_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640, S = 3],
            grid = [M ceildiv 128, N ceildiv 128, S],
            shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %ps = tile.program_id 2
  %splits = tile.num_programs 2
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %per_split = arith.ceildivui %kblocks, %splits : index
  %kbegin_raw = arith.muli %ps, %per_split : index
  %kbegin = arith.minui %kbegin_raw, %kblocks : index
  %kend_raw = arith.addi %kbegin, %per_split : index
  %kend = arith.minui %kend_raw, %kblocks : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %kbegin to %kend step %c1 iter_args(%acc_k = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%pm, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %pn] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %ka = tag.field %a["A", 1] : tensor<128x64xbf16>
    %kb = tag.field %b["B", 0] : tensor<64x128xbf16>
    tag.assert eq %ka, %kb, "A and B tiles come from the same K block" : index
    %d = tile.dot %a, %b, %acc_k
        : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  // Splits of one output tile overlap in C: the adds are atomic.
  tile.store %acc, %C[%pm, %pn] combine add : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

// The contract of both variants: the plain GEMM. Block (i, j) of C is the
// sum over every K block of A(i, k) * B(k, j), in order, from zero. It is the
// contract of the launch chain @gemm_splitk_partial -> @splitk_reduce (its
// operands are the chain's inputs and output; W is the chain's workspace),
// and of @gemm_splitk_atomic (C starts at zero). Both add the splits' sums
// in another order than the reference: the one freedom the checker grants.
tile.kernel @gemm_splitk_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                            %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640], grid = [M ceildiv 128, N ceildiv 128],
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
