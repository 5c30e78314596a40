#!/usr/bin/env python3
"""Differential testing: for each seed of a range, generate a random program
(scripts/sysy_gen.py) and run it through the IR interpreter at -O0 and -O2, under qemu-arm
at -O0, -O1, -O2 and -O3 (a level whose assembly is byte-identical to one already run is not
run again), and as the reference, built by arm-linux-gnueabihf-g++ -O0 -fwrapv -frounding-math
-ffp-contract=off; every result must equal the reference's. A mismatch is saved under
target/difftest/failures/seed-N (program, input, every output), then bisected to the first
pass execution that breaks it (`compiler --bisect-oracle`) and reduced (scripts/reduce.py);
the reduced program goes to testcases/regressions/ with its expected output.

    scripts/difftest.py [--seeds A:B] [--jobs N] [--no-reduce]
"""

import argparse
import concurrent.futures
import shlex
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import harness
import reference
import sysy_gen

ROOT = harness.BUILD / "difftest"
FAILURES = harness.ROOT / "target" / "difftest" / "failures"
REGRESSIONS = harness.ROOT / "testcases" / "regressions"
RUN_TIMEOUT = 10
REFERENCE_FLAGS = reference.EXACT_FLAGS
# Unoptimised, so the reference does not depend on g++'s optimisers: g++ 12.2's induction
# variable optimisation miscompiles some generated loops for ARM at -O1 and above (seed 3060;
# right with -fno-ivopts and on x86).
REFERENCE_OPT = "-O0"
# Reduction must not make the program undefined; g++ rejects the usual ways it could.
STRICT_FLAGS = (*REFERENCE_FLAGS, "-Werror=return-type", "-Werror=uninitialized",
                "-Werror=maybe-uninitialized")
CONFIGS = ["interp-O0", "interp-O2", "qemu-O0", "qemu-O1", "qemu-O2", "qemu-O3"]


def run(cmd, stdin, timeout=RUN_TIMEOUT):
    """The judge's view of running `cmd`, or None when it timed out or died of a signal."""
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode < 0:
        return None
    return harness.judge_output(r.stdout, r.returncode)


def reference_output(sy, work, runtime, stdin):
    exe, err = reference.build(sy, work, runtime, opt=REFERENCE_OPT, extra=REFERENCE_FLAGS)
    if exe is None:
        return None, err
    out = run([harness.QEMU, str(exe)], stdin)
    return out, "" if out is not None else "the reference timed out"


def our_output(config, sy, work, runtime, stdin, ran=None):
    """Our result in `config`. `ran` maps assembly already run for this program to its
    result, so identical code is run once."""
    kind, level = config.split("-")
    if kind == "interp":
        return run([str(harness.COMPILER), "--run", f"-{level}", str(sy)], stdin)
    asm = work / f"{sy.stem}-{level}.s"
    exe = work / f"{sy.stem}-{level}"
    r = subprocess.run([str(harness.COMPILER), "-S", f"-{level}", "-o", str(asm), str(sy)],
                       capture_output=True)
    if r.returncode != 0:
        return b"compiler failed:\n" + r.stderr
    code = asm.read_bytes()
    if ran is not None and code in ran:
        return ran[code]
    r = subprocess.run([harness.CROSS_GCC, *harness.CROSS_FLAGS, "-static", str(asm), str(runtime),
                        "-o", str(exe)], capture_output=True)
    if r.returncode != 0:
        return b"link failed:\n" + r.stderr
    out = run([harness.QEMU, str(exe)], stdin)
    if ran is not None:
        ran[code] = out
    return out


def check_seed(seed, runtime):
    """Runs one seed; returns (seed, mismatching configs, outputs, reference error)."""
    work = ROOT / f"seed-{seed}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    text, stdin = sysy_gen.generate(seed)
    sy = work / "program.sy"
    sy.write_text(text)
    sy.with_suffix(".in").write_text(stdin)
    stdin = stdin.encode()
    expected, err = reference_output(sy, work, runtime, stdin)
    if expected is None:
        return seed, ["reference"], {}, err
    ran = {}
    outputs = {c: our_output(c, sy, work, runtime, stdin, ran) for c in CONFIGS}
    bad = [c for c, out in outputs.items() if out != expected]
    outputs["reference"] = expected
    if not bad:
        shutil.rmtree(work, ignore_errors=True)
    return seed, bad, outputs, ""


def save_failure(seed, bad, outputs, err):
    d = FAILURES / f"seed-{seed}"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(ROOT / f"seed-{seed}", d)
    for config, out in outputs.items():
        (d / f"{config}.out").write_bytes(out if out is not None else b"(timed out)\n")
    if err:
        (d / "reference-error.txt").write_text(err)
    (d / "mismatches.txt").write_text(" ".join(bad) + "\n")
    return d


def oracle_script(d, config, expected_file, runtime):
    """A script judging the bisect folder's program.s (qemu) or program.ir (interpreter)."""
    kind = config.split("-")[0]
    stdin = shlex.quote(str(d / "program.in"))
    q = shlex.quote
    if kind == "qemu":
        body = (f'{q(harness.CROSS_GCC)} {" ".join(harness.CROSS_FLAGS)} -static "$1/program.s" '
                f'{q(str(runtime))} -o "$1/program" || exit 1\n'
                f'timeout {RUN_TIMEOUT} {q(harness.QEMU)} "$1/program" < {stdin} > "$1/stdout"\n')
    else:
        body = (f'timeout {RUN_TIMEOUT} {q(str(harness.COMPILER))} --run "$1/program.ir" < {stdin} '
                f'> "$1/stdout" 2>/dev/null\n')
    script = d / "oracle.sh"
    script.write_text(
        "#!/bin/sh\n" + body +
        'code=$?\n'
        f'python3 {q(str(harness.ROOT / "scripts" / "judge.py"))} "$1/stdout" $code {q(str(expected_file))}\n')
    script.chmod(0o755)
    return script


