"""The tile DSL: the shipped workloads verify, match the CPU oracle at
ragged sizes and print as examples/naive/; every error points at the Python
line."""

import inspect
import os
import textwrap

import numpy as np
import pytest

import tiletag as tt
from conftest import EXAMPLES, uniform

import attention
import gemm
import gemm_splitk
import layernorm
import moe
import softmax

# (DSL kernel, the file of examples/naive/ with the same kernels)
NAIVE = [
    (gemm.gemm, "gemm"),
    (softmax.softmax, "softmax"),
    (layernorm.layernorm, "layernorm"),
    (attention.attention_fwd_d64, "attention"),
    (attention.attention_fwd_d128, "attention"),
    (moe.moe_grouped_gemm, "moe"),
    (gemm_splitk.gemm_splitk, "gemm_splitk"),
]


@pytest.mark.parametrize("kernel,naive", NAIVE, ids=[k.name for k, _ in NAIVE])
def test_same_ir_as_the_naive_kernel(kernel, naive):
    reference = tt.parse_file(os.path.join(EXAMPLES, "naive", naive + ".mlir"))
    for k in kernel.module.kernels:
        assert str(k) == str(reference.kernel(k.name)), k.name


ALL = [k for k, _ in NAIVE] + [gemm_splitk.gemm_splitk_atomic]


@pytest.mark.parametrize("kernel", ALL, ids=[k.name for k in ALL])
def test_workloads_verify(kernel):
    v = kernel.verify()
    assert v.proved
    assert "contract" in {o.checker for o in v.obligations}


def zeros(*shape):
    return np.zeros(shape, np.float32)


def test_gemm_at_ragged_sizes(rng):
    A, B = uniform(rng, 200, 100), uniform(rng, 100, 136)
    assert gemm.gemm.run(A, B, zeros(200, 136), check=True).ok


def test_splitk_at_ragged_sizes(rng):
    A, B = uniform(rng, 130, 700), uniform(rng, 700, 129)
    r = gemm_splitk.gemm_splitk_atomic.run(A, B, zeros(130, 129), check=True,
                                          sizes={"S": 4})
    assert r.ok and r.sizes["S"] == 4 and r.programs == 2 * 2 * 4
    assert gemm_splitk.gemm_splitk.run(A, B, zeros(130, 129), check=True).ok


def test_softmax_and_layernorm_at_ragged_sizes(rng):
    X = uniform(rng, 37, 601, low=-4, high=4)
    assert softmax.softmax.run(X, zeros(37, 601), check=True).ok
    X = uniform(rng, 37, 601, low=1, high=3)
    r = layernorm.layernorm.run(X, uniform(rng, 601), uniform(rng, 601),
                                zeros(37, 601), 1e-5, check=True)
    assert r.ok


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("kernel", [attention.attention_fwd_d64,
                                    attention.attention_fwd_d128],
                         ids=["d64", "d128"])
def test_attention_at_ragged_sizes(rng, kernel, causal):
    D = 64 if kernel is attention.attention_fwd_d64 else 128
    q, k, v = (uniform(rng, 3, 200, D) for _ in range(3))
    assert kernel.run(q, k, v, np.zeros((3, 200, D), np.float32), causal,
                      check=True).ok


def test_moe_at_ragged_sizes(rng):
    offsets = np.array([0, 70, 70, 250], np.int32)   # an empty expert
    r = moe.moe_grouped_gemm.run(uniform(rng, 250, 130), uniform(rng, 3, 130, 200),
                                 offsets, uniform(rng, 250), zeros(250, 200), check=True)
    assert r.ok and r.sizes == {"T": 250, "H": 130, "F": 200, "E": 3}
    with pytest.raises(ValueError, match="nondecreasing"):
        moe.moe_grouped_gemm.run(uniform(rng, 250, 130), uniform(rng, 3, 130, 200),
                                 np.array([0, 80, 70, 250], np.int32), uniform(rng, 250),
                                 zeros(250, 200))


