"""The tile DSL's vocabulary: element types, operand annotations, the
``@kernel`` decorator and the tile operations a kernel body calls.

A kernel is a Python function read by the compiler (tiletag.compiler), never
run: ``tt.load`` and friends only mean something inside a ``@tiletag.kernel``
function. The operations and their IR:

===========================================  ===================================
``tt.program_id(d)``, ``tt.num_programs(d)``  tile.program_id, tile.num_programs
``X.shape[d]``                                memref.dim
``tt.load(X, [i, j], (128, 64), padding=0.0,  tile.load (``padding`` omitted: an
offset=[..], bounds=[..])``                   unchecked load, proved in range)
``tt.store(X, [i, j], t, combine="add")``     tile.store
``X[i]``, ``X[i] = v``                        memref.load, memref.store
``tt.dot(a, b, acc)``                         tile.dot
``tt.sum/max/min(t, axis=1)``                 tile.reduce
``tt.broadcast(t, shape, dims=[1])``          tile.broadcast
``tt.iota(shape, dim)``                       tile.iota
``tt.transpose(t, [1, 0])``                   tile.transpose
``tt.zeros(shape, dtype)``, ``tt.full``       arith.constant dense<...>
``tt.splat(x, shape)``                        tensor.splat
``+ - * / // % < <= == ...``, ``& | ~``       arith (index compares unsigned)
``tt.exp/log/sqrt/rsqrt/abs/tanh``            math
``tt.maximum/minimum``, ``min``, ``max``      arith.maximumf/minimumf/maxui/minui
``tt.where(c, a, b)``, ``a if c else b``      arith.select
``tt.cast(x, dtype)``                         truncf/extf/index_cast/uitofp/...
``tt.cdiv(a, b)``                             arith.ceildivui
``for k in range(a, b, s):``                  scf.for (carried values: names
                                              assigned in the body that exist
                                              before it)
``if c: ... else: ...``                       scf.if (static when c is a Python
                                              value)
``tt.attach(t, "Acc", i, j)``                 tag.attach
``tt.field(t, "A", 1)``                       tag.field
``assert a == b, "msg"``                      tag.assert (eq ne lt le gt ge)
``assert lo <= x < hi, "msg"``                tag.assert_range
``tt.assert_carries(t, "A", i, k, "msg")``    tag.assert_carries
===========================================  ===================================
"""

import functools


class DType:
    """An element type."""

    def __init__(self, name):
        self.name = name

    @property
    def is_float(self):
        return self.name in ("f16", "bf16", "f32", "f64") or self.is_fp8

    @property
    def is_fp8(self):
        return self.name in FP8_NAMES

    @property
    def is_int(self):
        return not self.is_float

    def __repr__(self):
        return "tiletag." + self.name


index = DType("index")
i1 = DType("i1")
i8 = DType("i8")
i16 = DType("i16")
i32 = DType("i32")
i64 = DType("i64")
f16 = DType("f16")
bf16 = DType("bf16")
f32 = DType("f32")
f64 = DType("f64")
# fp8: the OCP encodings (Hopper's) and the FNUZ ones CDNA3's MFMA takes
# (no infinities, one NaN, no negative zero); named as ml_dtypes names them.
float8_e4m3fn = DType("f8E4M3FN")
float8_e5m2 = DType("f8E5M2")
float8_e4m3fnuz = DType("f8E4M3FNUZ")
float8_e5m2fnuz = DType("f8E5M2FNUZ")
FP8_NAMES = ("f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")
DTYPES = {d.name: d for d in (index, i1, i8, i16, i32, i64, f16, bf16, f32, f64,
                              float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,
                              float8_e5m2fnuz)}


