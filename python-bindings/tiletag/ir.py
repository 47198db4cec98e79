"""TileTag IR from Python: parse, print, walk, run passes and transform
scripts, verify, estimate, compile and run on the CPU oracle.

Modules live in a Context (one per process by default, with every dialect
TileTag's tools register). Everything that can fail raises: MLIRError with
MLIR's diagnostics, ProofError for a kernel that is not proved, OracleError
for a failed oracle run.
"""

import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import _tiletag
from .errors import MLIRError, ProofError, TileTagError
from .verify import Verdict, verdict_from_dict


class Context:
    """An MLIR context with TileTag's dialects, the upstream dialects its
    pipelines use, and every pass registered."""

    def __init__(self):
        self._native = _tiletag.Context()

    def _diagnostics(self):
        return self._native.take_diagnostics()

    def parse(self, text, filename="<string>"):
        """Parses `text` as a module; MLIRError with the parser's errors."""
        self._diagnostics()
        native = self._native.parse(text, filename)
        if native is None:
            raise MLIRError("cannot parse %s" % filename, self._diagnostics())
        return Module(self, native)

    def parse_file(self, path):
        self._diagnostics()
        if not os.path.isfile(path):
            raise FileNotFoundError(path)
        native = self._native.parse_file(os.fspath(path))
        if native is None:
            raise MLIRError("cannot parse %s" % path, self._diagnostics())
        return Module(self, native)


_default_context = None


def default_context():
    """The process's shared Context."""
    global _default_context
    if _default_context is None:
        _default_context = Context()
    return _default_context


def parse(text, filename="<string>", context=None):
    """Parses MLIR text into a Module (in the default context)."""
    return (context or default_context()).parse(text, filename)


def parse_file(path, context=None):
    """Parses an .mlir file into a Module (in the default context)."""
    return (context or default_context()).parse_file(path)


@dataclass(frozen=True)
class Location:
    file: Optional[str]
    line: int
    col: int
    text: str

    def __str__(self):
        if self.file:
            return "%s:%d:%d" % (self.file, self.line, self.col)
        return self.text


class Operation:
    """An operation of a module (valid while the module is not changed by a
    pass or script that erases it)."""

    def __init__(self, module, native):
        self.module = module
        self._native = native

    @property
    def op_name(self):
        """The op's name, e.g. "tile.load" (also a Kernel's)."""
        return self._native.name

    @property
    def name(self):
        """The op's name, e.g. "tile.load"; a Kernel's symbol name."""
        return self._native.name

    @property
    def location(self):
        d = self._native.location
        return Location(d.get("file"), d.get("line", 0), d.get("col", 0), d["text"])

    @property
    def regions(self):
        """Its regions, each a list of blocks, each a list of Operations."""
        return [[[_wrap(self.module, op) for op in block] for block in region]
                for region in self._native.regions()]

    def walk(self):
        """This operation and every operation nested in it, in pre-order."""
        yield self
        for region in self.regions:
            for block in region:
                for op in block:
                    yield from op.walk()

    def attribute(self, name):
        """The attribute `name` as MLIR prints it, or None."""
        return self._native.attribute(name)

    def print(self, debug_info=False, generic=False):
        return self._native.print(debug_info, generic)

    def __str__(self):
        return self.print()

    def __repr__(self):
        return "<%s at %s>" % (self.op_name, self.location)


@dataclass(frozen=True)
class Operand:
    name: str
    type: str                 # as MLIR prints it: "memref<?x?xbf16>", "i1"

    @property
    def is_buffer(self):
        return self.type.startswith("memref<")


@dataclass(frozen=True)
class Launch:
    sizes: Dict[str, int]     # problem sizes and their defaults, in order
    check: str                # the workload --check compares against, or ""
    then: Tuple[str, ...]     # kernels run after this one


@dataclass(frozen=True)
class Estimate:
    """The cost model's estimate (--tiletag-estimate)."""
    time_us: float
    tflops: float
    flops: float
    bytes_loaded: float
    bytes_stored: float
    dram_bytes: float
    programs: int
    ctas_per_sm: int
    threads_per_cta: int
    registers_per_thread: int
    shared_bytes: int
    waves: float
    bound_by: str
    assumptions: Tuple[str, ...]


