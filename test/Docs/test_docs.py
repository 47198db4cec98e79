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
              sequence(HANDLES) -->`, the body of a transform sequence with
              those handles; either may add `given OP; OP; ...`, ops written
              before the block
  c           compiled against the build tree's headers and
              libTileTagCAPI and run
  toml        loaded as an agent recipe (tools/tiletag-agent), rendered
              with its parameters' defaults, and the script parsed
  text        output shown to the reader: not code, not run

docs/generated/ is TableGen's output for the .td files (`ninja tiletag-doc`):
test_generated_docs_are_current checks it is what the build generates now,
which covers its unlabelled blocks (the syntax TableGen writes for each op,
attribute and pass); the examples in it are checked like any others, with
their markers written in the .td descriptions.

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


SCRATCH = {}


@pytest.fixture(scope="session")
def scratch_root():
    d = tempfile.mkdtemp(prefix="tiletag-doctest-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def scratch(scratch_root, block):
    """The document's own scratch directory (its blocks share it, in order)."""
    if block.doc not in SCRATCH:
        d = os.path.join(scratch_root, "%d-%s" % (len(SCRATCH),
                                                  os.path.basename(block.doc)[:-3]))
        os.makedirs(d)
        for name in ("examples", "scripts", "docs", "include", "python-bindings",
                     "tools", "test"):
            os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
        os.symlink(BUILD, os.path.join(d, "build"))
        SCRATCH[block.doc] = d
    return SCRATCH[block.doc]


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
    m = re.match(r"(kernel|sequence)\((.*?)\)(?:\s+given\s+(.*))?$", marker or "")
    if not m:
        return None
    kind, args, given = m.groups()
    lines = [l.strip() for l in (given or "").split(";") if l.strip()]
    body = "\n".join("    " + l for l in lines + text.rstrip().split("\n"))
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
    generated = os.path.join(ROOT, "docs", "generated") + os.sep
    if block.language == "" and block.doc.startswith(generated):
        return  # TableGen's syntax of an op: test_generated_docs_are_current
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
        # Each block from a file of its own, so that the DSL (which reads a
        # kernel's source) and tracebacks see its lines.
        path = os.path.join(scratch, "%s_%d.py" % (
            os.path.basename(block.doc)[:-3].lower(), block.line))
        with open(path, "w") as f:
            f.write(block.text)
        namespace = PYTHON_STATE.setdefault(block.doc, {"__name__": "__doctest__"})
        for d in (os.path.join(BUILD, "python"), scratch):
            if d not in sys.path:
                sys.path.insert(0, d)
        cwd = os.getcwd()
        os.chdir(scratch)
        try:
            exec(compile(block.text, path, "exec"), namespace)
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
        for recipe in recipes.load([path]):
            params = {name: p.default for name, p in recipe.params.items()}
            check_mlir(block, recipe.render(params, "gemm"), scratch)


def test_generated_docs_are_current():
    """docs/generated is what TableGen makes of the .td files now."""
    proc = subprocess.run(["ninja", "-C", BUILD, "mlir-doc"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for kind in ("Dialects", "Passes"):
        built = os.path.join(BUILD, "docs", kind)
        kept = os.path.join(ROOT, "docs", "generated", kind)
        assert sorted(os.listdir(built)) == sorted(os.listdir(kept)), kind
        for name in os.listdir(built):
            assert open(os.path.join(built, name)).read() == \
                open(os.path.join(kept, name)).read(), \
                "docs/generated/%s/%s is stale: run ninja -C build tiletag-doc" % (kind, name)
