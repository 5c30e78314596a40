#!/usr/bin/env python3
"""The performance bench: builds every program of a directory (default: the shared
performance suite) with our compiler at -O2 and with arm-linux-gnueabihf-g++ -O2, runs both
under qemu-arm with the instruction-counting plugin (scripts/qemu-plugin/insn_cost.c),
checks both outputs, and reports per program the status, modelled Cortex-A72 cycles
(scripts/a72.py: each executed block modelled by llvm-mca, times its executions), executed
instructions, the flat weighted cost and qemu wall time, with our ratio to gcc, then the
geometric mean and the median of each ratio. Cycles are the headline.

A program's input is NAME.bench.in (expected output NAME.bench.out) when it has one, as the
programs of our own corpus testcases/bench do (their NAME.in is a small input for the
tests), else NAME.in. Counts cover the timed region (from _sysy_starttime to
_sysy_stoptime) when the program has one, else the whole run. They are exact and
repeatable; wall time is not.

Results: a Markdown table, JSON and an SVG chart of the cycle ratios (and with --html one
page holding both), in target/bench/, or target/bench/filtered/REGEX-LEVEL (e.g. fft-O2)
for a --filter run.

    scripts/bench.py [DIR] [--filter REGEX] [--jobs N] [--timeout S] [--opt O2]
                     [--flags=--disable-pass=schedule] [--out DIR] [--html]

`--flags` passes more options to our compiler, e.g. to measure what a pass does.
"""

import argparse
import concurrent.futures
import html
import json
import math
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import a72
import harness
import reference

PLUGIN_SRC = harness.ROOT / "scripts" / "qemu-plugin" / "insn_cost.c"
OUT_DIR = harness.ROOT / "target" / "bench"


def build_plugin():
    lib = harness.BUILD / "insn_cost.so"
    if not lib.exists() or lib.stat().st_mtime < PLUGIN_SRC.stat().st_mtime:
        harness.BUILD.mkdir(parents=True, exist_ok=True)
        harness.run_checked(["gcc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall",
                             str(PLUGIN_SRC), "-o", str(lib)])
    return lib


def symbol_address(exe, name):
    r = harness.run_checked(["arm-linux-gnueabihf-nm", str(exe)])
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    return None


def bench_io(case):
    """The input file and expected output the bench runs `case` with: NAME.bench.in and
    NAME.bench.out when they exist, else the test's own."""
    full = case.sy.with_suffix(".bench.in")
    if full.exists():
        expected = case.sy.with_suffix(".bench.out")
        return full, expected.read_bytes() if expected.exists() else None
    return case.input, case.expected


def run_counted(exe, stdin, plugin, timeout):
    """Runs `exe` under qemu with the plugin counting instructions and blocks; returns the
    judge's view of the output, the plugin's counts, its blocks file and the wall time, or
    None after `timeout` seconds."""
    counts_file = exe.with_suffix(".counts")
    blocks_file = exe.with_suffix(".blocks")
    args = [f"out={counts_file}", f"blocks={blocks_file}"]
    for key, sym in (("start", "_sysy_starttime"), ("stop", "_sysy_stoptime")):
        addr = symbol_address(exe, sym)
        if addr is not None:
            args.append(f"{key}={addr:#x}")
    cmd = [harness.QEMU, "-plugin", f"{plugin}," + ",".join(args), str(exe)]
    start = time.perf_counter()
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, env={})
    except subprocess.TimeoutExpired:
        return None
    wall = time.perf_counter() - start
    counts = dict(line.split() for line in counts_file.read_text().splitlines())
    counts = {k: int(v) for k, v in counts.items()}
    return harness.judge_output(r.stdout, r.returncode), counts, blocks_file, wall


def measure(exe, case, plugin, timeout, model):
    """Runs `exe` under qemu with the plugin and models its blocks; returns a result dict."""
    stdin_path, expected = bench_io(case)
    stdin = stdin_path.read_bytes() if stdin_path else b""
    run = run_counted(exe, stdin, plugin, timeout)
    if run is None:
        return {"status": "timeout"}
    got, counts, blocks_file, wall = run
    if expected is not None and not harness.same_output(got, expected):
        return {"status": "wrong output", "wall": wall}
    timed = counts["regions"] > 0
    modelled = a72.model(exe, blocks_file, model, timed)
    return {
        "status": "ok",
        "wall": wall,
        "cycles": modelled["cycles"],
        "unmodelled_cycles": modelled["unmodelled"],
        "measured": "region" if timed else "total",
        "insns": counts["region_insns"] if timed else counts["insns"],
        "cost": counts["region_cost"] if timed else counts["cost"],
        "total_insns": counts["insns"],
        "total_cost": counts["cost"],
    }