class Kernel(Operation):
    """A tile.kernel."""

    @property
    def _info(self):
        return self._native.kernel_info()

    @property
    def name(self):
        """The kernel's symbol name (without '@')."""
        return self._info["name"]

    @property
    def grid_rank(self):
        return self._info["grid_rank"]

    @property
    def operands(self):
        return [Operand(n, t) for n, t in self._info["operands"]]

    @property
    def contract(self):
        """The name of its contract kernel (tag.contract), or None."""
        return self._info["contract"] or None

    @property
    def launch(self):
        """Its tile.launch (sizes, check, then), or None."""
        info = self._info
        if not info["has_launch"]:
            return None
        return Launch(dict(info["sizes"]), info["check"], tuple(info["then"]))

    @property
    def proved(self):
        """Whether it carries current proof stamps for tags and schedule."""
        info = self._info
        return info["tag_proof"] and info["schedule_proof"]

    def verify(self, tags=True, schedule=True, stamp=True, resource_limit=0,
               verdict_cache="", raise_on_failure=True):
        """Runs the checkers on this kernel and returns its Verdict; raises
        ProofError for an obligation that failed or was not decided, unless
        `raise_on_failure` is false."""
        context = self.module.context
        context._diagnostics()
        d = self._native.check(tags, schedule, stamp, resource_limit,
                               verdict_cache)
        diagnostics = context._diagnostics()
        if d is None:
            raise MLIRError("cannot verify @%s" % self.name, diagnostics)
        verdict = verdict_from_dict(d)
        if raise_on_failure and not verdict.proved:
            raise ProofError(verdict, verdict.failures[0])
        return verdict

    def estimate(self, sizes=None, chip="sm_90a", scalars=None,
                 registers_per_thread=0, calibration=""):
        """The cost model's Estimate at `sizes` (a dict; the rest at their
        defaults)."""
        sizes = dict(sizes or {})
        scalars = dict(scalars or {})
        for what, d in (("size", sizes), ("scalar", scalars)):
            for k, v in d.items():
                if not isinstance(v, int) or isinstance(v, bool):
                    raise TypeError("%s %s must be an int, not %r" % (what, k, v))
        context = self.module.context
        context._diagnostics()
        d = self._native.estimate(chip, list(sizes), list(sizes.values()),
                                  list(scalars), list(scalars.values()),
                                  registers_per_thread, calibration)
        if d is None:
            raise MLIRError("cannot estimate @%s" % self.name,
                            context._diagnostics())
        d["assumptions"] = tuple(d["assumptions"])
        return Estimate(**d)

    def run(self, *args, check=False, sizes=None, **kwargs):
        """Runs the kernel's launch on the CPU oracle with numpy arrays (see
        tiletag.oracle.run)."""
        from .oracle import run
        return run(self, *args, check=check, sizes=sizes, **kwargs)


def _wrap(module, native):
    return Kernel(module, native) if native.is_kernel else Operation(module, native)


