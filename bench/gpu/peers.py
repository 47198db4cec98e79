"""The peers TileTag is measured against, at the shapes of the harness:
torch.matmul (cuBLAS), a Triton matmul (tl.dot, the tutorial's blocked
kernel), torch SDPA with the flash and cuDNN backends, torch._grouped_mm and
a per-expert matmul loop. Each is checked against a float32 (or float64)
reference on the same random inputs and timed with CUDA events (median),
interleaved round-robin with the others of its workload."""
import json
import statistics
import sys

import torch

results = []


def bench(fns, reps):
    """Interleaved timing of several callables; medians in ms."""
    for f in fns.values():
        f()
    torch.cuda.synchronize()
    times = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            b.synchronize()
            times[k].append(a.elapsed_time(b))
    return {k: statistics.median(v) for k, v in times.items()}


def rel(got, want):
    got, want = got.double(), want.double()
    return float((got - want).norm() / want.norm())


def record(workload, shape, peer, flops, ms, err):
    results.append(dict(workload=workload, shape=shape, peer=peer, flops=flops,
                        ms=ms, rel_err=err))
    print(f"{workload:10s} {shape:28s} {peer:16s} {ms:9.3f} ms "
          f"{flops / ms / 1e9:7.1f} TFLOP/s  rel.err {err:.2e}", flush=True)


def triton_matmul():
    try:
        import triton
        import triton.language as tl
    except Exception as e:  # noqa: BLE001
        print("triton unavailable:", e)
        return None

    @triton.jit
    def kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        npm, npn = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = pid // (GROUP * npn)
        first = group * GROUP
        size = min(npm - first, GROUP)
        pm = first + (pid % (GROUP * npn)) % size
        pn = (pid % (GROUP * npn)) // size
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            ka = k * BK + rk
            x = tl.load(a + rm[:, None] * K + ka[None, :],
                        mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
            y = tl.load(b + ka[:, None] * N + rn[None, :],
                        mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    def run(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
        kernel[grid](a, b, c, M, N, K, BM=128, BN=256, BK=64, GROUP=8,
                     num_warps=8, num_stages=3)
    return run


def gemms(reps):
    tmm = triton_matmul()
    for M, N, K in [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 4096, 4096),
                    (16384, 14336, 4096), (16384, 4096, 14336), (64, 8192, 8192),
                    (128, 8192, 8192)]:
        a = torch.rand(M, K, device="cuda", dtype=torch.bfloat16) * 2 - 1
        b = torch.rand(K, N, device="cuda", dtype=torch.bfloat16) * 2 - 1
        c = torch.empty(M, N, device="cuda", dtype=torch.float32)
        ref = a.float() @ b.float()
        fns = {"torch.matmul": lambda: torch.matmul(a, b)}
        errs = {"torch.matmul": rel(torch.matmul(a, b), ref)}
        if tmm:
            try:
                tmm(a, b, c)
                errs["triton"] = rel(c, ref)
                fns["triton"] = lambda: tmm(a, b, c)
            except Exception as e:  # noqa: BLE001
                print("triton matmul failed:", e)
        ms = bench(fns, reps)
        for k in fns:
            record("gemm", f"{M}x{N}x{K}", k, 2.0 * M * N * K, ms[k], errs[k])


def attention(reps):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    for B, H, S, D, causal in [(8, 16, 2048, 128, False), (8, 16, 2048, 128, True),
                               (2, 16, 4096, 64, False), (2, 16, 8192, 128, False),
                               (1, 16, 16384, 128, True), (1, 32, 16384, 64, False)]:
        q, k, v = (torch.rand(B, H, S, D, device="cuda", dtype=torch.bfloat16) - 0.5
                   for _ in range(3))
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                             is_causal=causal)
        fns, errs = {}, {}
        for name, backend in [("sdpa-flash", SDPBackend.FLASH_ATTENTION),
                              ("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION)]:
            def f(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            try:
                errs[name] = rel(f(), ref)
                fns[name] = f
            except Exception as e:  # noqa: BLE001
                print(name, "unavailable:", e)
        ms = bench(fns, reps)
        flops = 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
        shape = f"BH{B * H} S{S} D{D}" + (" causal" if causal else "")
        for name in fns:
            record("attention", shape, name, flops, ms[name], errs[name])


def moe(reps):
    for E, T, H, F in [(8, 8192, 4096, 14336)]:
        x = torch.rand(T, H, device="cuda", dtype=torch.bfloat16) - 0.5
        w = torch.rand(E, H, F, device="cuda", dtype=torch.bfloat16) - 0.5
        offs = torch.tensor([T * (e + 1) // E for e in range(E)], device="cuda",
                            dtype=torch.int32)
        starts = [0] + offs.tolist()[:-1]
        ref = torch.cat([x[s:e].float() @ w[i].float()
                         for i, (s, e) in enumerate(zip(starts, offs.tolist()))])
        fns, errs = {}, {}
        try:
            out = torch._grouped_mm(x, w, offs=offs)
            errs["torch._grouped_mm"] = rel(out, ref)
            fns["torch._grouped_mm"] = lambda: torch._grouped_mm(x, w, offs=offs)
        except Exception as e:  # noqa: BLE001
            print("torch._grouped_mm unavailable:", e)

        def loop():
            return [x[s:e] @ w[i] for i, (s, e) in enumerate(zip(starts, offs.tolist()))]
        errs["per-expert loop"] = rel(torch.cat(loop()), ref)
        fns["per-expert loop"] = loop
        ms = bench(fns, reps)
        for name in fns:
            record("moe", f"E{E} T{T} H{H} F{F}", name, 2.0 * T * H * F, ms[name],
                   errs[name])


def main():
    out = sys.argv[1]
    quick = len(sys.argv) > 2 and sys.argv[2] == "quick"
    reps = 5 if quick else 15
    torch.manual_seed(0)
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    for part in (gemms, attention, moe):
        try:
            part(reps)
        except Exception as e:  # noqa: BLE001
            print(part.__name__, "failed:", e)
    with open(out, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(0), rows=results), f, indent=1)


if __name__ == "__main__":
    main()
