"""False chains of the per-block model: a block that is not a loop is still modelled as a
loop of itself, so a register it reads before writing it, and writes later, carries a value
from one modelled iteration to the next. When every way from the block back to itself
writes that register first (the real program sets it in another block), the chain is not
the program's (a copy does not end it: the value goes on in the copy's destination), and
it is broken: the block's later writes go to a register the block does not use (or, where
the write also reads the old value, as `vmla`'s accumulator or a writeback base does, the
block first sets the register from nothing).

Register reads and writes are read off the instruction text as llvm-objdump prints ARM and
Thumb-2 code; an instruction this does not know (or an indirect branch) leaves every chain
through it as it is.
"""

import re

ALIASES = {"fp": "r11", "ip": "r12", "sl": "r10", "sb": "r9"}
REGISTER = re.compile(r"\b(r1[0-5]|r[0-9]|sp|lr|pc|fp|ip|sl|sb|s[12][0-9]|s3[01]|s[0-9]|d[12][0-9]|d3[01]|d[0-9])\b")
# Instructions that write no register of their operands (flags aside).
NO_WRITE = ("cmp", "cmn", "tst", "teq", "str", "stm", "push", "vstr", "vstm", "vpush", "vcmp",
            "vmsr", "it", "nop", "dmb", "dsb", "isb", "svc", "pld", "cbz", "cbnz")
# Instructions whose written register also gives its old value.
TIED = ("movt", "vmla", "vmls", "vfma", "vfms", "vnmla", "vnmls", "bfi", "bfc", "smlal", "umlal")
# Instructions writing their first two operands.
TWO_WRITES = ("smull", "umull", "smlal", "umlal", "ldrd", "ldrexd")
BRANCH = re.compile(r"^(b|bl|blx|bx)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.w|\.n)?$")
# Registers a call may change (AAPCS caller-saved).
CALL_CLOBBERS = {f"r{k}" for k in (0, 1, 2, 3, 12)} | {"lr"} | {f"s{k}" for k in range(16)}


def registers(text):
    """The registers an operand text names, aliases resolved, d registers as their halves."""
    out = []
    for r in REGISTER.findall(text):
        r = ALIASES.get(r, r)
        if r.startswith("d"):
            k = int(r[1:])
            out += [f"s{2 * k}", f"s{2 * k + 1}"] if k < 16 else [r]
        else:
            out.append(r)
    return out


def split(text):
    """Mnemonic and operand text, comments dropped."""
    text = text.split("@")[0].strip()
    mnemonic, _, operands = text.partition("\t")
    return mnemonic.strip(), operands.strip()


def accesses(text):
    """(reads, writes, tied) of one instruction: the registers it reads, those it writes, and
    those of its writes that also read the old value; None for an instruction that leaves
    the block by a way this cannot follow."""
    mnemonic, operands = split(text)
    regs = registers(operands)
    first = registers(operands.split(",")[0]) if operands else []
    writes, tied = set(), set()
    branch = BRANCH.match(mnemonic)
    if branch:
        if branch.group(1) in ("bl", "blx"):
            writes |= CALL_CLOBBERS
        elif branch.group(1) == "bx":
            return None
    elif mnemonic.startswith(("pop", "ldm", "vpop", "vldm")):
        listed = registers(operands[operands.find("{"):]) if "{" in operands else []
        if "pc" in listed and not mnemonic.startswith("pop"):
            return None
        # A return's `pop {..., pc}` ends the function: the registers it restores are
        # written, and nothing of the block runs after it.
        writes |= set(listed) - {"pc"}
        popped = mnemonic.startswith(("pop", "vpop"))
        if popped or "!" in operands.split("{")[0]:
            w = "sp" if popped else first[0]
            writes.add(w)
            tied.add(w)
    elif mnemonic.startswith(("push", "vpush", "stm", "vstm")):
        if mnemonic.startswith(("push", "vpush")) or "!" in operands.split("{")[0]:
            w = "sp" if mnemonic.startswith(("push", "vpush")) else first[0]
            writes.add(w)
            tied.add(w)
    elif mnemonic.startswith(TWO_WRITES):
        two = [r for part in operands.split(",")[:2] for r in registers(part)]
        writes |= set(two)
        if mnemonic.startswith(TIED):
            tied |= set(two)
    elif mnemonic.startswith(NO_WRITE):
        pass
    elif first:
        writes.add(first[0])
        if mnemonic.startswith(TIED):
            tied.add(first[0])
    # A base written back (`[r1], #4`, `[r1, #4]!`).
    m = re.search(r"\[(\w+)[^\]]*\](!|,)", operands)
    if m and mnemonic.startswith(("ldr", "str", "vldr", "vstr")):
        r = ALIASES.get(m.group(1), m.group(1))
        writes.add(r)
        tied.add(r)
    if "pc" in writes:
        return None
    if mnemonic.startswith(NO_WRITE + ("push", "vpush")) or branch:
        reads = set(regs)
    elif mnemonic.startswith(("pop", "ldm", "vpop", "vldm")):
        reads = set(registers(operands.split("{")[0])) | tied
    else:
        # The operands after the written ones are read (and a written one that is tied).
        skip = 2 if mnemonic.startswith(TWO_WRITES) else 1
        reads = {r for part in operands.split(",")[skip:] for r in registers(part)} | tied
        if "[" in operands.split(",")[0]:
            reads |= set(regs)
    return reads, writes, tied


