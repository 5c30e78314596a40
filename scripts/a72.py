"""Modelled Cortex-A72 cycles of a program run: the bench's headline measure.

The qemu plugin (scripts/qemu-plugin/insn_cost.c, `blocks=FILE`) counts how often each
translated block runs. Each executed block is disassembled from the binary that ran
(llvm-objdump, which reads the ELF's mapping symbols: our code is A32, gcc's, the runtime's
and libc's mostly Thumb-2), and llvm-mca (LLVM 16, `-mcpu=cortex-a72`) models it as a loop
of itself: its steady-state cycles per execution. A run's cycles are the sum over blocks of
executions times those cycles. All of a program's new blocks go to one llvm-mca run, and
each block's result is cached by its text (target/sysy/a72-cycles.json).

LLVM 16 models the A72 with its Cortex-A57 tables. Where those differ from Arm's Cortex-A72
Software Optimization Guide (UAN 0016A) for instructions our programs run, the block is
modelled with a stand-in of the guide's latency (`OVERRIDES`, listed in the README):

- `sdiv`/`udiv`: 20 cycles in the A57 tables, 4 to 12 on the A72 (M pipeline): four
  dependent `mul`s on the same registers, 12 cycles of latency, the M pipeline busy 4 of them
  (the guide's best throughput, one divide per 4 cycles).
- `vdiv.f32`: 17 cycles in the A57 tables, 6 to 11 on the A72 (F0): a `vmul.f32` and two
  `vabs.f32` on the destination, 5 + 3 + 3 = 11 cycles.
- `vsqrt.f32`: 17 in both, unchanged.
- Load-multiples (`ldm`, `vldm`, `vpop`): llvm-mca takes the registers they load as read
  as well, so `vldmia r0!, {s2}` waits for whatever last wrote `s2`, which the A72 (it
  renames registers) does not. Modelled as one load per register and an `add` for the
  writeback (`load_multiple`).

Calls: llvm-mca gives `bl`/`blx` a latency of 100 cycles ("calls are not modelled"), which
holds up retirement; on the A72 a call is a taken branch that writes `lr`, so it is modelled
as `mov lr, #0` and `b`. A block the model cannot take (an instruction llvm-mca rejects) is
counted at one cycle per instruction and reported.

A block that is not a loop is still modelled as a loop of itself, so a register it reads
first and writes later would chain one modelled execution to the next. Where every way
from the block back to itself, over the blocks that ran, writes that register first (a
copy moves the value on, it does not end it), the chain is not the program's and is broken
before modelling (`a72_chains`); chains the program has (a loop's counter or sum that its
latch block carries) stay. So do only chains a short way back carries: a way back that
issues at least `WORK` times as many instructions as the block counts as writing the
register, since the chain's latency then overlaps that work, which does not wait for it,
and the block costs its issue, not its latency. Modelled as a loop of itself, a hash
updated once per outer round would otherwise cost its latency in one register assignment
and its issue in another (where the value moves through a copy on the way back), for the
same program.
"""

import bisect
import json
import os
import re
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import a72_chains
import harness

LLVM_MCA = "llvm-mca-16"
LLVM_OBJDUMP = "llvm-objdump-16"
LLVM_READELF = "llvm-readelf-16"
ITERATIONS = 100
# The most continuations of a cut block modelled with it.
MAX_JOINED = 4
CACHE = harness.BUILD / "a72-cycles.json"
# Changes whenever the model does (overrides, iterations, stand-ins), invalidating the cache.
MODEL_VERSION = "llvm-mca-16 cortex-a72, iterations 100, overrides 2"

# (instruction pattern, stand-in, A57 table, A72 guide) for the README's list.
OVERRIDES = [
    ("sdiv/udiv", "4 dependent mul", "latency 20, one per 20 cycles", "latency 4-12, one per 4-12 cycles"),
    ("vdiv.f32", "vmul.f32 + 2 vabs.f32", "latency 17, one per 17 cycles", "latency 6-11"),
    ("ldm, vldm, vpop", "a load per register + add", "waits for the loaded registers' last writes",
     "no wait (renamed)"),
]


@dataclass
class Block:
    """One translated block and what the plugin counted of it."""
    vaddr: int
    insns: int
    bytes: int
    executions: int
    region: int
    mode: str = ""
    text: list = field(default_factory=list)
    cycles: float = 0.0
    modelled: bool = True


