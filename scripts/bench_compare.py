#!/usr/bin/env python3
"""Compares two bench results (results.json of scripts/bench.py), e.g. our -O2 against our
-O0, or a run before a change against one after: per program the ratio of modelled cycles,
executed instructions and weighted cost (second / first), and their geometric means over
the programs both runs got right. Cycles are missing from results written before the bench
modelled them; their column then shows `-`.

    scripts/bench_compare.py target/bench-O0/results.json target/bench-O2/results.json
"""

import json
import math
import sys

MEASURES = ("cycles", "insns", "cost")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    first, second = (json.load(open(p)) for p in sys.argv[1:])
    a = {r["name"]: r["ours"] for r in first["programs"]}
    b = {r["name"]: r["ours"] for r in second["programs"]}
    ratios = {k: [] for k in MEASURES}
    print(f"| program | cycles {first['opt']} | cycles {second['opt']} | cycles ratio "
          f"| insns ratio | cost ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in sorted(a.keys() & b.keys()):
        x, y = a[name], b[name]
        if x["status"] != "ok" or y["status"] != "ok":
            print(f"| {name} | {x['status']} | {y['status']} | - | - | - |")
            continue
        cells = []
        for k in MEASURES:
            if k in x and k in y and x[k] > 0:
                ratios[k].append(y[k] / x[k])
                cells.append(f"{y[k] / x[k]:.3f}")
            else:
                cells.append("-")
        cycles = lambda d: f"{d['cycles']:,}" if "cycles" in d else "-"
        print(f"| {name} | {cycles(x)} | {cycles(y)} | {' | '.join(cells)} |")
    means = [f"{k} {math.exp(sum(map(math.log, v)) / len(v)):.3f}"
             for k, v in ratios.items() if v]
    if means:
        print(f"\nGeometric means ({second['opt']} / {first['opt']}): {', '.join(means)}")


if __name__ == "__main__":
    main()