def bisect(d, config, runtime):
    """Runs the compiler's bisect mode for a failing configuration; returns its report."""
    level = config.split("-")[1]
    if level == "O0":
        return "fails at -O0, where no IR pass runs: the fault is in lowering or the back end\n"
    oracle = oracle_script(d, config, d / "reference.out", runtime)
    r = subprocess.run([str(harness.COMPILER), f"-{level}", "--bisect-oracle", str(oracle),
                        str(d / "program.sy")], capture_output=True, timeout=3600)
    return r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def reduce_failure(d, seed, config, runtime):
    """Reduces the program while `config` still disagrees with the reference; saves the
    result as a regression test. Returns its path."""
    q = shlex.quote
    predicate = d / "predicate.sh"
    predicate.write_text(
        "#!/bin/sh\n"
        f'exec python3 {q(str(Path(__file__).resolve()))} --predicate {config} '
        f'--input {q(str(d / "program.in"))} "$1"\n')
    predicate.chmod(0o755)
    reduced = d / "reduced.sy"
    subprocess.run(["python3", str(harness.ROOT / "scripts" / "reduce.py"), str(d / "program.sy"),
                    str(predicate), "-o", str(reduced)], check=True)
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    target = REGRESSIONS / f"difftest_seed{seed}.sy"
    shutil.copy(reduced, target)
    shutil.copy(d / "program.in", target.with_suffix(".in"))
    expected, _ = reference_output(target, d / "final", runtime, target.with_suffix(".in").read_bytes())
    target.with_suffix(".out").write_bytes(expected)
    return target


def predicate(config, input_file, candidate):
    """Exit 0 when `candidate` still shows the mismatch: it is valid SysY, valid C++ without
    undefined behaviour g++ can see, the reference runs to completion, the interpreter
    without passes agrees with it (unless that is the failing configuration), and `config`
    disagrees with it. The agreement check keeps reduction from drifting to programs whose
    behaviour is simply undefined."""
    work = Path(candidate).parent / "predicate-work"
    work.mkdir(exist_ok=True)
    sy = Path(candidate)
    if subprocess.run([str(harness.COMPILER), "--check", str(sy)], capture_output=True).returncode:
        sys.exit(1)
    runtime = harness.build_runtime()
    stdin = Path(input_file).read_bytes()
    # g++ finds uses of uninitialised variables only when optimising.
    strict, _ = reference.build(sy, work / "strict", runtime, extra=STRICT_FLAGS)
    expected, _ = reference_output(sy, work, runtime, stdin)
    if strict is None or expected is None:
        sys.exit(1)
    if config != "interp-O0" and our_output("interp-O0", sy, work, runtime, stdin) != expected:
        sys.exit(1)
    got = our_output(config, sy, work, runtime, stdin)
    sys.exit(0 if got is not None and got != expected else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:200", help="a range A:B of seeds (default 0:200)")
    ap.add_argument("--jobs", type=int, default=harness.jobs_default())
    ap.add_argument("--no-reduce", action="store_true", help="save and bisect mismatches, do not reduce")
    ap.add_argument("--predicate", help=argparse.SUPPRESS)
    ap.add_argument("--input", help=argparse.SUPPRESS)
    ap.add_argument("candidate", nargs="?", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.predicate:
        predicate(args.predicate, args.input, args.candidate)
    first, last = map(int, args.seeds.split(":"))
    harness.build_compiler()
    runtime = harness.build_runtime()
    start = time.time()
    passed, failed = 0, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(check_seed, s, runtime): s for s in range(first, last)}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            try:
                seed, bad, outputs, err = fut.result()
            except Exception:
                # A fault of the generator or the harness: report it and go on.
                print(f"FAIL seed {futures[fut]}: the run raised\n{traceback.format_exc()}", flush=True)
                failed.append((futures[fut], [], None))
                continue
            if bad:
                d = save_failure(seed, bad, outputs, err)
                failed.append((seed, bad, d))
                print(f"FAIL seed {seed}: {' '.join(bad)} (saved in {d})", flush=True)
            else:
                passed += 1
            if n % 50 == 0 or n == len(futures):
                print(f"[{n}/{len(futures)}] {passed} passed, {len(failed)} failed "
                      f"({time.time() - start:.0f} s)", flush=True)
    for seed, bad, d in failed:
        if d is None:
            continue
        config = next((c for c in bad if c != "reference"), None)
        if config is None:
            print(f"seed {seed}: the reference build failed; see {d}")
            continue
        report = bisect(d, config, runtime)
        (d / "bisect.txt").write_text(report)
        print(f"seed {seed} ({config}): {report.splitlines()[0] if report else 'no bisect report'}")
        if not args.no_reduce:
            target = reduce_failure(d, seed, config, runtime)
            print(f"seed {seed}: reduced to {target} ({target.read_text().count(chr(10))} lines)")
    print(f"{passed} passed, {len(failed)} failed (seeds {first}:{last}, {time.time() - start:.0f} s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
