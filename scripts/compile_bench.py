#!/usr/bin/env python3
"""Compile-time bench: how long our compiler takes, and how much memory, per program.

Writes the stress programs of scripts/stress_programs.py into WORK/stress (10,000 nested
whiles, 10,000 nested ifs, a 100,000-statement function, 5,000 functions, a 2,000-arm
else-if chain, a 1,000,000-element initialiser, 20,000-term expressions), builds the
compiler (cargo build --release), then compiles each stress program and every .sy of the
chosen shared suites (../shared/sysy-tests/SUITE) with

    target/release/compiler -S -O2 PROGRAM -o WORK/out/SUITE/NAME.s

one at a time (unless --jobs says otherwise), timing the wall clock, and reading the CPU
time (user + system) from wait4 and the compiler's peak resident memory (through
/usr/bin/time when present, else from wait4). It prints per program the wall seconds, CPU
seconds (steadier than wall time on a busy machine), peak MB and status (ok, FAIL with the
compiler's first error line, CRASH on a signal, TIMEOUT), then the ten slowest programs and
each suite's total. With --time-passes, the compiler's
--time-passes report (front end, lowering, each IR pass, each back-end stage, writing the
output) is kept and the slowest programs are broken down by stage, passes summed by name;
what the report does not cover (process start and exit, freeing memory; for a killed
compile, the stage it was in) is shown as "rest".

This is a bench, not a test: it exits 0 unless a compile failed or crashed (a TIMEOUT is
reported but does not fail the run).

    scripts/compile_bench.py                         # stress + functional + performance
    scripts/compile_bench.py --suites performance --time-passes
    scripts/compile_bench.py --suites stress --scale 0.1 --filter 'nested'
"""

import argparse
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import harness
import stress_programs

DEFAULT_SUITES = "stress,functional,performance"
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
TIME_LINE = re.compile(r"^time: (.*): ([0-9.]+) ms$")


@dataclass
class Result:
    suite: str
    name: str
    seconds: float = 0.0
    cpu: float = 0.0
    peak_mb: float = 0.0
    status: str = "ok"
    detail: str = ""
    # (stage, milliseconds) from --time-passes, in the order reported.
    stages: list = field(default_factory=list)


