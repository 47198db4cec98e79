"""Running kernels on the CPU oracle with numpy arrays.

The oracle runs a kernel's launch (the kernel, then the kernels its
tile.launch names in `then`) with its sequential meaning, on the arrays
given, and writes every array back after the run. With ``check=True`` it
compares the workload's outputs against its float64 reference, computed
from the inputs as they were.

Element types and the numpy dtypes they take:

====================  =====================================================
f64, f32, f16         float64, float32, float16
bf16                  float32 (numpy has no bfloat16): values are rounded
                      to bf16 on the way in, and come back as float32
                      holding bf16 values
f8E4M3FN, f8E5M2,     float32 likewise: rounded to the fp8 type (to
f8E4M3FNUZ,           nearest, ties to even; past the largest value an
f8E5M2FNUZ            infinity where the type has one, else NaN), back as
                      float32 holding fp8 values
i1                    bool
i8, i16, i32, i64     int8, int16, int32, int64
index                 int64
====================  =====================================================

Problem sizes are read off the arrays' shapes where the launch's shapes
name them (A = [M, K]); others are given with ``sizes=``.
"""

import math
from dataclasses import dataclass
from typing import Dict, List

from .errors import OracleError

_DTYPES = {"f64": "float64", "f32": "float32", "f16": "float16",
           "bf16": "float32", "i1": "bool", "i8": "int8", "i16": "int16",
           "i32": "int32", "i64": "int64", "index": "int64",
           "f8E4M3FN": "float32", "f8E5M2": "float32", "f8E4M3FNUZ": "float32",
           "f8E5M2FNUZ": "float32"}

# fp8 formats: exponent bits, mantissa bits, and how they spell the special
# values: "fn" (f8E4M3FN: all ones is NaN, no infinity), "ieee" (f8E5M2:
# IEEE-style infinities and NaNs), "fnuz" (0x80 is the one NaN; no
# infinity, no negative zero; the bias one larger).
_FP8 = {"f8E4M3FN": (4, 3, "fn"), "f8E5M2": (5, 2, "ieee"),
        "f8E4M3FNUZ": (4, 3, "fnuz"), "f8E5M2FNUZ": (5, 2, "fnuz")}


def fp8_value(element, code):
    """The value of fp8 bit pattern `code` (0..255) of type `element`."""
    ebits, mbits, kind = _FP8[element]
    bias = (1 << (ebits - 1)) - 1 + (kind == "fnuz")
    sign = -1.0 if code & 0x80 else 1.0
    e = (code >> mbits) & ((1 << ebits) - 1)
    f = code & ((1 << mbits) - 1)
    if kind == "fnuz" and code == 0x80:
        return math.nan
    if kind == "fn" and e == (1 << ebits) - 1 and f == (1 << mbits) - 1:
        return math.nan
    if kind == "ieee" and e == (1 << ebits) - 1:
        return sign * math.inf if f == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(f, 1 - bias - mbits)
    return sign * math.ldexp(f + (1 << mbits), e - bias - mbits)


def _fp8_table(element):
    """The codes of the finite non-negative values in increasing order, the
    values, and the code of an overflow (positive; NaN where no infinity)."""
    codes = [c for c in range(0x80) if math.isfinite(fp8_value(element, c))]
    values = [fp8_value(element, c) for c in codes]
    overflow = 0x7C if _FP8[element][2] == "ieee" else \
        (0x80 if _FP8[element][2] == "fnuz" else 0x7F)
    return codes, values, overflow


def _to_fp8_bits(np, array, element):
    """Rounds float32 values to fp8 `element` (nearest, ties to the even
    code), as APFloat does: the oracle's rounding."""
    codes, values, overflow = _fp8_table(element)
    x = np.ascontiguousarray(array, dtype=np.float32).astype(np.float64)
    mag = np.abs(x)
    # The value one step past the largest: rounding there overflows.
    top = values[-1] + (values[-1] - values[-2])
    grid = np.array(values + [top])
    grid_codes = np.array(codes + [-1])
    hi = np.clip(np.searchsorted(grid, mag), 1, len(grid) - 1)
    lo = hi - 1
    below, above = mag - grid[lo], grid[hi] - mag
    # Ties go to the even code; the step past the largest continues its
    # mantissa count, so its parity is the largest code's plus one.
    hi_even = np.where(grid_codes[hi] >= 0, grid_codes[hi] % 2 == 0,
                       (codes[-1] + 1) % 2 == 0)
    pick_hi = (above < below) | ((above == below) & hi_even)
    idx = np.where(pick_hi, hi, lo)
    idx = np.where(mag > top, len(grid) - 1, idx)
    out = grid_codes[idx]
    fnuz = _FP8[element][2] == "fnuz"
    negative = np.signbit(x) & ~(fnuz & (out == 0))
    out = np.where(out < 0, overflow, out)
    nan_code = 0x80 if fnuz else 0x7F
    out = np.where(negative & ~((out == overflow) & fnuz), out | 0x80, out)
    out = np.where(np.isnan(x), nan_code, out)
    return out.astype(np.uint8)


def _from_fp8_bits(np, bits, element):
    table = np.array([fp8_value(element, c) for c in range(256)], dtype=np.float32)
    return table[bits]


@dataclass(frozen=True)
class Check:
    """One output compared with the workload's float64 reference."""
    name: str
    matches: bool
    elements: int
    mismatches: int
    worst: tuple              # the index of the element furthest out
    got: float
    expected: float
    max_abs_diff: float
    rtol: float
    atol: float


@dataclass(frozen=True)
class OracleResult:
    status: str               # "success" or, with check, "mismatch"
    message: str
    sizes: Dict[str, int]
    programs: int
    milliseconds: float
    checks: List[Check]

    @property
    def ok(self):
        return self.status == "success"


