#!/usr/bin/env python3
"""Warp-specialized GEMM schedules at every ring depth and consumer count,
each proved correct and each with a bug the checkers must reject.

Kinds (one producer warpgroup issuing TMA copies into a ring of DEPTH slots,
CONSUMERS consumer warpgroups issuing wgmma on 64x128 output blocks):
  cooperative  the consumers share each slot's B tile and split the rows of
               one output tile; one empty mbarrier expects CONSUMERS arrivals
  pingpong     the consumers take turns on whole output tiles of one
               program, each waiting only for the phases of its own tile;
               the ring runs on across the tiles, so each consumer's last
               slot is released by its epilogue (the final arrive), and
               each consumer starts its K loop once the one before has
               ended its own (an order mbarrier): a parity test cannot tell
               the phase it waits for from the one two before
  pingpong-named  pingpong, ordered by named (hardware) barriers instead:
               consumer c arrives on order[c] (bar.arrive) when its K loop
               ends, and consumer c + 1 syncs on it (bar.sync)
  splitk       cooperative, with grid dimension 2 splitting the K blocks
               and the splits' partial sums added into C (`combine add`)
  tmastore     cooperative, each consumer storing its block by TMA: its
               accumulator written to its own shared buffer, fenced for
               the async proxy, copied to C, the store committed and
               retired (`wait_group tma pending 0`) before the CTA exits

Usage:
  gemm-schedules.py emit KIND DEPTH CONSUMERS [BUG]   print one kernel
  gemm-schedules.py check TILETAG_OPT [--jobs N] [--one]
      verify every kernel and one bug of each (every bug at depth 4 with 2
      consumers; with --one, only those, pingpong-named left out); prints
      one line per kernel, the
      message that reports each bug, and a summary
"""

import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

KINDS = ["cooperative", "pingpong", "pingpong-named", "splitk", "tmastore"]
DEPTHS = [2, 4, 6]
CONSUMERS = [1, 2, 3]

WG = "#gpu.address_space<workgroup>"
EPILOGUE = f"memref<1x64x128xf32, {WG}>"


def ring(depth, rows, cols):
    return f"memref<{depth}x{rows}x{cols}xbf16, {WG}>"


def reference():
    return """
// The contract: block (i, j) of C, in 64x128 blocks, is the sum over every
// K block k of A(i, k) * B(k, j), in order, from zero.
tile.kernel @reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                       %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 384, N = 256, K = 448], grid = [M ceildiv 64, N ceildiv 128],
                                   shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<64x128xf32> -> memref<?x?xf32>
  tile.return
}
"""


def producer(depth, a_copies, step, indent):
    """The producer's body for ring step `step`: wait for the slot's
    release a ring period ago, announce the bytes, copy."""
    nbytes = 64 * 64 * 2 * len(a_copies) + 64 * 128 * 2
    mb = f"!schedule.mbarrier<{depth}>"
    lines = [
        f'schedule.role "producer" warpgroups [0] {{',
        f"  %reuse = arith.cmpi uge, {step}, %cS : index",
        f"  scf.if %reuse {{",
        f"    %prev_round = arith.subi %round, %c1 : index",
        f"    %prev_parity = arith.remui %prev_round, %c2 : index",
        f"    schedule.mbarrier.wait %empty[%slot], %prev_parity : {mb}, index",
        f"  }}",
        f"  schedule.mbarrier.arrive_expect_tx %full[%slot], {nbytes} : {mb}",
        f"  schedule.async tma arrive %full[%slot] : {mb} {{",
    ]
    for row, buf in a_copies:
        lines.append(f"    tile.copy %A[{row}, %k] -> {buf}[%slot] padding(0.0 : bf16)"
                     f" : memref<?x?xbf16> -> {ring(depth, 64, 64)}")
    lines.append(f"    tile.copy %B[%k, %pn] -> %b_ring[%slot] padding(0.0 : bf16)"
                 f" : memref<?x?xbf16> -> {ring(depth, 64, 128)}")
    lines += ["  }", "}"]
    return "\n".join(indent + l for l in lines)