def test_compiles_to_ptx():
    ptx = gemm.gemm.compile()
    assert ".entry gemm" in ptx or ".entry" in ptx


def test_estimate():
    e = gemm.gemm.estimate({"M": 4096, "N": 4096, "K": 4096})
    assert e.programs == 32 * 32 and e.time_us > 0


# -- errors at the Python line ---------------------------------------------------

def compile_source(tmp_path, source, name="k"):
    """Writes a module with DSL kernels to a file and compiles `name`."""
    path = tmp_path / ("dsl_%d.py" % abs(hash(source)))
    path.write_text("import tiletag as tt\n" + textwrap.dedent(source))
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[name], path


def line_of(path, text, nth=1):
    """The line number of the nth line of `path` that contains `text`."""
    for n, line in enumerate(path.read_text().split("\n"), 1):
        if text in line:
            nth -= 1
            if not nth:
                return n
    raise AssertionError(text)


OOB_STORE = '''
@tt.kernel(grid=lambda N: tt.cdiv(N, 64), sizes=dict(N=100))
def k(X: tt.Buffer(tt.f32, "N"), Y: tt.Buffer(tt.f32, "N")):
    p = tt.program_id(0)
    Y[p * 64 + 64] = X[p]
'''


def test_out_of_bounds_store_is_reported_at_its_line(tmp_path):
    k, path = compile_source(tmp_path, OOB_STORE)
    with pytest.raises(tt.ProofError) as e:
        k.verify()
    err = e.value
    assert (err.file, err.line) == (str(path), line_of(path, "Y[p * 64 + 64]"))
    assert err.obligation.checker == "definedness"
    assert "out of bounds" in err.obligation.what
    c = err.counterexample
    assert c.sizes == {"N": 1} and c.program_ids == {"pid0": 0}
    assert c.points[0].op == "memref.store"
    assert "Y[p * 64 + 64] = X[p]\n    ^" in str(err)
    # The replay line runs the kernel's IR on the oracle, which fails at the
    # same Python line.
    assert err.replay.startswith("tiletag-run ") and " --kernel k --size N=1" in err.replay
    ir_file = err.replay.split()[1]
    assert os.path.isfile(ir_file)
    with pytest.raises(tt.OracleError, match="out of bounds"):
        k.run(np.zeros(1, np.float32), np.zeros(1, np.float32))


WRONG_CONTRACT = '''
@tt.kernel(grid=lambda M, N, K: (tt.cdiv(M, 128), tt.cdiv(N, 128)),
           sizes=dict(M=256, N=256, K=320), check="gemm")
def ref(A: tt.Buffer(tt.bf16, "M", "K"), B: tt.Buffer(tt.bf16, "K", "N"),
        C: tt.Buffer(tt.f32, "M", "N")):
    i = tt.program_id(0)
    j = tt.program_id(1)
    acc = tt.zeros((128, 128))
    for k in range(tt.cdiv(A.shape[1], 64)):
        a = tt.load(A, [i, k], (128, 64), padding=0.0)
        b = tt.load(B, [k, j], (64, 128), padding=0.0)
        acc = tt.dot(a, b, acc)
    tt.store(C, [i, j], acc)

@tt.kernel(grid=lambda M, N, K: (tt.cdiv(M, 128), tt.cdiv(N, 128)),
           sizes=dict(M=256, N=256, K=320), check="gemm", contract=ref)
def k(A: tt.Buffer(tt.bf16, "M", "K"), B: tt.Buffer(tt.bf16, "K", "N"),
      C: tt.Buffer(tt.f32, "M", "N")):
    i = tt.program_id(0)
    j = tt.program_id(1)
    acc = tt.zeros((128, 128))
    for k in range(tt.cdiv(A.shape[1], 64)):
        a = tt.load(A, [i, k], (128, 64), padding=0.0)
        b = tt.load(B, [k, i], (64, 128), padding=0.0)
        acc = tt.dot(a, b, acc)
    tt.store(C, [i, j], acc)
'''


