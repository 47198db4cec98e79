"""Row softmax in the tile DSL: three passes over a row's column blocks
(max, sum of exponentials, normalize), one program per 16 rows; the same
kernel as examples/naive/softmax.mlir."""

import tiletag as tt

NEG_INF = float("-inf")


@tt.kernel(grid=lambda R, C: tt.cdiv(R, 16), sizes=dict(R=40, C=600),
           check="softmax", contract="self")
def softmax(X: tt.Buffer(tt.f32, "R", "C"), Y: tt.Buffer(tt.f32, "R", "C")):
    pr = tt.program_id(0)
    cblocks = tt.cdiv(X.shape[1], 256)

    m = tt.full((16,), NEG_INF)
    for j in range(cblocks):
        x = tt.load(X, [pr, j], (16, 256), padding=NEG_INF)
        m = tt.maximum(m, tt.max(x, axis=1))
    m_b = tt.broadcast(m, (16, 256), dims=[1])

    l = tt.zeros((16,))
    for j in range(cblocks):
        x = tt.load(X, [pr, j], (16, 256), padding=NEG_INF)
        e = tt.exp(x - m_b)
        l = l + tt.sum(e, axis=1)
    l_b = tt.broadcast(l, (16, 256), dims=[1])

    for j in range(cblocks):
        x = tt.load(X, [pr, j], (16, 256), padding=NEG_INF)
        e = tt.exp(x - m_b)
        tt.store(Y, [pr, j], e / l_b)