def read_blocks(path):
    """The plugin's `blocks=FILE` lines."""
    blocks = []
    for line in Path(path).read_text().splitlines():
        vaddr, insns, size, executions, region = line.split()
        blocks.append(Block(int(vaddr, 16), int(insns), int(size), int(executions), int(region)))
    return blocks


class Binary:
    """The instructions of a static ARM executable by address, each with its instruction
    set, and its function symbols."""

    LINE = re.compile(r"^\s*([0-9a-f]+):\s*\t(.*)$")

    def __init__(self, exe):
        dis = harness.run_checked([LLVM_OBJDUMP, "-d", "--no-show-raw-insn", str(exe)]).stdout
        self.addrs, self.texts = [], []
        for line in dis.splitlines():
            m = self.LINE.match(line)
            if m and not m.group(2).startswith("."):
                self.addrs.append(int(m.group(1), 16))
                self.texts.append(m.group(2).strip())
        symbols = harness.run_checked([LLVM_READELF, "-sW", str(exe)]).stdout
        mapping, functions = [], []
        for line in symbols.splitlines():
            parts = line.split()
            if len(parts) < 8 or not parts[0].endswith(":") or not parts[0][:-1].isdigit():
                continue
            value, kind, name = int(parts[1], 16), parts[3], parts[7]
            if name in ("$a", "$t", "$d") or name.startswith(("$a.", "$t.", "$d.")):
                mapping.append((value, name[1]))
            elif kind == "FUNC":
                functions.append((value & ~1, name))
        mapping.sort()
        functions.sort()
        self.mapping_addrs = [a for a, _ in mapping]
        self.mapping_kinds = [k for _, k in mapping]
        self.function_addrs = [a for a, _ in functions]
        self.function_names = [n for _, n in functions]

    def mode(self, addr):
        k = bisect.bisect_right(self.mapping_addrs, addr) - 1
        return {"a": "arm", "t": "thumb"}.get(self.mapping_kinds[k], "data") if k >= 0 else "data"

    def function(self, addr):
        """The function symbol at or before `addr` and `addr`'s offset in it."""
        k = bisect.bisect_right(self.function_addrs, addr) - 1
        if k < 0:
            return "?", addr
        return self.function_names[k], addr - self.function_addrs[k]

    def instructions(self, vaddr, n, size):
        """The `n` instructions from `vaddr` that make a block of `size` bytes, or None when
        the disassembly does not have them so."""
        k = bisect.bisect_left(self.addrs, vaddr)
        if k + n > len(self.addrs) or self.addrs[k] != vaddr:
            return None
        end = self.addrs[k + n] if k + n < len(self.addrs) else None
        if self.addrs[k + n - 1] >= vaddr + size or (end is not None and end < vaddr + size):
            return None
        return self.texts[k:k + n]


TARGET = re.compile(r"(#?-?0x[0-9a-f]+|#-?\d+)?\s*(<[^>]*>)?\s*$")
BRANCHES = re.compile(r"^(b|bl|blx|cbz|cbnz)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w|\.n)?$")


def normalise(text):
    """One instruction as llvm-mca takes it: comments gone, a branch's target a label, and the
    stand-ins for calls and for the overridden instructions (see the module's header)."""
    text = text.split("@")[0].strip()
    mnemonic, _, operands = text.partition("\t")
    mnemonic, operands = mnemonic.strip(), operands.strip()
    m = BRANCHES.match(mnemonic)
    if m:
        base, cond = m.group(1), m.group(2) or ""
        register = re.fullmatch(r"(r\d+|lr|ip|sp|fp|sl|sb)", operands)
        if base in ("bl", "blx"):
            jump = f"bx{cond}\t{operands}" if register else f"b{cond}\t.Lt"
            return [f"mov{cond}\tlr, #0", jump]
        if base in ("cbz", "cbnz"):
            return [f"{base}\t{operands.split(',')[0]}, .Lt"]
        return [f"{mnemonic}\t.Lt"]
    plain = mnemonic.split(".")[0]
    args = [a.strip() for a in operands.split(",")]
    if plain in ("sdiv", "udiv") and len(args) == 3:
        d, n, mm = args
        return [f"mul\t{d}, {n}, {mm}"] + [f"mul\t{d}, {d}, {d}"] * 3
    if mnemonic == "vdiv.f32" and len(args) == 3:
        d, n, mm = args
        return [f"vmul.f32\t{d}, {n}, {mm}", f"vabs.f32\t{d}, {d}", f"vabs.f32\t{d}, {d}"]
    loads = load_multiple(plain, operands)
    if loads is not None:
        return loads
    return [f"{mnemonic}\t{operands}" if operands else mnemonic]