def mainloop_step(depth, a_buf, acc, step, indent, release_if):
    """A consumer's work on one ring step: wait for the slot, issue the
    wgmma, keep one group in flight and release the previous step's slot."""
    mb = f"!schedule.mbarrier<{depth}>"
    t = "tensor<64x128xf32>"
    lines = [
        f"schedule.mbarrier.wait %full[%slot], %parity : {mb}, index // @await",
        f"%a = tile.read {a_buf}[%slot] : {ring(depth, 64, 64)} -> tensor<64x64xbf16>",
        f"%b = tile.read %b_ring[%slot] : {ring(depth, 64, 128)} -> tensor<64x128xbf16> // @reads-end",
        f"%d = schedule.async wgmma {{",
        f"  %r = tile.dot %a, %b, {acc} : tensor<64x64xbf16>, tensor<64x128xbf16> -> {t}",
        f"  schedule.yield %r : {t}",
        f"}} : {t}",
        f"schedule.commit_group wgmma // @commit",
        f"schedule.wait_group wgmma pending 1 // @depth",
        f"%has_prev = arith.cmpi uge, {release_if}, %c1 : index // @release-begin",
        f"scf.if %has_prev {{",
        f"  %step_prev = arith.subi {step}, %c1 : index",
        f"  %prev_slot = arith.remui %step_prev, %cS : index",
        f"  schedule.mbarrier.arrive %empty[%prev_slot] : {mb} // @release",
        f"}} // @release-end",
    ]
    return "\n".join(indent + l for l in lines)


def prologue(kind, depth, consumers):
    grid_rank = 3 if kind == "splitk" else 2
    tile_rows = 64 * consumers
    sizes = f"M = {2 * tile_rows}, N = 256, K = 448"
    grid = f"M ceildiv {tile_rows}, N ceildiv 128"
    if kind == "splitk":
        sizes += ", Z = 3"
        grid += ", Z"
    empty_count = 1 if kind == "pingpong" else consumers
    lines = [
        f"// {kind} GEMM: ring depth {depth}, {consumers} consumer warpgroup(s).",
        f'tile.kernel @gemm(%A: memref<?x?xbf16> {{tile.name = "A"}}, %B: memref<?x?xbf16> {{tile.name = "B"}},',
        f'                  %C: memref<?x?xf32> {{tile.name = "C"}})',
        f"    grid({grid_rank}) attributes {{",
        f"        tag.contract = @reference,",
        f"        tile.launch = #tile.launch<sizes = [{sizes}], grid = [{grid}],",
        f'                                   shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">,',
        f"        schedule.launch = #schedule.launch<warpgroups = {consumers + 1}>}} {{",
        f"  %c0 = arith.constant 0 : index",
        f"  %c1 = arith.constant 1 : index",
        f"  %c2 = arith.constant 2 : index",
        f"  %c4 = arith.constant 4 : index",
        f"  %c64 = arith.constant 64 : index",
        f"  %cS = arith.constant {depth} : index",
        f"  %cC = arith.constant {consumers} : index",
    ]
    for c in range(consumers):
        lines.append(f"  %w{c} = arith.constant {c} : index")
    lines += [
        f"  %pm = tile.program_id 0",
        f"  %pn = tile.program_id 1",
        f"  %K = memref.dim %A, %c1 : memref<?x?xbf16>",
        f"  %ksteps = arith.ceildivui %K, %c64 : index",
        f"  %rows = arith.muli %pm, %cC : index",
        f"  %b_ring = tile.alloc_shared : {ring(depth, 64, 128)}",
        f"  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<{depth}>",
        f"  %empty = schedule.mbarrier.init count {empty_count} : !schedule.mbarrier<{depth}>",
        f"  %zero = arith.constant dense<0.0> : tensor<64x128xf32>",
    ]
    return lines