class Module:
    """A builtin.module of TileTag IR."""

    def __init__(self, context, native):
        self.context = context
        self._native = native

    @property
    def operation(self):
        return Operation(self, self._native.operation)

    @property
    def kernels(self) -> List[Kernel]:
        """The tile.kernel ops at the module's top level."""
        return [Kernel(self, k) for k in self._native.kernels()]

    def kernel(self, name):
        """The kernel named `name`; KeyError if there is none."""
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError("no kernel @%s in the module (kernels: %s)" % (
            name, ", ".join("@" + k.name for k in self.kernels) or "none"))

    def walk(self):
        return self.operation.walk()

    def clone(self):
        return Module(self.context, self._native.clone())

    def run_pipeline(self, pipeline):
        """Runs a pass pipeline on the module, in place: a textual pipeline
        as tiletag-opt's --pass-pipeline takes it, e.g.
        "builtin.module(tiletag-strip-schedule,tiletag-strip-tags)"."""
        self.context._diagnostics()
        try:
            ok = self._native.run_pipeline(pipeline)
        except ValueError as e:
            raise MLIRError(str(e), self.context._diagnostics()) from None
        if not ok:
            raise MLIRError("the pipeline %s failed" % pipeline,
                            self.context._diagnostics())
        return self

    def apply_transform(self, script):
        """Applies a transform script (a Module, MLIR text, or the path of an
        .mlir file) to the module, in place, as --transform-interpreter does.
        """
        if isinstance(script, str):
            script = (self.context.parse_file(script) if os.path.isfile(script)
                      else self.context.parse(script, "<transform script>"))
        if script.context is not self.context:
            raise ValueError("the script must be parsed in the module's context")
        self.context._diagnostics()
        if not self._native.apply_transform(script._native):
            raise MLIRError("the transform script failed",
                            self.context._diagnostics())
        return self

    def verify(self, **options):
        """Verifies every kernel; a dict of Verdicts by kernel name (raises
        ProofError on the first kernel not proved, unless
        raise_on_failure=False)."""
        return {k.name: k.verify(**options) for k in self.kernels}

    def compile(self, chip="sm_90a", format=None, allow_unverified=False):
        """Compiles the module's kernels for NVIDIA Hopper (chip "sm_90a"):
        PTX text (format="ptx", the default) or a cubin (format="cubin",
        through ptxas); or for AMD CDNA (chip "gfx942", "gfx90a", ...):
        AMDGPU assembly (format="asm", the default) or an HSA code object
        (format="hsaco"). The kernels are proved first; the module is left
        as it is."""
        amd = chip.startswith("gfx")
        formats = {"asm": "isa", "hsaco": "bin"} if amd else {"ptx": "isa", "cubin": "bin"}
        format = format or ("asm" if amd else "ptx")
        if format not in formats:
            raise ValueError("format for %s must be %s, not %r" % (
                chip, " or ".join(repr(f) for f in formats), format))
        if format == "cubin":
            _put_ptxas_on_path()
        self.context._diagnostics()
        binaries = self._native.compile(chip, formats[format], allow_unverified)
        if binaries is None:
            raise MLIRError("cannot compile for %s" % chip,
                            self.context._diagnostics())
        if len(binaries) != 1:
            raise TileTagError("expected one GPU binary, got %d" % len(binaries))
        return binaries[0].decode() if formats[format] == "isa" else binaries[0]

    def fallbacks(self, chip="sm_90a"):
        """The slower paths the lowering for `chip` would take than the
        target offers (a dot on the SIMT cores, a wgmma operand staged
        through shared memory, a tile held in the global workspace), as
        diagnostic dicts whose `message` says what it costs and why: the
        remarks of --tiletag-convert-to-nvgpu=report-fallbacks (or -amdgpu
        for a gfx chip), one per op and reason. An empty list: none. The
        kernels are proved first; the module is left as it is."""
        self.context._diagnostics()
        ok = self._native.report_fallbacks(chip)
        diagnostics = self.context._diagnostics()
        if not ok:
            raise MLIRError("cannot lower for %s" % chip, diagnostics)
        return [d for d in diagnostics if d["severity"] == "remark"]

    def print(self, debug_info=False, generic=False):
        return self.operation.print(debug_info, generic)

    def save(self, path, debug_info=True):
        """Writes the module to `path` (with locations by default)."""
        with open(path, "w") as f:
            f.write(self.print(debug_info=debug_info))
            f.write("\n")
        return path

    def __str__(self):
        return self.print()


def _put_ptxas_on_path():
    """gpu-module-to-binary runs ptxas from PATH; CUDA's usual place is
    added when it is not there."""
    from shutil import which
    if which("ptxas"):
        return
    for d in (os.path.join(os.environ.get("CUDA_HOME", ""), "bin"),
              "/usr/local/cuda/bin"):
        if os.path.isfile(os.path.join(d, "ptxas")):
            os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + d
            return
