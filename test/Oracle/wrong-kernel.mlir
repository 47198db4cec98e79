// A deliberately wrong GEMM: the B tile is taken at swapped block
// coordinates. --check must fail, name the worst element, and exit 1.
// RUN: %python %S/Inputs/expect-exit.py 1 tiletag-run %s --check | FileCheck %s
// CHECK: run @wrong_gemm
// CHECK: check gemm: C MISMATCH: {{[0-9]+}} of 16384 elements out of tolerance; worst C[{{[0-9]+}}, {{[0-9]+}}] = {{.*}}, expected

tile.kernel @wrong_gemm(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                        %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 128, N = 128, K = 128], grid = [M ceildiv 64, N ceildiv 64],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %ks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %ks step %c1 iter_args(%a_k = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %A[%pm, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %B[%pn, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %a, %b, %a_k : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %C[%pm, %pn] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
