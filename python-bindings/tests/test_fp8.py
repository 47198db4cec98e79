"""fp8 in the Python package: the four fp8 dtypes in the DSL, and the
oracle's float32 arrays rounded to fp8 on the way in exactly as the C++
oracle rounds (APFloat: to nearest, ties to even, overflow to infinity or
NaN), which a DSL kernel that rounds on the oracle (arith.truncf) checks
value by value."""

import os
import textwrap

import numpy as np
import pytest

import tiletag as tt
from tiletag import oracle
from conftest import EXAMPLES, uniform

FP8 = [tt.float8_e4m3fn, tt.float8_e5m2, tt.float8_e4m3fnuz, tt.float8_e5m2fnuz]

ROUND_TRIP = '''
@tt.kernel(grid=lambda N: tt.cdiv(N, 64), sizes=dict(N=64))
def k(X: tt.Buffer(tt.f32, "N"), Y: tt.Buffer(tt.f32, "N")):
    p = tt.program_id(0)
    x = tt.load(X, [p], (64,), padding=0.0)
    tt.store(Y, [p], tt.cast(tt.cast(x, tt.{dtype}), tt.f32))
'''


def compile_kernel(tmp_path, dtype):
    path = tmp_path / ("fp8_%s.py" % dtype)
    path.write_text("import tiletag as tt\n" +
                    textwrap.dedent(ROUND_TRIP.replace("{dtype}", dtype)))
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["k"]


def probes(rng, element):
    """Random values across the type's range, every value of the type, the
    midpoints between neighbours (ties), and overflow, zeros, NaN."""
    values = [oracle.fp8_value(element, c) for c in range(256)]
    finite = sorted({v for v in values if np.isfinite(v)})
    mids = [(a + b) / 2 for a, b in zip(finite, finite[1:])]
    top = finite[-1]
    spread = np.concatenate([uniform(rng, 200, low=-top * 1.2, high=top * 1.2),
                             uniform(rng, 200, low=-4.0, high=4.0),
                             uniform(rng, 100, low=-1e-2, high=1e-2)])
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, top * 1.03, top * 1.1, -top * 2]
    return np.concatenate([spread, np.array(finite + mids + special)]).astype(np.float32)


@pytest.mark.parametrize("dtype", FP8, ids=lambda d: d.name)
def test_rounding_matches_the_native_oracle(tmp_path, rng, dtype):
    k = compile_kernel(tmp_path, {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
                                  "f8E4M3FNUZ": "float8_e4m3fnuz",
                                  "f8E5M2FNUZ": "float8_e5m2fnuz"}[dtype.name])
    X = probes(rng, dtype.name)
    X = np.concatenate([X, np.zeros((-len(X)) % 64, np.float32)])
    Y = np.zeros_like(X)
    k.run(X.copy(), Y)
    ours = oracle._from_fp8_bits(np, oracle._to_fp8_bits(np, X, dtype.name), dtype.name)
    same = (ours == Y) | (np.isnan(ours) & np.isnan(Y))
    assert same.all(), list(zip(X[~same][:5], ours[~same][:5], Y[~same][:5]))
    # Signed zeros too (none in the FNUZ types).
    assert (np.signbit(ours) == np.signbit(Y))[~np.isnan(Y)].all()


def test_known_values():
    def r(element, *xs):
        return oracle._from_fp8_bits(np, oracle._to_fp8_bits(
            np, np.array(xs, np.float32), element), element).tolist()
    # 464 is halfway between 448 (the largest, an even code) and the next
    # step: ties to even keep it; past it, NaN (the type has no infinity).
    assert r("f8E4M3FN", 1.0, 448.0, 464.0) == [1.0, 448.0, 448.0]
    assert np.isnan(r("f8E4M3FN", 465.0)[0])
    assert r("f8E5M2", 1e6) == [float("inf")]
    assert r("f8E4M3FNUZ", 240.0, 0.3) == [240.0, 0.3125]
    assert np.signbit(r("f8E4M3FNUZ", -0.0)[0]) == False  # no negative zero
    assert r("f8E4M3FN", 2 ** -9) == [2 ** -9]      # the smallest subnormal


def test_gemm_fp8_on_the_oracle(rng):
    gemm = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm_fp8.mlir")).kernel("gemm")
    A, B = uniform(rng, 130, 100), uniform(rng, 100, 70)
    C = np.zeros((130, 70), np.float32)
    r = gemm.run(A, B, C, check=True)
    assert r.ok and r.checks[0].matches
    # A and B came back holding fp8 values; C is their product in f32.
    values = {oracle.fp8_value("f8E4M3FNUZ", c) for c in range(256)}
    assert set(A.ravel().tolist()) <= values
    assert np.allclose(C, A.astype(np.float64) @ B, atol=1e-4)
    with pytest.raises(TypeError, match=r"f8E4M3FNUZ values in float32"):
        gemm.run(A.astype(np.float64), B, C)


def test_dsl_fp8_literals(tmp_path):
    src = '''
@tt.kernel(grid=lambda N: 1, sizes=dict(N=64))
def k(X: tt.Buffer(tt.float8_e4m3fn, "N"), Y: tt.Buffer(tt.f32, "N")):
    x = tt.load(X, [0], (64,), padding=float("inf"))
    tt.store(Y, [0], tt.cast(x, tt.f32))
'''
    path = tmp_path / "inf.py"
    path.write_text("import tiletag as tt\n" + textwrap.dedent(src))
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(tt.CompilationError, match="f8E4M3FN has no infinity"):
        namespace["k"].mlir
    path.write_text("import tiletag as tt\n" + textwrap.dedent(
        src.replace('padding=float("inf")', "padding=0.0").replace(
            "tt.cast(x, tt.f32)", "tt.cast(tt.cast(x, tt.float8_e5m2), tt.f32)")))
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(tt.CompilationError, match="cast between f8E4M3FN and f8E5M2 through f32"):
        namespace["k"].mlir
