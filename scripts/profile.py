#!/usr/bin/env python3
"""The hot-block profile of one program: where its modelled Cortex-A72 cycles go, ours and
gcc -O2's side by side (the bench's measurement, scripts/a72.py, block by block).

Builds the program with our compiler and with arm-linux-gnueabihf-g++ -O2, runs both under
qemu-arm with the plugin counting each translated block, models each block with llvm-mca,
and prints the blocks that take the most cycles (over the timed region when the program has
one): function and offset, executions, cycles per execution and share of the total, then
each block's assembly. For ours, a block also names the IR block it came from: `bbN` as
`--print-after=split-critical-edges` numbers the function's blocks (the emitted label
`.Lf_N` is that block's).

    scripts/profile.py PROGRAM.sy [--top N] [--opt O2] [--input FILE] [--timeout S]
    scripts/profile.py PROGRAM.sy --against "COMPILER [FLAGS]" [--top N] ...

The input is PROGRAM.bench.in when it exists (our corpus's full input), else PROGRAM.in,
unless --input says otherwise.

With --against, the other side is not gcc but another build of ours, or ours with other
flags (`--against "target/release/compiler --disable-pass unfold-shifts"`): the two are
matched by IR block (function and `bbN`, or the function alone outside our code's labels),
and the table lists the blocks whose cycles differ most, then the assembly each side runs
for them. This is how to find what a change made slower, block by block.
"""

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import a72
import bench
import harness
import reference


def ir_blocks(asm):
    """For each function of our assembly, the IR block (`bbN`) of each instruction, in
    order: the number of the last `.Lf_N:` label before it."""
    blocks, current, block = {}, None, None
    for line in Path(asm).read_text().splitlines():
        label = re.fullmatch(r"([A-Za-z_.$][\w.$]*):", line.strip())
        if label:
            name = label.group(1)
            m = re.fullmatch(r"\.L\d+_(\d+)", name)
            if m:
                block = f"bb{m.group(1)}"
            elif not name.startswith("."):
                current, block = name, None
                blocks[current] = []
            continue
        text = line.strip()
        if current is None or not text or text.startswith((".", "@")):
            continue
        blocks[current].append(block)
    return blocks


def profile(exe, stdin, plugin, timeout, model, asm=None):
    """The modelled run of `exe`: its blocks (hottest first) and total cycles, each block with
    its function, offset and, given our assembly `asm`, its IR block."""
    run = bench.run_counted(exe, stdin, plugin, timeout)
    if run is None:
        harness.fail(f"{exe} ran longer than {timeout} s")
    _, counts, blocks_file, _ = run
    timed = counts["regions"] > 0
    modelled = a72.model(exe, blocks_file, model, timed)
    per_function = ir_blocks(asm) if asm else {}
    rows = []
    for b in modelled["blocks"]:
        executions = b.region if timed else b.executions
        function, offset = modelled["binary"].function(b.vaddr)
        sources = per_function.get(function, [])
        index = offset // 4
        source = sources[index] if b.mode == "arm" and index < len(sources) else None
        rows.append({"block": b, "executions": executions, "cycles": executions * b.cycles,
                     "where": f"{function}+{offset:#x}", "ir": source})
    rows.sort(key=lambda r: (-r["cycles"], r["block"].vaddr))
    return {"rows": rows, "cycles": modelled["cycles"], "timed": timed,
            "unmodelled": modelled["unmodelled"]}


def describe(row, total):
    share = 100 * row["cycles"] / total if total else 0.0
    where = row["where"] + (f" ({row['ir']})" if row["ir"] else "")
    return (where, f"{row['executions']:,}", f"{row['block'].cycles:.2f}", f"{share:.1f}%")


def report(name, ours, gcc, top):
    """The side-by-side table and each hot block's assembly, as text."""
    lines = [f"{name}: modelled A72 cycles over the {'timed region' if ours['timed'] else 'whole run'}: "
             f"ours {ours['cycles']:,}, gcc {gcc['cycles']:,}, ours/gcc "
             f"{ours['cycles'] / max(gcc['cycles'], 1):.3f}"]
    for side, p in (("ours", ours), ("gcc", gcc)):
        if p["unmodelled"]:
            lines.append(f"({side}: {p['unmodelled']:,} cycles in blocks llvm-mca could not "
                         f"model, counted at one cycle per instruction)")
    lines.append("")
    header = ("block", "executions", "cyc/exec", "share")
    table = [header + header]
    for k in range(top):
        left = describe(ours["rows"][k], ours["cycles"]) if k < len(ours["rows"]) else ("",) * 4
        right = describe(gcc["rows"][k], gcc["cycles"]) if k < len(gcc["rows"]) else ("",) * 4
        table.append(left + right)
    widths = [max(len(r[c]) for r in table) for c in range(8)]
    for n, r in enumerate(table):
        cells = [r[c].ljust(widths[c]) if c in (0, 4) else r[c].rjust(widths[c]) for c in range(8)]
        rank = "#" if n == 0 else str(n)
        lines.append(f"{rank:>3}  {'  '.join(cells[:4])}  |  {'  '.join(cells[4:])}")
    for side, p in (("ours", ours), ("gcc -O2", gcc)):
        lines.append("")
        lines.append(f"== {side}: the {min(top, len(p['rows']))} hottest blocks")
        for n, row in enumerate(p["rows"][:top], 1):
            where, executions, per, share = describe(row, p["cycles"])
            lines.append(f"#{n} {where}: {executions} executions x {per} cycles = "
                         f"{row['cycles']:,.0f} ({share}), {row['block'].mode}")
            text = row["block"].text or ["(not disassembled)"]
            lines += [f"    {t.split('@')[0].strip()}" for t in text]
    return "\n".join(lines) + "\n"


