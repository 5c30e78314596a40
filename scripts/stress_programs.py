#!/usr/bin/env python3
"""Stress programs for compile time: valid SysY programs that are huge in one dimension
each (deep nesting, a long function, many functions, a long else-if chain, a big
initialiser, long expressions). Each prints a result, and the generator computes that
result too, so a test can check the program's meaning as well as its validity. Values that
the optimiser could fold away are read from the input instead.

    scripts/stress_programs.py [--scale 0.01] [--out DIR]

writes every program (NAME.sy) with its input (NAME.in, when it reads one) and expected
output (NAME.out) into DIR.
"""

import argparse
import random
from pathlib import Path

# Full sizes; --scale multiplies each.
SIZES = {
    "nested_while": 10_000,     # nested while loops
    "nested_if": 10_000,        # nested if/else
    "long_function": 100_000,   # statements in one function
    "many_functions": 5_000,    # small functions, each called from main
    "else_if_chain": 2_000,     # arms of one else-if chain
    "big_global_init": 1_000_000,  # elements of one global initialiser
    "long_expression": 20_000,  # terms of each of two expressions
}


def c_rem(a, b):
    """C's `%`: the remainder takes the sign of the dividend."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def wrap32(v):
    """A value as a 32-bit two's complement int."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def nested_while(n):
    """n nested loops on one counter; level k runs while a < k and adds k to s, the innermost
    loop advances a to n."""
    lines = ["int main() {", "int a = 0;", "int s = 0;"]
    lines += [f"while (a < {k}) {{ s = s + {k};" for k in range(1, n)]
    lines.append(f"while (a < {n}) {{ s = s + {n}; a = a + 1; }}")
    lines.append("}" * (n - 1))
    lines += ["putint(s);", "putch(10);", "return 0;", "}"]
    expected = sum(range(1, n)) + n * n
    return "\n".join(lines) + "\n", "", f"{expected}\n"


def nested_if(n):
    """n nested if/else on a global depth: the then branch descends, the else branch at the
    level where the test fails records that level."""
    depth = n // 2
    lines = [f"int depth = {depth};", "int main() {", "int s = 0;"]
    for k in range(n):
        lines.append(f"if (depth > {k}) {{ s = s + 1;")
    lines.append("s = s + 100000;")
    for k in reversed(range(n)):
        lines.append(f"}} else {{ s = s + {k} * 3; }}")
    lines += ["putint(s);", "putch(10);", "return 0;", "}"]
    expected = depth + (depth * 3 if depth < n else 100000)
    return "\n".join(lines) + "\n", "", f"{expected}\n"


def long_function(n):
    """n assignments in one function over eight variables read from the input (so that
    nothing folds away), each value kept below 10,000."""
    rng = random.Random(1)
    names = [f"v{i}" for i in range(8)]
    values = {v: i + 1 for i, v in enumerate(names)}
    lines = ["int main() {"]
    lines += [f"int {v} = getint();" for v in names]
    for _ in range(n):
        dst, a, b = rng.choice(names), rng.choice(names), rng.choice(names)
        k, c, m = rng.randint(1, 9), rng.randint(0, 99), rng.randint(1000, 9999)
        lines.append(f"{dst} = ({a} * {k} + {b} + {c}) % {m};")
        values[dst] = (values[a] * k + values[b] + c) % m
    for v in names:
        lines += [f"putint({v});", "putch(32);"]
    lines += ["putch(10);", "return 0;", "}"]
    stdin = " ".join(str(i + 1) for i in range(len(names))) + "\n"
    expected = "".join(f"{values[v]} " for v in names) + "\n"
    return "\n".join(lines) + "\n", stdin, expected


def many_functions(n):
    """n small functions of three shapes (arithmetic, a branch, a loop), each called once
    from main on a running value."""
    lines = []
    calls = []
    s = 1
    for i in range(n):
        shape = i % 3
        if shape == 0:
            lines.append(f"int f{i}(int x) {{ return (x * 3 + {i}) % 10007; }}")
            s = (s * 3 + i) % 10007
        elif shape == 1:
            lines.append(f"int f{i}(int x) {{ if (x % 2 == 0) return x / 2 + {i % 100}; "
                         f"return x + {i % 50}; }}")
            s = s // 2 + i % 100 if s % 2 == 0 else s + i % 50
        else:
            lines.append(f"int f{i}(int x) {{ int j = 0; while (j < {i % 4}) "
                         f"{{ x = (x + j * {i}) % 10007; j = j + 1; }} return x; }}")
            for j in range(i % 4):
                s = (s + j * i) % 10007
        calls.append(f"s = f{i}(s);")
    lines += ["int main() {", "int s = 1;", *calls, "putint(s);", "putch(10);", "return 0;", "}"]
    return "\n".join(lines) + "\n", "", f"{s}\n"