def memref_element(type_text):
    """The element type of "memref<?x?xbf16>": "bf16"."""
    body = type_text[len("memref<"):-1].split(",")[0]
    return body.split("x")[-1]


def memref_dims(type_text):
    """The static extents (None for '?') of a memref type."""
    body = type_text[len("memref<"):-1].split(",")[0]
    return [None if d == "?" else int(d) for d in body.split("x")[:-1]]


def _to_bf16_bits(np, array):
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
    # Round to nearest even; NaNs stay NaN.
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(array)
    rounded[nan] = 0x7FC0
    return rounded


def _from_bf16_bits(np, bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def run(kernel, *args, check=False, sizes=None, **named):
    """Runs `kernel`'s launch on numpy arrays: positional arguments are the
    kernel's operands in order, keyword arguments name operands (tile.name).
    Scalar operands take Python numbers. Raises TypeError for a wrong dtype,
    ValueError for a wrong shape or a missing operand, OracleError for a
    failure at run time or (with check) a mismatch; returns an
    OracleResult."""
    import numpy as np

    operands = kernel.operands
    if len(args) > len(operands):
        raise TypeError("@%s takes %d operands, %d given" % (
            kernel.name, len(operands), len(args)))
    values = {}
    for operand, value in zip(operands, args):
        values[operand.name] = value
    for name, value in named.items():
        if name in values:
            raise TypeError("operand %s is given twice" % name)
        values[name] = value
    types = {o.name: o.type for o in operands}
    # Kernels of the launch chain may add operands (a split-k workspace).
    launch = kernel.launch
    for then in (launch.then if launch else ()):
        for o in kernel.module.kernel(then).operands:
            types.setdefault(o.name, o.type)
    for name in values:
        if name not in types:
            raise TypeError("@%s has no operand %s (operands: %s)" % (
                kernel.name, name, ", ".join(types)))
    missing = [n for n in types if n not in values]
    if missing:
        raise ValueError("@%s: no value for operand%s %s" % (
            kernel.name, "s" if len(missing) > 1 else "", ", ".join(missing)))

    names, buffers, originals = [], [], []
    scalar_names, scalar_values = [], []
    for name, type_text in types.items():
        value = values[name]
        if not type_text.startswith("memref<"):
            if isinstance(value, np.ndarray):
                value = value.item() if value.shape == () else value
            if not isinstance(value, (int, float, bool, np.number, np.bool_)):
                raise TypeError("scalar operand %s (%s) takes a number, not %s" % (
                    name, type_text, type(value).__name__))
            scalar_names.append(name)
            scalar_values.append(float(value))
            continue
        element = memref_element(type_text)
        want = np.dtype(_DTYPES[element])
        if not isinstance(value, np.ndarray):
            raise TypeError("operand %s (%s) takes a numpy array, not %s" % (
                name, type_text, type(value).__name__))
        if value.dtype != want:
            raise TypeError("operand %s (%s) takes a numpy %s array%s, not %s" % (
                name, type_text, want.name,
                " (%s values in float32)" % element
                if element == "bf16" or element in _FP8 else "",
                value.dtype.name))
        dims = memref_dims(type_text)
        if value.ndim != len(dims):
            raise ValueError("operand %s (%s) has rank %d, but the array has "
                             "shape %s" % (name, type_text, len(dims),
                                           tuple(value.shape)))
        for d, (static, extent) in enumerate(zip(dims, value.shape)):
            if static is not None and static != extent:
                raise ValueError("operand %s (%s) has extent %d in dimension %d, "
                                 "but the array has shape %s" % (
                                     name, type_text, static, d, tuple(value.shape)))
        if not value.flags.writeable:
            raise ValueError("operand %s: the array is read-only (the oracle "
                             "writes every operand back)" % name)
        if element == "bf16":
            host = _to_bf16_bits(np, value)
        elif element in _FP8:
            host = _to_fp8_bits(np, value, element)
        else:
            host = np.ascontiguousarray(value)
        names.append(name)
        buffers.append(host)
        originals.append((value, host, element))

    sizes = dict(sizes or {})
    for k, v in sizes.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError("size %s must be a non-negative int, not %r" % (k, v))
    context = kernel.module.context
    context._diagnostics()
    d = kernel._native.oracle_run(names, buffers, scalar_names, scalar_values,
                                  list(sizes), list(sizes.values()), check)
    diagnostics = context._diagnostics()
    result = OracleResult(
        d["status"], d["message"], d["sizes"], d["programs"], d["milliseconds"],
        [Check(c["name"], c["matches"], c["elements"], c["mismatches"],
               _index(values[c["name"]].shape, c["worst"]), c["got"],
               c["expected"], c["max_abs_diff"], c["rtol"], c["atol"])
         for c in d["checks"]])
    if result.status == "bad-input":
        raise ValueError("@%s: %s" % (kernel.name, result.message))
    if result.status == "runtime-failure":
        raise OracleError(result, diagnostics)
    for value, host, element in originals:
        if element == "bf16":
            value[...] = _from_bf16_bits(np, host).reshape(value.shape)
        elif element in _FP8:
            value[...] = _from_fp8_bits(np, host, element).reshape(value.shape)
        elif host is not value:
            value[...] = host
    if result.status == "mismatch":
        raise OracleError(result, diagnostics)
    return result


def _index(shape, flat):
    if flat < 0:
        return ()
    index = []
    for extent in reversed(shape):
        index.append(flat % extent if extent else 0)
        flat = flat // extent if extent else 0
    return tuple(reversed(index))
