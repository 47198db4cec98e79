"""The CPU oracle with numpy arrays: dtypes and shapes checked, outputs
written back, mismatches and run-time failures raised."""

import os

import numpy as np
import pytest

import tiletag as tt
from conftest import EXAMPLES, uniform


@pytest.fixture(scope="module")
def gemm():
    return tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir")).kernel("gemm")


def test_gemm_matches_numpy(gemm, rng):
    A, B = uniform(rng, 130, 100), uniform(rng, 100, 70)
    C = np.zeros((130, 70), np.float32)
    r = gemm.run(A, B, C, check=True)
    assert r.ok and r.sizes == {"M": 130, "N": 70, "K": 100} and r.programs == 2
    assert r.checks[0].name == "C" and r.checks[0].matches
    # A and B came back rounded to bf16: C is their product in f32.
    assert np.allclose(C, A.astype(np.float64) @ B, atol=1e-3)
    assert np.all(A == A.astype(np.float32))


def test_bf16_rounding_is_round_to_nearest_even(gemm):
    A = np.array([[1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -0.0, np.inf]], np.float32)
    B = np.zeros((4, 1), np.float32)
    C = np.zeros((1, 1), np.float32)
    gemm.run(A, B, C)
    assert A.tolist() == [[1.0, 1.0 + 2 ** -6, -0.0, np.inf]]


def test_keyword_operands_and_sizes(gemm, rng):
    A, B = uniform(rng, 3, 5), uniform(rng, 5, 2)
    C = np.zeros((3, 2), np.float32)
    r = gemm.run(C=C, B=B, A=A, sizes={"K": 5})
    assert r.ok and not r.checks


def test_wrong_dtype_is_a_type_error(gemm, rng):
    with pytest.raises(TypeError, match="operand A .* takes a numpy float32 array"):
        gemm.run(uniform(rng, 4, 4).astype(np.float64), uniform(rng, 4, 4),
                 np.zeros((4, 4), np.float32))
    with pytest.raises(TypeError, match="takes a numpy array, not list"):
        gemm.run([[1.0]], uniform(rng, 1, 1), np.zeros((1, 1), np.float32))
    with pytest.raises(TypeError, match="has no operand Z"):
        gemm.run(Z=1)
    with pytest.raises(TypeError, match="takes 3 operands"):
        gemm.run(1, 2, 3, 4)


def test_wrong_shape_is_a_value_error(gemm, rng):
    with pytest.raises(ValueError, match="operand B has shape \\(6, 4\\) but the launch gives it \\(5, 4\\)"):
        gemm.run(uniform(rng, 3, 5), uniform(rng, 6, 4), np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="has rank 2, but the array has shape \\(3,\\)"):
        gemm.run(uniform(rng, 3), uniform(rng, 6, 4), np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="no value for operand C"):
        gemm.run(uniform(rng, 3, 5), uniform(rng, 5, 4))
    with pytest.raises(ValueError, match="unknown size 'Q'"):
        gemm.run(uniform(rng, 3, 5), uniform(rng, 5, 4), np.zeros((3, 4), np.float32),
                 sizes={"Q": 3})
    frozen = np.zeros((3, 4), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gemm.run(uniform(rng, 3, 5), uniform(rng, 5, 4), frozen)


def test_static_extents_are_checked(rng):
    attention = tt.parse_file(os.path.join(EXAMPLES, "attention.mlir")).kernel(
        "attention_fwd_d64")
    q = uniform(rng, 1, 8, 32)
    with pytest.raises(ValueError, match="extent 64 in dimension 2"):
        attention.run(q, q, q, q.copy(), False)
    with pytest.raises(TypeError, match="scalar operand causal .* takes a number"):
        attention.run(*(uniform(rng, 1, 8, 64) for _ in range(4)), "yes")


def test_scalars_and_runtime_failures():
    k = tt.parse('''
      tile.kernel @shift(%X: memref<?xf32> {tile.name = "X"}, %n: index {tile.name = "n"})
          grid(1) attributes {tile.launch = #tile.launch<sizes = [N = 4], grid = [1],
                                                        shapes = [X = [N]]>} {
        %v = arith.constant 1.0 : f32
        memref.store %v, %X[%n] : memref<?xf32>
        tile.return
      }''', "shift.mlir").kernel("shift")
    X = np.zeros(4, np.float32)
    k.run(X, 2)
    assert X.tolist() == [0, 0, 1, 0]
    with pytest.raises(tt.OracleError) as e:
        k.run(X, 9)
    assert e.value.result.status == "runtime-failure"
    assert "out of bounds" in str(e.value)
    with pytest.raises(ValueError, match="needs a workload|has no 'check'"):
        k.run(X, 1, check=True)


def test_a_wrong_kernel_is_a_mismatch(rng):
    text = open(os.path.join(EXAMPLES, "naive", "gemm.mlir")).read()
    # Scale the product: the reference disagrees.
    text = text.replace("tile.store %sum, %C[%i, %j]",
                        "%twice = arith.addf %sum, %sum : tensor<128x128xf32>\n"
                        "  tile.store %twice, %C[%i, %j]", 1)
    k = tt.parse(text, "twice.mlir").kernel("gemm")
    C = np.zeros((10, 10), np.float32)
    with pytest.raises(tt.OracleError) as e:
        k.run(uniform(rng, 10, 10), uniform(rng, 10, 10), C, check=True)
    check = e.value.result.checks[0]
    assert e.value.result.status == "mismatch" and not check.matches
    assert check.mismatches > 0 and len(check.worst) == 2
    assert np.abs(C).sum() > 0   # the outputs came back all the same
