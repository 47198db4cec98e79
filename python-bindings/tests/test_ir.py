"""tiletag.ir: parse, print, walk, passes, transform scripts, compile,
estimate; MLIR's errors as MLIRError."""

import os

import pytest

import tiletag as tt
from conftest import EXAMPLES


def test_version():
    assert tt.__version__.count(".") == 2


def test_parse_walk_and_kernels():
    m = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir"))
    assert [k.name for k in m.kernels] == ["gemm", "gemm_reference"]
    gemm = m.kernel("gemm")
    assert gemm.contract == "gemm_reference"
    assert gemm.grid_rank == 2
    assert gemm.launch == tt.Launch({"M": 256, "N": 256, "K": 320}, "gemm", ())
    assert [(o.name, o.type, o.is_buffer) for o in gemm.operands] == [
        ("A", "memref<?x?xbf16>", True), ("B", "memref<?x?xbf16>", True),
        ("C", "memref<?x?xf32>", True)]
    names = [op.op_name for op in gemm.walk()]
    assert names[0] == "tile.kernel"
    assert names.count("schedule.role") == 3
    assert "schedule.mbarrier.wait" in names
    copy = next(op for op in gemm.walk() if op.op_name == "tile.copy")
    assert copy.location.file.endswith("gemm.mlir") and copy.location.line > 0
    assert m.kernel("gemm_reference").contract is None
    with pytest.raises(KeyError, match="no kernel @nope"):
        m.kernel("nope")
    assert "tile.kernel @gemm" in str(m)
    assert "loc(" in m.print(debug_info=True)
    assert '"tile.kernel"' in m.print(generic=True)


def test_parse_error_names_the_line():
    with pytest.raises(tt.MLIRError) as e:
        tt.parse("tile.kernel @k() grid(1) {\n  %x = tile.nope 3\n  tile.return\n}",
                 "bad.mlir")
    d = e.value.diagnostics[0]
    assert d["severity"] == "error" and d["line"] == 2
    assert "tile.nope" in str(e.value)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        tt.parse_file("/nonexistent/x.mlir")


def test_pipeline_strips_to_the_specification():
    m = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir"))
    m.run_pipeline("builtin.module(tiletag-strip-schedule,tiletag-strip-tags)")
    names = {op.op_name for op in m.walk()}
    assert not any(n.startswith(("schedule.", "tag.")) for n in names)
    with pytest.raises(tt.MLIRError, match="bad pass pipeline"):
        m.run_pipeline("builtin.module(no-such-pass)")


def test_failing_pipeline_raises_with_diagnostics():
    m = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm.mlir"))
    with pytest.raises(tt.MLIRError) as e:
        m.run_pipeline("builtin.module(tiletag-verify{rlimit=1})")
    assert any(d["severity"] == "error" for d in e.value.diagnostics)


def test_transform_script_then_proof():
    m = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm.mlir"))
    m.apply_transform(os.path.join(EXAMPLES, "scripts", "gemm.mlir"))
    gemm = m.kernel("gemm")
    assert any(op.op_name == "schedule.role" for op in gemm.walk())
    assert gemm.verify().proved
    assert gemm.proved
    # A second application finds the kernel scheduled already.
    with pytest.raises(tt.MLIRError, match="has a schedule already"):
        m.apply_transform(os.path.join(EXAMPLES, "scripts", "gemm.mlir"))


def test_transform_script_from_text_must_share_the_context():
    m = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm.mlir"))
    other = tt.Context().parse(open(os.path.join(EXAMPLES, "scripts", "gemm.mlir")).read())
    with pytest.raises(ValueError, match="context"):
        m.apply_transform(other)
    m.apply_transform(open(os.path.join(EXAMPLES, "scripts", "gemm.mlir")).read())


def test_compile_ptx_and_cubin():
    m = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir"))
    ptx = m.compile()
    assert ".entry" in ptx and "wgmma.mma_async" in ptx
    cubin = m.compile(format="cubin")
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    with pytest.raises(ValueError, match="format"):
        m.compile(format="sass")


