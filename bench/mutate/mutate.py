#!/usr/bin/env python3
"""Mutation testing of TileTag kernels: how much of a kernel's meaning do its
tags, assertions and schedule pin down?

For each kernel file it makes the mutants an optimizing agent's bugs look
like -- a constant off by one, another in-scope index value, two indices
swapped, a comparison predicate flipped, add for sub (and back), an
accumulator that starts at one -- in the kernel's computation (never in its
tag assertions, which are the specification). Each mutant that still parses
is run on the CPU oracle against the original at several problem sizes,
ragged ones included (`tiletag-run --compare`):

  equivalent  the same outputs at every size: not a semantic change;
  caught      a semantic change the checkers reject (tiletag-opt --tiletag-verify);
  survived    a semantic change the checkers prove: a hole in the contract.

Usage:
  bench/mutate/mutate.py [--build DIR] [--jobs N] [--limit N] [--json FILE] KERNEL.mlir...

Prints a table (kernel, mutants, semantic, caught, survived, equivalent,
caught %) and lists every survivor. Exit status 0; 1 if a file cannot be
read. Standard library only.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SSA = r"%[A-Za-z0-9_]+"


def is_spec(line):
    """Lines that state the specification or only schedule: never mutated."""
    s = line.strip()
    return (s.startswith("//") or s.startswith("tag.") or "= tag." in s
            or "tile.launch" in s or s.startswith("schedule.")
            and not s.startswith("schedule.async"))


def index_values(lines):
    """(name, line number, indent) of every index-typed SSA value."""
    out = []
    for i, line in enumerate(lines):
        if is_spec(line):
            continue
        indent = len(line) - len(line.lstrip())
        m = re.match(r"\s*(%s)\s*=\s*(.*)$" % SSA, line)
        if m:
            name, rhs = m.group(1), m.group(2)
            if (rhs.rstrip().endswith(": index") or rhs.startswith("tile.program_id")
                    or rhs.startswith("tile.num_programs")):
                out.append((name, i, indent))
        m = re.search(r"scf\.for\s+(%s)\s*=" % SSA, line)
        if m:
            out.append((m.group(1), i, indent + 2))
    return out


def visible(values, lines, at):
    """Index values defined before line `at` whose block is still open."""
    names = []
    for name, i, indent in values:
        if i >= at:
            continue
        closed = False
        for j in range(i + 1, at):
            s = lines[j]
            if s.strip() and len(s) - len(s.lstrip()) < indent and s.strip().startswith("}"):
                closed = True
                break
        if not closed:
            names.append(name)
    return names


def reference_lines(lines):
    """Line numbers of the reference kernels that contracts name
    (`tag.contract = @ref`): specification, never mutated."""
    names = set(re.findall(r"tag\.contract = @(\w+)", "\n".join(lines)))
    out = set()
    inside = False
    for i, line in enumerate(lines):
        m = re.match(r"tile\.kernel @(\w+)\(", line)
        if m:
            inside = m.group(1) in names
        if inside:
            out.add(i)
        if line.startswith("}"):
            inside = False
    return out


def mutants(text):
    """Yield (description, mutated text)."""
    lines = text.split("\n")
    spec = reference_lines(lines)
    lines_for_values = [("// spec" if i in spec else l) for i, l in enumerate(lines)]
    values = index_values(lines_for_values)
    swaps = [("arith.addi", "arith.subi"), ("arith.subi", "arith.addi"),
             ("arith.addf", "arith.subf"), ("arith.subf", "arith.addf"),
             ("arith.maxnumf", "arith.minnumf"), ("arith.maximumf", "arith.minimumf"),
             ("arith.minui", "arith.maxui"), ("arith.maxui", "arith.minui"),
             ("arith.minsi", "arith.maxsi"), ("arith.maxsi", "arith.minsi"),
             ("arith.divui", "arith.ceildivui"), ("arith.ceildivui", "arith.divui"),
             ("arith.remui", "arith.divui"), ("arith.muli", "arith.addi")]
    predicates = {"ult": "ule", "ule": "ult", "ugt": "uge", "uge": "ugt",
                  "slt": "sle", "sle": "slt", "sgt": "sge", "sge": "sgt",
                  "eq": "ne", "ne": "eq", "olt": "ole", "ole": "olt",
                  "ogt": "oge", "oge": "ogt"}

    def emit(i, new, what):
        if new != lines[i]:
            return ("line %d: %s" % (i + 1, what), "\n".join(lines[:i] + [new] + lines[i + 1:]))
        return None

    for i, line in enumerate(lines):
        if i in spec:
            continue
        found = []
        # Grid extents of the launch: a grid that misses blocks.
        m = re.search(r"grid = \[([^\]]*)\]", line)
        if m:
            for cm in re.finditer(r"\b\d+\b", m.group(1)):
                v = int(cm.group(0))
                start, end = m.start(1) + cm.start(), m.start(1) + cm.end()
                for d in (1, -1):
                    if v + d > 0:
                        found.append(emit(i, line[:start] + str(v + d) + line[end:],
                                          "grid constant %d -> %d" % (v, v + d)))
        if is_spec(line):
            for f in found:
                if f:
                    yield f
            continue
        # Constants off by one (index and integer scalars).
        m = re.search(r"arith\.constant (-?\d+) : (index|i\d+)\b", line)
        if m:
            v = int(m.group(1))
            for d in (1, -1):
                new = line[:m.start(1)] + str(v + d) + line[m.end(1):]
                found.append(emit(i, new, "constant %d -> %d" % (v, v + d)))
        # Float splat constants: an accumulator starting at one, not zero.
        m = re.search(r"dense<(0\.0+e\+00|0\.0|-?0x[0-9A-F]+)>", line)
        if m and "arith.constant" in line:
            found.append(emit(i, line[:m.start(1)] + "1.0" + line[m.end(1):],
                              "constant %s -> 1.0" % m.group(1)))
        # Operation swaps.
        for a, b in swaps:
            if re.search(r"\b%s\b" % re.escape(a), line):
                found.append(emit(i, re.sub(r"\b%s\b" % re.escape(a), b, line, count=1),
                                  "%s -> %s" % (a, b)))
        # Predicates.
        m = re.search(r"arith\.cmp[if] (\w+),", line)
        if m and m.group(1) in predicates:
            p = m.group(1)
            found.append(emit(i, line[:m.start(1)] + predicates[p] + line[m.end(1):],
                              "predicate %s -> %s" % (p, predicates[p])))
        # Index lists: swap two indices, or use another in-scope value.
        for lm in re.finditer(r"\[((?:%s)(?:\s*,\s*%s)+)\]" % (SSA, SSA), line):
            items = [x.strip() for x in lm.group(1).split(",")]
            for a in range(len(items)):
                for b in range(a + 1, len(items)):
                    if items[a] != items[b]:
                        sw = list(items)
                        sw[a], sw[b] = sw[b], sw[a]
                        new = line[:lm.start(1)] + ", ".join(sw) + line[lm.end(1):]
                        found.append(emit(i, new, "swap indices %s, %s" % (items[a], items[b])))
        # Operands of index arithmetic, loop bounds and block indices:
        # another visible index value.
        targets = []
        m = re.match(r"\s*%s\s*=\s*arith\.\w+ (%s), (%s)( .*)?: index\s*$" % (SSA, SSA, SSA), line)
        if m:
            targets += [(m.start(1), m.end(1)), (m.start(2), m.end(2))]
        m = re.search(r"scf\.for %s = (%s) to (%s) step" % (SSA, SSA, SSA), line)
        if m:
            targets += [(m.start(1), m.end(1)), (m.start(2), m.end(2))]
        for lm in re.finditer(r"\[((?:%s)(?:\s*,\s*%s)*)\]" % (SSA, SSA), line):
            for im in re.finditer(SSA, lm.group(1)):
                targets.append((lm.start(1) + im.start(), lm.start(1) + im.end()))
        names = visible(values, lines, i)
        for start, end in targets:
            old = line[start:end]
            if old not in names:
                continue
            for other in names:
                if other != old:
                    found.append(emit(i, line[:start] + other + line[end:],
                                      "%s -> %s" % (old, other)))
        for f in found:
            if f:
                yield f


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, "timeout"


def launch_sizes(text):
    m = re.search(r"sizes = \[([^\]]*)\]", text)
    if not m:
        return {}
    out = {}
    for part in m.group(1).split(","):
        k, v = part.split("=")
        out[k.strip()] = int(v)
    return out


def size_sets(text):
    """The kernel's own sizes, and ragged ones (not multiples of any tile)."""
    base = launch_sizes(text)
    if not base:
        return [[]]
    sets = [[]]
    for delta in (-29, 37):
        s = {k: max(1, v + delta) if v > 8 else v for k, v in base.items()}
        sets.append(["--size", ",".join("%s=%d" % kv for kv in s.items())])
    return sets