def cooperative(kind, depth, consumers):
    t = "tensor<64x128xf32>"
    lines = prologue(kind, depth, consumers)
    for c in range(consumers):
        lines += [f"  %r{c} = arith.addi %rows, %w{c} : index",
                  f"  %a{c}_ring = tile.alloc_shared : {ring(depth, 64, 64)}"]
        if kind == "tmastore":
            lines.append(f"  %epi{c} = tile.alloc_shared : {EPILOGUE}")
    if kind == "splitk":
        # Split z owns K blocks [z * per, (z + 1) * per).
        lines += [
            "  %pz = tile.program_id 2",
            "  %splits = tile.num_programs 2",
            "  %per = arith.ceildivui %ksteps, %splits : index // @split",
            "  %kbegin_raw = arith.muli %pz, %per : index",
            "  %kbegin = arith.minui %kbegin_raw, %ksteps : index",
            "  %kend_raw = arith.addi %kbegin, %per : index",
            "  %kend = arith.minui %kend_raw, %ksteps : index",
        ]
        lo, hi = "%kbegin", "%kend"
    else:
        lo, hi = "%c0", "%ksteps"
    iters = ", ".join(f"%acc{c} = %zero" for c in range(consumers))
    types = ", ".join([t] * consumers)
    lines.append(f"  %acc:{consumers} = scf.for %k = {lo} to {hi} step %c1 iter_args({iters}) -> ({types}) {{")
    step = "%g" if kind == "splitk" else "%k"
    if kind == "splitk":
        lines.append("    %g = arith.subi %k, %kbegin : index")
    lines += [
        f"    %slot = arith.remui {step}, %cS : index",
        f"    %round = arith.divui {step}, %cS : index",
        f"    %parity = arith.remui %round, %c2 : index",
        producer(depth, [(f"%r{c}", f"%a{c}_ring") for c in range(consumers)], step, "    "),
    ]
    for c in range(consumers):
        lines.append(f'    %next{c} = schedule.role "consumer{c}" warpgroups [{c + 1}] {{')
        lines.append(mainloop_step(depth, f"%a{c}_ring", f"%acc{c}", step, "      ", step))
        lines += [f"      schedule.yield %d : {t}", f"    }} : {t}"]
    lines.append("    scf.yield " + ", ".join(f"%next{c}" for c in range(consumers)) + f" : {types}")
    lines.append("  }")
    combine = " combine add" if kind == "splitk" else ""
    for c in range(consumers):
        lines += [
            f'  schedule.role "consumer{c}" warpgroups [{c + 1}] {{',
            f"    schedule.wait_group wgmma pending 0",
        ]
        if kind == "tmastore":
            lines += [
                f"    tile.write %acc#{c}, %epi{c}[%c0] : {t} -> {EPILOGUE}",
                f"    schedule.fence_async_proxy",
                f"    schedule.async tma {{",
                f"      tile.copy %epi{c}[%c0] -> %C[%r{c}, %pn] : {EPILOGUE} -> memref<?x?xf32>",
                f"    }}",
                f"    schedule.commit_group tma // @store-commit",
                f"    schedule.wait_group tma pending 0 // @store-wait",
            ]
        else:
            lines.append(f"    tile.store %acc#{c}, %C[%r{c}, %pn]{combine} : {t} -> memref<?x?xf32>")
        lines.append(f"  }}")
    lines += ["  tile.return", "}"]
    return "\n".join(lines)