def run_measured(cmd, stderr_path, timeout):
    """Runs cmd; returns (wall seconds, CPU seconds, peak RSS in MB, exit status or -signal,
    timed out). The CPU time counts the child and the children it waited for.

    A child inherits its parent's resident high-water mark when it execs, so wait4 on a
    direct child of this script reports at least this script's own size (~15-25 MB). GNU
    time, forked from a small process, measures the compiler exactly; it is used when
    present, and wait4 on the direct child otherwise."""
    rss_path = stderr_path.with_suffix(".rss")
    wrapped = [GNU_TIME, "-f", "%M", "-o", str(rss_path), *cmd] if GNU_TIME else cmd
    with open(stderr_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
        lock = threading.Lock()
        state = {"exited": False, "timed_out": False}

        def kill():
            with lock:
                if not state["exited"]:
                    state["timed_out"] = True
                    os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        # Wait without reaping first, so that the timer never signals a reaped (and perhaps
        # reused) process group; then reap with wait4 for the child's resource usage.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        seconds = time.perf_counter() - start
        with lock:
            state["exited"] = True
        timer.cancel()
        _, status, usage = os.wait4(proc.pid, 0)
    # Reaped here, so the Popen object must not wait for it again.
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    peak_kb = usage.ru_maxrss
    if GNU_TIME:
        lines = rss_path.read_text().split() if rss_path.exists() else []
        peak_kb = int(lines[-1]) if lines and lines[-1].isdigit() else 0
        # GNU time exits with 128 + the signal that ended the command.
        if code > 128 and "terminated by signal" in " ".join(lines):
            code = 128 - code
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, peak_kb / 1024, code, state["timed_out"]


def compile_one(suite, path, work, args):
    out_dir = work / "out" / suite
    out_dir.mkdir(parents=True, exist_ok=True)
    asm = out_dir / f"{path.stem}.s"
    stderr_path = out_dir / f"{path.stem}.stderr"
    cmd = [str(harness.COMPILER), "-S", f"-{args.opt}", str(path), "-o", str(asm)]
    if args.time_passes:
        cmd.append("--time-passes")
    seconds, cpu, peak, code, timed_out = run_measured(cmd, stderr_path, args.timeout)
    r = Result(suite, path.stem, seconds, cpu, peak)
    text = stderr_path.read_text(errors="replace")
    if timed_out:
        r.status, r.detail = "TIMEOUT", f"killed after {args.timeout:g} s"
    elif code < 0:
        r.status, r.detail = "CRASH", f"signal {signal.Signals(-code).name}"
    elif code != 0:
        first = next((line for line in text.splitlines() if line.strip()), "")
        r.status, r.detail = "FAIL", f"exit {code}: {first}"
    for line in text.splitlines():
        m = TIME_LINE.match(line)
        if m:
            r.stages.append((m.group(1), float(m.group(2))))
    return r


def collect(args, work):
    """(suite, path) of every program to compile, in order."""
    wanted = [s for s in args.suites.split(",") if s]
    pattern = re.compile(args.filter) if args.filter else None
    programs = []
    for suite in wanted:
        if suite == "stress":
            print(f"writing the stress programs (scale {args.scale:g}) to {work / 'stress'}")
            names = [n for n in stress_programs.GENERATORS if not pattern or pattern.search(n)]
            paths = stress_programs.write_all(work / "stress", args.scale, names=names)
        else:
            folder = harness.SHARED_TESTS / suite
            if not folder.is_dir():
                print(f"note: no suite {suite} at {folder}; skipped")
                continue
            paths = sorted(folder.rglob("*.sy"))
        programs += [(suite, p) for p in paths if not pattern or pattern.search(p.stem)]
    return programs


def print_row(r):
    detail = f"  {r.detail}" if r.detail else ""
    # A killed compile has no CPU time or peak reported.
    killed = r.status == "TIMEOUT"
    cpu = f"{'-':>8}" if killed else f"{r.cpu:8.3f}"
    peak = f"{'-':>9}" if killed else f"{r.peak_mb:9.1f}"
    print(f"{r.suite:<15} {r.name:<40} {r.seconds:8.3f} {cpu} {peak}  {r.status}{detail}",
          flush=True)


def header():
    print(f"{'suite':<15} {'program':<40} {'seconds':>8} {'cpu s':>8} {'peak MB':>9}  status")


def stage_breakdown(r, top):
    """Lines describing where a program's compile time went, from --time-passes."""
    by_pass = defaultdict(lambda: [0.0, 0])
    backend = []
    for stage, ms in r.stages:
        m = re.match(r"pass \(\d+\) (.*)", stage)
        if m:
            by_pass[m.group(1)][0] += ms
            by_pass[m.group(1)][1] += 1
        else:
            backend.append((stage, ms))
    covered = sum(ms for _, ms in r.stages)
    rows = [(f"pass {name} (x{n})", ms) for name, (ms, n) in by_pass.items()] + backend
    if r.status == "ok":
        rest = "rest: process start and exit, freeing memory"
    else:
        last = r.stages[-1][0] if r.stages else "the start"
        rest = f"rest, {r.status}: the stage after '{last}'"
    rows.append((rest, r.seconds * 1e3 - covered))
    rows.sort(key=lambda row: -row[1])
    return [f"    {ms:10.1f} ms  {stage}" for stage, ms in rows[:top]]


def report(results, args):
    print()
    print("slowest ten:")
    header()
    for r in sorted(results, key=lambda r: -r.seconds)[:10]:
        print_row(r)
    print()
    print("totals:")
    print(f"{'suite':<15} {'programs':>8} {'seconds':>9} {'cpu s':>9} {'max peak MB':>12}  not ok")
    suites = defaultdict(list)
    for r in results:
        suites[r.suite].append(r)
    for suite, rs in suites.items():
        bad = sum(r.status != "ok" for r in rs)
        print(f"{suite:<15} {len(rs):8} {sum(r.seconds for r in rs):9.2f} "
              f"{sum(r.cpu for r in rs):9.2f} "
              f"{max(r.peak_mb for r in rs):12.1f}  {bad}")
    if "performance" in suites:
        total = sum(r.seconds for r in suites["performance"])
        cpu = sum(r.cpu for r in suites["performance"])
        verdict = "within" if total < 10 else "OVER"
        print(f"performance suite: {total:.2f} s wall ({cpu:.2f} s CPU), {verdict} the 10 s "
              "target")
    if args.time_passes:
        print()
        print(f"where the time goes in the {args.breakdown} slowest programs (--time-passes):")
        for r in sorted(results, key=lambda r: -r.seconds)[:args.breakdown]:
            cpu = "" if r.status == "TIMEOUT" else f", {r.cpu:.3f} s CPU"
            print(f"  {r.suite}/{r.name}: {r.seconds:.3f} s wall{cpu}, {r.status}")
            for line in stage_breakdown(r, args.stages):
                print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=harness.ROOT / "target" / "compile_bench",
                    help="work folder for the stress programs and outputs "
                         "(default target/compile_bench)")
    ap.add_argument("--suites", default=DEFAULT_SUITES,
                    help="comma-separated: 'stress' and/or folders of ../shared/sysy-tests "
                         f"(default {DEFAULT_SUITES})")
    ap.add_argument("--filter", metavar="REGEX",
                    help="only programs whose name matches REGEX")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply the stress programs' sizes by this (default 1.0)")
    ap.add_argument("--opt", default="O2", choices=["O0", "O1", "O2", "O3"],
                    help="optimisation level (default O2)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds before a compile is killed and reported as TIMEOUT "
                         "(default 120)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="compiles run at once (default 1: timings do not interfere)")
    ap.add_argument("--time-passes", action="store_true",
                    help="pass --time-passes to the compiler and break the slowest programs "
                         "down by stage")
    ap.add_argument("--breakdown", type=int, default=5, metavar="N",
                    help="with --time-passes: how many of the slowest programs to break "
                         "down (default 5)")
    ap.add_argument("--stages", type=int, default=8, metavar="N",
                    help="with --time-passes: how many stages to show per program (default 8)")
    args = ap.parse_args()

    print("building the compiler: cargo build --release", flush=True)
    harness.build_compiler()
    programs = collect(args, args.work)
    if not programs:
        harness.fail("no programs to compile")
    print(f"compiling {len(programs)} programs at -{args.opt}, {args.jobs} at a time, "
          f"timeout {args.timeout:g} s")
    header()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(compile_one, suite, path, args.work, args)
                   for suite, path in programs]
        results = []
        for f in futures:
            results.append(f.result())
            print_row(results[-1])
    report(results, args)
    failed = [r for r in results if r.status in ("FAIL", "CRASH")]
    if failed:
        print(f"\n{len(failed)} compile(s) failed:")
        for r in failed:
            print(f"  {r.suite}/{r.name}: {r.status} {r.detail}")
        sys.exit(1)


if __name__ == "__main__":
    main()
