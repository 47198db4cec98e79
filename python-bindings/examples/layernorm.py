"""Layer normalization in the tile DSL: mean and variance by passes over a
row's column blocks (the variance masks the padding past C), then
normalize, scale and shift; the same kernel as
examples/naive/layernorm.mlir."""

import tiletag as tt


@tt.kernel(grid=lambda R, C: tt.cdiv(R, 16), sizes=dict(R=40, C=600),
           check="layernorm", contract="self")
def layernorm(X: tt.Buffer(tt.f32, "R", "C"), gamma: tt.Buffer(tt.f32, "C"),
              beta: tt.Buffer(tt.f32, "C"), Y: tt.Buffer(tt.f32, "R", "C"),
              eps: tt.f32):
    pr = tt.program_id(0)
    C = X.shape[1]
    cblocks = tt.cdiv(C, 256)
    C_b = tt.splat(tt.cast(C, tt.f32), (16,))
    zero16 = tt.zeros((16,))

    s = zero16

    for j in range(cblocks):
        x = tt.load(X, [pr, j], (16, 256), padding=0.0)
        s = s + tt.sum(x, axis=1)
    mean_b = tt.broadcast(s / C_b, (16, 256), dims=[1])

    cols = tt.iota((16, 256), dim=1)
    C_splat = tt.splat(C, (16, 256))
    zero_tile = tt.zeros((16, 256))
    q = zero16
    for j in range(cblocks):
        x = tt.load(X, [pr, j], (16, 256), padding=0.0)
        col = cols + tt.splat(j * 256, (16, 256))
        d = tt.where(col < C_splat, x - mean_b, zero_tile)
        q = q + tt.sum(d * d, axis=1)
    rstd = tt.rsqrt(q / C_b + tt.splat(eps, (16,)))
    rstd_b = tt.broadcast(rstd, (16, 256), dims=[1])

    for j in range(cblocks):
        x = tt.load(X, [pr, j], (16, 256), padding=0.0)
        g = tt.load(gamma, [j], (256,), padding=0.0)
        b = tt.load(beta, [j], (256,), padding=0.0)
        g_b = tt.broadcast(g, (16, 256), dims=[0])
        b_b = tt.broadcast(b, (16, 256), dims=[0])
        n = (x - mean_b) * rstd_b
        tt.store(Y, [pr, j], n * g_b + b_b)