def pingpong(depth, consumers, named):
    t = "tensor<64x128xf32>"
    mb = f"!schedule.mbarrier<{depth}>"
    lines = prologue("pingpong", depth, consumers)
    order = f"!schedule.mbarrier<{consumers - 1}>"
    lines.append(f"  %a_ring = tile.alloc_shared : {ring(depth, 64, 64)}")
    # Consumer c computes row block pm * consumers + c in K loop c; the
    # ring's steps run on across the loops (step g = c * ksteps + k).
    if consumers > 1:
        lines.append(f"  %order = schedule.mbarrier.init count 2 named : {order}" if named else
                     f"  %order = schedule.mbarrier.init count 1 : {order}")
    for c in range(consumers):
        if c > 0:
            # Consumer c's K loop comes after consumer c - 1's.
            lines += [
                f'  schedule.role "consumer{c}" warpgroups [{c + 1}] {{',
                f"    schedule.mbarrier.{'sync' if named else 'wait'} %order[%w{c - 1}], %c0 : {order}, index // @order",
                f"  }}",
            ]
        lines += [
            f"  %row{c} = arith.addi %rows, %w{c} : index",
            f"  %base{c} = arith.muli %w{c}, %ksteps : index",
            f"  %acc{c} = scf.for %k = %c0 to %ksteps step %c1 iter_args(%acc_k = %zero) -> ({t}) {{",
            f"    %g = arith.addi %base{c}, %k : index",
            f"    %slot = arith.remui %g, %cS : index",
            f"    %round = arith.divui %g, %cS : index",
            f"    %parity = arith.remui %round, %c2 : index",
            producer(depth, [(f"%row{c}", "%a_ring")], "%g", "    "),
            f'    %next = schedule.role "consumer{c}" warpgroups [{c + 1}] {{',
            # The first step of a tile leaves the previous tile's last slot
            # to that tile's consumer.
            mainloop_step(depth, "%a_ring", "%acc_k", "%g", "      ", "%k"),
            f"      schedule.yield %d : {t}",
            f"    }} : {t}",
            f"    scf.yield %next : {t}",
            f"  }}",
            # The epilogue overlaps the next consumer's K loop.
            f'  schedule.role "consumer{c}" warpgroups [{c + 1}] {{',
        ]
        if c + 1 < consumers:
            lines.append(f"    schedule.mbarrier.arrive %order[%w{c}] : {order}")
        lines += [
            f"    schedule.wait_group wgmma pending 0",
            f"    tile.store %acc{c}, %C[%row{c}, %pn] : {t} -> memref<?x?xf32>",
            f"    // The final arrive: this tile's last slot, for the next tile.",
            f"    %any = arith.cmpi uge, %ksteps, %c1 : index",
            f"    scf.if %any {{",
            f"      %end = arith.addi %base{c}, %ksteps : index",
            f"      %last = arith.subi %end, %c1 : index",
            f"      %last_slot = arith.remui %last, %cS : index",
            f"      schedule.mbarrier.arrive %empty[%last_slot] : {mb} // @final",
            f"    }}",
            f"  }}",
        ]
    lines += ["  tile.return", "}"]
    return "\n".join(lines)


def kernel(kind, depth, consumers):
    body = (pingpong(depth, consumers, kind == "pingpong-named")
            if kind.startswith("pingpong") else cooperative(kind, depth, consumers))
    return body + "\n" + reference()


# Each bug: what it does to the first consumer's code, and the checker's
# message that must report it (other errors may come too).
BUGS = {
    "missing-await": ("the first consumer does not wait for the slot",
                      "read-after-write on %a"),
    "await-moved": ("the first consumer waits after reading the slot",
                    "read-after-write on %a"),
    "missing-arrive": ("the first consumer never releases a slot",
                       "the phase this wait waits for completes"),
    "arrive-moved": ("the first consumer releases before the wgmma retires",
                     "write-after-read on %a"),
    "wait-depth": ("the first consumer keeps two wgmma groups in flight but "
                   "releases the previous step's slot",
                   "write-after-read on %a"),
    "missing-final-arrive": ("the first consumer's epilogue does not release "
                             "its tile's last slot",
                             "the phase this wait waits for completes"),
    "split": ("the K blocks are split by floor division, dropping the "
              "remainder when the launch's split count does not divide them",
              "a term of the reference's sum is never added to C"),
    "missing-order": ("the second consumer starts its K loop without "
                      "waiting for the first one's to end",
                      "the phase before the one this wait on %full"),
    "tma-store-unit": ("the first consumer commits and waits for its TMA "
                       "store on the wgmma unit, which retires nothing of it",
                       "retire this TMA store before the program ends"),
}