def classify(args):
    tools, original, desc, text, sizes, timeout = args
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mutant.mlir")
        with open(path, "w") as f:
            f.write(text)
        rc, _ = run([tools["opt"], path, "-o", os.devnull], timeout)
        if rc != 0:
            return desc, "invalid", ""
        differs = False
        for size in sizes:
            for extra in ([], ["--set", "causal=1"]) if "%causal" in text else ([],):
                rc, out = run([tools["run"], path, "--compare", original, "--seed", "7"] + size + extra,
                              timeout)
                if rc != 0:
                    differs = True
                    break
            if differs:
                break
        if not differs:
            return desc, "equivalent", ""
        # The first error decides (fail-fast: the checkers stop there).
        rc, out = run([tools["opt"], path, "--tiletag-verify=fail-fast=1", "-o",
                       os.devnull], timeout)
        if rc == 0:
            return desc, "survived", ""
        first = next((l for l in out.splitlines() if "error:" in l), "")
        return desc, "caught", first.split("error:", 1)[-1].strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--limit", type=int, default=0, help="at most N mutants per kernel (evenly spread)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per tool run")
    ap.add_argument("--json", help="write every mutant's outcome to this file")
    a = ap.parse_args()
    tools = {"opt": os.path.join(a.build, "bin", "tiletag-opt"),
             "run": os.path.join(a.build, "bin", "tiletag-run")}
    rows, report = [], {}
    for kernel in a.kernels:
        try:
            text = open(kernel).read()
        except OSError as e:
            print("mutate: cannot read %s: %s" % (kernel, e), file=sys.stderr)
            return 1
        ms = list(mutants(text))
        if a.limit and len(ms) > a.limit:
            step = len(ms) / a.limit
            ms = [ms[int(i * step)] for i in range(a.limit)]
        sizes = size_sets(text)
        work = [(tools, os.path.abspath(kernel), d, t, sizes, a.timeout) for d, t in ms]
        with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as pool:
            results = list(pool.map(classify, work))
        counts = {"invalid": 0, "equivalent": 0, "caught": 0, "survived": 0}
        for _, outcome, _ in results:
            counts[outcome] += 1
        semantic = counts["caught"] + counts["survived"]
        name = os.path.basename(kernel)
        rows.append((name, len(results) - counts["invalid"], semantic, counts["caught"],
                     counts["survived"], counts["equivalent"]))
        report[name] = [{"mutant": d, "outcome": o, "error": e} for d, o, e in results]
    print("| kernel | mutants | semantic | caught | survived | equivalent | caught % |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, n, sem, c, s, eq in rows:
        pct = "%.1f" % (100.0 * c / sem) if sem else "-"
        print("| %s | %d | %d | %d | %d | %d | %s |" % (name, n, sem, c, s, eq, pct))
    for name, entries in report.items():
        surv = [e["mutant"] for e in entries if e["outcome"] == "survived"]
        if surv:
            print("\nsurvivors in %s:" % name)
            for s in surv:
                print("  " + s)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