def carried(lines):
    """The registers a block reads before writing them and writes later, with the index of
    each one's first write; None when an instruction is not understood."""
    written, live_in, first_write = set(), set(), {}
    for k, text in enumerate(lines):
        a = accesses(text)
        if a is None:
            return None
        reads, writes, _ = a
        live_in |= reads - written
        for r in writes:
            first_write.setdefault(r, k)
        written |= writes
    return {r: first_write[r] for r in live_in & written}


COPY = re.compile(r"^(mov|vmov|vmov\.f32|vmov\.f64)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?$")


def copy_of(text):
    """(destination, source) of a move from one register to another, else None."""
    mnemonic, operands = split(text)
    parts = [part.strip() for part in operands.split(",")]
    if not COPY.match(mnemonic) or len(parts) != 2:
        return None
    regs = [registers(part) for part in parts]
    if any(len(r) != 1 or r[0] != ALIASES.get(part, part) for r, part in zip(regs, parts)):
        return None
    return regs[0][0], regs[1][0]


def holders(lines, held):
    """The registers that hold, after the block, the value that the registers `held` held
    before it: a copy from a holder makes its destination one, any other write of a holder
    ends it; None when an instruction is not understood. A last instruction that writes `pc`
    (an indirect branch: `ldrls pc, [r1, r3, lsl #2]`) changes no other register, except a
    return's `pop`, after which nothing of the function's registers matters."""
    held = set(held)
    for k, text in enumerate(lines):
        a = accesses(text)
        if a is None and k == len(lines) - 1:
            break
        if a is None:
            return None
        copy = copy_of(text)
        if copy is not None and copy[1] in held:
            held.add(copy[0])
        else:
            held -= a[1]
    return held


def left_in(lines, r):
    """The registers holding, as the block ends, the value its last write of `r` made; for
    a block whose every instruction is understood (`carried` is not None)."""
    last = max((k for k, text in enumerate(lines) if r in accesses(text)[1]), default=None)
    if last is None:
        return {r}
    return holders(lines[last + 1:], {r}) or set()


def rename(lines, r, fresh, at):
    """The block with register `r` written at `at` and read after it as `fresh`."""
    pattern = re.compile(rf"\b{r}\b")
    out = list(lines[:at])
    mnemonic, operands = split(lines[at])
    head, sep, rest = operands.partition(",")
    out.append(f"{mnemonic}\t{pattern.sub(fresh, head)}{sep}{rest}")
    out += [pattern.sub(fresh, line) for line in lines[at + 1:]]
    return out


def rename_in_list(lines, r, fresh, at):
    """The block with `r` written by the register list of instruction `at` and read after
    it as `fresh`, the list sorted again (it must ascend; which register takes which word
    of the stack does not change the timing)."""
    number = lambda reg: {"sp": 13, "lr": 14, "pc": 15}.get(reg) or int(reg[1:])
    mnemonic, operands = split(lines[at])
    head, _, rest = operands.partition("{")
    listed, _, tail = rest.partition("}")
    regs = [fresh if x == r else x for x in registers(listed)]
    out = list(lines[:at])
    out.append(f"{mnemonic}\t{head}{{{', '.join(sorted(regs, key=number))}}}{tail}")
    pattern = re.compile(rf"\b{r}\b")
    out += [pattern.sub(fresh, line) for line in lines[at + 1:]]
    return out


def unused(lines, kind):
    """A register of the kind (`r` or `s`) that no instruction of the block names."""
    named = {r for text in lines for r in registers(split(text)[1])}
    pool = [f"r{k}" for k in range(13)] + ["lr"] if kind == "r" else [f"s{k}" for k in range(32)]
    return next((r for r in pool if r not in named), None)


def break_false_chains(lines, false):
    """The block's text with the chains through the registers `false` broken."""
    lines = list(lines)
    prefix = []
    for r in sorted(false):
        chains = carried(lines)
        # The stack pointer's chain stays: a push or pop writes it back in one cycle.
        if chains is None or r not in chains or r == "sp":
            continue
        at = chains[r]
        _, _, tied = accesses(lines[at])
        kind = "s" if r.startswith("s") else "r"
        fresh = unused(lines + prefix, kind) if r not in ("sp", "pc") else None
        listed = "{" in lines[at]
        if listed and (kind == "s" or fresh == "lr"):
            # A list of float registers is a range, and lr beside pc a list apart.
            fresh = None
        if r not in tied and fresh is not None:
            if listed:
                lines = rename_in_list(lines, r, fresh, at)
            else:
                lines = rename(lines, r, fresh, at)
        elif r.startswith("s"):
            prefix.append(f"vmov.f32\t{r}, #1.000000e+00")
        elif r.startswith("r") or r == "lr":
            prefix.append(f"mov\t{r}, #0")
    return prefix + lines
