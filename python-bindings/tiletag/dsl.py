"""Kernels written in Python: what ``@tiletag.kernel`` returns.

A DSLKernel compiles its function to tile IR on first use (the function is
read, not run), and then works like a kernel parsed from MLIR: verify, run
on the CPU oracle, estimate, compile to PTX. Errors point at the Python
source: compilation errors and MLIR's verifier errors at the expression,
failed proofs at the operation the obligation is about, with the
counterexample as Python data and a tiletag-run line that replays it on the
kernel's IR (written to the cache directory, TILETAG_CACHE_DIR).
"""

import hashlib
import os
import tempfile

from . import ir
from .compiler import KernelCompiler
from .errors import CompilationError, MLIRError, ProofError, format_diagnostic


def cache_dir():
    """Where kernels' IR is written for replay lines and the agent."""
    path = os.environ.get("TILETAG_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), "tiletag-cache-%d" % os.getuid())
    os.makedirs(path, exist_ok=True)
    return path


class DSLKernel:
    """A tile kernel written in Python (see tiletag.lang.kernel)."""

    def __init__(self, fn, grid, sizes, check, contract, name):
        self.fn = fn
        self.name = name or fn.__name__
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise TypeError("a kernel's name is an identifier string, not %r"
                            % (self.name,))
        if check is not None and not isinstance(check, str):
            raise TypeError("check= names a workload (a string), not %r" % (check,))
        if sizes is not None and not isinstance(sizes, dict):
            raise TypeError("sizes= is a dict of size names to defaults, not %r"
                            % (sizes,))
        self.grid = grid
        self.sizes = dict(sizes or {})
        self.check = check
        if contract is not None and contract != "self" and \
                not isinstance(contract, DSLKernel):
            raise TypeError("contract= is another @tiletag.kernel or 'self', not %r"
                            % (contract,))
        self.contract = contract
        self._text = None
        self._module = None

    # -- IR -------------------------------------------------------------------
    def _kernel_text(self, name, contract_name):
        return KernelCompiler(self.fn, name, self.grid, self.sizes, self.check,
                              contract_name).compile()

    @property
    def contract_name(self):
        if self.contract == "self":
            return self.name + "_reference"
        return self.contract.name if self.contract is not None else None

    @property
    def mlir(self):
        """The module's text: this kernel, then its contract kernels, with
        the Python locations of every op."""
        if self._text is None:
            parts = [self._kernel_text(self.name, self.contract_name)]
            if self.contract == "self":
                parts.append(self._kernel_text(self.name + "_reference", None))
            elif self.contract is not None:
                seen = {self.name}
                k = self.contract
                while k is not None and k.name not in seen:
                    seen.add(k.name)
                    parts.append(k._kernel_text(k.name, k.contract_name))
                    if k.contract == "self":
                        parts.append(k._kernel_text(k.name + "_reference", None))
                    k = k.contract if isinstance(k.contract, DSLKernel) else None
            self._text = "\n\n".join(parts) + "\n"
        return self._text

    @property
    def module(self):
        """The kernel's Module (parsed once; verification stamps it)."""
        if self._module is None:
            try:
                self._module = ir.parse(self.mlir, self._ir_name)
            except MLIRError as e:
                raise self._compilation_error(e) from None
        return self._module

    @property
    def _ir_name(self):
        return "<tile IR of @%s>" % self.name

    def _compilation_error(self, error):
        """MLIR's error about IR the compiler wrote: at its Python line (ops
        carry theirs), or for text outside an op (a grid or extent written as
        a string), at the kernel's definition with the line of IR."""
        for d in error.diagnostics:
            if d["severity"] != "error" or not d.get("file"):
                continue
            notes = "".join("\n" + format_diagnostic(n, "  ") for n in d["notes"])
            if d["file"] != self._ir_name:
                return CompilationError(d["message"] + notes, d["file"], d["line"],
                                        d["col"])
            lines = self.mlir.split("\n")
            text = lines[d["line"] - 1].strip() if 0 < d["line"] <= len(lines) else ""
            return CompilationError(
                "the tile IR written for @%s does not parse: %s%s\n  in: %s" % (
                    self.name, d["message"], notes, text[:300]),
                self.fn.__code__.co_filename, self.fn.__code__.co_firstlineno, 1)
        return CompilationError(str(error))

    @property
    def kernel(self):
        """The tile.kernel (an ir.Kernel) of this function."""
        return self.module.kernel(self.name)

    def save(self, path=None):
        """Writes the module's IR (with Python locations) to `path`, by
        default a file of the cache directory named by its hash; returns
        the path."""
        if path is None:
            digest = hashlib.sha256(self.mlir.encode()).hexdigest()[:12]
            path = os.path.join(cache_dir(), "%s-%s.mlir" % (self.name, digest))
        with open(path, "w") as f:
            f.write(self.mlir)
        return path

    # -- what kernels do ------------------------------------------------------
    def verify(self, raise_on_failure=True, **options):
        """Proves the kernel (tags, contract, schedule) for every problem
        size; returns the Verdict, or raises ProofError at the Python line
        of the first obligation not proved, with its counterexample and a
        replay command."""
        verdict = self.kernel.verify(raise_on_failure=False, **options)
        if raise_on_failure and not verdict.proved:
            failure = verdict.failures[0]
            replay = None
            if failure.counterexample:
                replay = "tiletag-run %s --kernel %s%s" % (
                    self.save(), self.name, failure.counterexample.replay_flags)
            raise ProofError(verdict, failure, replay)
        return verdict

    def run(self, *args, check=False, sizes=None, **named):
        """Runs the kernel on the CPU oracle with numpy arrays (see
        tiletag.oracle.run)."""
        return self.kernel.run(*args, check=check, sizes=sizes, **named)

    def estimate(self, sizes=None, **options):
        """The cost model's estimate at `sizes` (see ir.Kernel.estimate)."""
        return self.kernel.estimate(sizes, **options)

    def compile(self, chip="sm_90a", format=None, allow_unverified=False):
        """PTX or a cubin (sm_90a), AMDGPU assembly or an HSACO (gfx942,
        gfx90a) for the module's kernels, proved first (see
        ir.Module.compile)."""
        return self.module.compile(chip, format, allow_unverified)

    def __repr__(self):
        return "<tiletag kernel @%s from %s:%d>" % (
            self.name, self.fn.__code__.co_filename, self.fn.__code__.co_firstlineno)