class Buffer:
    """The annotation of a global memref operand: its element type and
    extents, each a problem-size name ("M"), an expression of sizes
    ("E + 1"), or a fixed int (a static extent). ``nondecreasing`` promises
    sorted contents (tile.nondecreasing, e.g. MoE offsets)."""

    def __init__(self, dtype, *dims, nondecreasing=False):
        if not isinstance(dtype, DType):
            raise TypeError("Buffer's first argument is its element type "
                            "(tiletag.bf16, ...), not %r" % (dtype,))
        if not dims:
            raise TypeError("a Buffer needs at least one extent")
        for d in dims:
            if not isinstance(d, (int, str, SizeExpr)) or isinstance(d, bool):
                raise TypeError("Buffer extents are size names, size "
                                "expressions or ints, not %r" % (d,))
        self.dtype = dtype
        self.dims = tuple(d if isinstance(d, int) else str(d) for d in dims)
        self.nondecreasing = nondecreasing

    def __repr__(self):
        return "Buffer(%r, %s)" % (self.dtype, ", ".join(map(repr, self.dims)))


class SizeExpr:
    """A problem size, or an affine expression of sizes, as the grid
    function of ``@kernel`` sees it: ``lambda M, N, K: (cdiv(M, 128), N)``."""

    def __init__(self, text, atom=True):
        self.text = text
        self.atom = atom

    def _wrap(self):
        return self.text if self.atom else "(%s)" % self.text

    @staticmethod
    def _of(x):
        if isinstance(x, SizeExpr):
            return x._wrap()
        if isinstance(x, int) and not isinstance(x, bool):
            return str(x)
        raise TypeError("a grid extent is an affine expression of the sizes; "
                        "%r is not a size or an int" % (x,))

    def _bin(self, op, other, swap=False):
        a, b = self._of(self), self._of(other)
        if swap:
            a, b = b, a
        return SizeExpr("%s %s %s" % (a, op, b), atom=False)

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("floordiv", o)
    def __mod__(self, o): return self._bin("mod", o)

    def __str__(self):
        return self.text


def _dsl_only(name):
    def stub(*args, **kwargs):
        raise RuntimeError("tiletag.%s is a tile operation: it has a meaning "
                           "only inside a @tiletag.kernel function, which the "
                           "compiler reads instead of running" % name)
    stub.__name__ = name
    stub.__qualname__ = name
    return stub


def cdiv(a, b):
    """Ceiling division: of ints, of problem sizes in a grid function, and
    (inside a kernel) of index values (arith.ceildivui)."""
    if isinstance(a, SizeExpr) or isinstance(b, SizeExpr):
        return SizeExpr("%s ceildiv %s" % (SizeExpr._of(a), SizeExpr._of(b)),
                        atom=False)
    return -(-a // b)


# Tile operations (see the table above); the compiler knows them by identity.
OPERATIONS = ("program_id", "num_programs", "load", "store", "dot", "sum",
              "max", "min", "broadcast", "iota", "transpose", "zeros", "full",
              "splat", "exp", "log", "sqrt", "rsqrt", "abs", "tanh", "maximum",
              "minimum", "where", "cast", "attach", "field", "assert_carries")
for _name in OPERATIONS:
    globals()[_name] = _dsl_only(_name)
del _name


def kernel(grid=None, sizes=None, check=None, contract=None, name=None):
    """Turns a Python function written with tile operations into a TileTag
    kernel (tiletag.dsl.DSLKernel): its IR, proof, oracle runs and PTX.

    grid      the grid extents: a function of the sizes returning a tuple
              (``lambda M, N, K: (tt.cdiv(M, 128), tt.cdiv(N, 128))``) or a
              tuple of affine-expression strings; 1 to 3 extents
    sizes     the problem sizes and their defaults, in order (a dict)
    check     the workload whose float64 reference checks it on the oracle
              ("gemm", "gemm_bf16" for a bf16 output, "gemm_splitk",
              "attention", "moe", "softmax", "layernorm")
    contract  what the kernel must compute: another DSL kernel over the same
              operands, or "self" for a plain copy of this kernel (named
              NAME_reference), as examples/naive/ writes its kernels
    name      the kernel's symbol name (default: the function's)
    """
    from .dsl import DSLKernel

    def wrap(fn):
        k = DSLKernel(fn, grid=grid, sizes=sizes, check=check,
                      contract=contract, name=name)
        functools.update_wrapper(k, fn)
        return k
    return wrap
