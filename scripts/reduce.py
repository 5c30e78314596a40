#!/usr/bin/env python3
"""Shrinks a SysY program while a predicate stays true (in the manner of C-Reduce).

The predicate is a shell command; it gets the candidate file's path as its last argument
and exits 0 when the candidate is still interesting (still mismatches, still crashes the
compiler, ...). Each step tries, in turn: deleting chunks of lines (halving the chunk size
down to single lines), deleting a whole braced construct (a statement with its block, a
function), unwrapping an if or while (keeping its body, run once), and replacing a
parenthesised expression by 0, by 1 or by one of its operands. A step is kept when the
predicate holds for it; the reducer stops when no single step does.

    scripts/reduce.py PROGRAM.sy PREDICATE [-o OUT.sy]
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path


class Reducer:
    def __init__(self, predicate, suffix=".sy"):
        self.predicate = predicate
        self.dir = Path(tempfile.mkdtemp(prefix="sysy-reduce-"))
        self.candidate = self.dir / f"candidate{suffix}"
        self.tests = 0

    def interesting(self, lines):
        self.tests += 1
        self.candidate.write_text("\n".join(lines) + "\n")
        r = subprocess.run(f"{self.predicate} {self.candidate}", shell=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return r.returncode == 0

    def reduce(self, lines):
        if not self.interesting(lines):
            raise SystemExit("the predicate does not hold for the original program")
        while True:
            before = len("".join(lines))
            for step in (self.delete_chunks, self.delete_blocks, self.unwrap, self.simplify_expressions):
                lines = step(lines)
            if len("".join(lines)) == before:
                return lines

    def delete_chunks(self, lines):
        size = max(1, len(lines) // 2)
        while True:
            start = 0
            while start < len(lines):
                candidate = lines[:start] + lines[start + size:]
                if candidate and self.interesting(candidate):
                    lines = candidate
                else:
                    start += size
            if size == 1:
                return lines
            size //= 2

    def delete_blocks(self, lines):
        k = 0
        while k < len(lines):
            end = block_end(lines, k)
            if end is not None:
                candidate = lines[:k] + lines[end + 1:]
                if self.interesting(candidate):
                    lines = candidate
                    continue
            k += 1
        return lines

    def unwrap(self, lines):
        k = 0
        while k < len(lines):
            if re.match(r"\s*(if|while) \(.*\) \{$", lines[k]):
                end = block_end(lines, k)
                if end is not None and lines[end].strip() == "}":
                    candidate = lines[:k] + lines[k + 1:end] + lines[end + 1:]
                    if self.interesting(candidate):
                        lines = candidate
                        continue
            k += 1
        return lines

    def simplify_expressions(self, lines):
        for k in range(len(lines)):
            pos = 0
            while True:
                groups = paren_groups(lines[k])
                groups = [g for g in groups if g[0] >= pos]
                if not groups:
                    break
                start, end = groups[0]
                inner = lines[k][start + 1:end]
                replaced = False
                for option in ["0", "1", *operands(inner)]:
                    candidate_line = lines[k][:start + 1] + option + lines[k][end:]
                    # Only strictly shorter lines, so that reduction ends.
                    if len(candidate_line) >= len(lines[k]):
                        continue
                    candidate = lines[:k] + [candidate_line] + lines[k + 1:]
                    if self.interesting(candidate):
                        lines = candidate
                        replaced = True
                        break
                if not replaced:
                    pos = start + 1
        return lines


def block_end(lines, k):
    """The line closing the brace that line k opens last (None if k opens none)."""
    if not lines[k].rstrip().endswith("{"):
        return None
    depth = 0
    for j in range(k, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        if depth == 0:
            return j
    return None


def paren_groups(line):
    """(open, close) positions of parenthesised groups, outermost first."""
    groups, stack = [], []
    in_string = False
    for i, c in enumerate(line):
        if c == '"':
            in_string = not in_string
        if in_string:
            continue
        if c == "(":
            stack.append(i)
        elif c == ")" and stack:
            groups.append((stack.pop(), i))
    return sorted(groups)


def operands(expr):
    """The two sides of the top-level binary operator of `expr`, if it has one."""
    depth = 0
    for i in range(len(expr) - 1, 0, -1):
        c = expr[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
        elif depth == 0 and c == " " and i + 2 < len(expr):
            m = re.match(r" (\|\||&&|==|!=|<=|>=|<|>|\+|-|\*|/|%) ", expr[i:])
            if m:
                return [expr[:i].strip(), expr[i + len(m.group(0)):].strip()]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", type=Path)
    ap.add_argument("predicate")
    ap.add_argument("-o", type=Path, help="where to write the result (default: PROGRAM.reduced.sy)")
    args = ap.parse_args()
    lines = args.program.read_text().replace("\r\n", "\n").splitlines()
    r = Reducer(args.predicate)
    reduced = r.reduce(lines)
    out = args.o or args.program.with_suffix(".reduced.sy")
    out.write_text("\n".join(reduced) + "\n")
    print(f"{len(lines)} lines -> {len(reduced)} lines in {r.tests} tests; written to {out}")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