def test_wrong_contract_is_reported_with_a_counterexample(tmp_path):
    k, path = compile_source(tmp_path, WRONG_CONTRACT)
    with pytest.raises(tt.ProofError) as e:
        k.verify()
    err = e.value
    assert err.obligation.checker == "contract"
    # At the kernel's store, naming the load that reads the wrong block.
    assert (err.file, err.line) == (str(path), line_of(path, "tt.store(C, [i, j], acc)", 2))
    assert "differs from the contract: the tile loaded from B (line %d) is another " \
        "block than the reference's" % line_of(path, "b = tt.load(B, [k, i]") \
        in err.obligation.what
    c = err.counterexample
    assert set(c.sizes) == {"M", "N", "K"}
    # Only programs off the diagonal load another block.
    assert c.program_ids["pid0"] != c.program_ids["pid1"]
    assert "--kernel k --size M=%d,N=%d,K=%d" % (c.sizes["M"], c.sizes["N"],
                                                 c.sizes["K"]) in err.replay
    # The kernel runs, and the oracle sees the difference too.
    rng = np.random.default_rng(0)
    with pytest.raises(tt.OracleError, match="mismatch"):
        k.run(uniform(rng, 256, 64), uniform(rng, 64, 256), zeros(256, 256), check=True)


@pytest.mark.parametrize("body,construct", [
    ("    while p < 3:\n        p = p + 1\n", "'while' loops"),
    ("    f = lambda x: x\n", "lambdas"),
    ("    xs = [p for p in range(3)]\n", "list comprehensions"),
    ("    try:\n        pass\n    except Exception:\n        pass\n", "'try' blocks"),
    ("    with open('x') as f:\n        pass\n", "'with' blocks"),
    ("    for i in range(3):\n        break\n", "'break'"),
    ("    return p\n", "a kernel returns nothing"),
    ("    import math\n", "'import'"),
    ("    d = {1: 2}\n", "dicts"),
    ("    print(p)\n", "'print' is not a tile operation"),
    ("    for i in [1, 2]:\n        pass\n", "loops over range(...) only"),
    ("    q = f'{p}'\n", "f-strings"),
])
def test_unsupported_constructs_are_named(tmp_path, body, construct):
    source = ('@tt.kernel(grid=lambda N: N, sizes=dict(N=4))\n'
              'def k(X: tt.Buffer(tt.f32, "N")):\n'
              '    p = tt.program_id(0)\n' + body)
    k, path = compile_source(tmp_path, source)
    with pytest.raises(tt.CompilationError) as e:
        k.mlir
    assert construct in e.value.message
    assert e.value.file == str(path) and e.value.line >= 4
    assert "\n" in str(e.value) and str(e.value).rstrip().endswith("^")


