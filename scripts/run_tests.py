#!/usr/bin/env python3
"""The test runner: compiles every .sy under the given paths with our compiler, links it
with the runtime library, runs it under qemu-arm with its .in as stdin, and compares with
its .out. Runs in parallel, shows progress, ends with `N passed, N failed`.

    scripts/run_tests.py [--opt O0,O2] [--jobs N] [--timeout S] PATH...
"""

import argparse
import concurrent.futures
import sys
import time
from pathlib import Path

import harness


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help=".sy files or directories holding them")
    ap.add_argument("--opt", default="O2", help="comma-separated levels, e.g. O0,O2 (default O2)")
    ap.add_argument("--jobs", type=int, default=harness.jobs_default())
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run under qemu")
    ap.add_argument("--no-build", action="store_true", help="use the existing release build")
    ap.add_argument("--check-symbols", action="store_true",
                    help="also check each program references only the runtime, memset and memcpy")
    args = ap.parse_args()

    if not args.no_build:
        harness.build_compiler()
    runtime = harness.build_runtime()
    cases = harness.find_cases(args.paths)
    if not cases:
        harness.fail(f"no test cases under {' '.join(args.paths)}")
    levels = [o.strip() for o in args.opt.split(",") if o.strip()]
    jobs = [(case, opt) for opt in levels for case in cases]
    work_root = harness.BUILD / "runs"

    def one(job):
        case, opt = job
        work = work_root / opt / case.sy.parent.name
        outcome = harness.compile_and_run(case, work, opt, runtime, args.timeout)
        if outcome.ok and args.check_symbols:
            extra = harness.undefined_symbols(work / f"{case.name}.s") - harness.RUNTIME_SYMBOLS
            if extra:
                outcome = harness.Outcome(False, "symbols", f"references {sorted(extra)}")
        return case, opt, outcome

    passed = failed = 0
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for n, (case, opt, outcome) in enumerate(pool.map(one, jobs), 1):
            if outcome.ok:
                passed += 1
            else:
                failed += 1
                print(f"\rFAIL [{opt}] {case.sy} ({outcome.stage}) {outcome.detail.strip()[:500]}")
            if sys.stdout.isatty():
                print(f"\r[{n}/{len(jobs)}] {passed} passed, {failed} failed", end="", flush=True)
            elif n % 50 == 0:
                print(f"[{n}/{len(jobs)}] {passed} passed, {failed} failed", flush=True)
    if sys.stdout.isatty():
        print()
    print(f"{passed} passed, {failed} failed ({time.time() - start:.0f} s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
