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
i1                    bool
i8, i16, i32, i64     int8, int16, int32, int64
index                 int64
====================  =====================================================

Problem sizes are read off the arrays' shapes where the launch's shapes
name them (A = [M, K]); others are given with ``sizes=``.
"""

from dataclasses import dataclass
from typing import Dict, List

from .errors import OracleError

_DTYPES = {"f64": "float64", "f32": "float32", "f16": "float16",
           "bf16": "float32", "i1": "bool", "i8": "int8", "i16": "int16",
           "i32": "int32", "i64": "int64", "index": "int64"}


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
                " (bf16 values in float32)" if element == "bf16" else "",
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
        host = _to_bf16_bits(np, value) if element == "bf16" else \
            np.ascontiguousarray(value)
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
