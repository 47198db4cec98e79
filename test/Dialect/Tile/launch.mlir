// RUN: tiletag-opt %s | tiletag-opt | FileCheck %s
// RUN: tiletag-opt %s --mlir-print-op-generic | tiletag-opt | FileCheck %s

// CHECK: tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 64], grid = [M ceildiv 128, (N + 127) floordiv 128], shapes = [A = [M, K], B = [K, N], C = [M * 2, N mod 7]], check = "gemm", then = [@next]>
tile.kernel @head(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"}, %s: index) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 256, N = 128, K = 64],
                               grid = [M ceildiv 128, (N + 127) floordiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M * 2, N mod 7]],
                               check = "gemm", then = [@next]>} {
  tile.return
}

// Static dimensions take their constant; names may be quoted.
// CHECK: tile.launch = #tile.launch<sizes = [S = 3], grid = [S], shapes = [X = [S, 64]]>
tile.kernel @next(%X: memref<?x64xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = ["S" = 3], grid = [S], shapes = [X = [S, 64]]>} {
  tile.return
}
