"""TileTag from Python.

Kernels at tile level with a plain sequential meaning, proved correct for
every problem size by Z3, optimized by transform scripts and an agent, and
lowered to NVIDIA Hopper. This package reads, verifies, runs and compiles
TileTag IR (tiletag.ir), and writes kernels in Python (the tile DSL:
``@tiletag.kernel``, tiletag.lang):

    import tiletag as tt

    @tt.kernel(grid=lambda M, N, K: (tt.cdiv(M, 128), tt.cdiv(N, 128)),
               sizes=dict(M=256, N=256, K=320), check="gemm", contract="self")
    def gemm(A: tt.Buffer(tt.bf16, "M", "K"), B: tt.Buffer(tt.bf16, "K", "N"),
             C: tt.Buffer(tt.f32, "M", "N")):
        ...

    gemm.verify()          # a Verdict, or ProofError with a counterexample
    gemm.run(A, B, C, check=True)
    ptx = gemm.compile()

docs/Python.md is the tutorial.
"""

from . import _tiletag
from .errors import (CompilationError, MLIRError, OracleError, ProofError,
                     TileTagError)
from .ir import (Context, Estimate, Kernel, Launch, Location, Module, Operand,
                 Operation, default_context, parse, parse_file)
from .verify import Access, Counterexample, Obligation, Point, Verdict
from .oracle import Check, OracleResult
from .lang import (DType, Buffer, SizeExpr, kernel, cdiv, index, i1, i8, i16,
                   i32, i64, f16, bf16, f32, f64, float8_e4m3fn, float8_e5m2,
                   float8_e4m3fnuz, float8_e5m2fnuz, program_id, num_programs, load,
                   store, dot, sum, max, min, broadcast, iota, transpose, zeros,
                   full, splat, exp, log, sqrt, rsqrt, abs, tanh, maximum, minimum,
                   where, cast, attach, field, assert_carries)
from .dsl import DSLKernel
from . import agent

__version__ = _tiletag.version()

# `from tiletag import *` leaves Python's sum, max, min and abs alone.
__all__ = [n for n in dir() if not n.startswith("_") and
           n not in ("sum", "max", "min", "abs")]
