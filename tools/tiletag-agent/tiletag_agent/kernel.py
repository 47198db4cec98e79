"""The kernel the agent optimizes: cut out of its file together with its
contract and the kernels it launches next, and the facts recipes test."""

import re

KERNEL_RE = re.compile(r"^[ \t]*tile\.kernel\s+@([A-Za-z_][\w$.]*)\s*\(", re.M)


class KernelError(Exception):
    pass


def _op_end(text, start):
    """Index just past the region of the op starting at `start`: the brace
    that closes the first '{' that opens a region (skips strings,
    comments and attribute dictionaries inside '<...>' or '(...)')."""
    depth = 0
    i = start
    n = len(text)
    opened = False
    angle = 0
    paren = 0
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
        elif c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "<":
            angle += 1
        elif c == ">" and angle and text[i - 1] != "-":
            angle -= 1
        elif c == "{" and angle == 0 and paren == 0:
            # `attributes {` opens the attribute dictionary, not the body;
            # it is closed before the body opens at depth 0 too.
            depth += 1
            opened = True
        elif c == "}" and angle == 0 and paren == 0:
            depth -= 1
            if depth == 0 and opened:
                # The body is the last top-level brace group of the op: a
                # body follows an attribute dictionary.
                j = i + 1
                while j < n and text[j] in " \t\n":
                    j += 1
                if j < n and text[j] == "{":
                    i = j
                    continue
                return i + 1
        i += 1
    raise KernelError("unbalanced braces after offset %d" % start)


def kernels_in(text):
    """name -> (start, end, text) of every tile.kernel in a module's text."""
    out = {}
    for m in KERNEL_RE.finditer(text):
        end = _op_end(text, m.start())
        out[m.group(1)] = (m.start(), end, text[m.start():end])
    return out


CONTRACT_RE = re.compile(r"tag\.contract\s*=\s*@([\w$.]+)")
CHECK_RE = re.compile(r'\bcheck\s*=\s*"(\w+)"')


def scope(printed, name):
    """What a candidate's script must leave as it is, from the module as
    tiletag-opt prints it: every kernel but @name, verbatim (the contract a
    proof relates @name to, and anything else the module holds), and what
    @name names as its contract and as its oracle workload."""
    kernels = kernels_in(printed)
    target = kernels[name][2]
    return {"kernel": name,
            "others": {k: v[2] for k, v in kernels.items() if k != name},
            "contract": CONTRACT_RE.findall(target),
            "check": CHECK_RE.findall(target)}


def out_of_scope(printed, expected):
    """Why a candidate module breaks `expected` (see scope), or None. A
    proof against a contract the script rewrote, or without one, would not
    pin down what the kernel computes."""
    kernels = kernels_in(printed)
    name = expected["kernel"]
    if name not in kernels:
        return "the script removed @%s" % name
    for other, text in expected["others"].items():
        if other not in kernels:
            return "the script removed @%s; a script may rewrite only @%s" % (other, name)
        if kernels[other][2] != text:
            return "the script changed @%s; a script may rewrite only @%s" % (other, name)
    target = kernels[name][2]
    if CONTRACT_RE.findall(target) != expected["contract"]:
        return "the script changed the contract of @%s (tag.contract)" % name
    if CHECK_RE.findall(target) != expected["check"]:
        return "the script changed the oracle workload of @%s (check)" % name
    return None


def facts(kernel_text):
    """What recipes' preconditions test."""
    ops = set(re.findall(r"\b((?:tile|schedule|tag|scf|arith|math)\.[a-z_.]+?)\b(?=[\s(%@\"<:]|$)",
                         kernel_text))
    check = CHECK_RE.search(kernel_text)
    grid = re.search(r"\bgrid\((\d)\)", kernel_text)
    sizes = re.search(r"sizes\s*=\s*\[([^\]]*)\]", kernel_text)
    size_defaults = {}
    if sizes:
        for name, value in re.findall(r"(\w+)\s*=\s*(\d+)", sizes.group(1)):
            size_defaults[name] = int(value)
    return {
        "ops": ops,
        "workload": check.group(1) if check else "",
        "grid_rank": int(grid.group(1)) if grid else 0,
        "sizes": size_defaults,
        "scalars": re.findall(r"%\w+:\s*i\d+\s*\{tile\.name\s*=\s*\"(\w+)\"", kernel_text),
    }


def extract(text, name=None):
    """The module holding kernel `name` (default: the first kernel no other
    kernel names as its contract), its contract, and the kernels its launch
    names in `then`; and the kernel's name."""
    kernels = kernels_in(text)
    if not kernels:
        raise KernelError("no tile.kernel in the input")
    contracts = set(CONTRACT_RE.findall(text))
    if name is None:
        candidates = [k for k in kernels if k not in contracts]
        if not candidates:
            raise KernelError("every kernel is another's contract")
        name = candidates[0]
    if name not in kernels:
        raise KernelError("no kernel named '%s' (kernels: %s)"
                          % (name, ", ".join(sorted(kernels))))
    keep = []
    todo = [name]
    while todo:
        k = todo.pop(0)
        if k in keep or k not in kernels:
            continue
        keep.append(k)
        body = kernels[k][2]
        todo += CONTRACT_RE.findall(body)
        then = re.search(r"then\s*=\s*\[([^\]]*)\]", body)
        if then:
            todo += re.findall(r"@([\w$.]+)", then.group(1))
    ordered = sorted(keep, key=lambda k: kernels[k][0])
    module = "\n\n".join(kernels[k][2] for k in ordered) + "\n"
    return module, name
