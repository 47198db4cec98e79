"""GEMM in the tile DSL: C = A * B, bf16 inputs, f32 accumulation; one
program per 128x128 tile of C, a K loop of 64-wide tiles. The same kernel
as examples/naive/gemm.mlir; its contract is its plain copy."""

import tiletag as tt


@tt.kernel(grid=lambda M, N, K: (tt.cdiv(M, 128), tt.cdiv(N, 128)),
           sizes=dict(M=256, N=256, K=320), check="gemm", contract="self")
def gemm(A: tt.Buffer(tt.bf16, "M", "K"), B: tt.Buffer(tt.bf16, "K", "N"),
         C: tt.Buffer(tt.f32, "M", "N")):
    i = tt.program_id(0)
    j = tt.program_id(1)
    kblocks = tt.cdiv(A.shape[1], 64)
    acc = tt.zeros((128, 128), tt.f32)
    for k in range(kblocks):
        a = tt.load(A, [i, k], (128, 64), padding=0.0)
        b = tt.load(B, [k, j], (64, 128), padding=0.0)
        acc = tt.dot(a, b, acc)
    tt.store(C, [i, j], acc)
