#!/usr/bin/env python3
"""Writes the expected output (.out) of test programs from the reference build (g++ -O2
-fwrapv -frounding-math under qemu-arm), and checks that our IR interpreter agrees, so a new test's expectation
comes from an independent compiler.

    scripts/expect.py [--force] PATH...
"""

import argparse
import subprocess
import sys
from pathlib import Path

import harness
import reference


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--force", action="store_true", help="rewrite existing .out files")
    args = ap.parse_args()
    harness.build_compiler()
    runtime = harness.build_runtime()
    files = []
    for p in map(Path, args.paths):
        files += [p] if p.is_file() else sorted(p.rglob("*.sy"))
    disagreements = 0
    for sy in files:
        out = sy.with_suffix(".out")
        if out.exists() and not args.force:
            continue
        case = harness.Case(sy)
        exe, err = reference.build(sy, harness.BUILD / "expect", runtime, extra=reference.EXACT_FLAGS)
        if exe is None:
            print(f"{sy}: g++ failed:\n{err}")
            disagreements += 1
            continue
        stdin = case.input.read_bytes() if case.input else b""
        r = subprocess.run([harness.QEMU, str(exe)], input=stdin, capture_output=True, timeout=60)
        expected = harness.judge_output(r.stdout, r.returncode)
        i = subprocess.run([str(harness.COMPILER), "--run", str(sy)], input=stdin, capture_output=True,
                           timeout=60)
        interpreted = harness.judge_output(i.stdout, i.returncode)
        if interpreted != expected:
            disagreements += 1
            print(f"{sy}: the interpreter disagrees with g++\n--- g++\n{expected.decode(errors='replace')}"
                  f"--- interpreter\n{interpreted.decode(errors='replace')}")
            continue
        out.write_bytes(expected)
        print(f"wrote {out}")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
