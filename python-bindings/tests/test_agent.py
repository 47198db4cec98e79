"""The agent from Python: tiletag.agent.search on the DSL GEMM."""

import json
import os

import pytest

import tiletag as tt

import gemm


def test_search_the_dsl_gemm(tmp_path):
    out = str(tmp_path / "agent")
    r = tt.agent.search(gemm.gemm, size={"M": 4096, "N": 4096, "K": 4096},
                        budget=4, jobs=2, seed=1, out=out)
    assert r.status == 0 and r.best is not None
    report = json.load(open(os.path.join(out, "report.json")))
    assert report == r.report and report["kernel"] == "gemm"
    assert report["size"] == {"M": 4096, "N": 4096, "K": 4096}
    assert len(report["attempts"]) == 4
    # The best kernel is pipelined and proved again here, from its file.
    best = r.best_kernel
    assert any(op.op_name == "schedule.role" for op in best.walk())
    assert best.verify().proved
    baseline = gemm.gemm.estimate({"M": 4096, "N": 4096, "K": 4096})
    assert r.best["score"]["time_us"] < baseline.time_us
    assert os.path.isfile(os.path.join(out, "best.ptx"))


def test_search_refuses_a_kernel_that_does_not_verify(tmp_path):
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                             "naive", "gemm.mlir")).read()
    bad = tmp_path / "bad.mlir"
    bad.write_text(text.replace("tile.load %B[%k, %j]", "tile.load %B[%k, %i]", 1))
    with pytest.raises(tt.TileTagError, match="bad input"):
        tt.agent.search(str(bad), budget=1, out=str(tmp_path / "out"))
    with pytest.raises(ValueError, match="size M"):
        tt.agent.search(gemm.gemm, size={"M": -1}, out=str(tmp_path / "out2"))
    with pytest.raises(TypeError):
        tt.agent.search(42)