LOAD_MULTIPLE = ("ldm", "ldmia", "vldm", "vldmia")


def load_multiple(mnemonic, operands):
    """The stand-in for a load-multiple (`ldm`, `vldm`, `vpop`, incrementing, without a
    condition): one load per register and the base's writeback as an `add`, or None for any
    other instruction. llvm-mca takes the registers a load-multiple writes as read too, so
    the load would wait for the last write of each; the loads issue as the instruction does,
    one register per cycle on the load pipe."""
    if mnemonic == "vpop":
        base, writeback, listed = "sp", True, operands
    elif mnemonic in LOAD_MULTIPLE:
        head, _, listed = operands.partition(",")
        base, writeback = head.strip().rstrip("!"), head.strip().endswith("!")
    else:
        return None
    registers = []
    for item in listed.strip().strip("{}").split(","):
        first, _, end = item.strip().partition("-")
        m, n = re.fullmatch(r"([rsd])(\d+)", first), re.fullmatch(r"([rsd])(\d+)", end or first)
        if not m or not n or m.group(1) != n.group(1):
            return None
        registers += [f"{m.group(1)}{k}" for k in range(int(m.group(2)), int(n.group(2)) + 1)]
    if not registers or base in registers:
        return None
    lines, offset = [], 0
    for r in registers:
        load = "ldr" if r.startswith("r") else "vldr"
        lines.append(f"{load}\t{r}, [{base}, #{offset}]")
        offset += 8 if r.startswith("d") else 4
    if writeback:
        lines.append(f"add\t{base}, {base}, #{offset}")
    return lines


class Model:
    """Cycles per execution of blocks by their text, from the cache or from llvm-mca."""

    def __init__(self, cache=CACHE):
        self.path = Path(cache)
        self.lock = threading.Lock()
        self.known = self.stored()

    def stored(self):
        """What the cache file holds (another process may have added to it)."""
        try:
            data = json.loads(self.path.read_text())
        except (OSError, json.JSONDecodeError):
            return {}
        return data.get("blocks", {}) if data.get("version") == MODEL_VERSION else {}

    @staticmethod
    def key(mode, lines):
        return mode + "\n" + "\n".join(lines)

    def cycles(self, keys):
        """Cycles per execution for each key (`Model.key`); None for a block llvm-mca cannot
        model. New keys go to one llvm-mca run."""
        with self.lock:
            missing = sorted({k for k in keys if k not in self.known})
            if missing:
                new = run_mca(missing)
                self.known.update(self.stored())
                self.known.update(new)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps({"version": MODEL_VERSION, "blocks": self.known}))
                tmp.replace(self.path)
            return {k: self.known[k] for k in keys}


def run_mca(keys):
    """Models each key's block (mode, then its lines) in one llvm-mca run; a block llvm-mca
    rejects is left out and the run repeated, and gets None."""
    result = {}
    todo = list(keys)
    while todo:
        source, starts = [".syntax unified"], []
        for n, k in enumerate(todo):
            mode, *lines = k.split("\n")
            source.append(f".{mode}")
            starts.append(len(source) + 1)
            source += [f"# LLVM-MCA-BEGIN b{n}", *lines, f"# LLVM-MCA-END b{n}"]
        source.append(".Lt:")
        r = subprocess.run([LLVM_MCA, "-mtriple=armv7a-linux-gnueabihf", "-mcpu=cortex-a72",
                            f"-iterations={ITERATIONS}", "-instruction-info=false",
                            "-resource-pressure=false", "-"],
                           input="\n".join(source) + "\n", capture_output=True, text=True)
        if r.returncode == 0:
            totals = [int(c) for c in re.findall(r"^Total Cycles:\s+(\d+)", r.stdout, re.M)]
            names = [int(n) for n in re.findall(r"^\[\d+\] Code Region - b(\d+)", r.stdout, re.M)]
            if len(totals) == len(names) == len(todo):
                for n, total in zip(names, totals):
                    result[todo[n]] = total / ITERATIONS
                return result
            if len(todo) == 1:
                result[todo[0]] = None
                return result
        bad = rejected(r.stderr, starts)
        if bad is None:
            # An error not tied to a line: model the blocks one at a time.
            for k in todo:
                result.update(run_mca([k]) if len(todo) > 1 else {k: None})
            return result
        result[todo[bad]] = None
        todo.pop(bad)
    return result


