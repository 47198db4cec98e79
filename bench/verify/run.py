#!/usr/bin/env python3
"""Verification time of tiletag-opt --tiletag-verify (tags and schedule).

1. Every shipped example: wall time of the whole tiletag-opt run, Z3 time and
   queries of each checker (from the passes' stats remarks).
2. Growth: a generated warp-specialized pipeline (a producer warpgroup issues
   TMA copies into ring buffers behind full/empty mbarriers, consumer
   warpgroups wait, read, run a wgmma, assert the K block and release the
   slot) with stages 2..8, tiles per stage 1..8, assertions per tile 1..8 and
   1..3 consumer warpgroups.
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
    proc = subprocess.run([opt, "--tiletag-verify-tags=stats=1", "--tiletag-verify-schedule=stats=1",
                           path, "-o", os.devnull], capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit("verification failed for %s:\n%s" % (path, proc.stderr))
    tags = [(int(q), float(t)) for q, t in
            re.findall(r"obligations proved with (\d+) Z3 queries in ([0-9.]+) ms", proc.stderr)
            if True]
    tag_lines = [l for l in proc.stderr.splitlines() if "assertions and" in l]
    sched_lines = [l for l in proc.stderr.splitlines() if "schedule obligations" in l]
    def total(lines):
        q = sum(int(x) for l in lines for x in re.findall(r"with (\d+) Z3 queries", l))
        ms = sum(float(x) for l in lines for x in re.findall(r"queries in ([0-9.]+) ms", l))
        return q, ms
    tq, tms = total(tag_lines)
    sq, sms = total(sched_lines)
    return wall, tms, tq, sms, sq

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
    return (median([x[0] for x in v]), median([x[1] for x in v]), v[0][2],
            median([x[3] for x in v]), v[0][4], median(o))


def pipeline(stages, tiles, asserts, consumers=1):
    """A warp-specialized pipeline with `tiles` ring buffers of `stages` slots."""
    ops = ", ".join('%%X%d: memref<?x?xbf16> {tile.name = "X%d"}' % (i, i) for i in range(tiles))
    shapes = ", ".join("X%d = [M, K]" % i for i in range(tiles))
    ring = "memref<%dx64x64xbf16, #gpu.address_space<workgroup>>" % stages
    bar = "!schedule.mbarrier<%d>" % stages
    cons = ", ".join(str(w) for w in range(1, consumers + 1))
    L = ['tile.kernel @pipe(%s, %%Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {' % ops,
         '    tile.launch = #tile.launch<sizes = [M = 256, K = 512], grid = [M ceildiv 64],',
         '                               shapes = [%s, Y = [M, 64]]>,' % shapes,
         '    schedule.launch = #schedule.launch<warpgroups = %d>} {' % (consumers + 1),
         '  %c0 = arith.constant 0 : index', '  %c1 = arith.constant 1 : index',
         '  %c2 = arith.constant 2 : index', '  %%cS = arith.constant %d : index' % stages,
         '  %c64 = arith.constant 64 : index', '  %pm = tile.program_id 0',
         '  %K = memref.dim %X0, %c1 : memref<?x?xbf16>', '  %ks = arith.ceildivui %K, %c64 : index']
    for i in range(tiles):
        L.append('  %%r%d = tile.alloc_shared : %s' % (i, ring))
    L += ['  %%full = schedule.mbarrier.init count 1 : %s' % bar,
          '  %%empty = schedule.mbarrier.init count 1 : %s' % bar,
          '  %zero = arith.constant dense<0.0> : tensor<64x64xf32>',
          '  %acc = scf.for %k = %c0 to %ks step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) {',
          '    %slot = arith.remui %k, %cS : index', '    %round = arith.divui %k, %cS : index',
          '    %parity = arith.remui %round, %c2 : index',
          '    schedule.role "producer" warpgroups [0] {',
          '      %reuse = arith.cmpi uge, %k, %cS : index',
          '      scf.if %reuse {',
          '        %prev = arith.subi %round, %c1 : index',
          '        %pp = arith.remui %prev, %c2 : index',
          '        schedule.mbarrier.wait %%empty[%%slot], %%pp : %s, index' % bar,
          '      }',
          '      schedule.mbarrier.arrive_expect_tx %%full[%%slot], %d : %s' % (8192 * tiles, bar),
          '      schedule.async tma arrive %%full[%%slot] : %s {' % bar]
    for i in range(tiles):
        L.append('        tile.copy %%X%d[%%pm, %%k] -> %%r%d[%%slot] padding(0.0 : bf16) : memref<?x?xbf16> -> %s' % (i, i, ring))
    L += ['      }', '    }',
          '    %%next = schedule.role "consumer" warpgroups [%s] {' % cons,
          '      schedule.mbarrier.wait %%full[%%slot], %%parity : %s, index' % bar]
    prev = "%a"
    for i in range(tiles):
        L.append('      %%t%d = tile.read %%r%d[%%slot] : %s -> tensor<64x64xbf16>' % (i, i, ring))
        for j in range(asserts):
            L.append('      %%f%d_%d = tag.field %%t%d["X%d", 1] : tensor<64x64xbf16>' % (i, j, i, i))
            L.append('      tag.assert eq %%f%d_%d, %%k, "tile %d holds block k" : index' % (i, j, i))
        L += ['      %%d%d = schedule.async wgmma {' % i,
              '        %%x%d = tile.dot %%t%d, %%t%d, %s : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>' % (i, i, i, prev),
              '        schedule.yield %%x%d : tensor<64x64xf32>' % i,
              '      } : tensor<64x64xf32>']
        prev = "%%d%d" % i
    L += ['      schedule.commit_group wgmma', '      schedule.wait_group wgmma pending 0',
          '      schedule.mbarrier.arrive %%empty[%%slot] : %s' % bar,
          '      schedule.yield %s : tensor<64x64xf32>' % prev,
          '    } : tensor<64x64xf32>', '    scf.yield %next : tensor<64x64xf32>', '  }',
          '  tile.store %acc, %Y[%pm, %c0] : tensor<64x64xf32> -> memref<?x?xf32>',
          '  tile.return', '}']
    return "\n".join(L) + "\n"


def exchange(cluster):
    """Programs of a cluster exchange blocks through global memory."""
    return """tile.kernel @exchange(%%X: memref<?xf32> {tile.name = "X"}, %%Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4096], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1, cluster = [%d]>} {
  %%c1 = arith.constant 1 : index
  %%cC = arith.constant %d : index
  %%p = tile.program_id 0
  %%v = arith.constant dense<1.0> : tensor<128xf32>
  tile.store %%v, %%X[%%p] : tensor<128xf32> -> memref<?xf32>
  schedule.barrier cluster
  %%rank = arith.remui %%p, %%cC : index
  %%base = arith.subi %%p, %%rank : index
  %%next = arith.addi %%rank, %%c1 : index
  %%nrank = arith.remui %%next, %%cC : index
  %%q = arith.addi %%base, %%nrank : index
  %%t = tile.load %%X[%%q] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %%t, %%Y[%%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
""" % (cluster, cluster)


HEADER = ("| kernel | verify wall ms | tags: Z3 ms | tags: queries | schedule: Z3 ms "
          "| schedule: queries | oracle run ms (one size) | verify / oracle |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
rows = []
print(HEADER)


def row(name, path):
    wall, tms, tq, sms, sq, orc = measure(path)
    line = "| %s | %.0f | %.0f | %d | %.0f | %d | %.0f | %.2f |" % (
        name, wall, tms, tq, sms, sq, orc, wall / orc)
    print(line, flush=True)
    rows.append(line)


for f in sorted(os.listdir(examples)):
    if f.endswith(".mlir"):
        row("examples/" + f, os.path.join(examples, f))
with tempfile.TemporaryDirectory() as d:
    variants = [("stages=%d" % s, (s, 1, 1, 1)) for s in (2, 3, 4, 6, 8)]
    variants += [("tiles=%d" % t, (4, t, 1, 1)) for t in (2, 4, 8)]
    variants += [("asserts=%d" % a, (4, 1, a, 1)) for a in (2, 4, 8)]
    variants += [("consumer warpgroups=%d" % c, (4, 1, 1, c)) for c in (2, 3)]
    for label, params in variants:
        p = os.path.join(d, "v.mlir")
        open(p, "w").write(pipeline(*params))
        row("pipeline %s (stages %d, tiles %d, asserts %d, consumers %d)" % ((label,) + params), p)
    for cluster in (1, 2, 4, 8, 16):
        p = os.path.join(d, "c.mlir")
        open(p, "w").write(exchange(cluster))
        row("cluster exchange, %d CTAs per cluster" % cluster, p)

if out_path:
    with open(out_path, "w") as f:
        f.write("# Verification time (bench/verify/run.py), %s, %d cores\n\n" %
                (time.strftime("%Y-%m-%d"), os.cpu_count()))
        f.write("Median of 3 runs of tiletag-opt --tiletag-verify-tags --tiletag-verify-schedule.\n")
        f.write("Wall: the whole process (parse, both checkers, print). Oracle: tiletag-run\n")
        f.write("executing the kernel once at its default size, the peer in the same run.\n\n")
        f.write(HEADER + "\n" + "\n".join(rows) + "\n")
