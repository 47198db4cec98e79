// A launch chain proved against one contract: @gemm_splitk stores each
// split's partial sum to its own slice of the workspace C_partials, and
// @gemm_splitk_reduce, launched after it (`then`), sums the slices of each
// block of C in order. The contract is the plain GEMM's: its operands (A, B,
// C) are the chain's, C_partials is a workspace. The checker proves that the
// reduction stores every block of C as the sum of all its slices, that one
// program writes each slice it reads, and that the splits cover every K
// block once (splitk-chain-broken.test: what it rejects).
// REQUIRES: z3
// RUN: tiletag-opt --tiletag-verify=stats=1 %s -o %t.mlir 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: tiletag-run %s --check --size M=200,N=300,K=1000,S=3 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %s --check --size M=129,N=1,K=65,S=5 | FileCheck %s --check-prefix=ORACLE
// STATS: @gemm_splitk: {{.*}} contract obligations against @gemm_splitk_reference (with @gemm_splitk_reduce)
// ORACLE: run @gemm_splitk then @gemm_splitk_reduce
// ORACLE: check gemm: C matches

tile.kernel @gemm_splitk(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                         %W: memref<?x?x?xf32> {tile.name = "C_partials"})
    grid(3) attributes {
        tag.contract = @gemm_splitk_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640, S = 4], grid = [M ceildiv 128, N ceildiv 128, S],
                               shapes = [A = [M, K], B = [K, N], C_partials = [S, M, N]], check = "gemm", then = [@gemm_splitk_reduce]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %ps = tile.program_id 2
  %splits = tile.num_programs 2
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %per = arith.ceildivui %kblocks, %splits : index
  %b0 = arith.muli %ps, %per : index
  %b = arith.minui %b0, %kblocks : index
  %e0 = arith.addi %b, %per : index
  %e = arith.minui %e0, %kblocks : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %b to %e step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %bb = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %bb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %W[%ps, %i, %j] : tensor<128x128xf32> -> memref<?x?x?xf32>
  tile.return
}

tile.kernel @gemm_splitk_reduce(%W: memref<?x?x?xf32> {tile.name = "C_partials"}, %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 640, S = 4], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [C_partials = [S, M, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %S = memref.dim %W, %c0 : memref<?x?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %s = %c0 to %S step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %p = tile.load %W[%s, %i, %j] padding(0.0 : f32) : memref<?x?x?xf32> -> tensor<128x128xf32>
    %n = arith.addf %acc, %p : tensor<128x128xf32>
    scf.yield %n : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
// The contract of @gemm_splitk.

// The contract: the plain GEMM.
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