def run_case(case, opt, runtime, plugin, timeout, compiler, model, flags=(), work_root=None):
    started = time.time()
    work = (work_root or harness.BUILD / "bench") / case.name
    work.mkdir(parents=True, exist_ok=True)
    ours_exe = work / "ours"
    asm = work / "ours.s"
    r = subprocess.run([str(compiler), "-S", f"-{opt}", *flags, "-o", str(asm), str(case.sy)],
                       capture_output=True, timeout=300)
    if r.returncode != 0:
        ours = {"status": "compile error"}
    else:
        harness.link(asm, runtime, ours_exe)
        ours = measure(ours_exe, case, plugin, timeout, model)
    gcc_exe, err = reference.build(case.sy, work, runtime)
    gcc = measure(gcc_exe, case, plugin, timeout, model) if gcc_exe else {"status": "g++ error"}
    result = {"name": case.name, "ours": ours, "gcc": gcc, "seconds": time.time() - started}
    if ours["status"] == "ok" and gcc["status"] == "ok":
        result["ratio"] = {k: ours[k] / max(gcc[k], 1e-9) for k in MEASURES}
    return result


def progress_line(n, total, result, what, elapsed):
    """`[n/total] name: what (its own seconds; the run's elapsed seconds, an estimate of
    what is left from the mean so far)`."""
    left = elapsed / n * (total - n)
    return (f"[{n}/{total}] {result['name']}: {what} ({result['seconds']:.0f} s; "
            f"{elapsed:.0f} s elapsed, about {left:.0f} s left)")


# What each program's ratio is taken of, the headline first.
MEASURES = ("cycles", "insns", "cost", "wall")


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def median(values):
    values = sorted(values)
    if not values:
        return float("nan")
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def summary(results):
    """Geometric mean and median of each ratio over the programs both got right."""
    both = [r["ratio"] for r in results if "ratio" in r]
    means = {k: geomean([r[k] for r in both]) for k in MEASURES}
    means["median"] = {k: median([r[k] for r in both]) for k in MEASURES}
    means["count"] = len(both)
    return means


def summary_line(means):
    """The geometric means and medians of the ratios, in one sentence."""
    m = means["median"]
    return (f"over {means['count']} programs both got right (ours / gcc, geometric mean and "
            f"median): cycles {means['cycles']:.3f} / {m['cycles']:.3f}, instructions "
            f"{means['insns']:.3f} / {m['insns']:.3f}, cost {means['cost']:.3f} / "
            f"{m['cost']:.3f}, qemu time {means['wall']:.3f} / {m['wall']:.3f}")


def markdown(results, means, opt):
    columns = [("cycles", "cycles", "{:,}"), ("insns", "insns", "{:,}"),
               ("cost", "cost", "{:,}"), ("wall", "s", "{:.2f}")]
    header = f"| program | ours -{opt} | gcc -O2 |"
    for _, title, _ in columns:
        header += f" ours {title} | gcc {title} | {title} ratio |"
    lines = [header, "|---|---|---|" + "---:|" * (3 * len(columns))]
    for r in results:
        o, g, ratio = r["ours"], r["gcc"], r.get("ratio")
        row = f"| {r['name']} | {o['status']} | {g['status']} |"
        for key, _, fmt in columns:
            cell = lambda d: fmt.format(d[key]) if key in d else "-"
            row += f" {cell(o)} | {cell(g)} | {ratio[key]:.2f} |" if ratio else f" {cell(o)} | {cell(g)} | - |"
        lines.append(row)
    lines.append("")
    lines.append(f"Ratios {summary_line(means)}; below 1 means we are faster.")
    return "\n".join(lines) + "\n"


# The chart's font size, in px (about 6 px a character), and how far its program names are
# turned clockwise from the horizontal, in degrees.
FONT = 10
SLANT = 60
# How far apart the bars are: the baselines of neighbouring names then lie 1.5 font sizes
# apart, a line of text and a gap, however few or many the bars.
STEP = math.ceil(1.5 * FONT / math.sin(math.radians(SLANT)))
TITLE = "modelled A72 cycles, ours/gcc (log scale; below the line we are faster)"


