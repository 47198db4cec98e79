"""Fuzzes the recipe loader: every shipped recipe cut at many points and
with bytes flipped or lines dropped must load or be refused with a
RecipeError naming the file and a line, never crash."""
import os
import random
import re
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
from tiletag_agent import recipes  # noqa: E402

rng = random.Random(7)
shipped = os.path.join(sys.argv[1], "recipes")
texts = [open(os.path.join(shipped, f)).read() for f in sorted(os.listdir(shipped))]
loaded = refused = 0
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "r.toml")
    for n in range(600):
        text = rng.choice(texts)
        kind = n % 3
        if kind == 0:
            text = text[:rng.randrange(len(text))]
        elif kind == 1:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice("[]{}=\"'$#\n,0x-") + text[i + 1:]
        else:
            lines = text.splitlines(True)
            del lines[rng.randrange(len(lines))]
            text = "".join(lines)
        with open(path, "w") as f:
            f.write(text)
        try:
            recipes.load([path])
            loaded += 1
        except recipes.RecipeError as e:
            assert re.match(re.escape(path) + r":\d+: ", str(e)), str(e)
            refused += 1
print("fuzzed recipes: %d loaded, %d refused with a message, 0 crashes" % (loaded, refused))
