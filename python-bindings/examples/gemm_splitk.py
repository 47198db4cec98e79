"""Split-k GEMM in the tile DSL.

`gemm_splitk` is the workload as examples/naive/gemm_splitk.mlir states it
(the plain GEMM, for a long K), which transform.tiletag.split_k splits;
`gemm_splitk_atomic` is written split by hand: grid dimension 2 splits the
K blocks into S contiguous ranges and every split adds its partial sum into
C (combine add; C starts at zero). Its contract is the plain GEMM, which
the checker proves the splits add up to."""

import tiletag as tt

SIZES = dict(M=256, N=128, K=640)


def plain_gemm(name, contract):
    @tt.kernel(grid=lambda M, N, K: (tt.cdiv(M, 128), tt.cdiv(N, 128)), sizes=SIZES,
               check="gemm", contract=contract, name=name)
    def gemm(A: tt.Buffer(tt.bf16, "M", "K"), B: tt.Buffer(tt.bf16, "K", "N"),
             C: tt.Buffer(tt.f32, "M", "N")):
        i = tt.program_id(0)
        j = tt.program_id(1)
        kblocks = tt.cdiv(A.shape[1], 64)
        acc = tt.zeros((128, 128))
        for k in range(kblocks):
            a = tt.load(A, [i, k], (128, 64), padding=0.0)
            b = tt.load(B, [k, j], (64, 128), padding=0.0)
            acc = tt.dot(a, b, acc)
        tt.store(C, [i, j], acc)
    return gemm


gemm_splitk_reference = plain_gemm("gemm_splitk_reference", None)
gemm_splitk = plain_gemm("gemm_splitk", gemm_splitk_reference)


@tt.kernel(grid=lambda M, N, K, S: (tt.cdiv(M, 128), tt.cdiv(N, 128), S),
           sizes=dict(SIZES, S=3), check="gemm", contract=gemm_splitk_reference)
def gemm_splitk_atomic(A: tt.Buffer(tt.bf16, "M", "K"), B: tt.Buffer(tt.bf16, "K", "N"),
                       C: tt.Buffer(tt.f32, "M", "N")):
    pm = tt.program_id(0)
    pn = tt.program_id(1)
    ps = tt.program_id(2)
    kblocks = tt.cdiv(A.shape[1], 64)
    per_split = tt.cdiv(kblocks, tt.num_programs(2))
    kbegin = min(ps * per_split, kblocks)
    kend = min(kbegin + per_split, kblocks)
    acc = tt.zeros((128, 128))
    for k in range(kbegin, kend):
        a = tt.load(A, [pm, k], (128, 64), padding=0.0)
        b = tt.load(B, [k, pn], (64, 128), padding=0.0)
        assert tt.field(a, "A", 1) == tt.field(b, "B", 0), \
            "A and B tiles come from the same K block"
        acc = tt.dot(a, b, acc)
    # Splits of one output tile overlap in C: the adds are atomic.
    tt.store(C, [pm, pn], acc, combine="add")
