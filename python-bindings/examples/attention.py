"""Flash attention forward in the tile DSL: O = softmax(Q K^T / sqrt(D)) V
per (batch * head), the online softmax over key blocks of 64, one program
per 128 queries; keys past S masked and, when `causal` is set, keys after
the query. One kernel per head dimension (64 and 128), the same kernels as
examples/naive/attention.mlir."""

import tiletag as tt

NEG_INF = float("-inf")


def attention(D):
    @tt.kernel(grid=lambda BH, S: (tt.cdiv(S, 128), BH), sizes=dict(BH=2, S=320),
               check="attention", contract="self", name="attention_fwd_d%d" % D)
    def kernel(Q: tt.Buffer(tt.bf16, "BH", "S", D), K: tt.Buffer(tt.bf16, "BH", "S", D),
               V: tt.Buffer(tt.bf16, "BH", "S", D), O: tt.Buffer(tt.bf16, "BH", "S", D),
               causal: tt.i1):
        qb = tt.program_id(0)
        bh = tt.program_id(1)
        S = K.shape[1]
        kv_blocks = tt.cdiv(S, 64)
        q_first = qb * 128
        diag_blocks = tt.cdiv(q_first + 128, 64)
        kv_end = min(diag_blocks, kv_blocks) if causal else kv_blocks

        q = tt.load(Q, [bh, qb, 0], (128, D), padding=0.0)
        scale = tt.full((128, 64), D ** -0.5)
        neg_inf = tt.full((128, 64), NEG_INF)
        m = tt.full((128,), NEG_INF)
        l = tt.zeros((128,))
        acc = tt.zeros((128, D))
        zero_s = tt.zeros((128, 64))
        rows = tt.iota((128, 64), dim=0)
        cols = tt.iota((128, 64), dim=1)
        q_pos = rows + tt.splat(q_first, (128, 64))
        S_splat = tt.splat(S, (128, 64))
        causal_splat = tt.splat(causal, (128, 64))

        for j in range(kv_end):
            k = tt.load(K, [bh, j, 0], (64, D), padding=0.0)
            v = tt.load(V, [bh, j, 0], (64, D), padding=0.0)
            s_scaled = tt.dot(q, tt.transpose(k, [1, 0]), zero_s) * scale
            # Keep key c of query r when c < S and, if causal, c <= r.
            k_pos = cols + tt.splat(j * 64, (128, 64))
            in_seq = k_pos < S_splat
            visible = tt.where(causal_splat, k_pos <= q_pos, in_seq)
            s = tt.where(in_seq & visible, s_scaled, neg_inf)
            m_new = tt.maximum(m, tt.max(s, axis=1))
            p = tt.exp(s - tt.broadcast(m_new, (128, 64), dims=[1]))
            alpha = tt.exp(m - m_new)
            l_new = l * alpha + tt.sum(p, axis=1)
            acc_scaled = acc * tt.broadcast(alpha, (128, D), dims=[1])
            pv = tt.dot(tt.cast(p, tt.bf16), v, acc_scaled)
            m, l, acc = m_new, l_new, pv

        out = acc / tt.broadcast(l, (128, D), dims=[1])
        tt.store(O, [bh, qb, 0], tt.cast(out, tt.bf16))
    return kernel


attention_fwd_d64 = attention(64)
attention_fwd_d128 = attention(128)
