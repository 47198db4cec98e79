"""Mixture-of-experts grouped GEMM in the tile DSL: Y[t, :] = gate[t] *
(X[t, :] * W[e(t)]) over tokens sorted by expert (rows [offsets[e],
offsets[e + 1])), one program per (expert, row block, column block); the
same kernel as examples/naive/moe.mlir (its contract is named
moe_reference there: contract= names it here)."""

import tiletag as tt


def moe_kernel(name, contract):
    @tt.kernel(grid=lambda T, H, F, E: (E, tt.cdiv(T, 64), tt.cdiv(F, 128)),
               sizes=dict(T=300, H=192, F=256, E=4), check="moe", contract=contract,
               name=name)
    def moe(X: tt.Buffer(tt.bf16, "T", "H"), W: tt.Buffer(tt.bf16, "E", "H", "F"),
            offsets: tt.Buffer(tt.i32, "E + 1", nondecreasing=True),
            gate: tt.Buffer(tt.f32, "T"), Y: tt.Buffer(tt.f32, "T", "F")):
        e = tt.program_id(0)
        m = tt.program_id(1)
        n = tt.program_id(2)
        T = X.shape[0]
        H = X.shape[1]
        F = Y.shape[1]
        # The expert's rows, clamped into the token range.
        e1 = e + 1
        begin_i32 = offsets[e]
        end_i32 = offsets[e1]
        begin_raw = tt.cast(begin_i32, tt.index)
        end_raw = tt.cast(end_i32, tt.index)
        end = min(end_raw, T)
        begin = min(begin_raw, end)
        kblocks = tt.cdiv(H, 64)
        acc = tt.zeros((64, 128))
        for k in range(kblocks):
            x = tt.load(X, [m, k], (64, 64), offset=[begin, 0], bounds=[end, H],
                        padding=0.0)
            w = tt.load(W, [e, k, n], (64, 128), padding=0.0)
            acc = tt.dot(x, w, acc)
        g = tt.load(gate, [m], (64,), offset=[begin], bounds=[end], padding=0.0)
        y = acc * tt.broadcast(g, (64, 128), dims=[1])
        tt.store(Y, [m, n], y, offset=[begin, 0], bounds=[end, F])
    return moe


moe_reference = moe_kernel("moe_reference", None)
moe_grouped_gemm = moe_kernel("moe_grouped_gemm", moe_reference)
