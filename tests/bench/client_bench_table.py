#!/usr/bin/env python3
"""Turns bench_client's JSON (with repetitions) into the table of
docs/BENCHMARKS.md: medians per op pair, min and max over repetitions,
drops, and the ratios the targets are stated in."""
import json
import sys
from collections import defaultdict


def main(path):
    with open(path) as f:
        data = json.load(f)
    runs = defaultdict(list)
    drops = defaultdict(list)
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"].replace("/real_time", "")
        if "/" not in name:
            name += "/threads:1"
        runs[name].append(b["real_time"])
        if "drops" in b:
            drops[name].append(b["drops"] / max(b["iterations"], 1))

    def med(values):
        v = sorted(values)
        n = len(v)
        return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

    print("| benchmark | median ns/pair | min | max | drops per pair (median) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in sorted(runs):
        v = runs[name]
        d = f"{med(drops[name]):.4f}" if name in drops else "-"
        print(f"| {name} | {med(v):.2f} | {min(v):.2f} | {max(v):.2f} | {d} |")
    print()
    for threads in (1, 2):
        t = f"threads:{threads}"
        try:
            enabled = med(runs[f"BM_OpPair_Enabled/{t}"])
            floor = med(runs[f"BM_FloorRing_Pair/{t}"])
            fprintf = med(runs[f"BM_Fprintf_Pair/{t}"])
            disabled = med(runs[f"BM_OpPair_Disabled/{t}"])
        except KeyError:
            continue
        print(f"{t}: enabled/floor = {enabled / floor:.2f}x (target <= 1.3), "
              f"fprintf/enabled = {fprintf / enabled:.1f}x (target >= 30), "
              f"disabled = {disabled:.2f} ns (target <= 2)")


if __name__ == "__main__":
    main(sys.argv[1])
