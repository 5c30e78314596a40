#!/usr/bin/env python3
"""Compiles one SysY program, links it with the runtime library and runs it under qemu-arm,
showing its output and exit code (and whether it matches the .out beside it, if any).

    scripts/run.py [-O2] [--input FILE] [--timeout S] PROGRAM.sy

Exit status: 0 when the program ran (whatever its own exit code) and matches its .out, if
any; 1 when the output differs (a short diff of expected and actual is shown); 128 + N when
the program was killed by signal N (139 for a segmentation fault), as the shell reports it;
124 on a timeout; the compiler's status when it fails.
"""

import argparse
import difflib
import signal
import subprocess
import sys
from pathlib import Path

import harness

MISMATCH = 1
TIMED_OUT = 124
DIFF_LINES = 20


def shell_status(returncode):
    """A process's status as the shell reports it: 128 + N for a death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def short_diff(expected, got):
    """The first `DIFF_LINES` lines of a unified diff of the judge's view of both runs."""
    lines = list(difflib.unified_diff(
        expected.decode(errors="replace").splitlines(),
        got.decode(errors="replace").splitlines(),
        "expected", "actual", lineterm="", n=1))
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"... ({len(lines) - DIFF_LINES} more diff lines)"]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", type=Path)
    ap.add_argument("-O", dest="opt", default="2", help="optimisation level (default 2)")
    ap.add_argument("--input", type=Path, help="stdin for the program (default: PROGRAM.in if present)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds the program may run under qemu (default 60)")
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
    harness.link(asm, runtime, exe)
    if args.keep:
        print(f"[assembly {asm}, executable {exe}]")
    stdin_path = args.input or (args.program.with_suffix(".in") if args.program.with_suffix(".in").exists() else None)
    stdin = stdin_path.read_bytes() if stdin_path else b""
    try:
        r = subprocess.run([harness.QEMU, str(exe)], input=stdin, capture_output=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print(f"[timed out after {args.timeout:g} s]")
        sys.exit(TIMED_OUT)
    sys.stdout.buffer.write(r.stdout)
    if r.stdout and not r.stdout.endswith(b"\n"):
        print()
    sys.stdout.flush()
    sys.stderr.buffer.write(r.stderr)
    sys.stderr.flush()
    status = shell_status(r.returncode)
    if r.returncode < 0:
        print(f"[killed by {signal_name(-r.returncode)}: exit status {status}]")
        sys.exit(status)
    print(f"[exit code {status}]")
    expected = args.program.with_suffix(".out")
    if expected.exists():
        got = harness.judge_output(r.stdout, r.returncode)
        want = expected.read_bytes()
        if not harness.same_output(got, want):
            print(f"[DIFFERS FROM {expected}]")
            print(short_diff(want, got))
            sys.exit(MISMATCH)
        print(f"[matches {expected}]")


if __name__ == "__main__":
    main()
