"""Verdicts and counterexamples as Python data."""

import os

import pytest

import tiletag as tt
from conftest import EXAMPLES


def broken_gemm():
    """examples/gemm.mlir without the consumer's wait on the full barrier."""
    text = open(os.path.join(EXAMPLES, "gemm.mlir")).read()
    return tt.parse("\n".join(l for l in text.split("\n")
                              if "schedule.mbarrier.wait %full" not in l), "broken.mlir")


def test_counterexample_names_buffers_by_their_source(tmp_path):
    text = open(os.path.join(EXAMPLES, "gemm.mlir")).read()
    path = tmp_path / "broken.mlir"
    path.write_text("\n".join(l for l in text.split("\n")
                              if "schedule.mbarrier.wait %full" not in l))
    v = tt.parse_file(str(path)).kernel("gemm").verify(raise_on_failure=False)
    access = v.failures[0].counterexample.points[0].accesses[0]
    assert access.buffer == "%a_ring (line 33)"


def test_proved_verdict():
    v = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir")).kernel("gemm").verify()
    assert v.proved and bool(v) and not v.failures
    assert v.kernel == "gemm" and v.queries > 0 and v.resources > 0
    checkers = {o.checker for o in v.obligations}
    assert checkers == {"definedness", "tags", "contract", "schedule"}
    assert all(isinstance(o, tt.Obligation) and o.proved for o in v.obligations)


def test_counterexample_as_data():
    gemm = broken_gemm().kernel("gemm")
    v = gemm.verify(raise_on_failure=False)
    assert not v.proved
    failure = v.failures[0]
    assert failure.checker == "schedule" and failure.status == "failed"
    assert failure.location.startswith("broken.mlir:")
    c = failure.counterexample
    assert isinstance(c, tt.Counterexample)
    assert c.sizes == {"M": 1, "N": 1, "K": 1}
    assert c.program_ids == {"pid0": 0, "pid1": 0}
    copy, read = c.points
    assert (copy.op, read.op) == ("tile.copy", "tile.read")
    assert list(copy.loops.values()) == [0]
    assert copy.accesses[0] == tt.Access("slot", (0,), "the shared buffer at line 33")
    assert copy.accesses[1] == tt.Access("block", (0, 0), "A")
    assert c.replay_flags == " --size M=1,N=1,K=1 --set pid0=0 --set pid1=0"
    assert c.replay.startswith("tiletag-run broken.mlir --kernel gemm")


def test_proof_error_at_the_op():
    with pytest.raises(tt.ProofError) as e:
        broken_gemm().kernel("gemm").verify()
    err = e.value
    assert err.verdict.proved is False
    assert err.obligation.checker == "schedule"
    assert err.file == "broken.mlir" and err.line > 0
    assert "replay on the CPU: tiletag-run broken.mlir --kernel gemm" in str(err)


def test_stamps_follow_the_proof():
    m = broken_gemm()
    gemm = m.kernel("gemm")
    assert not gemm.proved
    gemm.verify(raise_on_failure=False)
    assert not gemm.proved   # the schedule is not proved
    ok = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir")).kernel("gemm")
    ok.verify(stamp=False)
    assert not ok.proved
    ok.verify()
    assert ok.proved


def test_resource_limit_is_unknown_not_proved():
    gemm = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir")).kernel("gemm")
    v = gemm.verify(resource_limit=200, raise_on_failure=False)
    assert not v.proved
    assert any(o.status == "unknown" for o in v.obligations)
    with pytest.raises(tt.ProofError, match="could not be proved"):
        gemm.verify(resource_limit=200)


def test_verify_a_non_kernel():
    m = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir"))
    with pytest.raises(TypeError, match="not a tile.kernel"):
        tt.Kernel(m, m.operation._native).verify()