@pytest.mark.parametrize("body,message,at", [
    ("    tt.store(X, [p], foo)\n", "unknown name 'foo'", "foo"),
    ("    a = tt.load(X, [p, 0], (64, 32), padding=0.0)\n"
     "    c = tt.dot(a, a)\n", "the contracted extents differ (32 and 64)", "tt.dot"),
    ("    a = tt.load(X, [p, 0], (64, 32), padding=0.0)\n"
     "    b = tt.load(X, [p, 0], (32, 64), padding=0.0)\n"
     "    c = a + b\n", "shapes must match", "a + b"),
    ("    a = tt.load(X, [p, 0], (8, 8), padding=0.0)\n"
     "    c = a + tt.cast(a, tt.bf16)\n", "element types differ", "a + tt.cast"),
    ("    a = tt.load(X, [p], (8, 8), padding=0.0)\n", "has 1 entries; the buffer has rank 2",
     "tt.load"),
    ("    a = tt.load(X, [p, 0], (8, 8), padding=0.0)\n"
     "    tt.store(X, [p, 0], tt.cast(a, tt.bf16))\n", "cast it first", "tt.store"),
    ("    acc = tt.zeros((8, 8))\n"
     "    for i in range(4):\n"
     "        acc = tt.zeros((4, 4))\n", "enters the loop as a tensor<8x8xf32> tile", "for i"),
    ("    a = p + 1.5\n", "float 1.5", "p + 1.5"),
    ("    a = p / 2\n", "use // for division", "p / 2"),
    ("    a = tt.program_id(3)\n", "grid dimension 0..0", "tt.program_id(3)"),
    ("    a = tt.load(X, [p, 0], (8, 8), padding=0.0)\n"
     "    s = tt.sum(a, axis=2)\n", "axis must be", "tt.sum"),
    ("    a = tt.load(X, [p, 0], (8, 8), padding=0.0)\n"
     "    b = tt.broadcast(a, (8, 8, 4), dims=[0])\n", "the other dimensions", "tt.broadcast"),
    ("    a = tt.load(X, [p, 0], shape=(8, 8), pad=0.0)\n", "unexpected keyword argument 'pad'",
     "tt.load"),
    ("    assert p == 1\n", "needs a message string", "assert"),
    ("    a = tt.load(X, [p, 0], (8, 8), padding=0.0)\n"
     "    if p < 2:\n"
     "        a = p\n", "in one branch", "if p < 2"),
    ("    a = tt.load(X, [p, 0], (8, 8), padding=0.0)\n"
     "    b = a[0]\n", "not indexed element by element", "a[0]"),
    ("    X.shape[2]\n", ".shape takes a Python int below that", "2]"),
])
def test_errors_point_at_the_python_line(tmp_path, body, message, at):
    source = ('@tt.kernel(grid=lambda N: N, sizes=dict(N=4))\n'
              'def k(X: tt.Buffer(tt.f32, "N", "N")):\n'
              '    p = tt.program_id(0)\n' + body)
    k, path = compile_source(tmp_path, source)
    with pytest.raises(tt.CompilationError) as e:
        k.verify()
    assert message in e.value.message
    assert e.value.line == line_of(path, at), str(e.value)
    line = path.read_text().split("\n")[e.value.line - 1]
    assert e.value.col == line.index(at) + 1, str(e.value)


def test_grid_rank(tmp_path):
    source = ('@tt.kernel(grid=lambda N: (N, N, N, N), sizes=dict(N=4))\n'
              'def k(X: tt.Buffer(tt.f32, "N")):\n'
              '    p = tt.program_id(0)\n')
    k, path = compile_source(tmp_path, source)
    with pytest.raises(tt.CompilationError, match="1 to 3 extents"):
        k.mlir


def test_mlir_verifier_errors_come_back_at_the_python_line(tmp_path):
    # tile.dot's element types are a rule of the op's verifier, which the
    # DSL leaves to MLIR.
    k, path = compile_source(tmp_path, '''
@tt.kernel(grid=lambda N: N, sizes=dict(N=4))
def k(X: tt.Buffer(tt.i32, "N", "N")):
    p = tt.program_id(0)
    a = tt.load(X, [p, 0], (16, 16), padding=0)
    d = tt.dot(a, a, tt.zeros((16, 16)))
''')
    with pytest.raises(tt.CompilationError) as e:
        k.module
    assert e.value.line == line_of(path, "d = tt.dot")
    assert "'tile.dot' op" in e.value.message


def test_parameters_need_annotations(tmp_path):
    k, path = compile_source(tmp_path, '''
@tt.kernel(grid=lambda N: N, sizes=dict(N=4))
def k(X):
    pass
''')
    with pytest.raises(tt.CompilationError, match="needs an annotation"):
        k.mlir
    def f():
        pass
    with pytest.raises(TypeError, match="contract="):
        tt.kernel(grid=lambda N: N, sizes=dict(N=4), contract=3)(f)
    with pytest.raises(TypeError, match="name is an identifier"):
        tt.kernel(grid=lambda N: N, sizes=dict(N=4), name="no such")(f)
    with pytest.raises(TypeError, match="sizes= is a dict"):
        tt.kernel(grid=lambda N: N, sizes=[4])(f)
    with pytest.raises(TypeError, match="element type"):
        tt.Buffer("f32", "N")