def by_ir_block(p):
    """The cycles of a profile summed per IR block (function, `bbN` or None), with the
    blocks of each, hottest first."""
    totals, rows = {}, {}
    for row in p["rows"]:
        key = (row["where"].split("+")[0], row["ir"])
        totals[key] = totals.get(key, 0) + row["cycles"]
        rows.setdefault(key, []).append(row)
    return totals, rows


def compare(name, ours, other, top):
    """Ours against another build of ours, IR block by IR block, as text: the `top` blocks
    whose cycles differ most, then the assembly of each side for them."""
    mine, my_rows = by_ir_block(ours)
    theirs, their_rows = by_ir_block(other)
    keys = sorted(set(mine) | set(theirs),
                  key=lambda k: (-abs(mine.get(k, 0) - theirs.get(k, 0)), str(k)))
    keys = [k for k in keys if mine.get(k, 0) != theirs.get(k, 0)][:top]
    lines = [f"{name}: modelled A72 cycles over the {'timed region' if ours['timed'] else 'whole run'}: "
             f"ours {ours['cycles']:,}, against {other['cycles']:,}, ours/against "
             f"{ours['cycles'] / max(other['cycles'], 1):.3f}", ""]
    for n, key in enumerate(keys, 1):
        a, b = mine.get(key, 0), theirs.get(key, 0)
        where = key[0] + (f" ({key[1]})" if key[1] else "")
        lines.append(f"{n:>3}  {where}  ours {a:,.0f}  against {b:,.0f}  ({a - b:+,.0f})")
    for n, key in enumerate(keys, 1):
        for side, rows in (("ours", my_rows), ("against", their_rows)):
            lines.append("")
            lines.append(f"== #{n} {side}")
            for row in rows.get(key, []):
                lines.append(f"{row['where']}: {row['executions']:,} executions x "
                             f"{row['block'].cycles:.2f} cycles")
                lines += [f"    {t.split('@')[0].strip()}" for t in row["block"].text or []]
    return "\n".join(lines) + "\n"


def build_ours(command, case, opt, work, runtime):
    """Our compiler (`command`, a program and its flags) on `case`, linked: the assembly and
    the executable."""
    work.mkdir(parents=True, exist_ok=True)
    asm, exe = work / "ours.s", work / "ours"
    r = subprocess.run([*command, "-S", f"-{opt}", "-o", str(asm), str(case.sy)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        harness.fail(f"{' '.join(command)} failed:\n{r.stderr}")
    harness.link(asm, runtime, exe)
    return asm, exe


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", type=Path)
    ap.add_argument("--top", type=int, default=10, help="how many blocks each side (default 10)")
    ap.add_argument("--opt", default="O2", help="our optimisation level (default O2)")
    ap.add_argument("--input", type=Path, help="standard input (default PROGRAM.bench.in or PROGRAM.in)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per qemu run")
    ap.add_argument("--against", metavar="COMMAND",
                    help="compare with this compiler command line (another build of ours, or "
                         "ours with other flags) block by block, instead of with gcc")
    args = ap.parse_args()
    if not args.program.exists():
        harness.fail(f"{args.program} does not exist")
    harness.build_compiler()
    runtime = harness.build_runtime()
    plugin = bench.build_plugin()
    model = a72.Model()
    case = harness.Case(args.program)
    stdin_path = args.input or bench.bench_io(case)[0]
    stdin = stdin_path.read_bytes() if stdin_path else b""
    work = harness.BUILD / "profile" / case.name
    asm, ours_exe = build_ours([str(harness.COMPILER)], case, args.opt, work, runtime)
    ours = profile(ours_exe, stdin, plugin, args.timeout, model, asm)
    if args.against:
        other_asm, other_exe = build_ours(shlex.split(args.against), case, args.opt,
                                          work / "against", runtime)
        other = profile(other_exe, stdin, plugin, args.timeout, model, other_asm)
        sys.stdout.write(compare(case.name, ours, other, args.top))
        return
    gcc_exe, err = reference.build(case.sy, work, runtime)
    if gcc_exe is None:
        harness.fail(f"g++ failed:\n{err}")
    gcc = profile(gcc_exe, stdin, plugin, args.timeout, model)
    sys.stdout.write(report(case.name, ours, gcc, args.top))


if __name__ == "__main__":
    main()
