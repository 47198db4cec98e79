"""Merges the harness and peer JSON into one Markdown table: per workload and
shape, TileTag's time and TFLOP/s, each peer's, and peer time / TileTag time
(> 1 means TileTag is faster)."""
import json
import os
import sys

tiletag = json.load(open(sys.argv[1]))
peers = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {"rows": []}
print(f"# GPU benchmark: {tiletag['device']}\n")
print("| workload | shape | TileTag ms | TileTag TFLOP/s | rel.err | peer | peer ms | peer TFLOP/s | peer/TileTag |")
print("|---|---|---|---|---|---|---|---|---|")
for r in tiletag["rows"]:
    tflops = r["flops"] / r["tiletag_ms"] / 1e9
    err = "-" if r["rel_err"] is None else f"{r['rel_err']:.1e}"
    # A kernel's row meets the peers of its workload: attention_fa3's
    # those of attention, gemm_wide's those of gemm (bf16); an fp8 kernel's
    # only its own (cuBLASLt, in the same process).
    family = r["workload"] if "fp8" in r["workload"] else r["workload"].split("_")[0]
    same = [p for p in peers["rows"]
            if family == p["workload"] and p["shape"] == r["shape"]]
    if r["peer_ms"] > 0:
        same.insert(0, dict(peer=r["peer"] + " (same process)", ms=r["peer_ms"]))
    if not same:
        print(f"| {r['workload']} | {r['shape']} | {r['tiletag_ms']:.3f} | {tflops:.1f} | {err} | - | - | - | - |")
    for p in same:
        print(f"| {r['workload']} | {r['shape']} | {r['tiletag_ms']:.3f} | {tflops:.1f} | {err} | "
              f"{p['peer']} | {p['ms']:.3f} | {r['flops'] / p['ms'] / 1e9:.1f} | {p['ms'] / r['tiletag_ms']:.2f} |")