def test_compile_for_amd():
    m = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm.mlir"))
    asm = m.compile(chip="gfx942")
    assert 'amdgcn-amd-amdhsa--gfx942' in asm and "v_mfma_f32_32x32x8_bf16" in asm
    hsaco = m.compile(chip="gfx90a", format="hsaco")
    assert isinstance(hsaco, bytes) and hsaco[:4] == b"\x7fELF"
    with pytest.raises(ValueError, match="'asm' or 'hsaco'"):
        m.compile(chip="gfx942", format="ptx")
    # The pipelined Hopper GEMM's rings exceed the 64 KiB of LDS.
    hopper = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir"))
    with pytest.raises(tt.MLIRError, match="64 KiB|65536"):
        hopper.compile(chip="gfx942")


def test_fallbacks():
    # The pipelined GEMM takes no slower path; the plain one loads its tiles
    # into the workspace and stages both wgmma operands.
    assert tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir")).fallbacks() == []
    naive = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm.mlir"))
    found = naive.fallbacks()
    messages = [d["message"] for d in found]
    assert sum("the loaded tile" in m for m in messages) == 2, messages
    assert any(m.startswith("A is copied into shared memory") for m in messages)
    assert all(d["severity"] == "remark" and d["line"] > 0 for d in found)
    # On CDNA the dot runs on MFMA from where its operands are held.
    amd = [d["message"] for d in naive.fallbacks(chip="gfx942")]
    assert amd and not any("copied into shared memory" in m for m in amd)
    # The module itself is not lowered.
    assert naive.kernel("gemm").name == "gemm"
    with pytest.raises(tt.MLIRError, match="sm_90a"):
        naive.fallbacks(chip="sm_80")
    # The chip is a name, not pass options.
    with pytest.raises(tt.MLIRError, match="sm_90a"):
        naive.fallbacks(chip="sm_90a report-fallbacks=false")


def test_compile_refuses_a_kernel_that_does_not_verify():
    text = open(os.path.join(EXAMPLES, "gemm.mlir")).read()
    broken = "\n".join(l for l in text.split("\n")
                       if "schedule.mbarrier.wait %full" not in l)
    m = tt.parse(broken, "broken.mlir")
    with pytest.raises(tt.MLIRError):
        m.compile()


def test_estimate():
    gemm = tt.parse_file(os.path.join(EXAMPLES, "gemm.mlir")).kernel("gemm")
    e = gemm.estimate({"M": 8192, "N": 8192, "K": 8192})
    assert e.programs == 64 * 64 and e.bound_by == "tensor" and e.time_us > 0
    assert e.flops == pytest.approx(2 * 8192 ** 3)
    with pytest.raises(tt.MLIRError, match="no problem size named 'Q'"):
        gemm.estimate({"Q": 1})
    with pytest.raises(TypeError):
        gemm.estimate({"M": 1.5})
    with pytest.raises(tt.MLIRError, match="no cost model for chip"):
        gemm.estimate(chip="sm_10")


def test_operations_taken_before_a_pass_are_refused():
    m = tt.parse_file(os.path.join(EXAMPLES, "naive", "gemm.mlir"))
    gemm = m.kernel("gemm")
    load = next(op for op in gemm.walk() if op.op_name == "tile.load")
    m.apply_transform(os.path.join(EXAMPLES, "scripts", "gemm.mlir"))
    with pytest.raises(ValueError, match="take it from the module again"):
        load.op_name
    with pytest.raises(ValueError, match="take it from the module again"):
        gemm.verify()
    fresh = m.kernel("gemm")
    assert fresh.verify().proved
    m.run_pipeline("builtin.module(tiletag-strip-tags)")
    with pytest.raises(ValueError, match="take it from the module again"):
        fresh.name
    assert m.kernel("gemm").name == "gemm"