def else_if_chain(n):
    """A function with an n-arm else-if chain on its argument, called for 0..n+9."""
    arms = [f"if (x == {k}) return {(k * 31 + 7) % 1000};" for k in range(n)]
    lines = ["int classify(int x) {", "\nelse ".join(arms), "else return -1;", "}",
             "int main() {", "int i = 0;", "int s = 0;",
             f"while (i < {n + 10}) {{ s = s * 7 % 1000003 + classify(i); i = i + 1; }}",
             "putint(s);", "putch(10);", "return 0;", "}"]
    s = 0
    for i in range(n + 10):
        s = c_rem(s * 7, 1000003) + ((i * 31 + 7) % 1000 if i < n else -1)
    return "\n".join(lines) + "\n", "", f"{s}\n"


def big_global_init(n):
    """`int a[n] = {...}` with varied values (negative, zero, hexadecimal, up to six digits),
    summed with weights by main."""
    rng = random.Random(2)
    values, texts = [], []
    for i in range(n):
        r = rng.random()
        if r < 0.1:
            v, t = 0, "0"
        elif r < 0.2:
            v = rng.randint(0, 0xFFFF)
            t = hex(v)
        elif r < 0.4:
            v = -rng.randint(1, 99999)
            t = str(v)
        else:
            v = rng.randint(1, 999999)
            t = str(v)
        values.append(v)
        texts.append(t)
    rows = [", ".join(texts[i:i + 16]) for i in range(0, n, 16)]
    lines = [f"int a[{n}] = {{", ",\n".join(rows), "};", "int main() {", "int i = 0;",
             "int s = 0;",
             f"while (i < {n}) {{ s = (s + a[i] * (i % 7 + 1)) % 1000007; i = i + 1; }}",
             "putint(s);", "putch(10);", "return 0;", "}"]
    s = 0
    for i, v in enumerate(values):
        s = c_rem(s + v * (i % 7 + 1), 1000007)
    return "\n".join(lines) + "\n", "", f"{s}\n"


def long_expression(n):
    """Two n-term expressions over variables read from the input: an int one mixing + - *
    and a float one."""
    rng = random.Random(3)
    ints = {"a": 3, "b": 5, "c": 7, "d": 11}
    floats = {"p": 0.5, "q": 0.25}
    int_terms, float_terms = [], []
    x = 0
    y = 0.0
    for i in range(n):
        name, k = rng.choice(sorted(ints)), rng.randint(1, 9)
        sign = "+" if i == 0 or rng.random() < 0.6 else "-"
        term = f"{name} * {k}" if rng.random() < 0.5 else name
        value = ints[name] * k if "*" in term else ints[name]
        int_terms.append(term if i == 0 else f"{sign} {term}")
        x = wrap32(x + value if sign == "+" else x - value)
        fname = rng.choice(sorted(floats))
        float_terms.append(fname if i == 0 else f"+ {fname}")
        y += floats[fname]
    lines = ["int main() {",
             *(f"int {v} = getint();" for v in sorted(ints)),
             *(f"float {v} = getfloat();" for v in sorted(floats)),
             "int x = 0;", "float y = 0.0;",
             "x = " + " ".join(int_terms) + ";",
             "y = " + " ".join(float_terms) + ";",
             "putint(x);", "putch(32);", "putint(y * 4);", "putch(10);", "return 0;", "}"]
    stdin = " ".join(str(v) for _, v in sorted(ints.items())) + " " + \
        " ".join(str(v) for _, v in sorted(floats.items())) + "\n"
    # Every float term is a multiple of 1/4 and the sum stays far below 2^24: exact.
    return "\n".join(lines) + "\n", stdin, f"{x} {int(y * 4)}\n"


GENERATORS = {
    "nested_while": nested_while,
    "nested_if": nested_if,
    "long_function": long_function,
    "many_functions": many_functions,
    "else_if_chain": else_if_chain,
    "big_global_init": big_global_init,
    "long_expression": long_expression,
}


def size(name, scale):
    return max(2, round(SIZES[name] * scale))


def write_all(out, scale=1.0, log=print, names=None):
    """Writes NAME.sy, NAME.in (if the program reads input) and NAME.out for every stress
    program (or those in `names`) into `out`; returns the .sy paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, generate in GENERATORS.items():
        if names is not None and name not in names:
            continue
        n = size(name, scale)
        text, stdin, expected = generate(n)
        path = out / f"{name}.sy"
        path.write_text(text)
        if stdin:
            path.with_suffix(".in").write_text(stdin)
        path.with_suffix(".out").write_text(expected)
        log(f"  wrote {path} (size {n:,}, {len(text) / 1e6:.1f} MB)")
        paths.append(path)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every size by this (default 1.0: the full sizes)")
    ap.add_argument("--out", type=Path, default=Path("target/compile_bench/stress"),
                    help="where to write the programs (default target/compile_bench/stress)")
    args = ap.parse_args()
    write_all(args.out, args.scale)


if __name__ == "__main__":
    main()
