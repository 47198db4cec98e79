"""Garbled DSL kernels: the compiler turns every variant of the shipped
workloads into IR or refuses it with a TileTagError (an error at a Python
line); nothing else -- no other exception, no crash of the extension. Some
variants also go through the checkers. Variants come from a fixed seed, so
a failure names a reproducible variant."""

import os
import random
import zlib

import pytest

import tiletag as tt

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples")
FILES = ["gemm.py", "gemm_splitk.py", "softmax.py", "layernorm.py", "attention.py",
         "moe.py"]
NOISE = ["0", "1", "-1", "3", "2.5", "None", "()", "(1,)", "(128, 64)", "tt.f32",
         "tt.bf16", "tt.index", "tt.i1", "'A'", "k", "acc", "i + 1", "[i, k]",
         "tt.zeros((4, 4))", "tt.program_id(0)", "X.shape[0]"]


def body_lines(text):
    """Indices of the lines inside kernel functions (indented twice or
    more, or once inside a def): the ones worth garbling."""
    lines = text.split("\n")
    return [i for i, l in enumerate(lines) if l.startswith("    ") and l.strip()
            and not l.strip().startswith(("#", "@", "def ", '"""'))]


def variants(text, rng, count):
    lines = text.split("\n")
    candidates = body_lines(text)
    out = []
    for _ in range(count):
        new = list(lines)
        i = rng.choice(candidates)
        kind = rng.randrange(5)
        if kind == 0:      # delete a statement
            indent = new[i][:len(new[i]) - len(new[i].lstrip())]
            new[i] = indent + "pass"
        elif kind == 1:    # replace an argument or an operand by noise
            line = new[i]
            cuts = [k for k, c in enumerate(line) if c in ",(=+*-/["] or [len(line) - 1]
            k = rng.choice(cuts) + 1
            end = k
            while end < len(line) and line[end] not in ",)]":
                end += 1
            new[i] = line[:k] + rng.choice(NOISE) + line[end:]
        elif kind == 2:    # swap two statements
            j = rng.choice(candidates)
            a, b = new[i], new[j]
            ia = a[:len(a) - len(a.lstrip())]
            ib = b[:len(b) - len(b.lstrip())]
            new[i], new[j] = ia + b.lstrip(), ib + a.lstrip()
        elif kind == 3:    # change a number
            line = new[i]
            digits = [k for k, c in enumerate(line) if c.isdigit()]
            if digits:
                k = rng.choice(digits)
                new[i] = line[:k] + rng.choice(["0", "7", "3", "65"]) + line[k + 1:]
        else:              # rename a use
            new[i] = new[i].replace(rng.choice(["acc", "k", "i", "j", "x", "m", "p"]),
                                    rng.choice(["acc", "k", "q", "kblocks", "A"]), 1)
        out.append("\n".join(new))
    return out


def load(path):
    namespace = {}
    try:
        exec(compile(open(path).read(), path, "exec"), namespace)
    except (SyntaxError, IndentationError, NameError, TypeError, ValueError,
            AttributeError, ZeroDivisionError, RuntimeError):
        # Python's own errors at import, a decorator refusing its arguments,
        # or a tile operation moved out of its kernel and so run: not the
        # compiler's business.
        return []
    return [v for v in namespace.values() if isinstance(v, tt.DSLKernel)]


@pytest.mark.parametrize("name", FILES)
def test_garbled_kernels_compile_or_are_refused(tmp_path, name):
    rng = random.Random(zlib.crc32(name.encode()))
    text = open(os.path.join(EXAMPLES, name)).read()
    compiled = refused = 0
    for n, variant in enumerate(variants(text, rng, 40)):
        path = tmp_path / ("%s_%d.py" % (name[:-3], n))
        path.write_text(variant)
        for kernel in load(str(path)):
            try:
                kernel.module
                compiled += 1
            except tt.TileTagError as e:
                refused += 1
                assert str(e), path
    assert compiled + refused > 0


def test_garbled_kernels_through_the_checkers(tmp_path):
    rng = random.Random(11)
    text = open(os.path.join(EXAMPLES, "gemm.py")).read()
    verdicts = set()
    for n, variant in enumerate(variants(text, rng, 25)):
        path = tmp_path / ("gemm_%d.py" % n)
        path.write_text(variant)
        for kernel in load(str(path)):
            try:
                v = kernel.verify(resource_limit=300000, raise_on_failure=False)
                verdicts.add(v.proved)
            except tt.TileTagError:
                verdicts.add("refused")
    assert verdicts