def rejected(stderr, starts):
    """The block whose line llvm-mca's first error names, by the blocks' first lines."""
    m = re.search(r"<stdin>:(\d+):\d+: error", stderr)
    if not m:
        return None
    line = int(m.group(1))
    return max(bisect.bisect_right(starts, line) - 1, 0)


ENDS_BLOCK = re.compile(r"^(b|bl|blx|bx|cbz|cbnz|tbb|tbh|svc|udf|bkpt)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w|\.n)?\t")


def ends_block(text):
    """Whether an instruction ends a basic block: a branch, a call, a return or a trap."""
    text = text.split("@")[0].strip() + "\t"
    mnemonic, _, operands = text.partition("\t")
    if ENDS_BLOCK.match(text):
        return True
    writes_pc = re.match(r"^(pop|ldm\w*|ldr\w*|mov\w*|add\w*|sub\w*)$", mnemonic) and (
        "pc" in operands.split(",")[0] or mnemonic.startswith(("pop", "ldm")) and "pc}" in operands)
    return bool(writes_pc)


def continuations(blocks):
    """For each block that qemu cut where no branch is (a page boundary or its size
    limit), the block that continues it; None for the others."""
    at = {(b.vaddr, b.mode): b for b in blocks}
    out = []
    for b in blocks:
        follows = None
        if b.text and not ends_block(b.text[-1]):
            follows = at.get((b.vaddr + b.bytes, b.mode))
        out.append(follows if follows is not None and follows.text else None)
    return out


TARGET_ADDRESS = re.compile(r"0x([0-9a-f]+)")
# How many blocks the search for a way back to a block may visit.
MAX_SEARCH = 400
# How many times as many instructions as a block a way back to it must issue to hide the
# latency of the block's chains (the A72 dispatches three a cycle).
WORK = 3


RETURN = re.compile(r"^(bx\tlr|pop\w*\t\{.*\bpc\}|ldr\w*\tpc, \[sp\], #4)")


def successors(b):
    """The addresses block `b` may go to next (its branch's target, the next instruction when
    the branch may not be taken or is a call); none for a return, which ends what the
    function's registers carry (a later call sets them again before this block reads them);
    None when that is not known (an indirect branch)."""
    if not b.text:
        return None
    last = b.text[-1].split("@")[0].strip()
    if RETURN.match(last):
        return []
    if not ends_block(last):
        return [b.vaddr + b.bytes]
    mnemonic = last.split("\t")[0]
    m = BRANCHES.match(mnemonic)
    target = TARGET_ADDRESS.search(last.split("@")[0])
    if not m or target is None:
        return None
    base, cond = m.group(1), m.group(2)
    out = [int(target.group(1), 16)]
    if base in ("bl", "blx"):
        return [b.vaddr + b.bytes]
    if cond or base in ("cbz", "cbnz"):
        out.append(b.vaddr + b.bytes)
    return out


def false_chains(blocks, texts, last):
    """Per block, the registers it reads first and writes later whose every way back to the
    block, over the blocks that ran, writes them first or issues `WORK` times as many
    instructions as the block: the chains to break.
    A way this cannot follow (an indirect branch, a block it cannot read) keeps the chain.
    `texts[k]` is block `k` joined with its continuations up to block `last[k]`, whose
    branch is where the ways out of the joined text start."""
    at = {}
    for k, b in enumerate(blocks):
        at.setdefault(b.vaddr, k)
    texts_of = [b.text for b in blocks]
    succ = [successors(b) for b in blocks]
    out = []
    for k, text in enumerate(texts):
        leaving = succ[last[k]]
        carried = a72_chains.carried(text) if leaving is not None else None
        broken = set()
        for r in carried or ():
            held = a72_chains.left_in(text, r)
            if not reaches_back(k, leaving, r, held, at, texts_of, succ, WORK * len(text)):
                broken.add(r)
        out.append(broken)
    return out


