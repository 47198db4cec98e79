"""The errors the tiletag package raises.

Every error that is about a place in a kernel names it as ``file:line:col``
and, where the file is readable (a Python DSL kernel, an .mlir file), shows
the source line with a caret under the column, as compilers do.
"""

import linecache


def source_excerpt(file, line, col):
    """The source line and a caret under `col` (1-based), or ''."""
    if not file or not line:
        return ""
    text = linecache.getline(file, line)
    if not text:
        return ""
    text = text.rstrip("\n")
    caret = " " * (max(col, 1) - 1) + "^"
    return "%s\n%s" % (text, caret)


def format_at(file, line, col, message, severity="error"):
    """``file:line:col: error: message`` with the source line and a caret."""
    where = "%s:%d:%d: " % (file, line, col) if file and line else ""
    out = "%s%s: %s" % (where, severity, message)
    excerpt = source_excerpt(file, line, col)
    return out + ("\n" + excerpt if excerpt else "")


def parse_location(text):
    """(file, line, col) of a "file:line:col" string, or (None, 0, 0)."""
    parts = (text or "").rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return None, 0, 0


class TileTagError(Exception):
    """The base of every error of the tiletag package."""


class MLIRError(TileTagError):
    """MLIR refused something (a parse error, a failed pass, a verifier
    error); `diagnostics` holds what it reported, as dicts with `severity`,
    `message`, `file`, `line`, `col` and `notes`."""

    def __init__(self, what, diagnostics):
        self.what = what
        self.diagnostics = list(diagnostics)
        super().__init__(self._text())

    def _text(self):
        lines = [self.what]
        for d in self.diagnostics:
            lines.append(format_diagnostic(d))
        return "\n".join(lines)


def format_diagnostic(d, indent=""):
    text = format_at(d.get("file"), d.get("line", 0), d.get("col", 0),
                     d["message"], d["severity"])
    if not d.get("file"):
        text = "%s: %s" % (d["severity"], d["message"])
    out = [indent + text.replace("\n", "\n" + indent)]
    for note in d.get("notes", []):
        out.append(format_diagnostic(note, indent + "  "))
    return "\n".join(out)


class CompilationError(TileTagError):
    """A DSL kernel the compiler cannot turn into tile IR: an unknown name, a
    Python construct the DSL does not support, a shape or type mismatch.
    `file`, `line` and `col` are where in the Python source."""

    def __init__(self, message, file=None, line=0, col=0):
        self.message = message
        self.file, self.line, self.col = file, line, col
        super().__init__(format_at(file, line, col, message))


class ProofError(TileTagError):
    """A kernel the checkers did not prove. `verdict` is the whole Verdict,
    `obligation` the first that failed (or was undecided), `counterexample`
    its Counterexample (or None) and `replay` the tiletag-run command line
    that replays it on the CPU oracle."""

    def __init__(self, verdict, obligation, replay=None):
        self.verdict = verdict
        self.obligation = obligation
        self.counterexample = obligation.counterexample
        self.replay = replay or (self.counterexample.replay
                                 if self.counterexample else None)
        self.file, self.line, self.col = parse_location(obligation.location)
        super().__init__(self._text())

    def _text(self):
        o = self.obligation
        status = "could not be proved" if o.status == "unknown" else "does not hold"
        text = format_at(self.file, self.line, self.col,
                         "@%s: %s (%s checker, %s)" % (
                             self.verdict.kernel, o.what, o.checker, status))
        c = self.counterexample
        if c:
            text += "\ncounterexample: " + ", ".join(
                "%s = %d" % kv for kv in c.values.items())
            for p in c.points:
                loops = ", ".join("%s = %d" % kv for kv in p.loops.items())
                file, line, col = parse_location(p.location)
                text += "\n  %s at %s%s%s" % (
                    p.op, p.location, " with " + loops if loops else "",
                    "; " + p.memory if p.memory else "")
                excerpt = source_excerpt(file, line, col)
                if excerpt:
                    text += "\n    " + excerpt.replace("\n", "\n    ")
        if self.replay:
            text += "\nreplay on the CPU: " + self.replay
        others = [x for x in self.verdict.obligations
                  if x.status != "proved" and x is not o]
        if others:
            text += "\n(and %d more failed obligation%s: verdict.failures)" % (
                len(others), "s" if len(others) > 1 else "")
        return text


class OracleError(TileTagError):
    """A run on the CPU oracle that failed: bad input (`status`
    'bad-input'), a failure at run time ('runtime-failure') or, when
    checking, an output out of tolerance ('mismatch'). `result` is the
    OracleResult."""

    def __init__(self, result, diagnostics=()):
        self.result = result
        self.diagnostics = list(diagnostics)
        text = "%s on the CPU oracle: %s" % (result.status, result.message)
        for d in self.diagnostics:
            if d["severity"] == "error":
                text += "\n" + format_diagnostic(d)
        super().__init__(text)
