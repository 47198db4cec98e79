// An unrolled K loop and its remainder loop (what transform.tiletag.unroll
// makes): the plain GEMM's K loop runs two blocks per step up to the
// block count rounded down to even, and one more step for an odd count.
// Copy j of the unrolled step n is the reference's step 2n + j; the
// remainder loop, which continues the unrolled loop (it starts at its upper
// bound, from its result), runs the steps after those; the checker proves
// each copy and step by induction and that the two loops run exactly the
// reference's steps. Each broken variant is rejected with a counterexample
// or the difference named.
// REQUIRES: z3
// RUN: tiletag-opt --tiletag-verify-tags %s -o /dev/null
// RUN: tiletag-run %s --check --size M=130,N=70,K=330 | FileCheck %s --check-prefix=ORACLE
// ORACLE: check gemm: C matches

// The second copy reads the first copy's A block again.
// RUN: sed -e 's/%%a1 = tile.load %%A\[%%i, %%k1\]/%%a1 = tile.load %%A[%%i, %%k]/' %s > %t.same.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.same.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: error: the value stored here differs from the contract: the tile loaded from A (line {{[0-9]+}}) is another block than the reference's
// SAME: note: counterexample: {{.*}}size.K = {{[0-9]+}}

// The copies in the other order: the sum is grouped otherwise.
// RUN: sed -e 's/%%a0 = tile.load %%A\[%%i, %%k\]/%%a0 = tile.load %%A[%%i, %%k1]/; s/%%b0 = tile.load %%B\[%%k, %%j\]/%%b0 = tile.load %%B[%%k1, %%j]/; s/%%a1 = tile.load %%A\[%%i, %%k1\]/%%a1 = tile.load %%A[%%i, %%k]/; s/%%b1 = tile.load %%B\[%%k1, %%j\]/%%b1 = tile.load %%B[%%k, %%j]/' %s > %t.swap.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.swap.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=SWAP
// SWAP: error: the value stored here differs from the contract: the tile loaded from A (line {{[0-9]+}}) is another block than the reference's
// SWAP: note: counterexample:

// The second copy adds to the carried value, dropping the first copy's
// product.
// RUN: sed -e 's/%%d1 = tile.dot %%a1, %%b1, %%d0/%%d1 = tile.dot %%a1, %%b1, %%acc/' %s > %t.drop.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.drop.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DROP
// DROP: error: the value stored here differs from the contract:
// DROP: note: counterexample: {{.*}}size.K = {{[0-9]+}}

// No remainder loop: an odd block count loses its last block.
// RUN: sed -e '0,/tile.store %%sum, %%C/s//tile.store %%main, %%C/' %s > %t.norem.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.norem.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOREM
// NOREM: error: the value stored here differs from the contract: the loop, unrolled 2 times, runs another number of steps in all than the reference's loop (line {{[0-9]+}})
// NOREM: note: counterexample: {{.*}}size.K = {{[0-9]+}}

// The unrolled loop's bound rounded to a multiple of 3: its last step runs
// past it, and the remainder loop runs those blocks again.
// RUN: sed -e 's/%%rest = arith.remsi %%kblocks, %%c2/%%rest = arith.remsi %%kblocks, %%c3/' %s > %t.three.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.three.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// THREE: error: the value stored here differs from the contract: the loop with the loops it continues runs another number of steps in all than the reference's loop (line {{[0-9]+}})
// THREE: note: counterexample: {{.*}}size.K = {{[0-9]+}}

// The remainder loop starts from zero instead of the unrolled loop's sum.
// RUN: sed -e 's/iter_args(%%acc2 = %%main)/iter_args(%%acc2 = %%zero)/' %s > %t.fresh.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.fresh.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FRESH
// FRESH: error: the value stored here differs from the contract: the loop runs another number of iterations than the reference's loop (line {{[0-9]+}})
// FRESH: note: counterexample: {{.*}}size.K = {{[0-9]+}}

// The remainder loop one block late: the first remaining block is skipped.
// RUN: sed -e 's/scf.for %%k = %%stop to %%kblocks/scf.for %%k = %%late to %%kblocks/; s/%%stop = arith.subi %%kblocks, %%rest : index/%%stop = arith.subi %%kblocks, %%rest : index\n  %%late = arith.addi %%stop, %%c1 : index/' %s > %t.late.mlir
// RUN: not tiletag-opt --tiletag-verify-tags %t.late.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=LATE
// LATE: error: the value stored to C here is not the contract's: the kernel has the result of a loop (line {{[0-9]+}}) where the reference has 'arith.constant'

tile.kernel @gemm(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @gemm_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %rest = arith.remsi %kblocks, %c2 : index
  %stop = arith.subi %kblocks, %rest : index
  %main = scf.for %k = %c0 to %stop step %c2 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %k1 = arith.addi %k, %c1 : index
    %a0 = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b0 = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d0 = tile.dot %a0, %b0, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %a1 = tile.load %A[%i, %k1] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b1 = tile.load %B[%k1, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d1 = tile.dot %a1, %b1, %d0 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d1 : tensor<128x128xf32>
  }
  %sum = scf.for %k = %stop to %kblocks step %c1 iter_args(%acc2 = %main) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc2 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}

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