def svg_chart(results):
    """One bar per program: the cycle ratio on a log scale, with a line at 1.0. The canvas
    grows with the number of programs and the longest name, so that every bar, gridline and
    label (names slanted under their bars) stays on it."""
    rows = [(r["name"], r["ratio"]["cycles"]) for r in results if "ratio" in r]
    longest = max((len(name) for name, _ in rows), default=0)
    label = 6 * longest
    left, top, step, plot_h = 60, 24, STEP, 240
    bottom = int(label * math.sin(math.radians(SLANT))) + 20
    width = max(left + 6 * len(TITLE) + 10,
                left + 5 + step * len(rows) + int(label * math.cos(math.radians(SLANT))) + 20)
    height = top + plot_h + bottom
    if not rows:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"></svg>\n'
    logs = [math.log2(v) for _, v in rows]
    lo, hi = min(math.floor(min(logs)), -1), max(math.ceil(max(logs)), 1)
    y = lambda v: top + (hi - v) / (hi - lo) * plot_h
    right = left + 5 + step * len(rows)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="{FONT}">',
           f'<text x="{left}" y="12">{TITLE}</text>']
    for k in range(lo, hi + 1):
        out.append(f'<line x1="{left}" x2="{right}" y1="{y(k):.1f}" y2="{y(k):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 5}" y="{y(k) + 3:.1f}" text-anchor="end">{2 ** k:.3g}</text>')
    for i, ((name, v), lv) in enumerate(zip(rows, logs)):
        x = left + 5 + i * step
        y0, y1 = sorted((y(0), y(lv)))
        color = "#c0392b" if v > 1 else "#27ae60"
        out.append(f'<rect x="{x}" y="{y0:.1f}" width="10" height="{max(y1 - y0, 0.5):.1f}" fill="{color}">'
                   f'<title>{name}: {v:.2f}</title></rect>')
        base = top + plot_h + 10
        out.append(f'<text x="{x + 5}" y="{base}" transform="rotate({SLANT} {x + 5},{base})">{name}</text>')
    out.append(f'<line x1="{left}" x2="{right}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="black"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def html_page(results, means, opt):
    """One self-contained page: the table of results.md and the chart, inline."""
    md = markdown(results, means, opt).splitlines()
    header, rows, summary = md[0], [l for l in md[2:] if l.startswith("|")], md[-1]
    cells = lambda line: [c.strip() for c in line.strip("|").split("|")]
    th = "".join(f"<th>{html.escape(c)}</th>" for c in cells(header))
    body = "\n".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells(l)) + "</tr>"
                     for l in rows)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bench -{opt}</title>"
            "<style>body{font-family:sans-serif} table{border-collapse:collapse} "
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right} "
            "td:first-child{text-align:left}</style></head><body>\n"
            f"<h1>Performance bench, ours -{opt} against gcc -O2</h1>\n"
            f"<p>{html.escape(summary)}</p>\n{svg_chart(results)}"
            f"<table>\n<tr>{th}</tr>\n{body}\n</table>\n</body></html>\n")


def output_dir(out, filter_regex, opt):
    """Where results go: `--out` if given; else a run over a `--filter` subset goes to a
    folder of its own under target/bench/filtered, named after the filter and our level
    `opt`, so it never overwrites a full run's nor a run of the same filter at another
    level."""
    if out is not None:
        return out
    if filter_regex:
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", filter_regex).strip("_") or "all"
        return OUT_DIR / "filtered" / f"{slug}-{opt}"
    return OUT_DIR


def work_root(out_dir):
    """Where a run into `out_dir` builds and runs its programs: a folder of its own, so that
    runs into different folders can go on at once."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(Path(out_dir).resolve())).strip("_")
    return harness.BUILD / "bench" / slug[-80:]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default=str(harness.SHARED_TESTS / "performance"))
    ap.add_argument("--filter", default="", help="only programs whose name matches this regex")
    ap.add_argument("--jobs", type=int, default=harness.jobs_default())
    ap.add_argument("--timeout", type=float, default=600, help="seconds per qemu run")
    ap.add_argument("--opt", default="O2", help="our optimisation level (default O2)")
    ap.add_argument("--flags", default="", help="more options for our compiler, as one string")
    ap.add_argument("--out", type=Path, help="where the results go (default target/bench, or "
                    "target/bench/filtered/FILTER-OPT with --filter, never over a full run's)")
    ap.add_argument("--html", action="store_true", help="also write results.html: the table "
                    "and the chart on one self-contained page")
    args = ap.parse_args()
    out_dir = output_dir(args.out, args.filter, args.opt)

    harness.build_compiler()
    # A private copy, so that rebuilding during a long run cannot mix two compilers.
    compiler = work_root(out_dir) / "compiler"
    compiler.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(harness.COMPILER, compiler)
    runtime = harness.build_runtime()
    plugin = build_plugin()
    model = a72.Model()
    cases = [c for c in harness.find_cases([args.dir]) if re.search(args.filter, c.name)]
    if not cases:
        harness.fail(f"no programs in {args.dir} match '{args.filter}'")
    start = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_case, c, args.opt, runtime, plugin, args.timeout, compiler,
                               model, shlex.split(args.flags), work_root(out_dir))
                   for c in cases]
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            r = fut.result()
            results.append(r)
            ratio = f"cycle ratio {r['ratio']['cycles']:.2f}" if "ratio" in r else \
                f"ours {r['ours']['status']}, gcc {r['gcc']['status']}"
            print(progress_line(n, len(cases), r, ratio, time.time() - start), flush=True)
    results.sort(key=lambda r: r["name"])
    means = summary(results)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps({"opt": args.opt, "geomean": means, "programs": results}, indent=1))
    (out_dir / "results.md").write_text(markdown(results, means, args.opt))
    (out_dir / "chart.svg").write_text(svg_chart(results))
    if args.html:
        (out_dir / "results.html").write_text(html_page(results, means, args.opt))
    failed = sum(1 for r in results if r["ours"]["status"] != "ok")
    print(f"ratios {summary_line(means)}")
    print(f"{len(results) - failed} of ours correct, {failed} not; results in {out_dir}")


if __name__ == "__main__":
    main()
