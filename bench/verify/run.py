#!/usr/bin/env python3
"""Verification time of tiletag-opt --tiletag-verify-tags.

1. Every shipped example: wall time of the whole tiletag-opt run, Z3 time and
   queries (from the pass's stats remark).
2. Growth: a generated warp-specialized pipeline (producer TMA copies into
   ring buffers, consumer reads them and asserts their K block) with
   stages 2..8, tiles per stage 1..8 and assertions per tile 1..8.
The peer in the same run is the CPU oracle (tiletag-run) executing the same
kernel once at its default size: checking by running one concrete size, as
interpretation-based checkers do, against proving for every size.

usage: run.py BUILD_DIR EXAMPLES_DIR [OUT.md]"""

import os
import re
import subprocess
import sys
import tempfile
import time

build, examples = sys.argv[1], sys.argv[2]
out_path = sys.argv[3] if len(sys.argv) > 3 else None
opt = os.path.join(build, "bin", "tiletag-opt")
run = os.path.join(build, "bin", "tiletag-run")


def verify(path):
    start = time.perf_counter()
    proc = subprocess.run([opt, "--tiletag-verify-tags=stats=1", path, "-o", os.devnull],
                          capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit("verification failed for %s:\n%s" % (path, proc.stderr))
    queries = sum(int(q) for q in re.findall(r"with (\d+) Z3 queries", proc.stderr))
    z3ms = sum(float(t) for t in re.findall(r"queries in ([0-9.]+) ms", proc.stderr))
    asserts = sum(int(a) for a in re.findall(r"(\d+) assertions", proc.stderr))
    return wall, z3ms, queries, asserts


def oracle(path):
    start = time.perf_counter()
    proc = subprocess.run([run, path], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("oracle run failed for %s:\n%s" % (path, proc.stdout + proc.stderr))
    return (time.perf_counter() - start) * 1000


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def measure(path, repeats=3):
    v = [verify(path) for _ in range(repeats)]
    o = [oracle(path) for _ in range(repeats)]
    return (median([x[0] for x in v]), median([x[1] for x in v]), v[0][2], v[0][3],
            median(o))


def pipeline(stages, tiles, asserts):
    """A GEMM-like producer/consumer pipeline with `tiles` ring buffers."""
    ops = ", ".join('%%X%d: memref<?x?xbf16> {tile.name = "X%d"}' % (i, i) for i in range(tiles))
    shapes = ", ".join("X%d = [M, K]" % i for i in range(tiles))
    lines = ['tile.kernel @pipe(%s, %%Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {' % ops,
             '    tile.launch = #tile.launch<sizes = [M = 256, K = 512], grid = [M ceildiv 64],',
             '                               shapes = [%s, Y = [M, 64]]>,' % shapes,
             '    schedule.launch = #schedule.launch<warpgroups = 2>} {',
             '  %c0 = arith.constant 0 : index', '  %c1 = arith.constant 1 : index',
             '  %c2 = arith.constant 2 : index', '  %%cS = arith.constant %d : index' % stages,
             '  %c64 = arith.constant 64 : index', '  %pm = tile.program_id 0',
             '  %K = memref.dim %X0, %c1 : memref<?x?xbf16>', '  %ks = arith.ceildivui %K, %c64 : index']
    for i in range(tiles):
        lines.append('  %%r%d = tile.alloc_shared : memref<%dx64x64xbf16, #gpu.address_space<workgroup>>' % (i, stages))
    lines += ['  %%full = schedule.mbarrier.init count 1 : !schedule.mbarrier<%d>' % stages,
              '  %zero = arith.constant dense<0.0> : tensor<64x64xf32>',
              '  %acc = scf.for %k = %c0 to %ks step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) {',
              '    %slot = arith.remui %k, %cS : index', '    %round = arith.divui %k, %cS : index',
              '    %parity = arith.remui %round, %c2 : index',
              '    schedule.role "producer" warpgroups [0] {',
              '      schedule.mbarrier.arrive_expect_tx %%full[%%slot], %d : !schedule.mbarrier<%d>' % (8192 * tiles, stages),
              '      schedule.async tma arrive %%full[%%slot] : !schedule.mbarrier<%d> {' % stages]
    for i in range(tiles):
        lines.append('        tile.copy %%X%d[%%pm, %%k] -> %%r%d[%%slot] padding(0.0 : bf16) : memref<?x?xbf16> -> memref<%dx64x64xbf16, #gpu.address_space<workgroup>>' % (i, i, stages))
    lines += ['      }', '    }',
              '    %next = schedule.role "consumer" warpgroups [1] {',
              '      schedule.mbarrier.wait %%full[%%slot], %%parity : !schedule.mbarrier<%d>, index' % stages]
    prev = "%a"
    for i in range(tiles):
        lines.append('      %%t%d = tile.read %%r%d[%%slot] : memref<%dx64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x64xbf16>' % (i, i, stages))
        for j in range(asserts):
            lines.append('      %%f%d_%d = tag.field %%t%d["X%d", 1] : tensor<64x64xbf16>' % (i, j, i, i))
            lines.append('      tag.assert eq %%f%d_%d, %%k, "tile %d holds block k" : index' % (i, j, i))
        lines.append('      %%d%d = tile.dot %%t%d, %%t%d, %s : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>' % (i, i, i, prev))
        prev = "%%d%d" % i
    lines += ['      schedule.yield %s : tensor<64x64xf32>' % prev,
              '    } : tensor<64x64xf32>', '    scf.yield %next : tensor<64x64xf32>', '  }',
              '  tile.store %acc, %Y[%pm, %c0] : tensor<64x64xf32> -> memref<?x?xf32>',
              '  tile.return', '}']
    return "\n".join(lines) + "\n"


rows = []
print("| kernel | verify wall ms | Z3 ms | queries | assertions | oracle run ms (one size) | verify / oracle |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
def row(name, path):
    wall, z3ms, q, a, orc = measure(path)
    line = "| %s | %.0f | %.0f | %d | %d | %.0f | %.2f |" % (name, wall, z3ms, q, a, orc, wall / orc)
    print(line, flush=True)
    rows.append(line)

for f in sorted(os.listdir(examples)):
    if f.endswith(".mlir"):
        row("examples/" + f, os.path.join(examples, f))
with tempfile.TemporaryDirectory() as d:
    for stages in (2, 3, 4, 6, 8):
        p = os.path.join(d, "s%d.mlir" % stages)
        open(p, "w").write(pipeline(stages, 1, 1))
        row("pipeline stages=%d tiles=1 asserts=1" % stages, p)
    for tiles in (1, 2, 4, 8):
        p = os.path.join(d, "t%d.mlir" % tiles)
        open(p, "w").write(pipeline(4, tiles, 1))
        row("pipeline stages=4 tiles=%d asserts=1" % tiles, p)
    for asserts in (1, 2, 4, 8):
        p = os.path.join(d, "a%d.mlir" % asserts)
        open(p, "w").write(pipeline(4, 1, asserts))
        row("pipeline stages=4 tiles=1 asserts=%d" % asserts, p)

if out_path:
    with open(out_path, "w") as f:
        f.write("# Tag verification time (bench/verify/run.py), %s, %d cores\n\n" %
                (time.strftime("%Y-%m-%d"), os.cpu_count()))
        f.write("Median of 3 runs. Wall: the whole tiletag-opt process (parse, verify, print).\n")
        f.write("Oracle: tiletag-run executing the kernel once at its default size.\n\n")
        f.write("| kernel | verify wall ms | Z3 ms | queries | assertions | oracle run ms (one size) | verify / oracle |\n")
        f.write("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
        f.write("\n".join(rows) + "\n")
