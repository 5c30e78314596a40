#!/usr/bin/env python3
"""Compiles one SysY program, links it with the runtime library and runs it under qemu-arm,
showing its output and exit code (and whether it matches the .out beside it, if any).

    scripts/run.py [-O2] [--input FILE] PROGRAM.sy
"""

import argparse
import subprocess
import sys
from pathlib import Path

import harness


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", type=Path)
    ap.add_argument("-O", dest="opt", default="2", help="optimisation level (default 2)")
    ap.add_argument("--input", type=Path, help="stdin for the program (default: PROGRAM.in if present)")
    ap.add_argument("--keep", action="store_true", help="print where the .s and executable are")
    args = ap.parse_args()
    harness.build_compiler()
    runtime = harness.build_runtime()
    work = harness.BUILD / "run"
    work.mkdir(parents=True, exist_ok=True)
    asm = work / (args.program.stem + ".s")
    exe = work / args.program.stem
    r = subprocess.run([str(harness.COMPILER), "-S", f"-O{args.opt}", "-o", str(asm), str(args.program)])
    if r.returncode != 0:
        sys.exit(r.returncode)
    harness.run_checked([harness.CROSS_GCC, *harness.CROSS_FLAGS, "-static", str(asm), str(runtime),
                         "-o", str(exe)])
    stdin_path = args.input or (args.program.with_suffix(".in") if args.program.with_suffix(".in").exists() else None)
    stdin = stdin_path.read_bytes() if stdin_path else b""
    r = subprocess.run([harness.QEMU, str(exe)], input=stdin, capture_output=True)
    sys.stdout.buffer.write(r.stdout)
    if r.stdout and not r.stdout.endswith(b"\n"):
        print()
    sys.stdout.flush()
    sys.stderr.buffer.write(r.stderr)
    sys.stderr.flush()
    print(f"[exit code {r.returncode}]")
    expected = args.program.with_suffix(".out")
    if expected.exists():
        same = harness.same_output(harness.judge_output(r.stdout, r.returncode), expected.read_bytes())
        print(f"[{'matches' if same else 'DIFFERS FROM'} {expected}]")
    if args.keep:
        print(f"[assembly {asm}, executable {exe}]")


if __name__ == "__main__":
    main()