def reaches_back(k, leaving, r, held, at, texts, succ, work):
    """Whether some way out of block `k` (the addresses `leaving`) comes back to it with the
    value `k` last wrote to `r`, which the registers `held` hold as `k` ends, in `r` again,
    moved through copies or not, issuing fewer than `work` instructions on the way."""
    # The fewest instructions a way found so far issued to reach a block holding the value
    # in a set of registers.
    fewest, todo = {}, [(addr, frozenset(held), 0) for addr in leaving]
    while todo:
        addr, held, issued = todo.pop()
        j = at.get(addr)
        if j is None:
            # No executed block starts there: the way was never taken.
            continue
        if len(fewest) > MAX_SEARCH or j == k and r in held:
            return True
        if j == k or fewest.get((j, held), work) <= issued:
            continue
        fewest[(j, held)] = issued
        # A block this cannot read (a return's `pop {..., pc}`) is taken to keep the value.
        after = a72_chains.holders(texts[j], held)
        after = held if after is None else after
        # A block that overwrites the value ends the way, wherever it goes next (an
        # indirect branch, a jump table's `ldr pc`, included).
        if after and succ[j] is None:
            return True
        issued += len(texts[j])
        if after and issued < work:
            todo += [(a, frozenset(after), issued) for a in succ[j]]
    return False


def model(exe, blocks_file, cache_model, timed):
    """The blocks of one run with their cycles per execution; the run's modelled cycles over
    the timed region (`timed`) or the whole run; and what the model could not take.

    Where qemu cut straight code where no branch is (a page boundary), the block before the
    cut is modelled with its continuation up to the next branch, and the continuation
    alone only for the times it is entered otherwise (by a jump): a loop body cut in two
    costs what it costs whole. A register chain that only the loop-of-itself model makes
    (`a72_chains`) is broken before the block is modelled."""
    binary = Binary(exe)
    blocks = [b for b in read_blocks(blocks_file) if (b.region if timed else b.executions) > 0]
    for b in blocks:
        b.mode = binary.mode(b.vaddr)
        raw = binary.instructions(b.vaddr, b.insns, b.bytes) if b.mode != "data" else None
        b.text = raw or []
    count = lambda b: b.region if timed else b.executions
    follows = continuations(blocks)
    index = {id(b): k for k, b in enumerate(blocks)}
    # Per block, its text up to the next branch, and how often it is entered by falling
    # through from a cut block before it.
    through = [0] * len(blocks)
    texts, last = [], []
    for k, b in enumerate(blocks):
        text, c, depth, end = list(b.text), follows[k], 0, k
        while c is not None and depth < MAX_JOINED:
            if depth == 0:
                through[index[id(c)]] += count(b)
            text += c.text
            end = index[id(c)]
            c, depth = follows[end], depth + 1
        texts.append(text)
        last.append(end)
    broken = false_chains(blocks, texts, last)
    key = lambda b, text: Model.key(b.mode, [line for t in text for line in normalise(t)])
    keys = [key(b, t) if t else None for b, t in zip(blocks, texts)]
    unchained = [key(b, a72_chains.break_false_chains(t, f)) if t and f else None
                 for b, t, f in zip(blocks, texts, broken)]
    known = cache_model.cycles([k for k in keys + unchained if k is not None])
    total = unmodelled = 0.0
    for b, k, u, entered_through in zip(blocks, keys, unchained, through):
        cycles = known.get(u) if u is not None else None
        if cycles is None:
            cycles = known.get(k) if k is not None else None
        if cycles is None:
            b.modelled = False
            cycles = float(b.insns)
        # Entered by falling through, the block was modelled with the one before it.
        share = max(count(b) - entered_through, 0) / count(b)
        b.cycles = cycles * share
        total += count(b) * b.cycles
        if not b.modelled:
            unmodelled += count(b) * b.cycles
    return {"blocks": blocks, "binary": binary, "cycles": round(total),
            "unmodelled": round(unmodelled)}