def test_grid_function_names_sizes(tmp_path):
    k, path = compile_source(tmp_path, '''
@tt.kernel(grid=lambda Q: Q, sizes=dict(N=4))
def k(X: tt.Buffer(tt.f32, "N")):
    pass
''')
    with pytest.raises(tt.CompilationError, match="parameter Q is not among the sizes"):
        k.mlir


def test_tile_operations_outside_a_kernel():
    with pytest.raises(RuntimeError, match="only inside a @tiletag.kernel"):
        tt.load(None, [0], (1,))
    assert tt.cdiv(7, 2) == 4


CONTROL = '''
BLOCK = 8

@tt.kernel(grid=lambda N: tt.cdiv(N, BLOCK), sizes=dict(N=20))
def k(X: tt.Buffer(tt.f32, "N"), Y: tt.Buffer(tt.f32, "N"), flag: tt.i1):
    p = tt.program_id(0)
    x = tt.load(X, [p], (BLOCK,), padding=0.0)
    total = tt.zeros((BLOCK,))
    for i in range(1, 4):
        total = total + x * tt.cast(i, tt.f32)
    if flag:
        y = total + x
    else:
        y = total - x
    if BLOCK > 4:
        y = y * 2.0
    six = tt.cast(tt.num_programs(0) * 0 + 6, tt.f32)
    y = tt.where(flag, y, y * tt.splat(six, (BLOCK,)))
    assert 0 <= p < tt.num_programs(0), "p is a program of the grid"
    y = tt.attach(y, "Out", p)
    assert tt.field(y, "Out", 0) == p, "the tile is this program's"
    tt.store(Y, [p], y)
'''


def test_loops_ifs_casts_tags_and_assertions(tmp_path):
    k, path = compile_source(tmp_path, CONTROL)
    text = k.mlir
    assert "scf.for" in text and "scf.if" in text and "tag.assert_range" in text
    assert "tag.assert eq" in text and "tag.attach" in text
    assert k.verify().proved
    X = np.arange(20, dtype=np.float32)
    for flag in (True, False):
        Y = zeros(20)
        k.run(X, Y, flag)
        want = (6 * X + (X if flag else -X)) * 2
        if not flag:
            want = want * 6
        assert np.allclose(Y, want), flag


def test_a_python_number_carried_by_a_loop_becomes_a_value(tmp_path):
    k, path = compile_source(tmp_path, '''
@tt.kernel(grid=lambda N: N, sizes=dict(N=4))
def k(X: tt.Buffer(tt.f32, "N")):
    count = 0
    scale = 1.0
    for i in range(3):
        count = count + i
        scale = scale * 2.0
    X[count] = scale
''')
    text = k.mlir
    assert "iter_args(%count_" in text and "-> (index, f32)" in text
    # The checkers cannot bound a sum carried by a loop: they say so.
    with pytest.raises(tt.ProofError, match="does not hold"):
        k.verify()


def test_a_grid_that_does_not_parse_is_reported_at_the_kernel(tmp_path):
    k, path = compile_source(tmp_path, '''
@tt.kernel(grid=("N cdiv 4",), sizes=dict(N=4))
def k(X: tt.Buffer(tt.f32, "N")):
    p = tt.program_id(0)
''')
    with pytest.raises(tt.CompilationError) as e:
        k.module
    # At the decorator, which holds the grid.
    assert e.value.line == line_of(path, "@tt.kernel(grid=(")
    assert "does not parse" in e.value.message and "N cdiv 4" in e.value.message
