#!/usr/bin/env python3
"""Compares two bench results (results.json of scripts/bench.py), e.g. our -O2 against our
-O0: per program the ratio of executed instructions and of weighted cost (second / first),
and their geometric means over programs both runs got right.

    scripts/bench_compare.py target/bench-O0/results.json target/bench-O2/results.json
"""

import json
import math
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    first, second = (json.load(open(p)) for p in sys.argv[1:])
    a = {r["name"]: r["ours"] for r in first["programs"]}
    b = {r["name"]: r["ours"] for r in second["programs"]}
    ratios = []
    print(f"| program | insns {first['opt']} | insns {second['opt']} | insns ratio | cost ratio |")
    print("|---|---:|---:|---:|---:|")
    for name in sorted(a.keys() & b.keys()):
        x, y = a[name], b[name]
        if x["status"] != "ok" or y["status"] != "ok":
            print(f"| {name} | {x['status']} | {y['status']} | - | - |")
            continue
        ri, rc = y["insns"] / x["insns"], y["cost"] / x["cost"]
        ratios.append((ri, rc))
        print(f"| {name} | {x['insns']:,} | {y['insns']:,} | {ri:.3f} | {rc:.3f} |")
    if ratios:
        gi = math.exp(sum(math.log(r[0]) for r in ratios) / len(ratios))
        gc = math.exp(sum(math.log(r[1]) for r in ratios) / len(ratios))
        print(f"\nGeometric means over {len(ratios)} programs ({second['opt']} / {first['opt']}): "
              f"instructions {gi:.3f}, cost {gc:.3f}")


if __name__ == "__main__":
    main()
