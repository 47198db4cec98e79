"""The documentation's code, run: every fenced block of README.md and
docs/ (docs/generated/ included) is executed or checked, in order, by
language:

  sh          run by bash -euo pipefail in a scratch directory that links
              the repository's examples/, scripts/, docs/, python-bindings/
              and build/ (build/bin on PATH)
  python      run by Debian's python3 with the built package on its path;
              a document's Python blocks share one namespace, in order (a
              tutorial is one program)
  mlir        parsed and verified by tiletag-opt: a whole module, or with a
              marker `<!-- doctest: kernel(ARGS) -->` before it, the body of
              a tile.kernel with those operands; `<!-- doctest:
              sequence(ARGS) -->`, the body of a transform sequence
  c           compiled against the build tree's headers and
              libTileTagCAPI and run
  toml        parsed as an agent recipe (tools/tiletag-agent)
  text        output shown to the reader: not code, not run

A block that cannot run here says why in a marker before it:
`<!-- doctest: not run: REASON -->`; `<!-- doctest: same as PATH -->`
checks that the block is a verbatim excerpt of PATH, a file some other test
builds or runs; `<!-- doctest: file NAME -->` also writes the block to NAME
in the scratch directory, for the blocks after it. Run by scripts/test.sh
(pytest, counted in its summary).
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("TILETAG_BUILD", os.path.join(ROOT, "build"))
LANGUAGES = ("sh", "python", "mlir", "c", "toml", "text")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$")


class Block:
    def __init__(self, doc, line, language, text, marker):
        self.doc, self.line, self.language = doc, line, language
        self.text, self.marker = text, marker

    @property
    def id(self):
        return "%s:%d" % (os.path.relpath(self.doc, ROOT), self.line)


def blocks_of(doc):
    """The fenced blocks of a Markdown file, with the marker before each."""
    lines = open(doc).read().split("\n")
    out, i, marker = [], 0, None
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            marker = m.group(1)
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f:
            if lines[i].strip():
                marker = None
            i += 1
            continue
        indent, language, start = f.group(1), f.group(2), i + 1
        body = []
        i += 1
        while i < len(lines) and not (lines[i].strip() == "```"):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        out.append(Block(doc, start, language, "\n".join(body) + "\n", marker))
        marker = None
        i += 1
    return out


DOCS = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
BLOCKS = [b for d in DOCS for b in blocks_of(d)]


@pytest.fixture(scope="session")
def scratch():
    d = tempfile.mkdtemp(prefix="tiletag-doctest-")
    for name in ("examples", "scripts", "docs", "python-bindings", "tools", "test"):
        os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    os.symlink(BUILD, os.path.join(d, "build"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def environment():
    env = dict(os.environ)
    paths = [os.path.join(BUILD, "bin"), "/usr/lib/llvm-22/bin"]
    cuda = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin")
    if os.path.isdir(cuda):
        paths.append(cuda)
    env["PATH"] = os.pathsep.join(paths + [env.get("PATH", "")])
    env["PYTHONPATH"] = os.path.join(BUILD, "python")
    return env


def run(cmd, cwd, block, **kw):
    proc = subprocess.run(cmd, cwd=cwd, env=environment(), capture_output=True,
                          text=True, **kw)
    if proc.returncode != 0:
        pytest.fail("%s: the %s block failed (exit %d)\n--- block\n%s--- stdout\n%s"
                    "--- stderr\n%s" % (block.id, block.language, proc.returncode,
                                        block.text, proc.stdout[-4000:],
                                        proc.stderr[-4000:]))
    return proc


def check_mlir(block, text, scratch):
    path = os.path.join(scratch, "block-%d.mlir" % block.line)
    with open(path, "w") as f:
        f.write(text)
    run([os.path.join(BUILD, "bin", "tiletag-opt"), path, "-o", os.devnull],
        scratch, block)


def wrapped(marker, text):
    """The block as a whole module, per its kernel(...) or sequence(...)
    marker."""
    m = re.match(r"(kernel|sequence)\((.*)\)$", marker or "")
    if not m:
        return None
    kind, args = m.groups()
    body = "\n".join("    " + l for l in text.rstrip().split("\n"))
    if kind == "kernel":
        return "tile.kernel @doctest(%s) grid(3) {\n%s\n    tile.return\n}\n" % (args, body)
    handles = ", ".join(["%root: !transform.any_op {transform.readonly}"] +
                        ["%s: !transform.any_op {transform.readonly}" % a.strip()
                         for a in args.split(",") if a.strip()])
    return ("module attributes {transform.with_named_sequence} {\n"
            "  transform.named_sequence @__transform_main(%s) {\n%s\n"
            "    transform.yield\n  }\n}\n" % (handles, body))


PYTHON_STATE = {}


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block(block, scratch):
    marker = block.marker or ""
    if marker.startswith("not run:"):
        assert len(marker[len("not run:"):].strip()) > 10, \
            "%s: say why the block cannot run" % block.id
        pytest.skip(marker)
    if marker.startswith("same as "):
        path = os.path.join(ROOT, marker[len("same as "):].strip())
        assert os.path.isfile(path), "%s: no file %s" % (block.id, path)
        assert block.text.strip() in open(path).read(), \
            "%s: the block is not an excerpt of %s" % (block.id, path)
        return
    assert block.language in LANGUAGES, \
        "%s: a block needs a language (%s), not %r" % (block.id, ", ".join(LANGUAGES),
                                                      block.language)
    if marker.startswith("file "):
        with open(os.path.join(scratch, marker[len("file "):].strip()), "w") as f:
            f.write(block.text)
        marker = ""
    if block.language == "text":
        return
    if block.language == "sh":
        run(["bash", "-euo", "pipefail", "-c", block.text], scratch, block, timeout=900)
    elif block.language == "mlir":
        text = wrapped(marker, block.text)
        if marker and text is None:
            pytest.fail("%s: unknown marker %r" % (block.id, marker))
        check_mlir(block, text or block.text, scratch)
    elif block.language == "python":
        namespace = PYTHON_STATE.setdefault(block.doc, {"__name__": "__doctest__"})
        sys.path.insert(0, os.path.join(BUILD, "python"))
        cwd = os.getcwd()
        os.chdir(scratch)
        try:
            exec(compile(block.text, "%s (block at line %d)" % (block.doc, block.line),
                         "exec"), namespace)
        finally:
            os.chdir(cwd)
    elif block.language == "c":
        exe = os.path.join(scratch, "block-%d" % block.line)
        src = exe + ".c"
        with open(src, "w") as f:
            f.write(block.text)
        run(["clang-22", "-std=c99", "-Wall", "-Werror", "-I", os.path.join(ROOT, "include"),
             "-I", "/usr/lib/llvm-22/include", src, "-o", exe,
             "-L", os.path.join(BUILD, "lib"), "-lTileTagCAPI",
             "-Wl,-rpath," + os.path.join(BUILD, "lib")], scratch, block)
        run([exe], scratch, block)
    elif block.language == "toml":
        sys.path.insert(0, os.path.join(ROOT, "tools", "tiletag-agent"))
        from tiletag_agent import recipes
        path = os.path.join(scratch, "recipe-%d.toml" % block.line)
        with open(path, "w") as f:
            f.write(block.text)
        assert recipes.load([path]), block.id