def apply_bug(text, bug):
    lines = text.split("\n")
    first = lambda tag: next(i for i, l in enumerate(lines) if l.endswith("// " + tag))
    if bug == "missing-await":
        del lines[first("@await")]
    elif bug == "await-moved":
        i = first("@await")
        wait = lines.pop(i)
        lines.insert(first("@reads-end") + 1, wait)
    elif bug == "missing-arrive":
        del lines[first("@release")]
    elif bug == "arrive-moved":
        b, e = first("@release-begin"), first("@release-end")
        block = lines[b:e + 1]
        del lines[b:e + 1]
        c = first("@commit")
        lines[c:c] = block
    elif bug == "wait-depth":
        i = first("@depth")
        lines[i] = lines[i].replace("pending 1", "pending 2")
    elif bug == "missing-final-arrive":
        del lines[first("@final")]
    elif bug == "missing-order":
        del lines[first("@order")]
    elif bug == "tma-store-unit":
        for tag in ("@store-commit", "@store-wait"):
            i = first(tag)
            lines[i] = lines[i].replace(" tma ", " wgmma ")
    elif bug == "split":
        i = first("@split")
        lines[i] = lines[i].replace("arith.ceildivui", "arith.divui")
    return "\n".join(lines)


def bugs_for(kind, consumers):
    # A final arrive matters where a next tile goes on with the ring.
    return [b for b in BUGS
            if (b not in ("missing-final-arrive", "missing-order") or
                (kind.startswith("pingpong") and consumers > 1))
            and (b != "split" or kind == "splitk")
            and (b != "tma-store-unit" or kind == "tmastore")]


def run(opt, text):
    # From a file: diagnostics name shared buffers by their source names.
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([opt, "--tiletag-verify", f.name, "-o", os.devnull],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    errors = [l.split("error: ", 1)[1] for l in r.stderr.splitlines() if "error: " in l]
    return r.returncode, errors


def check(opt, jobs, only_one):
    work = []
    for kind in KINDS:
        # The named ping-pong differs from the other in its order barrier
        # alone, whose paths named-barrier.mlir runs in the sanitizer build.
        if only_one and kind == "pingpong-named":
            continue
        n = 0
        for depth in DEPTHS:
            for consumers in CONSUMERS:
                if only_one and (depth, consumers) != (4, 2):
                    continue
                bugs = bugs_for(kind, consumers)
                work.append((kind, depth, consumers, None))
                if depth == 4 and consumers == 2:
                    work += [(kind, depth, consumers, b) for b in bugs]
                else:
                    work.append((kind, depth, consumers, bugs[n % len(bugs)]))
                    n += 1

    def one(item):
        kind, depth, consumers, bug = item
        text = kernel(kind, depth, consumers)
        if bug:
            buggy = apply_bug(text, bug)
            assert buggy != text, item
            text = buggy
        return item, run(opt, text)

    failures = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for (kind, depth, consumers, bug), (rc, errors) in pool.map(one, work):
            name = f"{kind} depth={depth} consumers={consumers}"
            if bug is None:
                ok = rc == 0 and not errors
                print(f"{name}: {'verified' if ok else 'NOT VERIFIED: ' + '; '.join(errors[:2])}")
            else:
                reason = next((e for e in errors if BUGS[bug][1] in e), None)
                ok = rc != 0 and reason is not None
                print(f"{name} {bug}: " +
                      (f"rejected: {reason}" if ok else
                       "MISSED" if not errors else f"WRONG REASON: {errors[0]}"))
            failures += not ok
    print(f"gemm schedules: {len(work)} kernels, {failures} unexpected")
    return failures


def main(argv):
    if len(argv) >= 4 and argv[0] == "emit":
        text = kernel(argv[1], int(argv[2]), int(argv[3]))
        print(apply_bug(text, argv[4]) if len(argv) > 4 else text)
        return 0
    if len(argv) >= 2 and argv[0] == "check":
        jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
        return 1 if check(argv[1], jobs, "--one" in argv) else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
