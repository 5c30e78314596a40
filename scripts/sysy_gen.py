#!/usr/bin/env python3
"""Random SysY programs for differential testing, deterministic from a seed.

Every program is valid SysY and free of undefined behaviour both as SysY and as C++ built
with -fwrapv: divisions go through helpers that avoid 0 and -1 (or divide by a constant that
is neither, or by a power of two that a loop doubles or halves), indices are constants or
loop counters in range or wrapped by `idx`, loops and recursion are bounded, float values are clamped at every store so that conversions to int
are defined, and calls with side effects sit where C++ fixes the order of evaluation (as a
statement, alone on the right of an assignment, or right of && and ||). Programs read input
through getint/getch/getfloat/getarray/getfarray (the generator writes the .in file), print
through every put function, end by printing a digest of their globals and return a
checksum.

    scripts/sysy_gen.py SEED [-o PROGRAM.sy]          # writes PROGRAM.sy and PROGRAM.in
    scripts/sysy_gen.py --coverage N                  # checks N programs cover every feature
"""

import argparse
import random
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

HELPERS = """\
int side_count = 0;
int side(int v) {
  side_count = side_count + 1;
  return v;
}
int sdiv(int a, int b) {
  if (b == 0) return a;
  if (b == -1) return -a;
  return a / b;
}
int smod(int a, int b) {
  if (b == 0 || b == -1) return 0;
  return a % b;
}
int idx(int i, int n) {
  int r = i % n;
  if (r < 0) r = r + n;
  return r;
}
int f2i(float x) {
  if (x != x) return 0;
  if (x > 1000000.0) return 1000000;
  if (x < -1000000.0) return -1000000;
  return x;
}
float fclamp(float x) {
  if (x != x) return 0.0;
  if (x > 1000000.0) return 1000000.0;
  if (x < -1000000.0) return -1000000.0;
  return x;
}
float fdiv(float a, float b) {
  if (b == 0) return a;
  return a / b;
}
"""


@dataclass
class Var:
    name: str
    ty: str                     # "int" or "float"
    dims: list                  # [] for scalars; None first entry for an array parameter
    const: bool = False
    assignable: bool = True     # loop counters are not
    is_global: bool = False
    param_len: int = 2          # rows an array parameter is known to have

    @property
    def is_array(self):
        return bool(self.dims)


@dataclass
class Func:
    name: str
    ret: str                    # "int", "float" or "void"
    params: list
    pure: bool                  # no writes to globals or array parameters, no I/O
    recursive: bool
    cost: int = 1               # estimated statements one call executes
    self_calls: int = 0
    depth_bound: int = 3        # the largest `depth` a caller passes


# Estimated statements one call of a function, or main, may execute at most.
FUNCTION_COST_CAP = 3000
MAIN_COST_CAP = 60000
# Expressions nest through calls' arguments and array subscripts as well as operators, so
# `depth` alone does not bound them; past this many enclosing expressions only leaves are made.
MAX_NESTING = 12


@dataclass
class Scope:
    vars: dict = field(default_factory=dict)


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.out = []
        self.indent = 0
        self.names = 0
        self.scopes = [Scope()]
        self.funcs = []
        self.copies = {}            # function name -> name of its copy
        self.input = []
        self.func = None            # the function being generated
        self.loop_depth = 0
        self.loop_counters = []     # (name, bound) of the enclosing loops
        self.stmt_budget = 0
        self.output_budget = 0
        self.multiplier = 1         # iterations of the enclosing loops
        self.in_base_case = False   # generating a recursive function's base case
        self.nesting = 0            # expressions being generated around the current one
        self.tree_recursions = []   # (name, arity, largest argument) of tree recursions
        self.digit_printers = []    # names of recursive digit printers
        self.constant_parameter_calls = []  # (name, constant) of constant_parameters
        self.predicates = []        # names of predicate functions
        self.stencils = []          # (name, first array, second array, columns) of stencils

    # ---- plumbing -----------------------------------------------------------------------

    def fresh(self, prefix):
        self.names += 1
        return f"{prefix}{self.names}"

    def line(self, text):
        self.out.append("  " * self.indent + text)

    def chance(self, p):
        return self.r.random() < p

    def pick(self, xs):
        return self.r.choice(xs)

    def visible(self):
        seen = {}
        for scope in self.scopes:
            seen.update(scope.vars)
        return list(seen.values())

    def declare(self, v):
        self.scopes[-1].vars[v.name] = v

    def push(self):
        self.scopes.append(Scope())

    def pop(self):
        self.scopes.pop()

    def may_write(self, v):
        """Whether the current function may store to `v`."""
        if v.const or not v.assignable:
            return False
        if self.func and self.func.pure and (v.is_global or (v.is_array and v.dims[0] is None)):
            return False
        return True

    # ---- literals ---------------------------------------------------------------------------

    def int_literal(self):
        v = self.pick([0, 1, 2, 3, 5, 7, 10, 16, 100, 255, 1000, 65535, 65536, 123456, 2147483647,
                       self.r.randint(0, 50), self.r.randint(0, 100000)])
        style = self.r.random()
        if style < 0.15 and v > 0:
            text = f"0x{v:x}" if self.chance(0.5) else f"0X{v:X}"
        elif style < 0.25 and v > 0:
            text = f"0{v:o}"
        else:
            text = str(v)
        return text

    def float_literal(self):
        v = self.pick([0.0, 0.5, 1.0, 1.5, 2.25, 3.125, 0.1, 0.3, 10.0, 100.5, 1e3, 2.5e-3,
                       self.r.randint(-2000, 2000) / 64.0])
        style = self.r.random()
        if style < 0.15:
            mantissa, exponent = float.hex(abs(v)).split("p")
            return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}"
        if style < 0.3 and v:
            return f"{abs(v):e}"
        text = repr(abs(v))
        if style < 0.4 and text.startswith("0."):
            text = text[1:]
        elif style < 0.45 and text.endswith(".0"):
            text = text[:-1]
        return text

    # ---- expressions --------------------------------------------------------------------------

    def index_expr(self, bound):
        """An int expression in [0, bound)."""
        counters = [n for n, b in self.loop_counters if b <= bound]
        choice = self.r.random()
        if counters and choice < 0.4:
            # Loop counters run from 1 up to their bound.
            return f"{self.pick(counters)} - 1"
        if choice < 0.7 or self.nesting >= MAX_NESTING:
            return str(self.r.randrange(bound))
        return f"idx({self.int_expr(1)}, {bound})"

    def element(self, v, constant=False):
        """A scalar element of array `v`, with constant subscripts if `constant`."""
        parts = []
        for d in v.dims:
            bound = d if d is not None else v.param_len
            parts.append(f"[{self.r.randrange(bound) if constant else self.index_expr(bound)}]")
        return v.name + "".join(parts)

    def scalar_ref(self, ty):
        """A readable scalar place of type `ty`, or None."""
        cands = [v for v in self.visible() if v.ty == ty]
        if not cands:
            return None
        v = self.pick(cands)
        return self.element(v) if v.is_array else v.name

    def nested(self, build, depth):
        """`build(depth)`, counted as one more level of nesting; a leaf when too deep."""
        self.nesting += 1
        e = build(depth if self.nesting <= MAX_NESTING else 0)
        self.nesting -= 1
        return e

    def int_expr(self, depth):
        return self.nested(self.int_expr_at, depth)

    def float_expr(self, depth):
        return self.nested(self.float_expr_at, depth)

    def int_expr_at(self, depth):
        r = self.r.random()
        if depth <= 0 or r < 0.2:
            ref = self.scalar_ref("int") if self.chance(0.7) else None
            return ref or self.int_literal()
        if r < 0.35:
            op = self.pick(["+", "-", "*"])
            return f"({self.int_expr(depth - 1)} {op} {self.int_expr(depth - 1)})"
        if r < 0.42:
            c = self.pick([2, 3, 4, 7, 10, 16, -2, -3, -5, 1, 8, 1024, -4, -64, 65536, 1073741824,
                           6, 9, -7, 60, 641, 134209537, 1000000007, -1000000007, 2147483647,
                           -2147483647])
            op = self.pick(["/", "%"])
            return f"({self.int_expr(depth - 1)} {op} {c})"
        if r < 0.48:
            fn = self.pick(["sdiv", "smod"])
            return f"{fn}({self.int_expr(depth - 1)}, {self.int_expr(depth - 1)})"
        if r < 0.58:
            ty = self.pick(["int", "int", "float"])
            op = self.pick(["<", ">", "<=", ">=", "==", "!="])
            a = self.int_expr(depth - 1) if ty == "int" else self.float_expr(depth - 1)
            b = self.int_expr(depth - 1) if ty == "int" else self.float_expr(depth - 1)
            return f"({a} {op} {b})"
        if r < 0.66:
            op = self.pick(["&&", "||"])
            right = self.int_expr(depth - 1)
            if self.chance(0.5):
                right = f"side({right})"
            return f"({self.int_expr(depth - 1)} {op} {right})"
        if r < 0.74:
            op = self.pick(["-", "!", "+"])
            return f"{op}({self.int_expr(depth - 1)})"
        if r < 0.82:
            return f"f2i({self.float_expr(depth - 1)})"
        if r < 0.87:
            return self.combining_expr(depth)
        call = self.pure_call("int")
        return call or self.int_expr(depth - 1)

    def combining_expr(self, depth):
        """Shapes that instruction combining and reassociation rewrite: chains of constant
        additions, the same terms summed over and over, terms scaled by one constant,
        products of one value, terms that cancel (also where a sum has several uses), negated
        comparisons, remainders by powers of two or odd constants tested against zero or other
        remainders."""
        x = self.scalar_ref("int") or self.int_literal()
        y = self.scalar_ref("int") or self.int_literal()
        kind = self.r.randrange(8)
        if kind == 0:
            steps = " ".join(f"{self.pick(['+', '-'])} {self.r.randint(1, 9)}" for _ in range(self.r.randint(2, 8)))
            return f"({self.int_expr(depth - 1)} {steps})"
        if kind == 1:
            return "(" + " + ".join([x, y] * self.r.randint(2, 5)) + ")"
        if kind == 2:
            c = self.pick([2, 3, 4, -3, 100])
            return f"({x} * {c} + {y} * {c} - {x} * {c})"
        if kind == 3:
            return "(" + " * ".join([x] * self.r.randint(3, 9)) + ")"
        if kind == 4:
            return f"(({x} + {y}) - ({x} - {self.int_expr(depth - 1)}) - {y})"
        if kind == 5:
            p = self.pick([2, 4, 8, 64, -2, -16, 1 << 30, 3, -7, 17, 1000007, 2147483647])
            # Tested against zero, or against another remainder it can have (or cannot);
            # by an odd divisor, a multiplication by its inverse tests it.
            c = self.pick([0, 0, 1, -1, abs(p) - 1, 1 - abs(p), abs(p) // 2, abs(p)])
            return f"(({self.int_expr(depth - 1)} % {p}) {self.pick(['==', '!='])} {c})"
        if kind == 6:
            # An xor emulated with + and -, whose terms cancel although a + b is used twice.
            return f"({x} - ({x} + {y}) + {y} - ({x} + {y}) + ({x} - ({x} - {y})))"
        op = self.pick(["<", ">", "<=", ">=", "==", "!="])
        return f"(({x} {op} {y}) {self.pick(['==', '!='])} {self.pick([0, 1])})"

    def float_expr_at(self, depth):
        r = self.r.random()
        if depth <= 0 or r < 0.25:
            ref = self.scalar_ref("float") if self.chance(0.7) else None
            return ref or self.float_literal()
        if r < 0.45:
            op = self.pick(["+", "-", "*"])
            # Mixed operands convert the int to float.
            b = self.float_expr(depth - 1) if self.chance(0.7) else self.int_expr(depth - 1)
            return f"({self.float_expr(depth - 1)} {op} {b})"
        if r < 0.55:
            return f"fdiv({self.float_expr(depth - 1)}, {self.float_expr(depth - 1)})"
        if r < 0.62:
            return f"-({self.float_expr(depth - 1)})"
        if r < 0.7:
            return f"({self.int_expr(depth - 1)})"
        call = self.pure_call("float")
        return call or self.float_expr(depth - 1)

    def expr(self, ty, depth=3):
        return self.int_expr(depth) if ty == "int" else self.float_expr(depth)

    def affordable(self, callee):
        """Whether calling `callee` here keeps the current function within its cost cap, and
        if so, charges for it."""
        if callee is self.func:
            if self.multiplier > 1 or self.func.self_calls >= 2:
                return False
            self.func.self_calls += 1
            return True
        cap = MAIN_COST_CAP if self.func.name == "main" else FUNCTION_COST_CAP
        extra = self.multiplier * callee.cost
        if self.func.cost + extra > cap:
            return False
        self.func.cost += extra
        return True

    def args_for(self, f):
        args = []
        for p in f.params:
            if p.name == "depth":
                args.append(str(self.r.randint(0, f.depth_bound)))
            elif p.is_array:
                args.append(self.array_arg(p))
            else:
                args.append(self.expr(p.ty, 1))
        return args

    def array_arg(self, p):
        """An array (or a row of a bigger one) matching parameter `p`."""
        want = p.dims[1:]
        cands = []
        for v in self.visible():
            # C++ will not pass a const array for a modifiable parameter.
            if not v.is_array or v.ty != p.ty or v.const:
                continue
            # Pass v itself, or v indexed by k leading subscripts, if the rest matches.
            for k in range(len(v.dims)):
                if v.dims[k + 1:] == want:
                    cands.append((v, k))
        if not cands:
            return None
        v, k = self.pick(cands)
        subs = "".join(f"[{self.index_expr(v.dims[j] if v.dims[j] is not None else v.param_len)}]" for j in range(k))
        return v.name + subs

    def pure_call(self, ty):
        """A call of a side-effect-free function returning `ty`, usable in any expression."""
        cands = [f for f in self.funcs if f.ret == ty and f.pure and f is not self.func]
        recursion_allowed = self.func and self.func.recursive and not self.in_base_case
        if recursion_allowed and self.func.pure and self.func.ret == ty and self.chance(0.3):
            cands = [self.func]
        return self.call(cands)

    def call(self, cands):
        """A call of one of `cands` with fitting arguments, if one is affordable here."""
        if not cands:
            return None
        f = self.pick(cands)
        args = self.args_for(f)
        if None in args or not self.affordable(f):
            return None
        if f is self.func:
            args[0] = "depth - 1"
        return f"{f.name}({', '.join(args)})"

    # ---- statements ---------------------------------------------------------------------------

    def block(self, stmts):
        self.push()
        for _ in range(stmts):
            if self.stmt_budget <= 0:
                break
            self.stmt()
        self.pop()

    def stmt(self):
        self.stmt_budget -= 1
        self.func.cost += self.multiplier
        r = self.r.random()
        nested = self.indent < 5
        if r < 0.18:
            self.local_decl()
        elif r < 0.4:
            self.assignment()
        elif r < 0.5 and nested:
            self.if_stmt()
        elif r < 0.6 and nested and self.loop_depth < 2:
            self.while_stmt()
        elif r < 0.66 and nested:
            self.shadow_block()
        elif r < 0.74:
            self.call_stmt()
        elif r < 0.8 and self.loop_depth > 0:
            self.line(f"if ({self.int_expr(2)}) {self.pick(['break', 'continue'])};")
        elif r < 0.86 and not self.func.pure and self.output_budget > 0:
            self.print_stmt()
        elif r < 0.9 and self.func.ret != "void" and self.indent > 1:
            self.line(f"if ({self.int_expr(2)}) return {self.return_expr()};")
        elif r < 0.915:
            self.line(";" if self.chance(0.5) else "{}")
        elif r < 0.93 and nested:
            self.dead_loop()
        elif self.chance(0.6):
            self.optimiser_shapes()
        else:
            self.assignment()

    def optimiser_shapes(self):
        """Code that constant propagation, value numbering and if-to-select transform: a
        value constant only through phis that a later branch tests, a subexpression repeated
        with its operands commuted, in the same block and in a block it dominates, a value
        picked by a small if, or the same computation at the end of both sides of an if."""
        r = self.r.random()
        if self.indent < 5 and r < 0.35:
            self.constant_through_phis()
        elif r < 0.6:
            self.picked_value()
        elif r < 0.8 and self.indent < 5:
            self.reread_element()
        elif r < 0.9 and self.indent < 5:
            self.same_step_both_sides()
        elif r < 0.93 and self.indent < 5:
            self.constant_table()
        elif r < 0.95 and self.loop_depth == 0 and not self.func.recursive:
            self.far_local_arrays()
        elif r < 0.96:
            self.retested_join()
        elif r < 0.98 and self.indent < 5:
            self.shifted_pair()
        else:
            self.repeated_subexpression()

    def retested_join(self):
        """Two values compared, the arms of the comparison joined by a block that stores what
        they chose, then the same two values compared again by a related predicate (the
        same, its inverse, or either one with its operands swapped), or `x == 1 || -x == 1`
        of their difference: each arm knows the second test's outcome, and jump threading
        copies the join into it."""
        a, b, x, arr = self.fresh("m"), self.fresh("m"), self.fresh("m"), self.fresh("la")
        self.line(f"int {a} = {self.int_expr(2)};")
        self.line(f"int {b} = {self.pick([self.int_expr(2), a + ' + ' + str(self.r.randint(-1, 1))])};")
        self.line(f"int {arr}[2] = {{{self.r.randint(-9, 9)}, {self.r.randint(-9, 9)}}};")
        ops = ["<", ">", "<=", ">=", "==", "!="]
        op = self.pick(ops)
        self.line(f"int {x};")
        self.line(f"if ({a} {op} {b}) {x} = {a} + {self.r.randint(1, 9)}; else {x} = {b} - {a};")
        self.line(f"{arr}[{self.r.randint(0, 1)}] = {x};")
        again = self.pick(ops)
        first, second = self.pick([(a, b), (b, a)])
        self.line(f"int {x}s = 3;")
        self.line(f"if ({first} {again} {second}) {{")
        if self.chance(0.5):
            self.line(f"    {x}s = {self.r.randint(4, 9)};")
        else:
            self.line(f"    if ({a} - {b} == 1 || {b} - {a} == 1) {x}s = 1;")
        self.line("}")
        self.use_result(f"{arr}[0] + {arr}[1] * 3 + {x}s")

    def shifted_pair(self):
        """A loop whose exit test reads `i + d` or `i - d` (`d` fixed for the loop, a
        constant or a variable, `i` stepping up or down), comparing `a[i]` with `a[i + d]`
        and using `i` itself on the rarer path and after the loop: loop rotation carries `i`
        and `i + d` in two phis, which merge-counters makes one; with a `break` the loop
        stays unrotated and tests `i + d` in its header, which merge-counters carries. Or
        a mirror: `a[i]` against `a[d - i]` for `i` up to `d`, an address walking back from a
        point fixed for the loop (`invariant-bases` negates the counter), sometimes written
        there too."""
        arr, i, d, run, best = (self.fresh(p) for p in ("la", "i", "m", "m", "m"))
        n = self.r.randint(8, 20)
        values = ", ".join(str(self.r.randint(0, 2)) for _ in range(n))
        self.line(f"int {arr}[{n}] = {{{values}}};")
        mirror = self.chance(0.3)
        if mirror:
            self.line(f"int {d} = {self.pick([str(n - 1), f'idx({self.int_expr(1)}, {n})'])};")
        else:
            self.line(f"int {d} = {self.pick([str(self.r.randint(1, 3)), f'idx({self.int_expr(1)}, 4) + 1'])};")
        self.line(f"int {run} = 0;")
        self.line(f"int {best} = {self.r.randint(-3, 3)};")
        if mirror:
            self.line(f"int {i} = 0;")
            self.line(f"while ({i} <= {d}) {{")
            other = f"{d} - {i}"
            advance = f"{i} = {i} + 1;"
            if self.chance(0.5):
                self.line(f"    if ({arr}[{i}] > {arr}[{other}]) {arr}[{other}] = {arr}[{i}] - 1;")
        elif self.chance(0.5):
            step = self.r.randint(1, 2)
            self.line(f"int {i} = {self.r.randint(0, 2)};")
            self.line(f"while ({i} + {d} < {n}) {{")
            other = f"{i} + {d}"
            advance = f"{i} = {i} + {step};"
        else:
            self.line(f"int {i} = {n - 1};")
            self.line(f"while ({i} - {d} >= 0) {{")
            other = f"{i} - {d}"
            advance = f"{i} = {i} - 1;"
        self.line(f"    if ({arr}[{i}] == {arr}[{other}]) {run} = {run} + 1;")
        self.line(f"    else {{ if ({run} > {best}) {best} = {i} * 2 - {run}; {run} = 0; }}")
        if self.chance(0.4):
            self.line(f"    if ({run} > {self.r.randint(1, 4)}) break;")
        self.line(f"    {advance}")
        self.line("}")
        self.use_result(f"{best} * 7 + {run} * 3 + {i}")

    def far_local_arrays(self):
        """Local int and float arrays larger than a load's immediate reach (4 KB for `ldr`,
        1 KB for `vldr`), filled by loops and then read and written at constant indices far
        from their starts: the frame needs a register for those offsets."""
        ints, floats, i = self.fresh("la"), self.fresh("la"), self.fresh("i")
        n, m = self.r.randint(1100, 1300), self.r.randint(300, 400)
        c = self.r.randint(2, 9)
        self.line(f"int {ints}[{n}];")
        self.line(f"float {floats}[{m}];")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {n}) {{ {ints}[{i}] = {i} * {c} % 97; {i} = {i} + 1; }}")
        self.line(f"{i} = 0;")
        self.line(f"while ({i} < {m}) {{ {floats}[{i}] = {i} % 13 * 0.25; {i} = {i} + 1; }}")
        far = lambda k: self.r.randint(k * 3 // 4, k - 1)
        self.line(f"{ints}[{far(n)}] = {ints}[{far(n)}] + {ints}[{far(n)}];")
        self.line(f"{floats}[{far(m)}] = {floats}[{far(m)}] + {floats}[{far(m)}];")
        read = self.fresh("v")
        self.line(f"int {read} = {ints}[{far(n)}] + {ints}[idx({self.int_expr(1)}, {n})]"
                  f" + {floats}[{far(m)}];")
        self.use_result(read)
        self.declare(Var(read, "int", []))

    def same_step_both_sides(self):
        """An if whose two sides end with the same computation of one variable (`t = x * 3`),
        one side doing something else too, as sink-common makes it once after the if; or
        whose sides end by storing to one array element, the same value or another, as
        sink-common makes one store after the if."""
        arrays = [v for v in self.visible() if v.ty == "int" and v.is_array and self.may_write(v)]
        if arrays and self.chance(0.4):
            arr = self.pick(arrays)
            idx = self.fresh("e")
            self.line(f"int {idx} = {self.r.randint(0, 3)};")
            dims = [arr.param_len if d is None else d for d in arr.dims]
            place = f"{arr.name}" + "".join(f"[{idx} % {d}]" for d in dims)
            x = self.scalar_ref("int") or self.int_literal()
            other = x if self.chance(0.3) else f"{x} * {self.r.randint(2, 5)}"
            self.line(f"if ({self.int_expr(1)}) {{")
            self.line(f"  putch({self.r.randint(97, 122)});")
            self.line(f"  {place} = {x};")
            self.line("} else {")
            self.line(f"  {place} = {other};")
            self.line("}")
            return
        targets = [v for v in self.visible() if v.ty == "int" and not v.is_array and self.may_write(v)]
        if not targets:
            return
        t = self.pick(targets).name
        x = self.scalar_ref("int") or self.int_literal()
        step = f"{t} = {x} {self.pick(['+', '-', '*'])} {self.r.randint(1, 9)};"
        self.line(f"if ({self.int_expr(1)}) {{")
        self.line(f"  putch({self.r.randint(97, 122)});")
        self.line(f"  {step}")
        self.line("} else {")
        self.line(f"  {step}")
        self.line("}")

    def reread_element(self):
        """An array element read, then read again inside a branch, as load elimination
        replaces the second read: sometimes a store to the same array (perhaps the same
        element) or a call stands between them, on the branch or before it."""
        arrays = [v for v in self.visible() if v.ty == "int" and v.is_array]
        if not arrays:
            self.repeated_subexpression()
            return
        arr = self.pick(arrays)
        place = self.element(arr)
        first, second = self.fresh("v"), self.fresh("v")
        self.line(f"int {first} = {place};")
        writable = self.may_write(arr)
        between = self.r.random()
        if writable and between < 0.25:
            self.line(f"{self.element(arr)} = {first} + 1;")
        elif between < 0.4:
            self.call_stmt()
        self.line(f"int {second} = 0;")
        self.line(f"if ({first} > {self.r.randint(-5, 5)}) {{")
        self.indent += 1
        if writable and self.chance(0.2):
            self.line(f"{self.element(arr)} = {first} * 2;")
        self.line(f"{second} = {place} + {first};")
        self.indent -= 1
        self.line("}")
        self.use_result(second)
        self.declare(Var(first, "int", []))
        self.declare(Var(second, "int", []))

    def constant_table(self):
        """A local array filled with constants before any read, as constant-local-arrays
        makes a constant global: zeroed, a few elements set directly and the rest by a
        counted loop from their neighbours, which unrolling and folding turn into
        constants; then read at a computed index. Sometimes an element is set again
        after the read, or only on one side of an if, and the array must stay."""
        name = self.fresh("la")
        n = self.r.randint(4, 12)
        direct = self.r.randint(1, 3)
        self.line(f"int {name}[{n}] = {{}};")
        for k in range(direct):
            self.line(f"{name}[{k}] = {self.r.randint(-9, 9)};")
        counter = self.fresh("i")
        self.line(f"int {counter} = {direct - 1};")
        self.line(f"while ({counter} < {n - 1}) {{")
        self.line(f"    {counter} = {counter} + 1;")
        self.line(f"    {name}[{counter}] = {name}[{counter} - 1] * {self.r.randint(2, 3)} + 1;")
        self.line("}")
        if self.chance(0.2):
            self.line(f"if ({self.int_expr(1)} > 0) {name}[{self.r.randrange(n)}] = 5;")
        read = self.fresh("v")
        self.line(f"int {read} = {name}[idx({self.int_expr(1)}, {n})];")
        if self.chance(0.2):
            self.line(f"{name}[{self.r.randrange(n)}] = {read};")
        self.use_result(read)
        self.declare(Var(read, "int", []))
        self.declare(Var(name, "int", [n]))

    def picked_value(self):
        """A value picked by a small if, as if-to-select turns into selects: a minimum or
        maximum (a triangle), a diamond of cheap expressions, a clamp, a saturation to
        `0..2^k-1` (one `usat`) or to `0..100`, an absolute value, a conditional count, a
        sign or a mask of a negative value (shifts of the sign bit), two values picked by
        one condition, or a chain of minima and maxima of sums that die in them."""
        ints = [v.name for v in self.visible() if v.ty == "int" and not v.is_array]
        if len(ints) < 2:
            self.assignment()
            return
        a, b = self.pick(ints), self.pick(ints)
        m = self.fresh("m")
        op = self.pick(["<", ">", "<=", ">=", "==", "!="])
        k = self.r.randint(1, 9)
        form = self.r.randrange(9)
        if form == 0:
            self.line(f"int {m} = {a};")
            self.line(f"if ({b} {op} {m}) {m} = {b};")
        elif form == 1:
            self.line(f"int {m};")
            self.line(f"if ({a} {op} {b}) {m} = {a} + {k}; else {m} = {b} - {k};")
        elif form == 2:
            lo = self.r.randint(-50, 0)
            self.line(f"int {m} = {a};")
            self.line(f"if ({m} > {lo + 100}) {m} = {lo + 100};")
            self.line(f"if ({m} < {lo}) {m} = {lo};")
        elif form == 3:
            self.line(f"int {m} = {a};")
            self.line(f"if ({m} < 0) {m} = -{m};")
        elif form == 6:
            hi = self.pick([1, 255, 1023, 65535, 100])
            low, high = self.pick([(f"{m} < 0", f"{m} > {hi}"), (f"{m} <= -1", f"{m} >= {hi + 1}")])
            if self.chance(0.5):
                low, high, lo_value, hi_value = high, low, hi, 0
            else:
                lo_value, hi_value = 0, hi
            self.line(f"int {m} = {a} {self.pick(['+', '-'])} {b};")
            self.line(f"if ({low}) {m} = {lo_value}; else if ({high}) {m} = {hi_value};")
        elif form == 4:
            self.line(f"int {m} = 0;")
            self.line(f"if ({a} {op} {b}) {m} = {m} + 1;")
        elif form == 7:
            # A sign, or a mask or flag of a negative value: shifts of the sign bit.
            neg, test = self.pick([("-1", f"{a} < 0"), ("1", f"{a} <= -1"), ("-1", f"!({a} >= 0)")])
            self.line(f"int {m} = 0;")
            if self.chance(0.5):
                self.line(f"if ({a} > 0) {m} = 1; else if ({test}) {m} = {neg};")
            else:
                self.line(f"if ({test}) {m} = {neg};")
        elif form == 8:
            # min(a + k, b) and max(a - b, c) then the larger: each sum dies at its select,
            # which takes its register.
            n, c = self.fresh("m"), self.pick(ints)
            self.line(f"int {m} = {a} + {k};")
            self.line(f"if ({b} < {m}) {m} = {b};")
            self.line(f"int {n} = {a} - {b};")
            self.line(f"if ({n} < {c}) {n} = {c};")
            self.line(f"if ({m} < {n}) {m} = {n};")
        else:
            n = self.fresh("m")
            self.line(f"int {m} = {a}, {n} = {b};")
            self.line(f"if ({a} {op} {b}) {{ {m} = {b}; {n} = {a}; }}")
            self.declare(Var(n, "int", []))
        self.declare(Var(m, "int", []))

    def constant_through_phis(self):
        k = self.fresh("k")
        c = self.r.randint(-5, 9)
        self.line(f"int {k} = {c};")
        if self.loop_depth < 2 and self.chance(0.6):
            # k stays c around the loop, but only if the arm that would change it never runs.
            counter = self.fresh("i")
            bound = self.r.randint(2, 5)
            self.line(f"int {counter} = 0;")
            self.declare(Var(counter, "int", [], assignable=False))
            self.line(f"while ({counter} < {bound}) {{")
            self.indent += 1
            self.line(f"{counter} = {counter} + 1;")
            self.line(f"if ({k} != {c}) {k} = {k} + {self.r.randint(1, 9)}; else {k} = {2 * c} - {k};")
            self.loop_depth += 1
            self.loop_counters.append((counter, bound))
            self.multiplier *= bound
            self.block(self.r.randint(1, 3))
            self.multiplier //= bound
            self.loop_counters.pop()
            self.loop_depth -= 1
            self.indent -= 1
            self.line("}")
        else:
            same = self.pick([str(c), f"{c - 1} + 1", k, f"{k} * 1"])
            self.line(f"if ({self.int_expr(2)}) {k} = {c}; else {k} = {same};")
        self.declare(Var(k, "int", []))
        self.if_else(f"{k} {self.pick(['==', '<=', '>='])} {c}", 2, 0.7)

    def repeated_subexpression(self):
        ints = [v.name for v in self.visible() if v.ty == "int" and not v.is_array]
        targets = [v for v in self.visible() if v.ty == "int" and self.may_write(v)]
        if len(ints) < 2 or not targets:
            self.assignment()
            return
        a, b = self.pick(ints), self.pick(ints)
        c = self.pick(ints + [self.int_literal()])
        inner, outer = self.pick(["*", "+", "-"]), self.pick(["+", "-", "*"])
        first = f"(({a} {inner} {b}) {outer} {c})"
        pair = f"({b} {inner} {a})" if inner != "-" else f"({a} {inner} {b})"
        second = f"({c} {outer} {pair})" if outer != "-" else f"({pair} {outer} {c})"
        n = self.fresh("v")
        self.line(f"int {n} = {first};")
        self.declare(Var(n, "int", []))
        target = self.pick(targets)
        place = self.element(target) if target.is_array else target.name
        self.line(f"{place} = {second} {self.pick(['+', '-', '*'])} {n};")
        if self.indent < 5 and self.chance(0.5):
            self.line(f"if ({self.int_expr(2)}) {{")
            self.line(f"  {place} = {first} - {second};")
            self.line("}")

    def return_expr(self):
        e = self.expr(self.func.ret, 2)
        return f"fclamp({e})" if self.func.ret == "float" else e

    def stored(self, ty, e):
        return f"fclamp({e})" if ty == "float" else e

    def local_decl(self):
        ty = self.pick(["int", "float"])
        r = self.r.random()
        if r < 0.08:
            # A literal of the other type, converted implicitly (in range, so defined).
            n = self.fresh("v")
            value = self.float_literal() if ty == "int" else self.int_literal()
            self.line(f"{ty} {n} = {value};")
            self.declare(Var(n, ty, []))
        elif r < 0.55:
            names = [self.fresh("v") for _ in range(self.r.randint(1, 2))]
            inits = [self.stored(ty, self.expr(ty, 2)) for _ in names]
            for n in names:
                self.declare(Var(n, ty, []))
            self.line(f"{ty} " + ", ".join(f"{n} = {e}" for n, e in zip(names, inits)) + ";")
        elif r < 0.7:
            n = self.fresh("c")
            value = self.int_literal() if ty == "int" else self.float_literal()
            if self.chance(0.4):
                # Halving keeps chains of constants far from overflow, which C++ rejects in
                # constant expressions.
                others = [v for v in self.visible() if v.const and not v.is_array and v.ty == ty]
                if others:
                    value = f"{self.pick(others).name} / 2 + {self.r.randint(0, 100)}"
            self.line(f"const {ty} {n} = {value};")
            self.declare(Var(n, ty, [], const=True))
        else:
            dims = self.random_dims(local=True)
            n = self.fresh("la")
            const = self.chance(0.25)
            init = self.initializer(ty, dims, const=const)
            self.line(f"{'const ' if const else ''}{ty} {n}{''.join(f'[{d}]' for d in dims)} = {init};")
            self.declare(Var(n, ty, dims, const=const))

    def random_dims(self, local=False):
        rank = self.pick([1, 1, 2, 2, 3]) if not local else self.pick([1, 1, 2])
        return [self.r.randint(2, 6) for _ in range(rank)]

    def initializer(self, ty, dims, const=False, depth=0):
        """A brace initialiser, nested or flat, possibly partial."""
        def scalar():
            if const:
                return self.int_literal() if ty == "int" else self.float_literal()
            return self.stored(ty, self.expr(ty, 1))
        if depth == len(dims):
            return scalar()
        if self.chance(0.15):
            return "{}"
        if depth == 0 and len(dims) > 1 and self.chance(0.3):
            # Flat list: the braces are elided.
            total = 1
            for d in dims:
                total *= d
            n = self.r.randint(1, total)
            return "{" + ", ".join(scalar() for _ in range(n)) + "}"
        n = self.r.randint(1, dims[depth])
        return "{" + ", ".join(self.initializer(ty, dims, const, depth + 1) for _ in range(n)) + "}"

    def assignment(self):
        cands = [v for v in self.visible() if self.may_write(v)]
        if not cands:
            self.local_decl()
            return
        v = self.pick(cands)
        ty = v.ty
        if self.chance(0.1) and not self.func.pure:
            # C++ evaluates the right of `=` first, C (like gcc and we) the left, so the
            # subscripts beside a call that may write globals must not read any.
            target = self.element(v, constant=True) if v.is_array else v.name
            call = self.impure_call(ty)
            if call:
                self.line(f"{target} = {call};")
                return
        target = self.element(v) if v.is_array else v.name
        e = self.expr(ty, 3)
        if self.chance(0.15):
            # The other type, converted.
            e = f"f2i({self.float_expr(2)})" if ty == "int" else f"{self.int_expr(2)}"
        self.line(f"{target} = {self.stored(ty, e)};")

    def impure_call(self, ty):
        return self.call([f for f in self.funcs if f.ret == ty and f is not self.func])

    def call_stmt(self):
        own = [self.func] if self.func.recursive and self.chance(0.3) else []
        others = [f for f in self.funcs if f is not self.func and (f.pure or not self.func.pure)]
        call = self.call(own or others)
        if call:
            self.line(f"{call};")
        else:
            self.assignment()

    def if_stmt(self):
        self.if_else(self.int_expr(3) if self.chance(0.8) else self.float_expr(2), 3, 0.5)

    def if_else(self, cond, most, else_chance):
        """`if (cond)` with a block of 1 to `most` statements, and with chance `else_chance`
        an `else` with another."""
        self.line(f"if ({cond}) {{")
        self.indent += 1
        self.block(self.r.randint(1, most))
        self.indent -= 1
        if self.chance(else_chance):
            self.line("} else {")
            self.indent += 1
            self.block(self.r.randint(1, most))
            self.indent -= 1
        self.line("}")

    def while_stmt(self):
        r = self.r.random()
        if r < 0.03:
            self.array_walk_loop()
            return
        if r < 0.07:
            self.outer_counter_nest()
            return
        if r < 0.09:
            self.interval_walk()
            return
        if r < 0.11:
            self.halving_loop()
            return
        if r < 0.13:
            self.cell_neighbours_loop()
            return
        if r < 0.16:
            self.conditional_store_loop()
            return
        if r < 0.175:
            self.power_of_two_divisor_loop()
            return
        if r < 0.18:
            self.subtraction_loop()
            return
        if r < 0.19:
            self.row_update_loop()
            return
        if r < 0.2:
            self.float_choice_loop()
            return
        if r < 0.21:
            self.bisection_loop()
            return
        if r < 0.22:
            self.two_bound_loop()
            return
        if r < 0.23:
            self.knapsack_rows_loop()
            return
        if r < 0.24:
            self.alignment_loop()
            return
        if r < 0.25:
            self.dispatch_loop()
            return
        if r < 0.33:
            self.counted_loop()
            return
        if r < 0.35:
            self.two_pointer_loop()
            return
        if r < 0.53:
            self.invariant_memory_loop()
            return
        if r < 0.55:
            self.lane_loop()
            return
        if r < 0.7:
            self.closed_form_loop()
            return
        if r < 0.78:
            self.checked_counter_loop()
            return
        if r < 0.85:
            self.modular_loop()
            return
        if r < 0.86:
            self.chained_tests_loop()
            return
        if r < 0.895:
            self.unrollable_loop()
            return
        if r < 0.91:
            self.branching_counted_loop()
            return
        if r < 0.921:
            self.neighbour_loop()
            return
        if r < 0.935:
            self.idiom_loop()
            return
        if r < 0.95:
            self.flattened_rows_loop()
            return
        if r < 0.958:
            self.search_loop()
            return
        if r < 0.974:
            self.accumulator_loop()
            return
        if r < 0.982:
            self.phased_loop()
            return
        if r < 0.987:
            self.wrapping_quotient_loop()
            return
        if r < 0.993:
            self.switched_loop()
            return
        if r < 0.997:
            self.longest_run_loop()
            return
        counter = self.fresh("i")
        bound = self.r.randint(2, 6)
        self.line(f"int {counter} = 0;")
        self.declare(Var(counter, "int", [], assignable=False))
        cond = f"{counter} < {bound}"
        if self.chance(0.3):
            cond = f"{cond} && {self.int_expr(1)} != {self.r.randint(-3, 3)}"
        self.line(f"while ({cond}) {{")
        self.indent += 1
        self.line(f"{counter} = {counter} + 1;")
        self.loop_depth += 1
        self.loop_counters.append((counter, bound))
        self.multiplier *= bound
        self.block(self.r.randint(1, 4))
        self.multiplier //= bound
        self.loop_counters.pop()
        self.loop_depth -= 1
        self.indent -= 1
        self.line("}")

    def counted_loop(self):
        """A counted loop as loop rotation sees it: up or down by a step of 1 to 3, to a
        bound written out or held in a variable, running 0 to 5 times (a guard that fails
        at once, a single iteration). The counter steps first, so `continue` is safe."""
        counter = self.fresh("i")
        trips = self.r.randint(0, 5)
        step = self.r.randint(1, 3)
        start = self.r.randint(-4, 4)
        if self.chance(0.5):
            end, test, update = start + trips * step, "<", "+"
        else:
            end, test, update = start - trips * step, ">", "-"
        self.line(f"int {counter} = {start};")
        bound = str(end)
        if self.chance(0.4):
            bound = self.fresh("n")
            self.line(f"int {bound} = {end};")
            self.declare(Var(bound, "int", [], assignable=False))
        self.declare(Var(counter, "int", [], assignable=False))
        self.line(f"while ({counter} {test} {bound}) {{")
        self.indent += 1
        self.line(f"{counter} = {counter} {update} {step};")
        self.loop_depth += 1
        runs = max(trips, 1)
        self.multiplier *= runs
        self.block(self.r.randint(1, 3))
        self.multiplier //= runs
        self.loop_depth -= 1
        self.indent -= 1
        self.line("}")

    def call_in_loop(self, trips):
        """A call statement in a loop of `trips` rounds, its cost counted that many times."""
        runs = max(trips, 1)
        self.multiplier *= runs
        self.call_stmt()
        self.multiplier //= runs

    def invariant_memory_loop(self):
        """A counted loop reading memory nothing in it writes (a scalar, an array element
        at fixed subscripts) and storing one value to a scalar on every iteration, which
        code motion takes out of the loop; sometimes also a call, a store to an element the
        reads may alias, or a `continue` that gives the loop a second latch."""
        ints = [v for v in self.visible() if v.ty == "int"]
        targets = [v for v in ints if not v.is_array and self.may_write(v)]
        if not targets:
            self.counted_loop()
            return
        counter, acc = self.fresh("i"), self.fresh("v")
        trips = self.r.randint(0, 6)
        self.line(f"int {acc} = 0;")
        self.line(f"int {counter} = 0;")
        self.line(f"while ({counter} < {trips}) {{")
        self.indent += 1
        self.line(f"{counter} = {counter} + 1;")
        if self.chance(0.3):
            self.line(f"if ({counter} == {self.r.randint(1, 3)}) continue;")
        memory = [v for v in targets if v.is_global]
        target = self.pick(memory if memory and self.chance(0.7) else targets)
        scalars = [v.name for v in ints if not v.is_array and v is not target]
        value = self.pick(scalars) if scalars and self.chance(0.5) else self.int_literal()
        self.line(f"{target.name} = {value};")
        read = self.pick(ints)
        place = self.element(read, constant=True) if read.is_array else read.name
        self.line(f"{acc} = {acc} + {place} + {target.name};")
        arrays = [v for v in ints if v.is_array and self.may_write(v)]
        if arrays and self.chance(0.3):
            self.line(f"{self.element(self.pick(arrays))} = {acc};")
        if self.chance(0.2):
            self.call_in_loop(trips)
        self.indent -= 1
        self.line("}")
        self.declare(Var(acc, "int", []))

    def longest_run_loop(self):
        """The longest run so far, `if (hi - lo + 1 > best) best = hi - lo + 1;` (or a
        count of the rounds where the run is at most `best`), `lo` jumping to `hi` where a
        test holds: range-simplify compares `hi - lo` itself, which cannot reach the largest
        int, and the step is made under the comparison's condition."""
        hi, lo, best = self.fresh("i"), self.fresh("v"), self.fresh("v")
        self.line(f"int {lo} = 0;")
        self.line(f"int {best} = {self.r.randint(-1, 2)};")
        self.line(f"int {hi} = 0;")
        self.line(f"while ({hi} < {self.r.randint(2, 12)}) {{")
        self.indent += 1
        k = self.r.randint(2, 5)
        self.line(f"if (({hi} * {self.r.randint(3, 9)} + {self.int_expr(1)}) % {k} == 0) {lo} = {hi};")
        if self.chance(0.7):
            self.line(f"if ({hi} - {lo} + 1 > {best}) {best} = {hi} - {lo} + 1;")
        else:
            self.line(f"if ({hi} - {lo} + 1 <= {best}) {best} = {best} + 1;")
        self.line(f"{hi} = {hi} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(best)

    def switched_loop(self):
        """A counted loop branching on a value fixed before it (an if/else, a triangle, or
        an if/else-if on the same value), as loop unswitching runs one loop per outcome;
        sometimes nested in a loop that keeps the value fixed too, or that computes it
        afresh each round (then only the inner loop is unswitched), or leaving early. The
        trip count is a constant (a loop of a few rounds is left to unrolling) or comes
        from the program's state."""
        i, flag, acc = self.fresh("i"), self.fresh("f"), self.fresh("v")
        self.line(f"int {acc} = {self.r.randint(-5, 5)};")
        around = self.chance(0.5)
        per_round = around and self.chance(0.6)
        if not per_round:
            self.line(f"int {flag} = ({self.int_expr(1)}) % 3;")
        if around:
            outer = self.fresh("i")
            self.line(f"int {outer} = 0;")
            self.line(f"while ({outer} < {self.r.randint(1, 3)}) {{")
            self.indent += 1
            if per_round:
                self.line(f"int {flag} = ({outer} + {self.int_expr(1)}) % 3;")
        self.line(f"int {i} = 0;")
        if self.chance(0.4):
            self.line(f"while ({i} < ({self.int_expr(1)}) % 10) {{")
        else:
            self.line(f"while ({i} < {self.r.randint(0, 9)}) {{")
        self.indent += 1
        kind = self.r.randrange(3)
        c = self.r.randint(2, 7)
        if kind == 0:
            self.line(f"if ({flag} > 0) {acc} = {acc} * {c} + {i}; else {acc} = {acc} - {i};")
        elif kind == 1:
            self.line(f"if ({flag} != 0) {acc} = ({acc} + {i} * {c}) % 1000;")
        else:
            self.line(f"if ({flag} == 0) {acc} = {acc} + 1;")
            self.line(f"else if ({flag} == 1) {acc} = {acc} * {c} % 997;")
            self.line(f"else {acc} = {acc} - {i};")
        if self.chance(0.2):
            self.line(f"if ({acc} > {self.r.randint(50, 500)}) break;")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        if around:
            self.line(f"{outer} = {outer} + 1;")
            self.indent -= 1
            self.line("}")
        self.use_result(acc)

    def flattened_rows_loop(self):
        """Nested loops over a local array used as a matrix of `n` columns, `a[i * n + j]`
        with `n` a variable (often one whose value depends on the program's state), as
        `invariant-bases` computes each row's base before the inner loop; sometimes the
        counter comes first in the sum."""
        a, n, i, j, acc = (self.fresh(x) for x in ("fl", "n", "i", "j", "v"))
        cols = self.r.randint(2, 6)
        rows = self.r.randint(1, 5)
        self.line(f"int {a}[{rows * cols}];")
        scalars = [v.name for v in self.visible() if v.ty == "int" and not v.is_array]
        if scalars and self.chance(0.6):
            # A width the compiler cannot know: cols - 1 or cols.
            self.line(f"int {n} = {cols - 1} + ({self.pick(scalars)} % 2 != 0);")
        else:
            self.line(f"int {n} = {cols};")
        self.line(f"int {acc} = {self.r.randint(0, 9)};")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {rows}) {{")
        self.indent += 1
        self.line(f"int {j} = 0;")
        self.line(f"while ({j} < {n}) {{")
        self.indent += 1
        at = f"{i} * {n} + {j}" if self.chance(0.6) else f"{j} + {i} * {n}"
        self.line(f"{a}[{at}] = {i} * {self.r.randint(2, 9)} - {j};")
        self.line(f"{acc} = {acc} * 3 + {a}[{at}];")
        self.line(f"{j} = {j} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(acc)

    def idiom_loop(self):
        """A local array filled with a pattern, then a loop over a prefix of it (of a length
        the compiler may not know, 0 included) that `loop-idioms` turns into one call:
        zeroing it, filling it with -1 going down, copying another array into it, or
        zeroing the rows of a matrix; a checksum of the whole array follows."""
        a, b, i, k, acc = (self.fresh(x) for x in ("ia", "ib", "i", "k", "v"))
        rows = self.r.randint(1, 4)
        cols = self.r.randint(1, 40)
        size = rows * cols
        self.line(f"int {a}[{size}];")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {size}) {{ {a}[{i}] = {i} * {self.r.randint(2, 9)} + 1; {i} = {i} + 1; }}")
        scalars = [v.name for v in self.visible() if v.ty == "int" and not v.is_array]
        if scalars and self.chance(0.7):
            # A length the compiler cannot know, from 0 to every element.
            self.line(f"int {k} = {self.pick(scalars)} % {size + 1};")
            self.line(f"if ({k} < 0) {k} = -{k};")
        else:
            self.line(f"int {k} = {self.r.randint(0, size)};")
        kind = self.r.randint(0, 3)
        if kind == 0:
            self.line(f"{i} = 0;")
            self.line(f"while ({i} < {k}) {{ {a}[{i}] = 0; {i} = {i} + 1; }}")
        elif kind == 1:
            self.line(f"{i} = {k} - 1;")
            self.line(f"while ({i} >= 0) {{ {a}[{i}] = -1; {i} = {i} - 1; }}")
        elif kind == 2:
            self.line(f"int {b}[{size}];")
            self.line(f"{i} = 0;")
            self.line(f"while ({i} < {size}) {{ {b}[{i}] = {i} - {self.r.randint(0, 50)}; {i} = {i} + 1; }}")
            self.line(f"{i} = 0;")
            self.line(f"while ({i} < {k}) {{ {a}[{i}] = {b}[{i}]; {i} = {i} + 1; }}")
        else:
            self.matrix_rows_zeroed(a, rows, cols, k)
        self.use_result(f"{i}")
        self.line(f"int {acc} = 0;")
        self.line(f"{i} = 0;")
        self.line(f"while ({i} < {size}) {{ {acc} = ({acc} * 3 + {a}[{i}]) % 1000003; {i} = {i} + 1; }}")
        self.use_result(acc)

    def matrix_rows_zeroed(self, a, rows, cols, k):
        """Zeroes the first `k / cols` rows of `a` seen as a matrix, row by row, as
        `loop-idioms` makes each row a memset and then the rows one memset."""
        m, r, c = (self.fresh(x) for x in ("im", "r", "c"))
        self.line(f"int {m}[{rows}][{cols}];")
        self.line(f"int {r} = 0;")
        self.line(f"while ({r} < {rows}) {{")
        self.indent += 1
        self.line(f"int {c} = 0;")
        self.line(f"while ({c} < {cols}) {{ {m}[{r}][{c}] = {a}[{r} * {cols} + {c}]; {c} = {c} + 1; }}")
        self.line(f"{r} = {r} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"{r} = 0;")
        self.line(f"while ({r} < {k} / {cols}) {{")
        self.indent += 1
        self.line(f"int {c} = 0;")
        self.line(f"while ({c} < {cols}) {{ {m}[{r}][{c}] = 0; {c} = {c} + 1; }}")
        self.line(f"{r} = {r} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"{r} = 0;")
        self.line(f"while ({r} < {rows * cols}) {{ {a}[{r}] = {m}[{r} / {cols}][{r} % {cols}]; {r} = {r} + 1; }}")

    def wrapping_quotient_loop(self):
        """A loop adding `(i * m) / d` for a divisor `d` of `m`, which is `i * (m / d)` only
        while `i * m` does not wrap, as loop splitting runs one loop below the counter where
        it starts to wrap and one from there: `m` puts that point near the trip count, so a
        run stays in the first loop or crosses into the second; the bound is a variable or
        written out, and sometimes the start is not zero."""
        i, n, acc = self.fresh("i"), self.fresh("n"), self.fresh("v")
        trips = self.r.randint(1, 400)
        d = self.pick([1, 3, 7, 60])
        m = max(2, 2147483647 // max(1, trips + self.r.randint(-30, 30)) // d * d)
        start = self.pick([0, 0, 0, 1, trips // 2])
        bound = str(trips) if self.chance(0.3) else n
        if bound == n:
            self.line(f"int {n} = {trips};")
        self.line(f"int {acc} = {self.r.randint(0, 9)};")
        self.line(f"int {i} = {start};")
        self.line(f"while ({i} < {bound}) {{")
        self.indent += 1
        self.line(f"{acc} = ({acc} + {i} * {m} / {d}) % 1000003;")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(acc)

    def phased_loop(self):
        """A counted loop whose body tests its counter against a value fixed for the loop
        (a constant, a variable, or the counter of the loop around it), as loop splitting
        runs in two loops: phases picking different constants, a `continue` while the
        counter is past the other one, the split point before the start, past the bound or
        at the top of int. Sometimes the loop is tested at the bottom without a guard
        (`if (i < n) continue; break;`), so its first round runs even when n is 0."""
        i, n, acc = self.fresh("i"), self.fresh("n"), self.fresh("v")
        trips = self.r.randint(0, 7)
        # Sometimes bottom-tested without a guard: the first round runs whatever n is (also
        # when n, known only at run time, is 0 or -1).
        bottom_tested = self.chance(0.25)
        if bottom_tested and self.chance(0.7):
            self.line(f"int {n} = idx({self.int_expr(1)}, 8) - 1;")
        else:
            self.line(f"int {n} = {trips};")
        self.line(f"int {acc} = 0;")
        outer = [c for c, _ in self.loop_counters]
        around = None
        if not outer and self.chance(0.4):
            # A loop around, whose counter the inner loop's test reads (as a transpose's).
            around = self.fresh("i")
            self.line(f"int {around} = 0;")
            self.line(f"while ({around} < {self.r.randint(1, 5)}) {{")
            self.indent += 1
            outer = [around]
        choices = [str(self.r.randint(-2, 9)), "2147483647", "-2147483647"]
        choices += [v.name for v in self.visible()
                    if v.ty == "int" and not v.is_array and not v.assignable]
        point = self.pick(outer) if outer and self.chance(0.9 if around else 0.4) else self.pick(choices)
        self.line(f"int {i} = {self.r.randint(-1, 1)};")
        self.line("while (1) {" if bottom_tested else f"while ({i} < {n}) {{")
        self.indent += 1
        test = self.pick(["<", "<=", ">", ">="])
        if not bottom_tested and self.chance(0.6 if point in outer else 0.2):
            self.line(f"if ({point} < {i}) {{ {i} = {i} + 1; continue; }}")
        self.line(f"if ({i} {test} {point}) {acc} = {acc} * 3 + {i};")
        if self.chance(0.5):
            # The counter times a value fixed for the loop, plus another (strength-reduce).
            self.line(f"else {acc} = {acc} + {i} * {n} + {self.pick(choices)};")
        else:
            self.line(f"else {acc} = {acc} + {self.r.randint(1, 9)};")
        self.line(f"{i} = {i} + 1;")
        if bottom_tested:
            self.line(f"if ({i} < {n}) continue;")
            self.line("break;")
        self.indent -= 1
        self.line("}")
        if around:
            self.line(f"{around} = {around} + 1;")
            self.indent -= 1
            self.line("}")
        self.use_result(acc)
        self.declare(Var(acc, "int", []))

    def outer_counter_nest(self):
        """A loop nest whose inner loops start or end at the outer loop's counter `i`, as in
        triangular sweeps and Gauss-Seidel: inner loops `j < i`, `j <= i`, from `i + 1` or
        `i` up to the bound, from `i - 1` or `i` down to 0, from the end down to past `i`, or
        over the whole row testing `j` against `i`; a Gauss-Seidel round sums before and
        after `i` and writes `x[i]`. Ifs in the outer body test what the outer loop's exit
        test computes (`i + 1 < n`, `i < n - 1`, `i == n - 1`) or split it (`i > 0`,
        `i >= k`), before, between or after the inner loops. The outer loop runs from 0, 1
        or a variable to a bound written out, held in a variable or read at run time (0 to
        a handful of rounds) over an int or float array, local or not. Value numbering makes
        the exit test `i + 1 < n` the same value as an inner loop's guard or an if's
        condition, which loop splitting (splitting the outer loop at `i > 0`) must not
        rewrite in place; loop rotation, unswitching and the inner loops' own splitting at
        `i` see these nests too."""
        i, j, n, acc, s, x = (self.fresh(p) for p in ("i", "j", "n", "ta", "ts", "tw"))
        ty = "float" if self.chance(0.25) else "int"
        limit = 4 if self.multiplier > 1 else 8
        arrays = [v for v in self.visible() if v.ty == ty and len(v.dims) == 1 and self.may_write(v)]
        if arrays and self.chance(0.35):
            v = self.pick(arrays)
            x, size = v.name, v.dims[0] if v.dims[0] is not None else v.param_len
        else:
            size = self.r.randint(2, limit)
            if ty == "int":
                values = [str(self.r.randint(-9, 9)) for _ in range(size)]
            else:
                values = [repr(self.r.randint(-40, 40) / 8.0) for _ in range(size)]
            self.line(f"{ty} {x}[{size}] = {{{', '.join(values)}}};")
            self.declare(Var(x, ty, [size]))
        self.func.cost += self.multiplier * (size + 1) * (size + 1) * 8
        # The bound: written out, in a variable, or known only at run time.
        rounds = self.pick([0, 1, 2, size, size, self.r.randint(0, size)])
        kind = self.r.random()
        if kind < 0.2:
            bound = str(rounds)
        elif kind < 0.4:
            bound = n
            self.line(f"int {n} = {rounds};")
        else:
            bound = n
            # A local or a parameter (often read from input) rather than a global, when any.
            scalars = [v for v in self.visible() if v.ty == "int" and not v.is_array]
            scalars = [v for v in scalars if not v.is_global] or scalars
            source = self.pick(scalars).name if scalars and self.chance(0.8) else self.int_expr(1)
            if self.chance(0.3):
                self.line(f"int {n} = idx({source}, {size + 1});")
            else:
                # Most often a few rounds.
                self.line(f"int {n} = {size} - idx({source}, {min(size, 3)});")
        start = self.pick(["0", "0", "0", "1", "var"])
        if start == "var":
            start = f"idx({self.int_expr(1)}, 3)"
        zero = "0" if ty == "int" else "0.0"
        self.line(f"{ty} {acc} = {zero if self.chance(0.5) else self.pick(['1', '7', '100'])};")

        def put(target, e):
            return f"{target} = {self.stored(ty, e)};"

        def scaled(e):
            return f"{e} * {self.pick([2, 3, -1]) if ty == 'int' else self.pick(['0.5', '1.5', '2.0'])}"

        def inner_body(kind):
            """One round of an inner loop over `j`, on one line."""
            r = self.r.random()
            if kind == "tested":
                first = self.pick(["<", ">", "=="])
                rest = [op for op in ("<", ">", "==") if op != first]
                self.r.shuffle(rest)
                text = f"if ({j} {first} {i}) {put(s, f'{s} + {x}[{j}]')}"
                if self.chance(0.7):
                    text += f" else if ({j} {rest[0]} {i}) {put(s, f'{s} - {x}[{j}]')}"
                    if self.chance(0.5):
                        text += f" else {put(s, scaled(s))}"
                return text
            if r < 0.35:
                return put(s, f"{s} - {x}[{j}]")
            if r < 0.55:
                return put(s, f"{s} + {scaled(f'{x}[{j}]')}")
            if r < 0.7:
                return put(f"{x}[{j}]", f"{x}[{j}] + {s} {'% 7' if ty == 'int' else '* 0.5'}")
            if r < 0.85:
                return put(acc, f"{acc} + {x}[{j}] * {j}")
            return f"{put(s, f'{s} + {x}[{j}]')} {put(acc, f'{acc} - {j}')}"

        def inner_loop(kind):
            first, test, step = {
                "below": ("0", f"{j} < {i}", "+"),
                "upto": ("0", f"{j} <= {i}", "+"),
                "after": (f"{i} + 1", f"{j} < {bound}", "+"),
                "from": (i, f"{j} < {bound}", "+"),
                "down": (f"{i} - 1", f"{j} >= 0", "-"),
                "down_from": (i, f"{j} >= 0", "-"),
                "down_to": (f"{bound} - 1", f"{j} > {i}", "-"),
                "tested": ("0", f"{j} < {bound}", "+"),
            }[kind]
            self.line(f"{j} = {first};")
            self.line(f"while ({test}) {{ {inner_body(kind)} {j} = {j} {step} 1; }}")

        def outer_if():
            k = self.r.randint(0, 3)
            neighbour = put(s, f"{s} + {x}[{i} + 1]")
            cond, then = self.pick([
                (f"{i} + 1 < {bound}", neighbour),
                (f"{i} < {bound} - 1", neighbour),
                (f"{i} > 0", put(s, f"{s} + {x}[{i} - 1]")),
                (f"{i} >= {k}", put(acc, f"{acc} + {s}")),
                (f"{i} == {bound} - 1", put(acc, f"{scaled(acc)} + {s}")),
                (f"{i} + 1 == {bound}", put(x + f"[{i}]", f"{x}[{i}] - {s}")),
                (f"{i} > 0 && {i} + 1 < {bound}", put(s, f"{s} + {x}[{i} - 1] - {x}[{i} + 1]")),
            ])
            other = self.pick(["", f" else {put(s, f'{s} - 1')}", f" else {put(acc, f'{acc} - {i}')}"])
            self.line(f"if ({cond}) {then}{other}")

        gauss_seidel = self.chance(0.3)
        if gauss_seidel:
            loops = ["below", "after"]
        else:
            kinds = ["below", "upto", "after", "from", "down", "down_from", "down_to", "tested"]
            loops = [self.pick(kinds) for _ in range(self.r.randint(1, 3))]
        pieces = [("loop", kind) for kind in loops]
        for _ in range(self.pick([0, 1, 1, 1, 2])):
            # Before, between or after the inner loops (a Gauss-Seidel round stays whole).
            at = self.pick([0, len(pieces)] if gauss_seidel else range(len(pieces) + 1))
            pieces.insert(at, ("if", None))

        self.line(f"int {i} = {start};")
        self.line(f"while ({i} < {bound}) {{")
        self.indent += 1
        s_start = self.pick([zero, f"{x}[{i}]", "100" if ty == "int" else "100.0"])
        self.line(f"{ty} {s} = {s_start};")
        self.line(f"int {j} = 0;")
        for what, kind in pieces:
            if what == "loop":
                inner_loop(kind)
            else:
                outer_if()
        if gauss_seidel or self.chance(0.5):
            self.line(put(f"{x}[{i}]", s if gauss_seidel or self.chance(0.5) else f"{x}[{i}] + {s}"))
        if not gauss_seidel or self.chance(0.5):
            self.line(put(acc, f"{acc} + {s}"))
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        if not self.func.pure and self.output_budget > 0 and self.chance(0.3):
            self.output_budget -= 1
            self.line(f"{'putarray' if ty == 'int' else 'putfarray'}({size}, {x});")
        # A checksum weighing each element by its place, so that errors do not cancel out.
        weight = self.pick(["3", "-5", "7"] if ty == "int" else ["0.5", "1.5", "-2.0"])
        self.line(f"{i} = 0;")
        self.line(f"while ({i} < {size}) {{ {put(acc, f'{acc} * {weight} + {x}[{i}]')} {i} = {i} + 1; }}")
        self.use_result(acc if ty == "int" else f"f2i({acc})")
        self.declare(Var(acc, ty, []))

    def interval_walk(self):
        """An interval DP's inner walk over a local matrix: `k` from `i + 1` (a start known
        only at run time) to `j`, reading `t[i][k]` and the row after the counter `t[k + 1][j]`
        (pointer induction walks a pointer from `t + (i + 2) * row`), keeping the best value
        and where it was (two selects on one comparison), sometimes a float sum of products
        `s = s + t[k][j] * w` beside it (one `vmla`), sometimes the quotient and remainder of
        the best by one constant (one multiply-high for both). Rows may be wide (over 1 KB, so
        that an unrolled walk's rows lie further apart than a load's offset reaches and the
        column pointer is rebased to the middle of them), filled by a loop."""
        t, w, i, j, k = (self.fresh(p) for p in ("ti", "tw", "i", "j", "k"))
        best, at, s = self.fresh("v"), self.fresh("v"), self.fresh("f")
        wide = self.chance(0.3)
        rows = self.r.randint(6, 9) if wide else self.r.randint(3, 6)
        cols = self.pick([260, 700, 1030]) if wide else self.pick([rows, rows + 1, 7, 11])
        self.func.cost += self.multiplier * (rows * rows * rows * 6 + (rows * cols * 4 if wide else 0))
        if wide:
            self.line(f"int {t}[{rows}][{cols}];")
            self.line(f"int {k} = 0;")
            self.line(f"while ({k} < {rows * cols}) {{ {t}[{k} / {cols}][{k} % {cols}] = {k} * 37 % 61 - 20; {k} = {k} + 1; }}")
        else:
            values = ", ".join(str(self.r.randint(-20, 40)) for _ in range(rows * cols))
            self.line(f"int {t}[{rows}][{cols}] = {{{values}}};")
        self.line(f"float {w} = {self.pick(['0.5', '1.25', '-0.75'])};")
        self.line(f"int {best} = 0;")
        self.line(f"int {at} = -1;")
        self.line(f"float {s} = 0.0;")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {rows - 1}) {{")
        self.indent += 1
        self.line(f"int {j} = {self.pick([f'{rows - 1}', f'{i} + 1 + idx({self.int_expr(1)}, {rows - 1})'])};")
        self.line(f"if ({j} > {rows - 2}) {j} = {rows - 2};")
        self.line(f"{'' if wide else 'int '}{k} = {i} + 1;")
        self.line(f"{best} = {t}[{i}][{i}] + {t}[{i} + 1][{j}];")
        self.line(f"while ({k} < {j}) {{")
        self.indent += 1
        self.line(f"int c = {t}[{i}][{k}] + {t}[{k} + 1][{j}];")
        self.line(f"if (c {self.pick(['<', '>', '<=', '>='])} {best}) {{ {best} = c; {at} = {k} - {i}; }}")
        if self.chance(0.5):
            self.line(f"{s} = fclamp({s} + {t}[{k}][{j}] * {w});")
        self.line(f"{k} = {k} + 1;")
        self.indent -= 1
        self.line("}")
        if self.chance(0.5):
            d = self.pick([3, 7, 10, 100, 10000])
            self.line(f"{t}[{i}][{j}] = {best} / {d} + {best} % {d};")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{best} * 3 + {at} + f2i({s})")

    def row_update_loop(self):
        """Row updates of a local matrix with wide rows, as Gaussian elimination modulo a
        prime does them: `m[j][k] = (m[j][k] - f * m[p][k]) % q` from a column known only at
        run time (the pointer of row `j` loads and stores, the pivot row's only loads); a
        column walk `m[k + 1][c] ... m[k][c]` over the rows (rows of over 1 KB, so that an
        unrolled walk's pointer is rebased or its far rows get one add each); and the
        schoolbook product of two short digit arrays, `pr[i + j] += x[i] * y[j]` (the
        unrolled copies share one address plus constants)."""
        m, piv, c0, f = (self.fresh(p) for p in ("mr", "v", "v", "v"))
        j, k, s = self.fresh("j"), self.fresh("k"), self.fresh("v")
        rows = self.r.randint(3, 9)
        cols = self.pick([300, 520, 1030])
        q = self.pick([9973, 32749, 101])
        self.func.cost += self.multiplier * rows * cols * 12
        self.line(f"int {m}[{rows}][{cols}];")
        self.line(f"int {k} = 0;")
        self.line(f"while ({k} < {rows * cols}) {{ {m}[{k} / {cols}][{k} % {cols}] = {k} * 29 % 83 - 30; {k} = {k} + 1; }}")
        self.line(f"int {piv} = idx({self.int_expr(1)}, {rows});")
        self.line(f"int {c0} = idx({self.int_expr(1)}, {cols});")
        self.line(f"int {f} = {self.int_expr(1)} % 7 + 1;")
        self.line(f"int {j} = 0;")
        self.line(f"while ({j} < {rows}) {{")
        self.indent += 1
        self.line(f"if ({j} != {piv}) {{")
        self.indent += 1
        self.line(f"{k} = {c0};")
        self.line(f"while ({k} < {cols}) {{")
        self.indent += 1
        self.line(f"int w = ({m}[{j}][{k}] - {f} * {m}[{piv}][{k}]) % {q};")
        self.line(f"if (w < 0) w = w + {q};")
        self.line(f"{m}[{j}][{k}] = w;")
        self.line(f"{k} = {k} + 1;")
        self.indent -= 1
        self.line("}")
        self.indent -= 1
        self.line("}")
        self.line(f"{j} = {j} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"int {s} = 0;")
        self.line(f"{k} = 0;")
        self.line(f"while ({k} < {rows - 1} - idx({self.int_expr(1)}, 2)) {{ {s} = {s} + {m}[{k} + 1][{c0}] * ({k} + 2) - {m}[{k}][{c0}]; {k} = {k} + 1; }}")
        if self.chance(0.5):
            x, y, pr, i = self.fresh("dx"), self.fresh("dy"), self.fresh("pr"), self.fresh("i")
            nx, ny = self.r.randint(3, 9), self.r.randint(5, 13)
            self.func.cost += self.multiplier * nx * ny * 6
            xs = ", ".join(str(self.r.randint(0, 9)) for _ in range(nx))
            ys = ", ".join(str(self.r.randint(0, 9)) for _ in range(ny))
            self.line(f"int {x}[{nx}] = {{{xs}}};")
            self.line(f"int {y}[{ny}] = {{{ys}}};")
            self.line(f"int {pr}[{nx + ny}] = {{}};")
            self.line(f"int {i} = 0;")
            self.line(f"while ({i} < {nx}) {{")
            self.indent += 1
            self.line(f"{j} = 0;")
            self.line(f"while ({j} < {ny}) {{ {pr}[{i} + {j}] = {pr}[{i} + {j}] + {x}[{i}] * {y}[{j}]; {j} = {j} + 1; }}")
            self.line(f"{i} = {i} + 1;")
            self.indent -= 1
            self.line("}")
            self.line(f"{i} = 0;")
            self.line(f"while ({i} < {nx + ny}) {{ {s} = {s} * 3 + {pr}[{i}]; {i} = {i} + 1; }}")
        self.use_result(f"{s} + {m}[{rows - 1}][{cols - 1}]")

    def float_choice_loop(self):
        """Float values chosen by branches in a loop (if-to-select makes float selects,
        `vmov<cond>.f32`): an absolute value `if (d < 0.0) d = -d;`, a weight picked by an
        `if`/`else if` chain, and a running maximum `if (d > m) m = d;`, which a loop
        carries round to itself and so keeps its branch."""
        acc, mx, i, d, w = (self.fresh(p) for p in ("f", "f", "i", "f", "f"))
        n = self.r.randint(3, 12)
        self.func.cost += self.multiplier * n * 14
        self.line(f"float {acc} = 0.0;")
        self.line(f"float {mx} = -1000.0;")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {n}) {{")
        self.indent += 1
        self.line(f"float {d} = fclamp({self.float_expr(1)}) - {i} * {self.pick(['0.5', '1.25', '3.0'])};")
        self.line(f"if ({d} {self.pick(['<', '<='])} 0.0) {d} = -{d};")
        self.line(f"float {w} = {self.pick(['2.0', '0.5'])};")
        self.line(f"if ({i} % 3 == 1) {w} = 4.0;")
        self.line(f"else if ({i} == 0) {w} = 1.0;")
        self.line(f"{acc} = fclamp({acc} + {w} * {d});")
        self.line(f"if ({d} > {mx}) {mx} = {d};")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"f2i({acc}) + f2i(fclamp({mx}))")

    def dispatch_loop(self):
        """An interpreter's dispatch loop: `op = code[pc]`, then an `if`/`else if` chain on
        three to eight constants (from 0, 3 or 40, with holes, sometimes one repeated, and
        codes that match none) whose arms move `pc` and change two registers, joined level by
        level before the jump back (bypass-phi-blocks sends each arm straight to the last
        join; five constants or more become a jump table)."""
        code, pc, ra, rb, steps, op = (self.fresh(q) for q in ("dc", "i", "v", "v", "i", "v"))
        size = self.r.randint(4, 16)
        rounds = self.r.randint(5, 60)
        arms = self.r.randint(3, 8)
        base = self.pick([0, 0, 3, 40])
        consts = sorted(self.r.sample(range(base, base + arms + self.r.randint(0, 4)), arms))
        if self.chance(0.2):
            consts.insert(self.r.randint(1, arms), consts[0])
        span = consts[-1] - base + 2
        self.func.cost += self.multiplier * rounds * 10
        self.line(f"int {code}[{size}] = {{}};")
        self.line(f"int {pc} = 0;")
        # A variable (an input, when main has read one) keeps the codes unknown to the
        # compiler, so the chain is not folded away.
        seed = self.scalar_ref("int") or self.int_expr(1)
        self.line(f"while ({pc} < {size}) {{ {code}[{pc}] = ({pc} * {self.r.randint(1, 9)} + {seed} % 5) % {span} + {base}; {pc} = {pc} + 1; }}")
        self.line(f"{pc} = 0;")
        self.line(f"int {ra} = {self.int_expr(1)} % 100;")
        self.line(f"int {rb} = 0;")
        self.line(f"int {steps} = 0;")
        self.line(f"while ({steps} < {rounds}) {{")
        self.indent += 1
        self.line(f"int {op} = {code}[{pc}];")
        # Arms from the fourth on change all three registers, more than if-to-select turns
        # into selects, so that a long chain stays a chain of branches.
        bodies = [
            f"{pc} = {pc} + 1; {ra} = {ra} + {rb};",
            f"{pc} = {pc} + 2; {rb} = {rb} - {ra} % 7;",
            f"{pc} = {pc} + {self.r.randint(1, 3)};",
            f"{pc} = {pc} + 1; {ra} = {ra} - {self.r.randint(1, 9)}; {rb} = {rb} + 2;",
            f"{pc} = {pc} + 3; {rb} = {rb} + {ra} % 5; {ra} = {ra} + 1;",
            f"{pc} = {pc} + 1; {ra} = {ra} * 2 % 1013; {rb} = {rb} - 1;",
        ]
        for k, c in enumerate(consts):
            keyword = "if" if k == 0 else "else if"
            self.line(f"{keyword} ({op} == {c}) {{ {bodies[k % len(bodies)]} }}")
        self.line(f"else {{ {pc} = {pc} + 1; {ra} = {ra} * 3 % 1009; {rb} = {rb} + 1; }}")
        self.line(f"if ({pc} >= {size}) {pc} = {pc} - {size};")
        self.line(f"{steps} = {steps} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{ra} + {rb} * 3 + {pc}")

    def alignment_loop(self):
        """A longest-common-subsequence table with an edit cost: the arms of an if store to
        the table, then the same letters are compared again (their loads look past both
        arms' stores to another array), and one arm reads `sa[i]` again, which was read
        before the inner loop (licm may read it there: the address was read already)."""
        la, sa, ta, i, j, d, acc = (self.fresh(q) for q in ("al", "as", "at", "i", "j", "v", "v"))
        rows, cols = self.r.randint(2, 8), self.r.randint(2, 12)
        alpha = self.r.randint(2, 5)
        self.func.cost += self.multiplier * rows * cols * 16
        self.line(f"int {la}[{rows + 1}][{cols + 1}] = {{}};")
        self.line(f"int {sa}[{rows + 1}] = {{}};")
        self.line(f"int {ta}[{cols + 1}] = {{}};")
        self.line(f"int {acc} = 0;")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} <= {rows}) {{ {sa}[{i}] = ({i} * {self.r.randint(1, 7)} + {self.int_expr(1)} % 7) % {alpha}; {i} = {i} + 1; }}")
        self.line(f"{i} = 0;")
        self.line(f"while ({i} <= {cols}) {{ {ta}[{i}] = {i} * {self.r.randint(1, 7)} % {alpha}; {i} = {i} + 1; }}")
        self.line(f"{i} = 1;")
        self.line(f"while ({i} <= {rows}) {{")
        self.indent += 1
        self.line(f"int {j} = 1;")
        self.line(f"while ({j} <= {cols}) {{")
        self.indent += 1
        self.line(f"if ({sa}[{i}] == {ta}[{j}]) {la}[{i}][{j}] = {la}[{i} - 1][{j} - 1] + 1;")
        self.line(f"else if ({la}[{i} - 1][{j}] >= {la}[{i}][{j} - 1]) {la}[{i}][{j}] = {la}[{i} - 1][{j}];")
        self.line(f"else {la}[{i}][{j}] = {la}[{i}][{j} - 1];")
        self.line(f"int {d} = 0;")
        self.line(f"if ({sa}[{i}] != {ta}[{j}]) {{ {d} = 3; if ({sa}[{i}] - {ta}[{j}] == 1 || {ta}[{j}] - {sa}[{i}] == 1) {d} = 1; }}")
        self.line(f"{acc} = {acc} + {d};")
        self.line(f"{j} = {j} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{la}[{rows}][{cols}] * 100 + {acc}")

    def knapsack_rows_loop(self):
        """Knapsack rows: `t[i][c] = max(t[i - 1][c], t[i - 1][c - w] + v)` for `c` from a
        weight `w = ws[i]` read before the loop (the counter less a fixed value: a stepped
        pointer from `t[i - 1] - w`), then counts kept in one row walked down while
        `c >= ws[j]` (a load from a fixed address in the loop's test, which loop rotation
        leaves at one address), from the last column or from a top read at run time (which
        loop unrolling takes); then the row again, each cell from the one stored just
        before it (predictive commoning carries the stored value), a minimum of two, or a
        store only under a test of the cell before (which stays a load)."""
        t, ws, cnt, i, c, w, take, top = (
            self.fresh(q) for q in ("kt", "kw", "kc", "i", "j", "v", "v", "v")
        )
        rows, cols = self.r.randint(2, 6), self.r.randint(4, 24)
        self.func.cost += self.multiplier * rows * cols * 12
        self.line(f"int {t}[{rows}][{cols}] = {{}};")
        self.line(f"int {ws}[{rows}] = {{}};")
        self.line(f"int {cnt}[{cols}] = {{}};")
        self.line(f"{cnt}[0] = 1;")
        if self.chance(0.5):
            self.line(f"int {top} = {cols - 1} - idx({self.int_expr(1)}, 2);")
        else:
            self.line(f"int {top} = {cols - 1};")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {rows}) {{ {ws}[{i}] = ({self.int_expr(1)} + {i}) % {cols - 1}; if ({ws}[{i}] < 0) {ws}[{i}] = -{ws}[{i}]; {ws}[{i}] = {ws}[{i}] + 1; {i} = {i} + 1; }}")
        self.line(f"{i} = 1;")
        self.line(f"while ({i} < {rows}) {{")
        self.indent += 1
        self.line(f"int {w} = {ws}[{i}];")
        self.line(f"int {c} = 0;")
        self.line(f"while ({c} < {w}) {{ {t}[{i}][{c}] = {t}[{i} - 1][{c}]; {c} = {c} + 1; }}")
        self.line(f"while ({c} < {cols}) {{")
        self.indent += 1
        self.line(f"int {take} = {t}[{i} - 1][{c} - {w}] + {i} * {self.r.randint(1, 9)};")
        self.line(f"if ({take} > {t}[{i} - 1][{c}]) {t}[{i}][{c}] = {take};")
        self.line(f"else {t}[{i}][{c}] = {t}[{i} - 1][{c}];")
        self.line(f"{c} = {c} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"{c} = {top};")
        self.line(f"while ({c} >= {ws}[{i}]) {{ {cnt}[{c}] = ({cnt}[{c}] + {cnt}[{c} - {ws}[{i}]]) % 1009; {c} = {c} - 1; }}")
        # The row again, each cell from the one stored just before it (read back the next
        # round), always or only under a test of that cell.
        shape = self.pick([1, 1, 2, 3])
        k = self.r.randint(2, 9)
        if shape == 1:
            self.line(f"{c} = 1;")
            self.line(f"while ({c} < {cols}) {{ {t}[{i}][{c}] = ({t}[{i}][{c} - 1] * {k} + {t}[{i} - 1][{c}]) % 1009; {c} = {c} + 1; }}")
        elif shape == 2:
            self.line(f"{c} = 1;")
            self.line(f"while ({c} < {cols}) {{ int {take} = {t}[{i}][{c} - 1] + {k}; if ({t}[{i} - 1][{c}] + 1 < {take}) {take} = {t}[{i} - 1][{c}] + 1; {t}[{i}][{c}] = {take} % 1009; {c} = {c} + 1; }}")
        elif shape == 3:
            self.line(f"{c} = 1;")
            self.line(f"while ({c} < {cols}) {{ if ({t}[{i}][{c} - 1] % 3 == {k % 3}) {t}[{i}][{c}] = ({t}[{i}][{c} - 1] + {k}) % 1009; {c} = {c} + 1; }}")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{t}[{rows - 1}][{cols - 1}] + {cnt}[{cols - 1}]")

    def two_bound_loop(self):
        """A counter tested against two bounds read before the loop, both of which must hold
        to go on (`k < a && k <= b` up from 0, `k > a && k >= b` down from 0, sometimes a
        third constant bound), or an `if` on two bounds inside a counted loop:
        merge-bound-tests makes one test against the tighter bound. The bounds are small
        and may be negative."""
        k, a, b, acc = (self.fresh(q) for q in ("i", "v", "v", "v"))
        self.func.cost += self.multiplier * 60 * 4
        self.line(f"int {a} = {self.int_expr(1)} % {self.r.randint(5, 60)};")
        self.line(f"int {b} = {self.int_expr(1)} % {self.r.randint(5, 60)};")
        self.line(f"int {acc} = 0;")
        self.line(f"int {k} = 0;")
        shape = self.r.choice([0, 0, 1, 2, 3])
        if shape >= 2:
            self.line(f"while ({k} < 30) {{")
            self.indent += 1
            first, second = self.pick(["<", "<="]), self.pick(["<", "<=", ">", ">="])
            self.line(f"if ({k} {first} {a} && {k} {second} {b}) {acc} = {acc} + {k};")
            self.line(f"else {acc} = {acc} - 1;")
            self.line(f"{k} = {k} + 1;")
        else:
            up = shape == 0
            ops = ["<", "<="] if up else [">", ">="]
            tests = [f"{k} {self.pick(ops)} {a}", f"{b} {self.pick(['>', '>='] if up else ['<', '<='])} {k}"]
            if self.chance(0.3):
                tests.append(f"{k} {ops[0]} {self.r.randint(-40, 40)}")
            self.line(f"while ({' && '.join(tests)}) {{")
            self.indent += 1
            self.line(f"{acc} = {acc} + {k} * {self.r.randint(1, 9)};")
            self.line(f"{k} = {k} {'+' if up else '-'} 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{acc} + {k}")

    def bisection_loop(self):
        """A binary search over a sorted local array, `lo = mid + 1` or `hi = mid` (or
        `mid - 1` in a closed search `lo <= hi`), with the midpoint `lo + (hi - lo) / 2` or
        `(lo + hi) / 2`; then one with no array from a start that may be negative, where
        `hi - lo` can wrap, stopped after 40 rounds. From a start of 0 the halving is a shift
        (range-simplify orders `lo < hi` in the body); from a negative one it rounds."""
        arr, lo, hi, mid, key, s = (self.fresh(q) for q in ("bs", "l", "h", "m", "k", "s"))
        size = self.r.randint(3, 40)
        self.func.cost += self.multiplier * (size * 4 + 40 * 8)
        self.line(f"int {arr}[{size}] = {{}};")
        self.line(f"int {lo} = 0;")
        self.line(f"while ({lo} < {size}) {{ {arr}[{lo}] = {lo} * {self.r.randint(1, 5)} / {self.r.randint(1, 3)}; {lo} = {lo} + 1; }}")
        self.line(f"int {key} = {self.int_expr(1)} % {size * 3};")
        closed = self.chance(0.4)
        self.line(f"{lo} = {'0' if self.chance(0.7) else f'idx({self.int_expr(1)}, {size})'};")
        self.line(f"int {hi} = {size - 1 if closed else size};")
        midpoint = self.pick([f"{lo} + ({hi} - {lo}) / 2", f"({lo} + {hi}) / 2"])
        self.line(f"while ({lo} {'<=' if closed else '<'} {hi}) {{")
        self.indent += 1
        self.line(f"int {mid} = {midpoint};")
        test = self.pick(["<", "<="])
        self.line(f"if ({arr}[{mid}] {test} {key}) {lo} = {mid} + 1;")
        self.line(f"else {hi} = {mid}{' - 1' if closed else ''};")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{lo} * 7 + {hi}")
        self.line(f"{lo} = {self.int_expr(1)};")
        self.line(f"{hi} = {self.int_expr(1)};")
        self.line(f"int {s} = 0;")
        self.line(f"while ({lo} < {hi} && {s} < 40) {{")
        self.indent += 1
        self.line(f"int {mid} = {lo} + ({hi} - {lo}) / 2;")
        self.line(f"if ({mid} % {self.r.randint(3, 9)} < {key}) {lo} = {mid} + 1;")
        self.line(f"else {hi} = {mid};")
        self.line(f"{s} = {s} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{lo} + {s}")

    def halving_loop(self):
        """A loop halving a value while it is even and otherwise stepping it as the Collatz map
        does (`if (n % 2 == 0) n = n / 2; else n = 3 * n + 1;`), from a value that may be
        negative: the division under the even test is exact (one shift), a division of the
        same value elsewhere still rounds toward zero; sometimes by four under `n % 4 == 0`."""
        n, c, q = self.fresh("n"), self.fresh("v"), self.fresh("v")
        self.func.cost += self.multiplier * 40 * 6
        self.line(f"int {n} = {self.int_expr(1)} % 1000;")
        self.line(f"int {c} = 0;")
        self.line(f"int {q} = {n} / 2;")
        self.line(f"while ({n} != 1 && {n} != -1 && {n} != 0 && {c} < 40) {{")
        self.indent += 1
        if self.chance(0.3):
            self.line(f"if ({n} % 4 == 0) {n} = {n} / {self.pick(['4', '-4'])};")
            self.line(f"else if ({n} % 2 == 0) {n} = {n} / 2;")
        else:
            self.line(f"if ({n} % 2 == 0) {n} = {n} / 2;")
        self.line(f"else {n} = 3 * {n} + 1;")
        self.line(f"{c} = {c} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{c} * 7 + {n} + {q}")

    def power_of_two_divisor_loop(self):
        """Divisions by a power of two that changes at run time: a divisor doubled each round
        (`d * 2` or `d + d`, up to i32::MIN where the product wraps, never to 0) or halved
        while positive (or doubled while below a power of two up to 2^30, which keeps it
        positive), dividing counters, `2147483647 - i` (never negative) or values that
        may be negative: `x % d`, `(x / d) % 2` (a bit test, also under an `if` as a bitonic
        network does), `(x / d) * d` and the quotient itself."""
        d, r, i, acc = self.fresh("v"), self.fresh("i"), self.fresh("i"), self.fresh("v")
        n = self.r.randint(2, 12)
        halving = self.chance(0.35)
        # Doubled while below a power of two up to 2^30: known positive, so a dividend of
        # either sign divides by shifts.
        bounded = not halving and self.chance(0.4)
        start = self.r.randint(0, 4)
        rounds = self.r.randint(1, 32 - start)
        bound = self.r.randint(start + 1, 30)
        self.func.cost += self.multiplier * n * (6 if halving else bound - start if bounded else rounds) * 12
        self.line(f"int {acc} = 0;")
        if halving:
            top = self.r.randint(1, 30)
            self.line(f"int {d} = {1 << top};")
            self.line(f"while ({d} > 0) {{")
        elif bounded:
            self.line(f"int {d} = {1 << start};")
            self.line(f"while ({d} < {1 << bound}) {{")
        else:
            self.line(f"int {d} = {1 << start};")
            self.line(f"int {r} = 0;")
            self.line(f"while ({r} < {rounds}) {{")
        self.indent += 1
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {n}) {{")
        self.indent += 1
        x = self.pick([i, i, f"(2147483647 - {i})", f"({i} - {self.r.randint(1, 9)})",
                       f"({i} * {self.r.randint(2, 100000)})",
                       f"({self.r.randint(1, 9)} - {i} * {self.r.randint(2, 100000)})"])
        term = self.pick([f"{x} % {d}", f"({x} / {d}) % 2", f"({x} / {d}) * {d}",
                          f"{d} * ({x} / {d})", f"{x} / {d}", "bit test"])
        if term == "bit test":
            self.line(f"if (({x} / {d}) % 2 {self.pick(['==', '!='])} 0) {acc} = {acc} + {i};")
            self.line(f"else {acc} = {acc} - 1;")
        else:
            self.line(f"{acc} = {acc} * 3 + {term};")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        if halving:
            self.line(f"{d} = {d} / 2;")
        else:
            self.line(f"{d} = {self.pick([f'{d} * 2', f'{d} + {d}'])};")
            if not bounded:
                self.line(f"{r} = {r} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(acc)

    def subtraction_loop(self):
        """Euclid by subtraction, one step per round (`if (x > y) x = x - y; else y = y - x;`,
        the test sometimes the other way round or `>=`), sometimes after the halvings of
        Stein's binary algorithm (an `else if` chain): two selects on one condition, the
        second computing from the first's operand (the back end reads the first select
        there, and both subtract in place)."""
        x, y, c = self.fresh("v"), self.fresh("v"), self.fresh("v")
        self.func.cost += self.multiplier * 40 * 6
        self.line(f"int {x} = ({self.int_expr(1)}) % 500;")
        self.line(f"if ({x} < 0) {x} = -{x};")
        self.line(f"{x} = {x} + 1;")
        self.line(f"int {y} = {self.r.randint(1, 300)};")
        self.line(f"int {c} = 0;")
        self.line(f"while ({x} != {y} && {c} < 40) {{")
        self.indent += 1
        test = self.pick([f"{x} > {y}", f"{x} >= {y}", f"{y} < {x}"])
        if self.chance(0.4):
            # Stein's binary algorithm: the subtraction at the end of an `else if` chain.
            self.line(f"if ({x} % 2 == 0) {x} = {x} / 2;")
            self.line(f"else if ({y} % 2 == 0) {y} = {y} / 2;")
            self.line(f"else if ({test}) {x} = {x} - {y};")
        else:
            self.line(f"if ({test}) {x} = {x} - {y};")
        self.line(f"else {y} = {y} - {x};")
        self.line(f"{c} = {c} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{x} * 3 + {y} + {c}")

    def conditional_store_loop(self):
        """A loop over a small local array storing to an element under a test of the value
        it holds (if-to-select stores a select of the old and the new value, the back end
        stores under the condition): a bubble-sort pass swapping neighbours (sometimes
        clearing a flag or counting swaps, its bound sometimes shrinking pass by pass, or
        an odd-even transposition pass stepping by two), a running maximum or minimum, a decrement of
        positive elements, a store on the test's false side, a relaxation through
        subscripts computed from the counter (sometimes under a test of the source's value,
        adding a weight loaded from a second array), or a store to an element the test did not read
        (the back end runs it under the branch's condition), beside a count on the other
        side or alone."""
        arr, i, t, flag = self.fresh("s"), self.fresh("i"), self.fresh("v"), self.fresh("v")
        shape = self.pick(["swap", "swap", "max", "min", "decrement", "false side", "relax", "guarded relax", "mark"])
        # A guarded relaxation's loop is long enough to stay a loop (not unrolled whole).
        n = self.r.randint(10, 20) if shape == "guarded relax" else self.r.randint(3, 9)
        passes = self.r.randint(1, 4)
        self.func.cost += self.multiplier * n * passes * 12
        values = ", ".join(str(self.r.randint(-30, 30)) for _ in range(n))
        self.line(f"int {arr}[{n}] = {{{values}}};")
        self.line(f"int {flag} = {self.r.randint(0, 3)};")
        wt = self.fresh("s")
        lim = self.fresh("v")
        if shape == "guarded relax":
            weights = ", ".join(str(self.r.randint(-3, 12)) for _ in range(n))
            self.line(f"int {wt}[{n}] = {{{weights}}};")
            self.line(f"int {lim} = ({self.int_expr(1)}) % 20;")
        p = self.fresh("i")
        self.line(f"int {p} = 0;")
        self.line(f"while ({p} < {passes}) {{")
        self.indent += 1
        # An odd-even transposition pass: pairs from 0 or 1, stepping by 2 while `i + 1 < n`
        # (a test past the counter's next value, which loop-unroll takes).
        odd_even = shape == "swap" and self.chance(0.4)
        self.line(f"int {i} = {p} % 2;" if odd_even else f"int {i} = 0;")
        bound = str(n)
        if shape == "swap":
            # A bubble sort's pass shrinks with the passes before it (an inner bound the
            # outer loop computes, which loop-unroll takes).
            bound = self.pick([str(n - 1), f"{n - 1} - {p}"])
        if odd_even:
            self.line(f"while ({i} + 1 < {n}) {{")
        else:
            self.line(f"while ({i} < {bound}) {{")
        self.indent += 1
        e = f"({self.int_expr(1)}) % 40"
        if shape == "swap":
            test = self.pick([">", "<", ">="])
            self.line(f"if ({arr}[{i}] {test} {arr}[{i} + 1]) {{")
            self.line(f"    int {t} = {arr}[{i}];")
            self.line(f"    {arr}[{i}] = {arr}[{i} + 1];")
            self.line(f"    {arr}[{i} + 1] = {t};")
            if self.chance(0.5):
                self.line(f"    {flag} = {self.pick(['0', f'{flag} + 1'])};")
            self.line("}")
        elif shape == "max":
            self.line(f"if ({arr}[{i}] < {e}) {arr}[{i}] = {e};")
        elif shape == "min":
            self.line(f"int {t} = {e};")
            self.line(f"if ({t} <= {arr}[{i}]) {arr}[{i}] = {t};")
        elif shape == "decrement":
            self.line(f"if ({arr}[{i}] > {self.r.randint(-5, 5)}) {arr}[{i}] = {arr}[{i}] - {self.r.randint(1, 3)};")
        elif shape == "false side":
            self.line(f"if ({arr}[{i}] >= {e}) {{ }} else {{ {arr}[{i}] = {arr}[{i}] + 1; }}")
        elif shape == "relax":
            self.line(f"int {t} = ({i} * {self.r.randint(2, 7)} + {p}) % {n};")
            self.line(f"if ({arr}[{t}] + {self.r.randint(1, 9)} < {arr}[{i}]) {arr}[{i}] = {arr}[{t}] + 1;")
        elif shape == "guarded relax":
            # Bellman-Ford's step: a relaxation under a test of the source's value, the arm
            # loading the weight (the back end runs it under the outer test, its own test
            # under that).
            nd = self.fresh("v")
            self.line(f"int {t} = ({i} * {self.r.randint(2, 7)} + {p}) % {n};")
            self.line(f"if ({arr}[{t}] {self.pick(['<', '<', '!=', '>='])} {lim}) {{")
            self.line(f"    int {nd} = {arr}[{t}] + {wt}[{i}];")
            count = self.pick([f"{flag} = 1;", f"{flag} = {flag} + 1;", ""])
            self.line(f"    if ({nd} {self.pick(['<', '<='])} {arr}[{i}]) {{ {arr}[{i}] = {nd}; {count} }}")
            self.line("}")
        else:
            # The same draws as a relaxation; a constant that 3 divides adds the other side.
            self.line(f"int {t} = ({i} * {self.r.randint(2, 7)} + {p}) % {n};")
            c = self.r.randint(1, 9)
            other = f" else {flag} = {flag} + {c};" if c % 3 == 0 else ""
            self.line(f"if ({arr}[{i}] < {e}) {arr}[{t}] = {i} + {c};{other}")
        self.line(f"{i} = {i} + {2 if odd_even else 1};")
        self.indent -= 1
        self.line("}")
        self.line(f"{p} = {p} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{arr}[0] * 3 + {arr}[{n - 1}] + {arr}[{n // 2}] * 7 + {flag}")

    def lane_loop(self):
        """A loop loop-vectorize runs four rounds at a time: element-wise arithmetic over
        local arrays (`c[i] = a[i] * b[i + d] - k`), an update of an array from itself a few
        elements ahead or behind (`a[i] = a[i + d] + k`: behind by 1 to 3 is a dependence
        the vectors must not break), the counter itself stored, or a sum carried round to
        round (sometimes of products large enough to wrap), a running maximum or minimum
        (`if (a[i] > m) m = a[i];`), or the larger or smaller of two values stored
        (`t = a[i] * 2; if (b[i] > t) t = b[i]; c[i] = t;`), from a start of 0 to 3 to a
        bound of 0 to 9 rounds or up to the arrays' length, written out or in a variable;
        the arrays folded into a checksum after it."""
        a, b, c, i, acc = self.fresh("s"), self.fresh("s"), self.fresh("s"), self.fresh("i"), self.fresh("v")
        size = self.r.randint(12, 40)
        d = self.r.randint(-3, 3)
        shape = self.pick(["lanes", "shifted", "shifted", "counter", "sum", "extreme", "pick"])
        for arr in (a, b, c):
            values = ", ".join(str(self.r.randint(-50, 50)) for _ in range(self.r.randint(1, size)))
            self.line(f"int {arr}[{size}] = {{{values}}};")
        self.line(f"int {acc} = {self.r.randint(-5, 5)};")
        start = self.r.randint(0, 3)
        # Subscripts `i + d` stay inside the arrays: `i` from `lo` to below `hi`.
        lo, hi = max(start, -d), size - max(d, 0)
        trips = self.pick([self.r.randint(0, 9), hi - lo])
        end = max(lo, min(hi, lo + trips))
        self.func.cost += self.multiplier * (end - lo) * 6
        bound = str(end)
        if self.chance(0.5):
            bound = self.fresh("n")
            self.line(f"int {bound} = {end};")
        self.line(f"int {i} = {lo};")
        self.line(f"while ({i} < {bound}) {{")
        self.indent += 1
        k = self.r.randint(-9, 9)
        shifted = f"{i} + {d}" if d >= 0 else f"{i} - {-d}"
        if shape == "lanes":
            op1, op2 = self.pick(["+", "-", "*"]), self.pick(["+", "-", "*"])
            self.line(f"{c}[{i}] = {a}[{i}] {op1} {b}[{shifted}] {op2} {k};")
        elif shape == "shifted":
            self.line(f"{a}[{i}] = {a}[{shifted}] * {self.r.randint(-3, 3)} + {b}[{i}] - {k};")
        elif shape == "counter":
            self.line(f"{b}[{i}] = {i} * {self.r.randint(-5, 5)} + {a}[{i}];")
        elif shape == "pick":
            t, other = self.fresh("v"), self.pick([f"{b}[{shifted}]", str(self.r.randint(-20, 20))])
            self.line(f"int {t} = {a}[{i}] * {self.r.randint(-3, 3)};")
            self.line(f"if ({other} {self.pick(['>', '<', '>=', '<='])} {t}) {t} = {other};")
            self.line(f"{c}[{i}] = {t};")
        elif shape == "extreme":
            x = self.pick([f"{a}[{i}]", f"{b}[{shifted}]", f"{a}[{i}] - {b}[{shifted}]"])
            self.line(f"if ({x} {self.pick(['>', '<', '>=', '<='])} {acc}) {acc} = {x};")
        else:
            big = self.pick(["", " * 65537", " * 40503"])
            self.line(f"{acc} = {acc} {self.pick(['+', '-'])} {a}[{i}] * {b}[{shifted}]{big};")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{acc} + {a}[{size - 1}] * 3 + {b}[{size // 2}] - {c}[0] + {a}[0] * 7 + {c}[{size - 2}]")

    def cell_neighbours_loop(self):
        """A walk over the cells of a small local grid counting each cell's neighbours, as a
        board game or an image filter does: `dx` and `dy` from -1 to 1 (or `k` over arrays of
        directions), the centre sometimes skipped, the neighbour's coordinates wrapped round
        the board, clamped to its edge or tested against it; the inner loops branch and run a
        known, small number of rounds (full unrolling of loops of several blocks), sometimes
        with the best cell and where it was kept after the loops."""
        g, i, j, a, b, x, y, cnt = (self.fresh(p) for p in ("gn", "i", "j", "d", "d", "x", "y", "v"))
        acc, best, at = self.fresh("v"), self.fresh("v"), self.fresh("v")
        rows, cols = self.r.randint(2, 5), self.r.randint(2, 6)
        self.func.cost += self.multiplier * rows * cols * 9 * 12
        values = ", ".join(str(self.r.randint(-20, 40)) for _ in range(rows * cols))
        self.line(f"int {g}[{rows}][{cols}] = {{{values}}};")
        self.line(f"int {acc} = 0;")
        self.line(f"int {best} = -1000;")
        self.line(f"int {at} = -1;")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {rows}) {{")
        self.indent += 1
        self.line(f"int {j} = 0;")
        self.line(f"while ({j} < {cols}) {{")
        self.indent += 1
        self.line(f"int {cnt} = 0;")
        directions = self.chance(0.3)
        if directions:
            ways = self.pick([([-1, 0, 1, 0], [0, 1, 0, -1]), ([-1, -1, 1, 1], [-1, 1, -1, 1]),
                              ([-2, -1, 1, 2, 2, 1, -1, -2], [1, 2, 2, 1, -1, -2, -2, -1])])
            self.line(f"int {a}[{len(ways[0])}] = {{{', '.join(map(str, ways[0]))}}};")
            self.line(f"int {b}[{len(ways[1])}] = {{{', '.join(map(str, ways[1]))}}};")
            k = self.fresh("k")
            self.line(f"int {k} = 0;")
            self.line(f"while ({k} < {len(ways[0])}) {{")
            self.indent += 1
            self.line(f"int {x} = {i} + {a}[{k}];")
            self.line(f"int {y} = {j} + {b}[{k}];")
        else:
            self.line(f"int {a} = -1;")
            self.line(f"while ({a} <= 1) {{")
            self.indent += 1
            self.line(f"int {b} = -1;")
            self.line(f"while ({b} <= 1) {{")
            self.indent += 1
            self.line(f"int {x} = {i} + {a};")
            self.line(f"int {y} = {j} + {b};")
        edge = self.pick(["wrap", "clamp", "test"])
        weight = self.pick(["", " * 2", f" * ({x} - {y})"])
        add = f"{cnt} = {cnt} + {g}[{x}][{y}]{weight};"
        if edge == "wrap":
            self.line(f"if ({x} < 0) {x} = {x} + {rows}; else if ({x} >= {rows}) {x} = {x} - {rows};")
            self.line(f"if ({y} < 0) {y} = {y} + {cols};")
            self.line(f"if ({y} >= {cols}) {y} = {y} - {cols};")
        elif edge == "clamp":
            self.line(f"if ({x} < 0) {x} = 0;")
            self.line(f"if ({x} > {rows - 1}) {x} = {rows - 1};")
            self.line(f"if ({y} < 0) {y} = 0; else if ({y} >= {cols}) {y} = {cols - 1};")
        else:
            add = f"if ({x} >= 0 && {x} < {rows} && {y} >= 0 && {y} < {cols}) {add}"
        if not directions and self.chance(0.5):
            add = f"if ({a} != 0 || {b} != 0) {{ {add} }}"
        self.line(add)
        if directions:
            self.line(f"{k} = {k} + 1;")
        else:
            self.line(f"{b} = {b} + 1;")
            self.indent -= 1
            self.line("}")
            self.line(f"{a} = {a} + 1;")
        self.indent -= 1
        self.line("}")
        if self.chance(0.5):
            self.line(f"if ({cnt} > {best}) {{ {best} = {cnt}; {at} = {i} * {cols} + {j}; }}")
        self.line(f"{acc} = {acc} + {cnt} * ({j} + 1) - {i};")
        self.line(f"{j} = {j} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{acc} + {best} + {at}")

    def accumulator_loop(self):
        """A counted loop that reads and writes one place in memory on every iteration (a
        global scalar, or an element at fixed subscripts of a global, local or parameter
        array), as scalar promotion keeps in a register while the loop runs; sometimes with
        a `break` on the place's value (a second way out), the update under a condition,
        an inner loop updating the place too, an element of the same array read through a
        variable index (it may be the same element), or a call (it may touch the place)."""
        places = [v for v in self.visible()
                  if self.may_write(v) and (v.is_global or v.is_array)]
        if not places:
            self.counted_loop()
            return
        target = self.pick(places)
        place = self.element(target, constant=True) if target.is_array else target.name
        counter = self.fresh("i")
        trips = self.r.randint(0, 6)
        self.line(f"int {counter} = 0;")
        self.line(f"while ({counter} < {trips}) {{")
        self.indent += 1
        self.line(f"{counter} = {counter} + 1;")
        if self.chance(0.5):
            self.line(f"if ({place} > {self.r.randint(5, 60)}) break;")
        if target.ty == "int":
            update = f"{place} = {place} * {self.r.randint(1, 3)} + {counter};"
        else:
            update = f"{place} = {place} * 0.5 + {counter};"
        if self.chance(0.25):
            update = f"if ({counter} % 2 == {self.r.randint(0, 1)}) {update}"
        self.line(update)
        if self.chance(0.2):
            inner = self.fresh("j")
            self.line(f"int {inner} = 0;")
            self.line(f"while ({inner} < {self.r.randint(1, 3)}) {{")
            self.line(f"    {inner} = {inner} + 1;")
            self.line(f"    {place} = {place} + {inner};")
            self.line("}")
        if target.is_array and self.chance(0.25):
            self.line(f"{place} = {place} - {self.element(target)};")
        if self.chance(0.2):
            self.call_in_loop(trips)
        self.indent -= 1
        self.line("}")
        self.declare(Var(counter, "int", [], assignable=False))

    def closed_form_loop(self):
        """A loop that only sums, as the closed-form pass replaces by formulas: a counter
        from a start to a bound read at run time (up to a few thousand rounds, so the sums
        wrap around 2^32), stepping up to `<` or `<=`, down to `>` or `>=`, or by an odd
        step to `!=`; a sum of the counter times a constant plus an invariant, a sum of that
        sum (third degree), a plain count. Sometimes the body also prints or doubles a value,
        which keeps the loop."""
        i, n, t, s, c = (self.fresh(p) for p in ("i", "n", "t", "s", "c"))
        start = self.r.randint(-5, 5)
        reach = self.int_expr(1)
        if self.multiplier > 1:
            limit = 30
        else:
            limit = 3000 if self.func.name == "main" else 200
        self.func.cost += self.multiplier * limit * 3
        kind = self.pick(["up", "up_inclusive", "down", "down_inclusive", "odd_step"])
        self.line(f"int {i} = {start};")
        if kind == "odd_step":
            step = self.pick([1, 3, -5])
            self.line(f"int {n} = {start} + {step} * idx({reach}, {limit});")
            test, update = f"{i} != {n}", f"{i} = {i} + {step};"
        elif kind.startswith("up"):
            self.line(f"int {n} = {start} + idx({reach}, {limit});")
            test = f"{i} {'<=' if kind == 'up_inclusive' else '<'} {n}"
            update = f"{i} = {i} + 1;"
        else:
            self.line(f"int {n} = {start} - idx({reach}, {limit});")
            test = f"{i} {'>=' if kind == 'down_inclusive' else '>'} {n}"
            update = f"{i} = {i} - 1;"
        self.line(f"int {t} = {self.int_literal()};")
        self.line(f"int {s} = 0;")
        self.line(f"int {c} = 0;")
        ints = [v.name for v in self.visible() if v.ty == "int" and not v.is_array]
        invariant = self.pick(ints) if ints and self.chance(0.6) else self.int_literal()
        self.line(f"while ({test}) {{")
        self.indent += 1
        self.line(f"{t} = {t} + {i} * {self.pick([1, 2, 7, 123457, -3])} + {invariant};")
        if self.chance(0.6):
            self.line(f"{s} = {s} + {t};")
        self.line(f"{c} = {c} + {self.pick([1, 2, 5])};")
        if self.chance(0.15):
            self.line(f"{s} = {s} * 2;")
        if self.chance(0.1) and not self.func.pure and self.output_budget > 0:
            self.output_budget -= 1
            self.line(f"putint({c});")
        self.line(update)
        self.indent -= 1
        self.line("}")
        self.use_result(f"{t} - {s} + {c} * {i}")
        for v in (i, t, s, c):
            self.declare(Var(v, "int", []))

    def checked_counter_loop(self):
        """A counted loop whose body checks its counter against the loop's own range, as an
        inlined accessor does (`i < 0 || i >= n`): under the loop's guard the checks always
        fail; in the bottom-tested form that runs once before testing, they can hold."""
        i, n, acc = self.fresh("i"), self.fresh("n"), self.fresh("v")
        limit = 4 if self.multiplier > 1 else 12
        self.line(f"int {n} = idx({self.int_expr(1)}, {limit}) - {self.r.randint(0, 2)};")
        self.line(f"int {i} = {self.r.randint(-1, 1) if self.chance(0.2) else 0};")
        self.line(f"int {acc} = {self.int_literal()};")
        guarded = self.chance(0.7)
        self.line(f"while ({i} < {n}) {{" if guarded else "while (1) {")
        self.indent += 1
        self.line(f"if ({i} < 0 || {i} >= {n}) {acc} = {acc} + 7; else {acc} = {acc} + {i} * 3;")
        if self.chance(0.5):
            self.line(f"if ({i} > {n} - 1) {acc} = {acc} - 1;")
        self.line(f"{i} = {i} + 1;")
        if not guarded:
            self.line(f"if ({i} >= {n}) break;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{acc} - {i}")
        self.declare(Var(acc, "int", []))

    def modular_loop(self):
        """A loop keeping a sum modulo a constant, as value ranges simplify: the sum plus a
        remainder (or a small constant) stays below twice the modulus, so its remainder is a
        conditional subtract and its quotient a comparison; a masked, never negative value
        divided by a power of two; a counter below a constant bound multiplied and divided by
        the same constant. Sometimes the added term may be negative or the sum start
        negative, and those must stay divisions; sometimes two remainders, either sign, are
        added, whose remainder takes a step up or down by the modulus. Then, sometimes, the
        sum alone in a loop of its own (its term sometimes growing with the round, and then
        sometimes reduced by a conditional subtraction, or read from a local table filled
        in the same round), which modular-closed-form computes by formula."""
        i, n, r, q = (self.fresh(p) for p in ("i", "n", "r", "q"))
        modulus = self.pick([7, 1000, 65536, 1000000007, 998244353])
        limit = 20 if self.multiplier > 1 else 300
        self.func.cost += self.multiplier * limit * 4
        self.line(f"int {n} = idx({self.int_expr(1)}, {limit});")
        self.line(f"int {i} = 0;")
        start = self.r.randint(-3, 3) if self.chance(0.2) else 0
        self.line(f"int {r} = {start};")
        self.line(f"int {q} = 0;")
        term = self.pick([
            f"({self.int_expr(1)}) % {modulus}",
            f"idx({self.int_expr(1)}, {modulus})",
            str(self.r.randint(0, 20)),
        ])
        self.line(f"while ({i} < {n}) {{")
        self.indent += 1
        self.line(f"{r} = ({r} + {term}) % {modulus};")
        if self.chance(0.4):
            # A remainder that may be negative, doubled: within one modulus either way.
            other = self.pick([r, f"({self.int_expr(1)}) % {modulus}"])
            self.line(f"{r} = ({r} + {other}) % {modulus};")
        self.line(f"{q} = {q} + ({r} + {self.r.randint(0, 9)}) / {modulus};")
        shift = self.pick([2, 8, 64])
        self.line(f"{q} = {q} + ({i} * {shift * 3}) / {shift} + ({r} % 1024) / {shift} + {r} % {shift};")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        extra = ""
        if shift != 2 and self.multiplier == 1:
            # The sum alone, over more rounds than modular-closed-form's threshold, its term
            # the one above (fixed for this loop, of either sign), its start the sum above
            # (either sign). It draws nothing and is left out of the cost (at most 560
            # rounds, outside loops), so the programs after it stay as they were.
            j, s = self.fresh("i"), self.fresh("r")
            self.line(f"int {s} = {r};")
            self.line(f"int {j} = 0;")
            # With the counter added, the term grows with the round; a term that is never
            # negative and grows may also be reduced by one conditional subtraction, the
            # remainder only while the terms stay below the modulus.
            grows = f" + {j}" if shift == 64 else ""
            if shift == 8 and not term.startswith("("):
                step = f"{s} = {s} + {term} + {j}; if ({s} >= {modulus}) {s} = {s} - {modulus};"
            else:
                step = f"{s} = ({s} + {term}{grows}) % {modulus};"
            self.line(f"while ({j} < {n} + 260) {{ {step} {j} = {j} + 1; }}")
            extra = f" + {s}"
        elif self.multiplier == 1:
            # The sum of a local table that every round fills and reads back: once its loads
            # read the stores before them, nothing reads the table, its stores go, and the
            # sum (of the round's counter) is one modular-closed-form computes.
            j, s, t = self.fresh("i"), self.fresh("r"), self.fresh("t")
            self.line(f"int {s} = {r};")
            self.line(f"int {j} = 0;")
            self.line(f"while ({j} < {n} + 260) {{")
            self.line(f"  int {t}[3];")
            self.line(f"  {t}[0] = {term}; {t}[1] = {t}[0] + {j}; {t}[2] = {modulus} - 1;")
            self.line(f"  {s} = ({s} + {t}[1] - {t}[0]) % {modulus};")
            self.line(f"  {j} = {j} + 1;")
            self.line("}")
            extra = f" + {s}"
        self.use_result(f"{r} + {q}{extra}")
        self.declare(Var(r, "int", []))

    def unrollable_loop(self):
        """A counted loop of straight-line code, as loop unrolling runs several bodies per
        test, or all of them in a row: up by a step of 1 to 3 to `<` or `<=` a bound read at
        run time or written out (sometimes so near the top of `int` that the trip count is
        not known at compile time), from a small start or one near the top of `int` (where
        the unrolled loop's limit must not wrap), running 0 to 40 times; or its mirror image,
        down to `>` or `>=` a bound, near the bottom of `int`. It fills an array, carries two
        values from round to round (one swapped into the other) and reads back an element
        it wrote."""
        i, n, w, k, u, v, t = (self.fresh(p) for p in ("i", "n", "w", "k", "u", "u", "t"))
        step = self.r.randint(1, 3)
        limit = 6 if self.multiplier > 1 else 40
        self.func.cost += self.multiplier * limit * 6
        # Counting down is the mirror image: written with the negated step, start and
        # bounds (the top of `int` for the bottom, leaving its very end, -2^31, aside).
        sign = self.pick([1, 1, -1])
        if self.chance(0.25):
            start = 2147483647 - 4 * limit - self.r.randint(3, 6)
        else:
            start = self.r.randint(-3, 3)
        reach = self.int_expr(1)
        test = self.pick(["<", "<="] if sign > 0 else [">", ">="])
        self.line(f"int {w}[{limit + 2}] = {{}};")
        if step > 1 and self.chance(0.1):
            # A bound written out so near the top that the trip count is not worked out at
            # compile time (a later counter would wrap), though the loop stops before any
            # does: its last counter is INT_MAX - step.
            start = 2147483647 - step * self.r.randint(1, limit)
            test = "<" if sign > 0 else ">"
            self.line(f"int {n} = {sign * (2147483647 - self.r.randint(0, step - 2))};")
            start *= sign
        elif self.chance(0.3):
            # A bound written out: a few rounds are unrolled fully, more by a factor.
            start *= sign
            self.line(f"int {n} = {start + sign * (step * self.r.randint(0, limit - 1) - self.r.randint(0, 2))};")
        else:
            start *= sign
            op = "+" if sign > 0 else "-"
            self.line(f"int {n} = {start} {op} {step} * idx({reach}, {limit}) {'-' if sign > 0 else '+'} {self.r.randint(0, 2)};")
        self.line(f"int {i} = {start};")
        self.line(f"int {k} = 0;")
        self.line(f"int {u} = {self.int_literal()};")
        self.line(f"int {v} = {self.int_literal()};")
        self.line(f"while ({i} {test} {n}) {{")
        self.indent += 1
        self.line(f"{w}[{k}] = {u} + {i};")
        self.line(f"int {t} = {u};")
        self.line(f"{u} = {v} * {self.pick([3, 5, -7])} + {self.int_literal()};")
        self.line(f"{v} = {t} - {i} + {w}[{k} / 2];")
        self.line(f"{k} = {k} + 1;")
        self.line(f"{i} = {i} {'+' if sign > 0 else '-'} {step};")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{u} - {v} + {w}[{k} / 2] + {k}")
        for name in (u, v):
            self.declare(Var(name, "int", []))

    def branching_counted_loop(self):
        """A counted loop whose body branches, as loop unrolling copies its blocks, from a
        start read at run time, up or down, running 0 to 48 times: a near-period search
        counting mismatches of `w[i]` and `w[i + d]` that breaks out once there are more
        than a limit (the position and the count used after the loop, from either way
        out; or a result computed where it breaks out), or a relaxation `if (w[i] + c < u[i]) { u[i] = w[i] + c; ch = ch + 1; }`."""
        w, u, i, n, miss, lim, ch, t = (
            self.fresh(q) for q in ("w", "w", "i", "n", "v", "v", "v", "t")
        )
        size, d = 48, self.r.randint(1, 5)
        self.func.cost += self.multiplier * size * 8
        self.line(f"int {w}[{size + d}] = {{}};")
        self.line(f"int {u}[{size}] = {{}};")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {size}) {{ {w}[{i}] = ({i} * {self.r.randint(1, 9)} + {self.int_expr(1)}) % {self.r.randint(2, 5)}; {u}[{i}] = {i} % {self.r.randint(3, 9)}; {i} = {i} + 1; }}")
        self.line(f"int {n} = idx({self.int_expr(1)}, {size});")
        up = self.chance(0.6)
        if up:
            self.line(f"{i} = idx({self.int_expr(1)}, 4);")
            header, step = f"while ({i} < {n}) {{", f"{i} = {i} + 1;"
        else:
            self.line(f"{i} = {n} - 1;")
            header, step = f"while ({i} >= {self.r.randint(0, 3)}) {{", f"{i} = {i} - 1;"
        if self.chance(0.5):
            self.line(f"int {miss} = 0;")
            self.line(f"int {lim} = idx({self.int_expr(1)}, 8);")
            self.line(f"int {ch} = -1;")
            self.line(header)
            self.indent += 1
            self.line(f"if ({w}[{i}] != {w}[{i} + {d}]) {{")
            self.line(f"    {miss} = {miss} + 1;")
            if d % 2 == 1:
                self.line(f"    if ({miss} > {lim}) break;")
            else:
                self.line(f"    if ({miss} > {lim}) {{ {ch} = {i} * 7 + {w}[{i} + {d}]; break; }}")
            self.line("}")
            self.line(step)
            self.indent -= 1
            self.line("}")
            self.use_result(f"{i} * 100 + {miss} + {ch}")
        else:
            self.line(f"int {ch} = 0;")
            self.line(header)
            self.indent += 1
            self.line(f"int {t} = {w}[{i}] + {self.r.randint(-2, 2)};")
            self.line(f"if ({t} < {u}[{i}]) {{ {u}[{i}] = {t}; {ch} = {ch} + 1; }}")
            self.line(step)
            self.indent -= 1
            self.line("}")
            self.use_result(f"{ch} * 7 + {u}[idx({self.int_expr(1)}, {size})]")

    def neighbour_loop(self):
        """A loop reading neighbours of a moving index, as predictive commoning carries one
        iteration's load to the next that reads the same element: `w[i-1]`, `w[i]`, `w[i+1]`
        of an int or float array, or of one column of a 2-D one, counting up or down by 1 or
        2; sometimes the loop also stores into the array it reads (which must keep the loads)
        or into another one."""
        w, o, i, j, s = (self.fresh(p) for p in ("w", "w", "i", "j", "t"))
        size = 6 if self.multiplier > 1 else 24
        self.func.cost += self.multiplier * size * 8
        ty = self.pick(["int", "float"])
        two_d = self.chance(0.4)
        step = self.pick([1, 1, 2])
        zero = "0" if ty == "int" else "0.0"
        if two_d:
            self.line(f"{ty} {w}[{size}][3] = {{}};")
        else:
            self.line(f"{ty} {w}[{size}] = {{}};")
        self.line(f"{ty} {o}[{size}] = {{}};")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {size}) {{")
        self.indent += 1
        value = f"{i} * {self.r.randint(2, 9)} - {self.int_expr(1)}"
        if two_d:
            self.line(f"{w}[{i}][{i} % 3] = {value};")
            self.line(f"{w}[{i}][({i} + 1) % 3] = {i} - {self.r.randint(0, 5)};")
        else:
            self.line(f"{w}[{i}] = {value};")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"int {j} = idx({self.int_expr(1)}, 3);")
        self.line(f"{ty} {s} = {zero};")

        def at(k):
            return f"{w}[{k}][{j}]" if two_d else f"{w}[{k}]"

        down = self.chance(0.4)
        if down:
            self.line(f"{i} = {size - 2} - idx({self.int_expr(1)}, 4);")
            self.line(f"while ({i} >= 1) {{")
        else:
            self.line(f"{i} = 1 + idx({self.int_expr(1)}, 4);")
            self.line(f"while ({i} < {size - 1}) {{")
        self.indent += 1
        self.line(f"{s} = {s} * {self.pick([1, 2, -1])} + {at(f'{i} - 1')} - {at(i)} * 3 + {at(f'{i} + 1')};")
        if ty == "int":
            self.line(f"{s} = {s} % 1000;")
        else:
            self.line(f"if ({s} > 1000.0 || {s} < -1000.0) {s} = {s} / 16.0;")
        r = self.r.random()
        if r < 0.25:
            self.line(f"{at(f'{i} + 1')} = {s};")
        elif r < 0.5:
            self.line(f"{o}[{i}] = {s} + {at(i)};")
        self.line(f"{i} = {i} {'-' if down else '+'} {step};")
        self.indent -= 1
        self.line("}")
        if ty == "int":
            self.use_result(f"{s} + {o}[{size // 2}] + {at(size // 2)}")
        else:
            self.use_result(f"f2i({s} + {o}[{size // 2}] + {at(size // 2)})")

    def array_walk_loop(self):
        """Arrays walked by a counter that serves nothing else, as pointer induction turns
        the addresses into pointers and tests the loop's end on one of them: up or down by
        1, 2 or 4 from a start known at run time, to a bound tested with `<`, `>` or `!=`
        (one the steps reach exactly), 0 or more rounds, reading one array (or a row of a
        2-D one) and writing another or summing; the counter's final value is sometimes
        used after the loop."""
        a, b, i, n, s, k = (self.fresh(p) for p in ("w", "w", "i", "n", "t", "k"))
        size = 8 if self.multiplier > 1 else 24
        self.func.cost += self.multiplier * size * 8
        ty = self.pick(["int", "float"])
        zero = "0" if ty == "int" else "0.0"
        step = self.pick([1, 1, 2, 4])
        row = self.chance(0.3)
        self.line(f"{ty} {a}[{size}]{'[3]' if row else ''} = {{}};")
        self.line(f"{ty} {b}[{size}] = {{}};")
        self.line(f"int {k} = 0;")
        self.line(f"while ({k} < {size}) {{")
        self.indent += 1
        fill = f"{k} * {self.r.randint(2, 9)} - {self.int_expr(1)}"
        self.line(f"{a}[{k}]{'[1]' if row else ''} = {fill};")
        self.line(f"{k} = {k} + 1;")
        self.indent -= 1
        self.line("}")
        room = (size - 4) // step
        down = self.chance(0.4)
        exact = self.chance(0.4)
        trips = f"idx({self.int_expr(1)}, {room + 1})"
        if down:
            self.line(f"int {i} = {size - 1} - idx({self.int_expr(1)}, 4);")
            self.line(f"int {n} = {i} - {trips} * {step};")
            test = "!=" if exact else ">"
        else:
            self.line(f"int {i} = idx({self.int_expr(1)}, 4);")
            if exact:
                self.line(f"int {n} = {i} + {trips} * {step};")
            else:
                self.line(f"int {n} = {i} + {trips} * {step} - idx({self.int_expr(1)}, {step});")
            test = "!=" if exact else "<"
        self.line(f"{ty} {s} = {zero};")
        self.line(f"while ({i} {test} {n}) {{")
        self.indent += 1
        read = f"{a}[{i}][1]" if row else f"{a}[{i}]"
        if self.chance(0.5):
            self.line(f"{b}[{i}] = {read} * {self.r.randint(2, 5)} + {s};")
        self.line(f"{s} = {s} + {read};")
        if ty == "int":
            self.line(f"{s} = {s} % 10007;")
        self.line(f"{i} = {i} {'-' if down else '+'} {step};")
        self.indent -= 1
        self.line("}")
        total = s if ty == "int" else f"f2i({s})"
        used = f" + {i}" if self.chance(0.5) else ""
        self.use_result(f"{total} + {b}[{size // 2}]{used}")

    def two_pointer_loop(self):
        """Two indices over sorted local arrays, one of them moved per round, the elements
        under both read each round (loop-load-pre carries the one under the index the round
        kept): a search for pairs with a given sum from both ends (`if (s < t) l = l + d;
        else if (s > t) r = r - 1; else ...`), or the merge of two runs `while (i < n && j <
        m)` with the indices used after the loop, of int or float elements. Sometimes an arm
        writes the array read (the loads must stay), the left index steps by 2 or 3, or the
        second run starts at a position read before the loop."""
        a, b, c, i, j, k, t = (self.fresh(q) for q in ("w", "w", "w", "i", "i", "k", "t"))
        size = self.r.randint(3, 24)
        self.func.cost += self.multiplier * size * 12
        ty = self.pick(["int", "float"])
        self.line(f"{ty} {a}[{size}] = {{}};")
        self.line(f"{ty} {b}[{size}] = {{}};")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {size}) {{")
        self.indent += 1
        self.line(f"{a}[{i}] = {i} * {self.r.randint(1, 4)} / {self.r.randint(1, 2)} - {self.r.randint(0, 9)};")
        self.line(f"{b}[{i}] = {i} * {self.r.randint(1, 5)} / {self.r.randint(1, 3)} + {self.int_expr(1)} % 4;")
        self.line(f"{i} = {i} + 1;")
        self.indent -= 1
        self.line("}")
        writes = self.chance(0.2)
        if self.chance(0.5):
            step = self.pick([1, 1, 2, 3])
            self.line(f"int {j} = {size - 1};")
            self.line(f"int {k} = 0;")
            self.line(f"int {t} = idx({self.int_expr(1)}, {size * 3}) - 5;")
            self.line(f"{i} = 0;")
            self.line(f"while ({i} < {j}) {{")
            self.indent += 1
            self.line(f"{ty} {c} = {a}[{i}] + {a}[{j}];")
            self.line(f"{k} = {k} + 1;")
            self.line(f"if ({c} < {t}) {{")
            self.line(f"    {i} = {i} + {step};")
            self.line(f"}} else if ({c} > {t}) {{")
            if writes:
                self.line(f"    {a}[{i}] = {a}[{i}] + 1;")
            self.line(f"    {j} = {j} - 1;")
            self.line("} else {")
            self.line(f"    {k} = {k} + 100;")
            self.line(f"    {i} = {i} + 1;")
            self.line(f"    {j} = {j} - 1;")
            self.line("}")
            self.indent -= 1
            self.line("}")
            self.use_result(f"{k} * 3 + {i} - {j}")
            return
        out = self.fresh("w")
        n, m = self.r.randint(0, size), self.r.randint(1, size)
        self.line(f"{ty} {out}[{2 * size}] = {{}};")
        self.line(f"int {k} = 0;")
        self.line(f"{i} = 0;")
        start = f"idx({self.int_expr(1)}, 3)" if self.chance(0.3) else "0"
        self.line(f"int {j} = {start};")
        self.line(f"while ({i} < {n} && {j} < {m}) {{")
        self.indent += 1
        self.line(f"if ({a}[{i}] <= {b}[{j}]) {{")
        self.line(f"    {out}[{k}] = {a}[{i}];")
        if writes:
            self.line(f"    {b}[{j}] = {b}[{j}] - 1;")
        self.line(f"    {i} = {i} + 1;")
        self.line("} else {")
        self.line(f"    {out}[{k}] = {b}[{j}];")
        self.line(f"    {j} = {j} + 1;")
        self.line("}")
        self.line(f"{k} = {k} + 1;")
        self.indent -= 1
        self.line("}")
        cast = "f2i" if ty == "float" else ""
        self.use_result(f"{i} * 7 + {j} + {cast}({out}[idx({self.int_expr(1)}, {2 * size})])")

    def search_loop(self):
        """A walk along a linked list (next index i / d, down to 0) until a key matches, as
        loop rotation sees a loop with a second exit: the break's exit and the end of the
        list each see the position, and what follows uses it."""
        nx, ky, p, x, n = (self.fresh(q) for q in ("w", "w", "i", "t", "k"))
        size = self.r.randint(4, 30)
        self.func.cost += self.multiplier * size * 6
        self.line(f"int {nx}[{size}] = {{}};")
        self.line(f"int {ky}[{size}] = {{}};")
        self.line(f"int {p} = 0;")
        self.line(f"while ({p} < {size}) {{")
        self.indent += 1
        self.line(f"{nx}[{p}] = {p} / {self.r.randint(2, 3)};")
        self.line(f"{ky}[{p}] = {p} * {self.r.randint(1, 9)} % {self.r.randint(3, 7)};")
        self.line(f"{p} = {p} + 1;")
        self.indent -= 1
        self.line("}")
        self.line(f"int {x} = idx({self.int_expr(1)}, 5);")
        self.line(f"int {n} = 0;")
        self.line(f"{p} = idx({self.int_expr(1)}, {size});")
        self.line(f"while ({p} != 0) {{")
        self.indent += 1
        if self.chance(0.5):
            self.line(f"if ({ky}[{p}] == {x}) break;")
        else:
            self.line(f"if ({ky}[{p}] == {x}) {{ {n} = {n} + {p}; break; }}")
        self.line(f"{p} = {nx}[{p}];")
        self.line(f"{n} = {n} + 1;")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{p} * 100 + {n}")

    def chained_tests_loop(self):
        """A walk from both ends of an array while two counters stay in range (`i < n &&
        j >= k`), testing two or three cheap comparisons joined by `&&` and `||` (the two
        elements, their differences, a counter, constants on either side, every predicate,
        the first two sometimes in parentheses), each test picking a value or running a
        longer arm: merge-conditions joins such tests into one branch on a chain of
        compares where the flags can test it, and leaves the others."""
        a, i, j, x, y, acc = (self.fresh(q) for q in ("w", "i", "i", "qx", "qy", "v"))
        size = self.r.randint(8, 24)
        self.func.cost += self.multiplier * size * 10
        self.line(f"int {a}[{size}] = {{}};")
        self.line(f"int {i} = 0;")
        self.line(f"while ({i} < {size}) {{ {a}[{i}] = ({i} * {self.r.randint(1, 9)} + {self.int_expr(1)}) % {self.r.randint(3, 9)} - {self.r.randint(0, 4)}; {i} = {i} + 1; }}")
        self.line(f"int {acc} = 0;")
        self.line(f"int {j} = {size} - 1 - idx({self.int_expr(1)}, 4);")
        self.line(f"{i} = idx({self.int_expr(1)}, 3);")
        self.line(f"while ({i} < {size} && {j} >= {self.r.randint(0, 3)}) {{")
        self.indent += 1
        self.line(f"int {x} = {a}[{i}];")
        self.line(f"int {y} = {a}[{j}];")
        ops = ["<", "<=", ">", ">=", "==", "!="]

        def test():
            c = self.r.randint(-3, 3)
            return self.pick([
                f"{x} - {y} {self.pick(ops)} {c}",
                f"{y} - {x} {self.pick(ops)} {c}",
                f"{x} {self.pick(ops)} {y}",
                f"{c} {self.pick(ops)} {x}",
                f"{i} {self.pick(ops)} {c + 4}",
                f"{y} {self.pick(ops)} {j}",
            ])
        for _ in range(self.r.randint(1, 3)):
            first = f"{test()} {self.pick(['&&', '||'])} {test()}"
            if self.chance(0.5):
                first = f"({first}) {self.pick(['&&', '||'])} {test()}"
            if self.chance(0.6):
                self.line(f"if ({first}) {acc} = {acc} + {self.r.randint(1, 9)}; else {acc} = {acc} - {self.r.randint(1, 3)};")
            else:
                self.line(f"if ({first}) {{ {acc} = {acc} * 3 % 1000; {a}[{i}] = {acc} % 7; {acc} = {acc} + {y}; }}")
        self.line(f"{i} = {i} + 1;")
        self.line(f"{j} = {j} - {self.r.randint(1, 2)};")
        self.indent -= 1
        self.line("}")
        self.use_result(f"{acc} + {i} * 10")

    def use_result(self, e):
        """Adds `e` to a scalar the function may write, so that the code computing it stays."""
        targets = [v for v in self.visible() if v.ty == "int" and not v.is_array
                   and self.may_write(v)]
        if targets:
            target = self.pick(targets).name
            self.line(f"{target} = {target} + {e};")

    def dead_loop(self):
        """A block whose loop computes a value nothing reads (dead code elimination or loop
        deletion removes the loop whole), sometimes with a second exit."""
        acc, k = self.fresh("dead"), self.fresh("k")
        self.line("{")
        self.indent += 1
        self.line(f"int {acc} = {self.int_literal()};")
        self.line(f"int {k} = 0;")
        bound = f"{k} < {self.r.randint(2, 50)}"
        other = self.scalar_ref("int") if self.chance(0.5) else None
        if other:
            # Two ways out of the loop (two exiting blocks), neither computing what follows.
            bound = f"{bound} && {k} < {other}"
        self.line(f"while ({bound}) {{")
        self.indent += 1
        self.line(f"{acc} = {acc} * 3 + {k};")
        self.line(f"{k} = {k} + 1;")
        self.indent -= 1
        self.line("}")
        self.indent -= 1
        self.line("}")

    def shadow_block(self):
        """A nested block that redeclares a visible name."""
        outer = [v for v in self.visible() if not v.is_array and not v.const and v.assignable]
        self.line("{")
        self.indent += 1
        self.push()
        if outer:
            v = self.pick(outer)
            ty = self.pick(["int", "float"])
            # The initialiser must not mention the name being declared (in C its scope has
            # begun), so the outer declarations are out of sight while it is generated.
            hidden = [(s, s.vars.pop(v.name)) for s in self.scopes if v.name in s.vars]
            init = self.stored(ty, self.expr(ty, 2))
            for scope, var in hidden:
                scope.vars[v.name] = var
            self.line(f"{ty} {v.name} = {init};")
            self.declare(Var(v.name, ty, []))
        for _ in range(self.r.randint(1, 3)):
            if self.stmt_budget <= 0:
                break
            self.stmt()
        self.pop()
        self.indent -= 1
        self.line("}")

    def print_stmt(self):
        self.output_budget -= 1
        r = self.r.random()
        if r < 0.3:
            self.line(f"putint({self.int_expr(2)});")
            self.line(f"putch({self.pick([10, 32, 44])});")
        elif r < 0.5:
            self.line(f"putfloat({self.stored('float', self.float_expr(2))});")
            self.line("putch(10);")
        elif r < 0.8:
            fmt, args = [], []
            for _ in range(self.r.randint(1, 3)):
                kind = self.pick(["%d", "%f", "%c", "%x", "%5d", "%.2f", "%a"])
                if kind in ("%f", "%.2f", "%a"):
                    args.append(self.stored("float", self.float_expr(1)))
                elif kind == "%c":
                    args.append(str(self.r.randint(33, 126)))
                else:
                    args.append(self.int_expr(1))
                fmt.append(f"{self.pick(['x', 'y', 'v', ''])}={kind}")
            self.line(f'putf("{" ".join(fmt)}\\n", {", ".join(args)});')
        else:
            arrays = [v for v in self.visible() if v.is_array and None not in v.dims]
            if arrays:
                v = self.pick(arrays)
                total = 1
                for d in v.dims:
                    total *= d
                fn = "putarray" if v.ty == "int" else "putfarray"
                self.line(f"{fn}({total}, {v.name});")
            else:
                self.line(f"putch({self.r.randint(65, 90)});")

    # ---- declarations and functions -------------------------------------------------------------

    def global_decls(self):
        for _ in range(self.r.randint(3, 7)):
            ty = self.pick(["int", "float"])
            r = self.r.random()
            if r < 0.35:
                n = self.fresh("g")
                init = f" = {self.int_literal() if ty == 'int' else self.float_literal()}" if self.chance(0.6) else ""
                self.line(f"{ty} {n}{init};")
                self.declare(Var(n, ty, [], is_global=True))
            elif r < 0.5:
                n = self.fresh("gc")
                value = self.int_literal() if ty == "int" else self.float_literal()
                self.line(f"const {ty} {n} = {value};")
                self.declare(Var(n, ty, [], const=True, is_global=True))
            else:
                n = self.fresh("ga")
                dims = self.random_dims()
                const = self.chance(0.2)
                init = ""
                if const or self.chance(0.6):
                    init = " = " + self.initializer(ty, dims, const=True)
                self.line(f"{'const ' if const else ''}{ty} {n}{''.join(f'[{d}]' for d in dims)}{init};")
                self.declare(Var(n, ty, dims, const=const, is_global=True))

    def function(self):
        ret = self.pick(["int", "int", "float", "void"])
        name = self.fresh("f")
        if self.chance(0.3):
            self.line(f"/* {name}: {'recursive, ' if self.chance(0.5) else ''}returns {ret} */")
        recursive = self.chance(0.25)
        pure = self.chance(0.4)
        params = []
        if recursive:
            # The recursion bound: never assigned, only passed on decremented.
            params.append(Var("depth", "int", [], assignable=False))
        for _ in range(self.r.randint(0, 4)):
            ty = self.pick(["int", "float"])
            if self.chance(0.35):
                rank = self.pick([1, 1, 2])
                dims = [None] + [self.r.randint(2, 5) for _ in range(rank - 1)]
                v = Var(self.fresh("p"), ty, dims)
                # A caller's array has at least 2 rows; index within that.
                v.param_len = 2
                params.append(v)
            else:
                params.append(Var(self.fresh("p"), ty, []))
        f = Func(name, ret, params, pure, recursive)
        decl = []
        for p in params:
            if p.is_array:
                decl.append(f"{p.ty} {p.name}[]" + "".join(f"[{d}]" for d in p.dims[1:]))
            else:
                decl.append(f"{p.ty} {p.name}")
        self.line(f"{ret} {name}({', '.join(decl)}) {{")
        start = len(self.out) - 1
        self.indent += 1
        self.func = f
        self.push()
        for p in params:
            self.declare(p)
        if recursive:
            self.in_base_case = True
            base = self.return_expr() if ret != "void" else ""
            self.in_base_case = False
            self.line(f"if (depth <= 0) return{' ' + base if base else ''};")
        self.stmt_budget = self.r.randint(4, 14)
        self.output_budget = 2
        while self.stmt_budget > 0:
            self.stmt()
        if ret != "void":
            self.line(f"return {self.return_expr()};")
        elif self.chance(0.3):
            self.line("return;")
        if f.self_calls:
            # Depth at most 3 below the call, at most two calls per level.
            f.cost *= (f.self_calls + 1) ** 4
        self.pop()
        self.indent -= 1
        self.line("}")
        self.funcs.append(f)
        self.func = None
        if self.chance(0.25):
            self.copy_function(f, start)

    def copy_function(self, f, start):
        """A copy of the function whose text starts at line `start`, named `..._copy`, for
        merge-functions: its calls of itself and of functions already copied call the
        copies, so a caller's copy equals the caller only once the copies of its callees
        have been merged. Main calls both."""
        renames = {**self.copies, f.name: f"{f.name}_copy"}
        call = re.compile(r"\b(" + "|".join(map(re.escape, renames)) + r")\(")
        for text in self.out[start:]:
            self.out.append(call.sub(lambda m: renames[m.group(1)] + "(", text))
        self.copies[f.name] = renames[f.name]
        self.funcs.append(replace(f, name=renames[f.name]))

    def tail_recursive(self):
        """A function calling itself in tail position, bounded by `depth` like other recursion
        but deeper: `return trN(depth - 1, ...)`, a void call then `return`, or (when pure,
        so that the call may share an expression) an accumulating `x + trN(...)` or
        `x * trN(...)`. Sometimes what tail-recursion elimination must leave alone: a
        subtraction, two different operations, a float sum, a local array passed down. An
        argument is sometimes passed down unchanged and tested before the body."""
        ret = self.pick(["int", "int", "int", "float", "void"])
        name = self.fresh("tr")
        pure = self.chance(0.6)
        params = [Var("depth", "int", [], assignable=False)]
        for _ in range(self.r.randint(1, 3)):
            params.append(Var(self.fresh("p"), self.pick(["int", "int", "float"]), []))
        passes_array = ret == "int" and self.chance(0.2)
        if passes_array:
            params.append(Var(self.fresh("p"), "int", [None]))
        levels = self.r.randint(2, 40)
        # Its only self-calls are the tail calls written here: not recursive for `stmt`.
        f = Func(name, ret, params, pure, recursive=False, depth_bound=levels)
        decl = [f"{p.ty} {p.name}{'[]' if p.is_array else ''}" for p in params]
        self.line(f"{ret} {name}({', '.join(decl)}) {{")
        self.indent += 1
        self.func = f
        self.multiplier = levels + 1
        self.push()
        for p in params:
            self.declare(p)
        own = None
        if passes_array:
            # Each level's copy is initialised from the caller's, so sharing one between
            # levels would change what the base case returns.
            own = self.fresh("lt")
            self.line(f"int {own}[2] = {{{self.int_expr(1)} + depth, {params[-1].name}[0]}};")
            self.declare(Var(own, "int", [2]))
            self.line(f"if (depth <= 0) return {own}[0] - {own}[1];")
        elif ret == "void":
            self.line("if (depth <= 0) return;")
        else:
            base = self.int_literal() if ret == "int" and self.chance(0.5) else self.return_expr()
            self.line(f"if (depth <= 0) return {base};")
        ints = [p.name for p in params[1:] if p.ty == "int" and not p.is_array]
        if ints and ret != "void" and self.chance(0.3):
            # A test of an argument that some calls pass down unchanged: invariant in the
            # loop tail recursion makes, where licm hoists it and sink-compares brings it
            # back beside its branch.
            value = self.int_literal() if ret == "int" else self.return_expr()
            self.line(f"if ({self.pick(ints)} {self.pick(['==', '<', '>='])} {self.r.randint(-2, 2)}) return {value};")
        self.stmt_budget = self.r.randint(0, 2)
        self.output_budget = 1
        while self.stmt_budget > 0:
            self.stmt()
        if ret == "void":
            self.void_tail_calls(f)
        elif ret == "float":
            call = self.tail_call(f, own)
            if pure and self.chance(0.5):
                call = f"fclamp({self.float_expr(1)}) + {call}"
            self.line(f"return {call};")
        else:
            self.int_tail_calls(f, own)
        f.cost += 2 * self.multiplier
        self.multiplier = 1
        self.pop()
        self.indent -= 1
        self.line("}")
        self.funcs.append(f)
        self.func = None

    def tail_call(self, f, own):
        """`f`'s call of itself one level deeper, passing `own` for an array parameter."""
        args = ["depth - 1"]
        for p in f.params[1:]:
            if p.is_array:
                args.append(own)
            elif p.ty == "int" and self.chance(0.2):
                args.append(p.name)
            else:
                args.append(self.stored(p.ty, self.expr(p.ty, 1)))
        return f"{f.name}({', '.join(args)})"

    def void_tail_calls(self, f):
        if self.chance(0.5):
            self.line(f"if ({self.int_expr(2)}) {{")
            self.line(f"  {self.tail_call(f, None)};")
            self.line("  return;")
            self.line("}")
        self.line(f"{self.tail_call(f, None)};")

    def int_tail_calls(self, f, own):
        """The returns of an int function: a plain tail call, or with an operation around
        the call; before it, sometimes another in a branch, with the same operation, none,
        or (for `mixed`) another one."""
        kind = self.pick(["plain", "+", "*", "-", "mixed"]) if f.pure else "plain"
        final = self.pick(["+", "*"]) if kind == "mixed" else kind
        if self.chance(0.5):
            branch = {"plain": "plain", "mixed": "*" if final == "+" else "+"}.get(kind)
            op = branch or self.pick(["plain", kind])
            self.line(f"if ({self.int_expr(2)}) return {self.around(op, self.tail_call(f, own))};")
        self.line(f"return {self.around(final, self.tail_call(f, own))};")

    def around(self, op, call):
        """`call`, or `call` and another operand joined by `op`, on either side."""
        if op == "plain":
            return call
        x = self.int_expr(1)
        return f"{x} {op} {call}" if self.chance(0.5) else f"{call} {op} {x}"

    def call_chain(self):
        """Small pure functions each calling the one before, for inlining: a leaf, then
        callers with several returns, a local array or a call in a loop."""
        prev = None
        for _ in range(self.r.randint(2, 4)):
            name = self.fresh("chain")
            a, b = self.fresh("p"), self.fresh("p")
            c = self.r.randint(1, 9)
            self.line(f"int {name}(int {a}, int {b}) {{")
            self.indent += 1
            kind = self.r.randrange(4) if prev else -1
            if kind == -1:
                self.line(f"return {a} * {c} + {b} - {self.r.randint(0, 99)};")
            elif kind == 0:
                self.line(f"return {prev.name}({b}, {a} + {c}) + {a};")
            elif kind == 1:
                self.line(f"if ({a} < {b}) return {prev.name}({a}, {b});")
                self.line(f"if ({a} == {b}) return {c};")
                self.line(f"return {prev.name}({b}, {a}) * 2;")
            elif kind == 2:
                self.line(f"int t[3] = {{{a}, {prev.name}({a}, {b})}};")
                self.line(f"t[2] = t[0] + t[1] * {c};")
                self.line(f"return t[2] - {b};")
            else:
                self.line(f"int s = {b}, i = 0;")
                self.line(f"while (i < {c}) {{ s = {prev.name}(s, i) % 1000; i = i + 1; }}")
                self.line("return s;")
            self.indent -= 1
            self.line("}")
            calls = {-1: 0, 0: 1, 1: 2, 2: 1, 3: c}[kind]
            cost = 3 + calls * (prev.cost if prev else 0)
            params = [Var(a, "int", []), Var(b, "int", [])]
            prev = Func(name, "int", params, pure=True, recursive=False, cost=cost)
            self.funcs.append(prev)

    def tree_recursion(self):
        """A pure function of small int arguments whose recursion revisits them (Fibonacci,
        binomial coefficients, a self-call in a loop, the same self-call twice, a backtracking
        search whose self-call in a loop keeps eight values live across it, a recursion that
        counts its calls in a global after its base-case test, a backtracking step that
        marks and unmarks elements of two global arrays at one index, updates a row of a
        global matrix and counts its calls in a global scalar, reached from one address per
        section, a recursion whose base case loops over a global array and whose ways out share
        a `return 1`, a float recursion with two base cases behind an int wrapper (its
        arguments scaled, or stepped by constants, or Takeuchi's function on floats), a search
        over a few fixed choices that returns from inside its loop at a cap, queens marked in
        diagonal arrays), for
        memoisation, value numbering of calls, inlining into itself, base cases tested before
        the call, base cases that return before the frame is set up, and values split
        around the loops of the levels inlined into them. main calls it with
        arguments small enough that its unmemoised call tree stays below 50,000 calls."""
        name = self.fresh("memo")
        kind = self.r.randrange(12)
        c = self.r.randint(1, 9)
        if kind == 0:
            self.line(f"int {name}(int n) {{")
            self.line(f"  if (n < 2) return n + {c};")
            self.line(f"  return ({name}(n - 1) * {c} + {name}(n - 2)) % 1000;")
            arity = 1
        elif kind == 1:
            self.line(f"int {name}(int n, int k) {{")
            self.line(f"  if (k <= 0 || k >= n) return {c} + k;")
            self.line(f"  return ({name}(n - 1, k - 1) + {name}(n - 1, k)) % 10007;")
            arity = 2
        elif kind == 2:
            self.line(f"int {name}(int n) {{")
            self.line(f"  if (n <= 0) return {c};")
            self.line("  int s = 0, i = 1;")
            self.line(f"  while (i <= n) {{ s = (s + {name}(n - i) * i) % 997; i = i + 1; }}")
            self.line("  return s;")
            arity = 1
        elif kind == 3:
            # The same call twice (value numbering keeps one), as in a recursive power.
            self.line(f"int {name}(int a, int n) {{")
            self.line(f"  if (n <= 0) return a % 7 + {c};")
            self.line(f"  int h = {name}(a, n / 2);")
            self.line(f"  if (n % 2 == 1) return (h * {name}(a, n / 2) + a) % 1000;")
            self.line(f"  return (h + {name}(a, n / 2) * {c}) % 1000;")
            arity = 2
        elif kind == 5 and c % 2 == 0:
            # A counter the recursion only adds to, read by a wrapper after the calls:
            # memoisation keeps what each call adds beside its result.
            self.line(f"int {name}_calls;")
            self.line(f"int {name}_r(int k, int n) {{")
            self.line(f"  {name}_calls = {name}_calls + k % 3 + 1;")
            self.line(f"  if (k >= n) return k % 5 + {c};")
            self.line(f"  int first = {name}_r(k + 1, n);")
            self.line(f"  return (first + {name}_r(k + 2, n) * {c}) % 1000;")
            self.line("}")
            self.line(f"int {name}(int k, int n) {{")
            self.line(f"  return ({name}_r(k, n) + {name}_calls) % 1000;")
            arity = 2
        elif kind == 5:
            # The store keeps memoisation away; the base case is tested before it.
            self.line(f"int {name}_calls;")
            self.line(f"int {name}(int k, int n) {{")
            self.line(f"  if (k >= n) return (k + {name}_calls) % 5 + {c};")
            self.line(f"  {name}_calls = {name}_calls + 1;")
            self.line(f"  int first = {name}(k + 1, n);")
            self.line(f"  return (first + {name}(k + 2, n) * {c}) % 1000;")
            arity = 2
        elif kind == 6:
            # Marks at one index of two global arrays, undone after the calls.
            self.line(f"int {name}_nodes;")
            self.line(f"int {name}_a[16];")
            self.line(f"int {name}_b[16];")
            self.line(f"int {name}_m[16][3];")
            self.line(f"int {name}(int k, int n) {{")
            self.line(f"  {name}_nodes = {name}_nodes + 1;")
            self.line(f"  if (k >= n) return {name}_a[(k % 16 + 16) % 16] + {name}_b[((k + {c}) % 16 + 16) % 16];")
            self.line(f"  int x = ((k * {c} + n) % 16 + 16) % 16;")
            self.line(f"  {name}_a[x] = {name}_a[x] + 1;")
            self.line(f"  {name}_b[x] = {name}_b[x] + k;")
            self.line(f"  {name}_m[x][{c % 3}] = {name}_m[x][{c % 3}] + {name}_a[x];")
            self.line(f"  int s = {name}(k + 1, n) + {name}(k + 2, n);")
            self.line(f"  {name}_a[x] = {name}_a[x] - 1;")
            self.line(f"  return (s + {name}_b[x] + {name}_nodes % 7) % 1000;")
            arity = 2
        elif kind == 7:
            # The base case loops over a global array without calling; two ways out share
            # `return 1`, one before the calls and one after.
            self.line(f"int {name}_seen[8];")
            self.line(f"int {name}(int k, int n, int acc) {{")
            self.line("  if (k >= n) {")
            self.line("    int i = 0;")
            self.line(f"    while (i < 8) {{ acc = acc + {name}_seen[i] * (i + {c}); i = i + 1; }}")
            self.line("    return acc % 1000;")
            self.line("  }")
            self.line(f"  if (acc > {c * 500}) return 1;")
            self.line(f"  {name}_seen[(k % 8 + 8) % 8] = {name}_seen[(k % 8 + 8) % 8] + 1;")
            self.line(f"  int r = {name}(k + 1, n, acc + k) + {name}(k + 2, n, acc * 2 % 97);")
            self.line("  if (r % 2 == 0) return 1;")
            self.line("  return r % 1000;")
            arity = 3
        elif kind == 8 and c % 3 == 1:
            # Float arguments stepped by constants, which meet their earlier values again:
            # memoised with the floats' bits as keys.
            self.line(f"float {name}_f(float x, int n) {{")
            self.line("  if (n <= 0 || x < 1.0) return x * 0.5;")
            self.line(f"  return {name}_f(x - 1.0, n - 1) * 0.5 + {name}_f(x - 2.0, n - 2) - {c}.0;")
            self.line("}")
            self.line(f"int {name}(int k, int n) {{")
            self.line(f"  return {name}_f(k * 1.5, n);")
            arity = 2
        elif kind == 8 and c % 3 == 2:
            # Takeuchi's function on floats: the outer call's arguments are the inner calls'
            # results.
            self.line(f"float {name}_t(float x, float y, float z) {{")
            self.line(f"  if (y < x) return {name}_t({name}_t(x - 1.0, y, z), {name}_t(y - 1.0, z, x), {name}_t(z - 1.0, x, y));")
            self.line("  return z;")
            self.line("}")
            self.line(f"int {name}(int k, int n) {{")
            self.line(f"  return {name}_t(k * 0.5, n * 0.25, {c}.0 * 0.125);")
            arity = 2
        elif kind == 8:
            # Float arguments and result: the saved float registers wait for the prologue.
            self.line(f"float {name}_f(float x, int n) {{")
            self.line("  if (n <= 0) return x * 0.5;")
            self.line(f"  if (x > {c * 10}.0) return x - 1.5;")
            self.line(f"  return {name}_f(x * 1.25 + 0.5, n - 1) * 0.5 + {name}_f(x - 0.75, n - 2);")
            self.line("}")
            self.line(f"int {name}(int k, int n) {{")
            self.line(f"  return {name}_f(k * 0.5, n);")
            arity = 2
        elif kind == 9:
            # A pruned search counting subsets: the second self-call becomes a loop with an
            # accumulator, and each level inlined into itself keeps its counter, remainder and
            # count live through the next level's loop, whose calls crowd the registers.
            self.line(f"int {name}_nodes;")
            self.line(f"int {name}(int i, int rem) {{")
            self.line(f"  {name}_nodes = {name}_nodes + 1;")
            self.line("  if (rem == 0) return 1;")
            self.line(f"  if (i >= 12 || rem > (12 - i) * {c + 4}) return 0;")
            self.line(f"  int wi = (i * {c}) % 5 + 1;")
            self.line(f"  if (wi > rem) return {name}(i + 1, rem);")
            self.line(f"  return {name}(i + 1, rem - wi) + {name}(i + 1, rem);")
            arity = 2
        elif kind == 10:
            # A backtracking search over a few choices fixed at compile time (a sudoku's
            # digits), each marked around the self-call, which returns from inside the loop
            # once the count reaches a cap: the loop's rounds are peeled in front of it. Each
            # choice is taken once on a path, so the call tree stays small whatever k and n.
            rounds = self.r.randint(3, 6)
            self.line(f"int {name}_used[8];")
            self.line(f"int {name}(int k, int n) {{")
            self.line("  if (k >= n) return 1;")
            self.line("  int count = 0, d = 1;")
            self.line(f"  while (d <= {rounds}) {{")
            self.line(f"    if ({name}_used[d] == 0 && (d + k * {c}) % 3 != 0) {{")
            self.line(f"      {name}_used[d] = 1;")
            self.line(f"      count = count + {name}(k + 1, n);")
            self.line(f"      {name}_used[d] = 0;")
            self.line(f"      if (count >= {self.r.randint(2, 20)}) return count * 10 + d;")
            self.line("    }")
            self.line("    d = d + 1;")
            self.line("  }")
            self.line("  return count;")
            arity = 2
        elif kind == 11:
            # Queens on an n x n board, each column tried in a loop around the self-call and
            # marked in the diagonals at row + c and row - c + n - 1, whose part fixed for
            # the loop (row + n - 1) reassociation gathers; inlined into itself, the outer
            # level's values live through the inner level's loop and its calls.
            self.line(f"int {name}_col[8];")
            self.line(f"int {name}_up[16];")
            self.line(f"int {name}_down[16];")
            self.line(f"int {name}(int row, int n) {{")
            self.line("  if (n < 1 || n > 8 || row < 0) return n;")
            self.line("  if (row >= n) return 1;")
            self.line("  int count = 0, c = 0;")
            self.line("  while (c < n) {")
            self.line(f"    if ({name}_col[c] == 0 && {name}_up[row + c] == 0 && {name}_down[row - c + n - 1] == 0) {{")
            self.line(f"      {name}_col[c] = 1;")
            self.line(f"      {name}_up[row + c] = 1;")
            self.line(f"      {name}_down[row - c + n - 1] = 1;")
            self.line(f"      count = count + {name}(row + 1, n) * {c} % 7 + 1;")
            self.line(f"      {name}_col[c] = 0;")
            self.line(f"      {name}_up[row + c] = 0;")
            self.line(f"      {name}_down[row - c + n - 1] = 0;")
            self.line("    }")
            self.line("    c = c + 1;")
            self.line("  }")
            self.line("  return count;")
            arity = 2
        else:
            # Choices not taken yet, as bits of `used`, each tried in a loop around the call.
            self.line(f"int {name}(int k, int n, int used) {{")
            self.line("  if (k >= n) return 1;")
            self.line(f"  int count = 0, v = 0, bit = 1, w = k * {c} + 1, z = n - k;")
            self.line("  while (v < n) {")
            self.line("    if ((used / bit) % 2 == 0 && (v + w) % 3 != z % 3)")
            self.line(f"      count = (count + {name}(k + 1, n, used + bit) * (v + 1) + w) % 10007;")
            self.line("    bit = bit * 2;")
            self.line("    v = v + 1;")
            self.line("  }")
            self.line("  return count + z;")
            arity = 3
        self.line("}")
        largest = [17, 17, 12, 17, 6, 16, 16, 14, 14, 12, 8, 8][kind]
        self.tree_recursions.append((name, arity, largest))

    def digit_printer(self):
        """A recursive function printing a number's decimal digits, which ends in a call of
        the runtime whose result it would return (a tail call for the back end): recursion
        keeps it from being inlined."""
        name = self.fresh("digits")
        self.line(f"void {name}(int n) {{")
        self.line("  if (n < 0) {")
        self.line("    putch(45);")
        self.line("    n = -(n % 100000);")
        self.line("  }")
        self.line(f"  if (n >= 10) {name}(n / 10);")
        self.line("  putch(48 + n % 10);")
        self.line("}")
        self.digit_printers.append(name)

    def constant_parameters(self):
        """A function that every call passes the same constant in one place, with a parameter
        it never uses and a constant return, for interprocedural constant propagation and
        dead arguments; main calls it twice."""
        name = self.fresh("cp")
        k, ret = self.r.randint(-9, 9), self.r.randint(0, 99)
        self.line(f"int {name}(int x, int k, int unused) {{")
        self.line("  side_count = side_count + x * k + k % 7;")
        self.line(f"  return {ret};")
        self.line("}")
        self.constant_parameter_calls.append((name, k))

    def predicate(self):
        """A small function returning 0 or 1 from several places, tested by an if in main:
        once inlined, jump threading sends each return straight to its side of the if."""
        name = self.fresh("pred")
        a, b, c = self.r.randint(2, 5), self.r.randint(-9, 0), self.r.randint(1, 9)
        self.line(f"int {name}(int x) {{")
        self.line(f"  if (x % {a} == 0) return 1;")
        self.line(f"  if (x < {b}) return 0;")
        self.line(f"  if (x > {c}) return 1;")
        self.line("  return 0;")
        self.line("}")
        self.predicates.append(name)

    def stencil(self):
        """Two global 2-D arrays and a function that reads the neighbours of each element of
        one (its parameter `s`) and writes the other (`t`) through branches, as a game of
        life does: main calls it with the two arrays both ways round, which never alias, or
        sometimes with one array twice, which does. The loop sometimes leaves early or writes
        into `s` too. For predictive commoning over loops of several blocks."""
        name, a, b = self.fresh("st"), self.fresh("ga"), self.fresh("ga")
        rows, cols = self.r.randint(4, 6), self.r.randint(4, 9)
        for g in (a, b):
            self.line(f"int {g}[{rows}][{cols}];")
        c1, c2, m = self.r.randint(1, 9), self.r.randint(0, 3), self.pick([3, 4, 5])
        self.line(f"void {name}(int s[][{cols}], int t[][{cols}], int n) {{")
        self.line("  int j = 1;")
        self.line(f"  while (j < {rows - 1}) {{")
        self.line("    int i = 1;")
        self.line("    while (i < n) {")
        self.line("      int c = s[j - 1][i - 1] + s[j - 1][i] + s[j - 1][i + 1] + s[j][i - 1]")
        self.line("            + s[j][i + 1] + s[j + 1][i - 1] + s[j + 1][i] + s[j + 1][i + 1];")
        self.line(f"      if (s[j][i] % 2 == 1 && c % {m} == {c2}) t[j][i] = c % 100;")
        self.line(f"      else if (c % {m} == {(c2 + 1) % m}) t[j][i] = s[j][i] + {c1};")
        self.line("      else t[j][i] = s[j + 1][i] - 1;")
        r = self.r.random()
        if r < 0.15:
            self.line("      if (c > 400) break;")
        elif r < 0.3:
            self.line("      s[j][i + 1] = s[j][i + 1] % 50;")
        self.line("      i = i + 1;")
        self.line("    }")
        self.line("    j = j + 1;")
        self.line("  }")
        self.line("}")
        self.stencils.append((name, a, b, cols))

    def related_ifs(self, x):
        """Nested ifs and && / || chains testing one value against constants, so that the
        inner tests are decided by the outer ones (or not, near the boundaries)."""
        c = [self.r.randint(-6, 6) for _ in range(4)]
        ops = ["<", "<=", ">", ">=", "==", "!="]
        op = [self.pick(ops) for _ in range(4)]
        join = self.pick(["&&", "||"])
        self.line(f"if ({x} {op[0]} {c[0]}) {{")
        self.line(f"  if ({x} {op[1]} {c[1]}) putint({c[1]}); else putint({c[2]});")
        self.line("} else {")
        self.line(f"  if ({x} {op[2]} {c[2]} {join} {x} {op[3]} {c[3]}) putint({c[3]});")
        self.line("}")

    def main_shapes(self):
        """What main does with the shapes made before it: related ifs on one of its values,
        sometimes a loop nest to a bound read from input (`outer_counter_nest`), tests of the
        predicates, calls of the constant-parameter and tree-recursive functions."""
        ints = [v for v in self.visible() if v.ty == "int" and not v.is_array]
        if ints and self.chance(0.4):
            self.related_ifs(self.pick(ints).name)
        if self.chance(0.3):
            self.outer_counter_nest()
        for name in self.predicates:
            x = self.pick(ints).name if ints else str(self.r.randint(-20, 20))
            self.line(f"if ({name}({x})) putint({self.r.randint(0, 9)});")
            self.line(f"else putint({self.r.randint(10, 99)});")
        ints = [v for v in self.visible() if v.ty == "int" and not v.is_array]
        for name, k in self.constant_parameter_calls:
            for _ in range(2):
                x = self.pick(ints).name if ints else str(self.r.randint(-9, 9))
                self.line(f"putint({name}({x}, {k}, {self.r.randint(0, 9)}));")
        for name, a, b, cols in self.stencils:
            i = self.fresh("i")
            self.line(f"int {i} = 0;")
            self.line(f"while ({i} < {cols}) {{")
            self.line(f"  {a}[{i} % 3][{i}] = {i} * {self.r.randint(2, 9)} % 7;")
            self.line(f"  {a}[{i} % 3 + 1][{i}] = {i} % {self.r.randint(2, 4)};")
            self.line(f"  {b}[1][{i}] = {i} % 5;")
            self.line(f"  {i} = {i} + 1;")
            self.line("}")
            n = self.r.randint(2, cols - 1)
            self.line(f"{name}({a}, {b}, {n});")
            second = (b, b) if self.chance(0.25) else (b, a)
            self.line(f"{name}({second[0]}, {second[1]}, {n});")
            self.line(f"putint({a}[1][1] + {a}[1][{n - 1}] * 3 + {b}[1][{n // 2}] * 7 + {b}[2][1]);")
            self.line("putch(10);")
        ints = [v for v in self.visible() if v.ty == "int" and not v.is_array]
        for name in self.digit_printers:
            value = self.pick(ints).name if ints else str(self.r.randint(-99999, 99999))
            self.line(f"{name}({value});")
            self.line("putch(10);")
        for name, arity, largest in self.tree_recursions:
            args = []
            for _ in range(arity):
                if ints and self.chance(0.5):
                    args.append(f"{self.pick(ints).name} % 5 + {largest - 4}")
                else:
                    args.append(str(self.r.randint(-2, largest)))
            self.line(f"putint({name}({', '.join(args)}));")
            self.line("putch(10);")

    def main(self):
        self.line("int main() {")
        self.indent += 1
        self.func = Func("main", "int", [], False, False)
        self.push()
        self.read_input()
        self.main_shapes()
        if self.chance(0.5):
            self.line("starttime();")
        self.stmt_budget = self.r.randint(10, 25)
        self.output_budget = 4
        for f in self.funcs:
            args = self.args_for(f)
            if None not in args:
                call = f"{f.name}({', '.join(args)})"
                if f.ret == "void":
                    self.line(f"{call};")
                else:
                    n = self.fresh("r")
                    self.line(f"{f.ret} {n} = {self.stored(f.ret, call)};")
                    self.declare(Var(n, f.ret, []))
        while self.stmt_budget > 0:
            self.stmt()
        if any(line.strip() == "starttime();" for line in self.out):
            self.line("stoptime();")
        self.digest()
        self.pop()
        self.indent -= 1
        self.line("}")

    def read_input(self):
        for _ in range(self.r.randint(1, 4)):
            r = self.r.random()
            if r < 0.35:
                n = self.fresh("in")
                self.line(f"int {n} = getint();")
                self.input.append(f" {self.r.randint(-1000, 1000)}")
                self.declare(Var(n, "int", []))
            elif r < 0.5:
                n = self.fresh("ch")
                self.line(f"int {n} = getch();")
                # Right after a number, a digit would be read as part of it.
                after_number = self.input and self.input[-1][-1].isdigit()
                self.input.append(self.pick("abcXYZ \n+-" if after_number else "abcXYZ01 \n+-"))
                self.declare(Var(n, "int", []))
            elif r < 0.7:
                n = self.fresh("fin")
                self.line(f"float {n} = fclamp(getfloat());")
                value = self.r.randint(-4000, 4000) / 32.0
                text = float.hex(value) if self.chance(0.3) else repr(value)
                self.input.append(f" {text}")
                self.declare(Var(n, "float", []))
            else:
                ty = self.pick(["int", "float"])
                n = self.fresh("ain")
                size = self.r.randint(2, 8)
                count = self.fresh("n")
                fn = "getarray" if ty == "int" else "getfarray"
                self.line(f"{ty} {n}[{size}] = {{}};")
                self.line(f"int {count} = {fn}({n});")
                k = self.r.randint(0, size)
                vals = [str(self.r.randint(-99, 99)) if ty == "int" else repr(self.r.randint(-99, 99) / 4.0)
                        for _ in range(k)]
                # No space after the last number: a getch that follows reads its own char.
                self.input.append(" ".join([f" {k}", *vals]))
                self.declare(Var(n, ty, [size]))
                self.declare(Var(count, "int", []))

    def digest(self):
        """Prints every global and returns a checksum."""
        terms = ["side_count"]
        for v in self.scopes[0].vars.values():
            if v.is_array:
                total = 1
                for d in v.dims:
                    total *= d
                fn = "putarray" if v.ty == "int" else "putfarray"
                self.line(f"{fn}({total}, {v.name});")
                first = v.name + "[0]" * len(v.dims)
                terms.append(first if v.ty == "int" else f"f2i({first})")
            elif v.ty == "int":
                self.line(f"putint({v.name});")
                self.line("putch(10);")
                terms.append(v.name)
            else:
                self.line(f"putfloat({v.name});")
                self.line("putch(10);")
                terms.append(f"f2i({v.name})")
        self.line("putint(side_count);")
        self.line("putch(10);")
        self.line(f"return {' + '.join(terms)};")

    def program(self):
        self.out.append("// generated by scripts/sysy_gen.py")
        self.out.extend(HELPERS.splitlines())
        self.global_decls()
        if self.chance(0.6):
            self.call_chain()
        for _ in range(self.r.choice([0, 0, 1, 2])):
            self.tree_recursion()
        if self.chance(0.3):
            self.digit_printer()
        if self.chance(0.3):
            self.constant_parameters()
        if self.chance(0.3):
            self.predicate()
        if self.chance(0.25):
            self.stencil()
        for _ in range(self.r.randint(2, 6)):
            if self.chance(0.3):
                self.tail_recursive()
            else:
                self.function()
        self.main()
        return "\n".join(self.out) + "\n", "".join(self.input) + "\n"


def generate(seed):
    """(program text, input text) for a seed. One program in ten has CRLF line ends."""
    text, stdin = Gen(seed).program()
    if seed % 10 == 7:
        text = text.replace("\n", "\r\n")
    return text, stdin


# Every construct of the language, with a pattern that finds it in program text.
FEATURES = [
    ("int scalar, global and local", r"^int g\d+|^\s+int v\d+ ="),
    ("float scalar, global and local", r"^float g\d+|^\s+float v\d+ ="),
    ("const int and const float", r"const int c|const float c"),
    ("global array of 2+ dimensions", r"^(const )?(int|float) ga\d+\[\d+\]\[\d+\]"),
    ("local array", r"^\s+(int|float) la\d+\["),
    ("const array", r"const (int|float) (ga|la)\d+\["),
    ("nested-brace initialiser", r"= \{\{"),
    ("empty initialiser {}", r"= \{\}"),
    ("array parameter a[]", r"\w+ p\d+\[\]\)|\w+ p\d+\[\],"),
    ("2-D array parameter a[][N]", r"p\d+\[\]\[\d+\]"),
    ("partially indexed array argument", r"\w+\((.*, )?(ga|la|p)\d+\[[^\]]+\][,)]"),
    ("call", r"= f\d+\("),
    ("constant add chain", r"[+-] \d+ [+-] \d+ [+-] \d+\)"),
    ("product of one value", r"\((\w+) \* \1 \* \1"),
    ("negated comparison", r"\) (==|!=) [01]\)"),
    ("dead loop", r"^\s+int dead\d+ ="),
    ("dead loop with two exits", r"while \(k\d+ < \d+ && k\d+ < "),
    ("bounded recursion", r"f\d+\(depth - 1"),
    ("tail call", r"return tr\d+\(depth - 1[^;]*\);"),
    ("void tail call", r"^\s+tr\d+\(depth - 1"),
    ("accumulating tail call", r"return [^;]* [+*] tr\d+\(depth - 1|return tr\d+\(depth - 1.*\) [+*] "),
    ("local array passed down a recursion", r"tr\d+\(depth - 1, [^;]*lt\d+\)"),
    ("void function", r"^void f\d+\("),
    ("float function", r"^float f\d+\("),
    ("return without value", r"return;"),
    ("if / else", r"\} else \{"),
    ("while", r"while \("),
    ("break", r"\) break;"),
    ("continue", r"\) continue;"),
    ("&& with side effect on the right", r"&& side\("),
    ("|| with side effect on the right", r"\|\| side\("),
    ("shadowing in a nested block", r"\b(int|float) ([vp]\d+)\b(?s:.*)^\s+\{\r?\n\s+(int|float) \2 ="),
    ("decimal int literal", r"[^\w.]\d{2,}[^\w.]"),
    ("hex int literal", r"0[xX][0-9a-fA-F]+[^.\w]"),
    ("octal int literal", r"[^\w.]0[0-7]+[^\w.]"),
    ("decimal float literal", r"\d\.\d"),
    ("float literal with exponent", r"\d[eE][+-]\d"),
    ("hex float literal", r"0x[0-9a-f.]+p[+-]?\d"),
    ("implicit int to float conversion", r"float v\d+ = (\d+|0[xX][0-9a-fA-F]+);"),
    ("implicit float to int conversion", r"int v\d+ = [\d.]+([eE][+-]?\d+)?;"),
    ("arithmetic + - * / %", r" / -?\d+\)"),
    ("remainder", r" % -?\d+\)"),
    ("division or remainder by a large constant", r" [/%] -?\d{9,10}\)"),
    ("remainder by a power of two tested against zero", r" % -?(2|4|8|16|64|1073741824)\) (==|!=) 0\)"),
    ("remainder by an odd constant tested against zero", r" % -?(3|7|17|1000007|2147483647)\) (==|!=) 0\)"),
    ("remainder by a power of two tested against another remainder", r" % -?(2|4|8|16|64|1073741824)\) (==|!=) -?[1-9]\d*\)"),
    ("the same computation on both sides of an if", r"putch\(\d+\);\r?\n\s+(\w+ = [^;]+;)\r?\n\s+\} else \{\r?\n\s+\1"),
    ("search along a list with a break", r"^\s+if \((w\d+)\[i\d+\] == t\d+\) (break|\{)"),
    ("the same recursive call twice", r"int h = (memo\d+)\(a, n / 2\);"),
    ("xor emulated with + and -", r"\((\w+) - \(\1 \+ (\w+)\) \+ \2 - \(\1 \+ \2\)"),
    ("comparisons", r" (<=|>=|==|!=) "),
    ("unary - ! +", r"!\("),
    ("getint", r"getint\(\)"),
    ("getch", r"getch\(\)"),
    ("getfloat", r"getfloat\(\)"),
    ("getarray", r"getarray\("),
    ("getfarray", r"getfarray\("),
    ("putint", r"putint\("),
    ("putch", r"putch\("),
    ("putfloat", r"putfloat\("),
    ("putarray", r"putarray\("),
    ("putfarray", r"putfarray\("),
    ("putf with ints and floats", r'putf\(".*%(d|x).*", '),
    ("starttime / stoptime", r"stoptime\(\);"),
    ("empty statement and block", r"^\s+(;|\{\})$"),
    ("line comment", r"^// "),
    ("block comment", r"/\* .* \*/"),
    ("CRLF line ends", r"\r\n"),
    ("branch on a value constant through phis", r"^\s+if \(k\d+ (==|<=|>=) -?\d+\) \{"),
    ("nested ifs on one value", r"^\s+if \((\w+) [<>=!]+ -?\d+\) \{\r?\n\s+if \(\1 [<>=!]+ -?\d+\) putint"),
    ("predicate returning 0 or 1 tested by an if", r"^if \(pred\d+\(|^\s+if \(pred\d+\("),
    ("parameter passed the same constant everywhere", r"^int cp\d+\(int x, int k, int unused\)"),
    ("tree recursion revisiting its arguments", r"^int memo\d+\(int n(, int k)?\) \{"),
    ("backtracking search with its self-call in a loop", r"^int memo\d+\(int k, int n, int used\) \{"),
    ("recursion counting its calls after its base case", r"^int (memo\d+)_calls;\r?\nint \1\(int k, int n\) \{"),
    ("local table filled and read back every round", r"^\s+\w+ = \(\w+ \+ (t\d+)\[1\] - \1\[0\]\) % \d+;"),
    ("recursion only adding to a counter", r"^int (memo\d+)_calls;\r?\nint \1_r\(int k, int n\) \{"),
    ("function copied under another name", r"^(int|float|void) f\d+_copy\("),
    ("copy calling another copy", r"^\w+ (f\d+_copy)\([^\n]*\n(?: [^\n]*\n)*? [^\n]*\b(?!\1\()f\d+_copy\("),
    ("call chain of small functions", r"^int chain\d+\(int p\d+, int p\d+\) \{\r?\n.*chain\d+\("),
    ("repeated subexpression, commuted", r"int v\d+ = \(\(\w+ [-+*] \w+\) [-+*] -?\w+\);"),
    ("loop summing a counter to a bound read at run time", r"^\s+(t\d+) = \1 \+ i\d+ \* -?\d+ \+ \w+;"),
    ("sum of a sum in a loop", r"^\s+(t\d+) = \1 \+ i\d+ \* [^\n]*\n\s+(s\d+) = \2 \+ \1;"),
    ("loop to a bound tested with !=", r"while \((i\d+) != (n\d+)\) \{"),
    ("loop checking its counter against its own range", r"^\s+if \((i\d+) < 0 \|\| \1 >= (n\d+)\)"),
    ("unguarded loop checking its counter", r"^\s+while \(1\) \{\r?\n\s+if \((i\d+) < 0 \|\| "),
    ("array element read again inside a branch", r"^\s+int (v\d+) = (\w+\[[^;]*\]);\r?\n(?:[^\n]*\n){0,2}?\s+int v\d+ = 0;\r?\n\s+if \(\1 > -?\d\) \{"),
    ("counted loop stepping down", r"while \((i\d+) > -?\w+\) \{\r?\n\s+\1 = \1 - [123];"),
    ("counted loop to a bound in a variable", r"^\s+int (n\d+) = -?\d+;\r?\n\s+int i\d+ = -?\d+;\r?\n|while \(i\d+ [<>] n\d+\)"),
    ("counted loop that never runs", r"^\s+int (i\d+) = (-?\d+);\r?\n(?:\s+int n\d+ = \2;\r?\n)?\s+while \(\1 [<>] (\2|n\d+)\)"),
    ("invariant store in a loop", r"^\s+while \((i\d+) < \d\) \{\r?\n\s+\1 = \1 \+ 1;\r?\n(?:\s+if [^\n]*continue;\r?\n)?\s+\w+ = \w+;\r?\n\s+(v\d+) = \2 \+ "),
    ("invariant array element read in a loop", r"^\s+(v\d+) = \1 \+ \w+(\[\d+\])+ \+ \w+;"),
    ("loop with a continue before its invariant store", r"^\s+if \((i\d+) == \d\) continue;\r?\n\s+\w+ = \w+;"),
    ("minimum or maximum by a triangle", r"^\s+if \((\w+) [<>=!]+ (m\d+)\) \2 = \1;"),
    ("diamond of cheap expressions", r"^\s+if \(\w+ [<>=!]+ \w+\) (m\d+) = \w+ \+ \d; else \1 = \w+ - \d;"),
    ("clamp", r"^\s+if \((m\d+) < -?\d+\) \1 = -?\d+;"),
    ("saturation by nested ifs", r"^\s+if \((m\d+) [<>=]+ -?\d+\) \1 = \d+; else if \(\1 [<>=]+ -?\d+\) \1 = \d+;"),
    ("sum kept modulo a constant in a loop", r"^\s+(r\d+) = \(\1 \+ .*\) % \d+;"),
    ("sum kept modulo a constant alone in a loop", r"^\s+while \((i\d+) < n\d+ \+ 260\) \{ (r\d+) = \(\2 \+ .*\) % \d+; \1 = \1 \+ 1; \}$"),
    ("sum modulo a constant of a term growing with the round", r"^\s+while \((i\d+) < n\d+ \+ 260\) \{ (r\d+) = \(\2 \+ .* \+ \1\) % \d+; \1 = \1 \+ 1; \}$"),
    ("sum of two remainders taken modulo again", r"^\s+(r\d+) = \(\1 \+ .*\) % (\d+);\r?\n\s+\1 = \(\1 \+ (\1|\(.*\) % \2)\) % \2;"),
    ("neighbours swapped under a test of their values", r"^\s+if \((s\d+)\[(i\d+)\] [<>=]+ \1\[\2 \+ 1\]\) \{"),
    ("odd-even transposition pass stepping by two", r"^\s+while \((i\d+) \+ 1 < \d+\) \{\n\s+if \((s\d+)\[\1\]"),
    ("bubble pass shrinking with the outer counter", r"^\s+while \((i\d+) < \d+ - (i\d+)\) \{\n\s+if \((s\d+)\[\1\]"),
    ("element raised to a value it is below", r"^\s+if \((s\d+)\[(i\d+)\] < .*\) \1\[\2\] = "),
    ("element decremented while positive", r"^\s+if \((s\d+)\[(i\d+)\] > -?\d\) \1\[\2\] = \1\[\2\] - \d;"),
    ("store on a test's false side", r"^\s+if \((s\d+)\[(i\d+)\] >= .*\{ \} else \{ \1"),
    ("store under a test to an element it did not read", r"^\s+if \((s\d+)\[(i\d+)\] < .*\) \1\[(v\d+)\] = \2 \+ \d;$"),
    ("store under a test beside a count on the other side", r"^\s+if \((s\d+)\[(i\d+)\] < .*\) \1\[(v\d+)\] = \2 \+ \d; else (v\d+) = \4 \+ \d;"),
    ("element relaxed through a computed subscript", r"^\s+if \((s\d+)\[(v\d+)\] \+ \d < \1\[(i\d+)\]\) \1\[\3\] = "),
    ("cell's neighbours by offsets from -1 to 1", r"^\s+int (x\d+) = i\d+ \+ d\d+;"),
    ("cell's neighbours by arrays of directions", r"^\s+int (x\d+) = i\d+ \+ d\d+\[k\d+\];"),
    ("neighbour's coordinates wrapped round the board", r"^\s+if \((x\d+) < 0\) \1 = \1 \+ \d; else if"),
    ("neighbour tested against the board's edges", r"^\s+if \((x\d+) >= 0 && \1 < \d && (y\d+) >= 0"),
    ("loop's centre round skipped", r"^\s+if \((d\d+) != 0 \|\| (d\d+) != 0\) \{"),
    ("loop reading an element's neighbours", r"^\s+t\d+ = t\d+ \* -?\d \+ w\d+\[i\d+ - 1\]"),
    ("neighbour loop storing into the array it reads", r"^\s+(w\d+)\[i\d+ \+ 1\](\[j\d+\])? = t\d+;"),
    ("straight-line counted loop to unroll", r"^\s+(w\d+)\[(k\d+)\] = u\d+ \+ i\d+;"),
    ("unrolled loop starting near the top of int", r"^\s+int (i\d+) = 21474\d+;\r?\n\s+int k\d+ = 0;"),
    ("unrolled loop to a bound within a step of the top of int", r"^\s+int (n\d+) = 214748364[67];\r?\n\s+int i\d+ = 21474\d+;"),
    ("counted search that breaks out", r"if \(v\d+ > v\d+\) break;"),
    ("counted search that breaks out with a result", r"if \(v\d+ > v\d+\) \{ v\d+ = i\d+ \* 7 "),
    ("backtracking over fixed choices returning at a cap", r"if \(count >= \d+\) return count \* 10 \+ d;"),
    ("queens marked in a diagonal at row - c + n - 1", r"_down\[row - c \+ n - 1\] = 1;"),
    ("counted relaxation loop", r"if \(t\d+ < w\d+\[i\d+\]\) \{"),
    ("relaxation under a test of its source", r"^\s+if \((v\d+) <=? (s\d+)\[(i\d+)\]\) \{ \2\[\3\] = \1;"),
    ("straight-line counted loop counting down", r"^\s+w\d+\[k\d+\] = u\d+ \+ i\d+;\r?\n(?:.*\r?\n){4}\s+(i\d+) = \1 - \d;"),
    ("unrolled loop starting near the bottom of int", r"^\s+int (i\d+) = -21474\d+;\r?\n\s+int k\d+ = 0;"),
    ("unrolled loop to a bound written out", r"^\s+int (n\d+) = -?\d+;\r?\n\s+int i\d+ = -?\d+;\r?\n\s+int k\d+ = 0;"),
    ("absolute value", r"^\s+if \((m\d+) < 0\) \1 = -\1;"),
    ("maximum of a minimum and a maximum of sums", r"^\s+if \((m\d+) < (m\d+)\) \1 = \2;"),
    ("loop testing its counter against a fixed value", r"^\s+if \((i\d+) (<|<=|>|>=) (-?\w+)\) v\d+ = v\d+ \* 3 \+ \1;"),
    ("counter times a loop-invariant value plus another", r"^\s+else (v\d+) = \1 \+ (i\d+) \* (n\d+) \+ -?\w+;"),
    ("loop skipping the rounds past another counter", r"^\s+if \((i\d+) < (i\d+)\) \{ \2 = \2 \+ 1; continue; \}"),
    ("unguarded bottom-tested loop testing its counter", r"^\s+(i\d+) = \1 \+ 1;\r?\n\s+if \(\1 < n\d+\) continue;\r?\n\s+break;"),
    ("local arrays beyond a load's reach, at far constant indices", r"^\s+float la\d+\[\d+\];\r?\n\s+int i\d+ = 0;"),
    ("local array filled with constants before it is read", r"^\s+(la\d+)\[(i\d+)\] = \1\[\2 - 1\] \* \d \+ 1;"),
    ("place in memory updated on every iteration of a loop", r"^\s+(\w+(\[\d+\])*) = \1 \* (\d|0\.5) \+ i\d+;"),
    ("loop leaving on the value of the place it updates", r"^\s+if \((\w+(\[\d+\])*) > \d+\) break;\r?\n\s+(if [^\n]*\) )?\1 = \1 \* "),
    ("stencil called with two arrays that never alias", r"^\s+st\d+\((ga\d+), (ga\d+), \d+\);\r?\n\s+st\d+\(\2, \1, \d+\);"),
    ("stencil called with one array twice", r"^\s+st\d+\(ga\d+, ga\d+, \d+\);\r?\n\s+st\d+\((ga\d+), \1, \d+\);"),
    ("one array element stored on both sides of an if", r"^\s+\} else \{\r?\n\s+\w+(\[e\d+ % \d+\])+ = "),
    ("loop branching on a value fixed before it", r"^\s+if \((f\d+) (>|!=|==) [01]\) v\d+ = "),
    ("value fixed for an inner loop, computed each outer round", r"^\s+int f\d+ = \(i\d+ \+ "),
    ("recursion marking two global arrays at one index", r"^int memo\d+_b\[16\];"),
    ("recursion whose base case loops over a global array", r"^int memo\d+_seen\[8\];"),
    ("float recursion with two base cases", r"^float memo\d+_f\(float x, int n\) \{"),
    ("float recursion stepped by constants", r"memo\d+_f\(x - 1\.0, n - 1\)"),
    ("Takeuchi's function on floats", r"^float memo\d+_t\(float x, float y, float z\) \{"),
    ("pruned subset count", r"^int memo\d+\(int i, int rem\) \{"),
    ("recursion updating a row of a global matrix", r"^  memo\d+_m\[x\]\[\d\] = "),
    ("longest run so far, compared past its step", r"^\s+if \((i\d+) - (v\d+) \+ 1 (>|<=) (v\d+)\) \4 = "),
    ("loop branching on a fixed value, its trip count from the program's state", r"^\s+while \((i\d+) < \(.*\) % 10\) \{\r?\n\s+if \(f\d+ "),
    ("quotient of a product of the counter that may wrap", r"^\s+(v\d+) = \(\1 \+ (i\d+) \* \d+ / \d+\) % 1000003;"),
    ("recursive function ending in a runtime call", r"^void (digits\d+)\(int n\) \{\r?\n(.*\r?\n){4}\s+if \(n >= 10\) \1\(n / 10\);"),
    ("matrix rows in a flat array indexed by a variable width", r"^\s+(fl\d+)\[(i\d+ \* n\d+ \+ j\d+|j\d+ \+ i\d+ \* n\d+)\] = "),
    ("array walked up to a bound the steps reach exactly", r"^\s+int (n\d+) = (i\d+) \+ idx\(.*\) \* \d;\r?\n\s+\w+ t\d+ = 0(\.0)?;\r?\n\s+while \(\2 != \1\)"),
    ("array walked down by a counter used after the loop", r"^\s+while \((i\d+) > (n\d+)\) \{\r?\n(.*\r?\n){1,4}\s+\1 = \1 - \d;\r?\n\s+\}\r?\n\s+\w+ = \w+ \+ (f2i\()?t\d+\)? \+ w\d+\[\d+\] \+ \1;"),
    ("array row walked by a counter", r"^\s+t\d+ = t\d+ \+ w\d+\[i\d+\]\[1\];"),
    ("loop zeroing a prefix of an array", r"^\s+while \((i\d+) < k\d+\) \{ (ia\d+)\[\1\] = 0; "),
    ("loop filling an array with -1 going down", r"^\s+while \((i\d+) >= 0\) \{ (ia\d+)\[\1\] = -1; "),
    ("loop copying one array into another", r"^\s+while \((i\d+) < k\d+\) \{ (ia\d+)\[\1\] = (ib\d+)\[\1\]; "),
    ("loops zeroing a matrix row by row", r"^\s+while \((c\d+) < \d+\) \{ (im\d+)\[r\d+\]\[\1\] = 0; "),
    ("interval walk from past the outer counter", r"^\s+int c = (ti\d+)\[(i\d+)\]\[(k\d+)\] \+ \1\[\3 \+ 1\]\[j\d+\];"),
    ("best value and where it was under one comparison", r"\{ (v\d+) = c; v\d+ = k\d+ - i\d+; \}"),
    ("float sum of products in a loop", r"^\s+(f\d+) = fclamp\(\1 \+ ti\d+\[k\d+\]\[j\d+\] \* tw\d+\);"),
    ("quotient and remainder by one constant", r"= (v\d+) / (\d+) \+ \1 % \2;"),
    ("division by a doubling power of two", r"\b(v\d+) = \1 (\* 2|\+ \1);"),
    ("divisor doubled while below a power of two", r"^\s+while \((v\d+) < (\d+)\) \{\n\s+int (i\d+) = 0;"),
    ("bit test of a quotient by a power of two", r"if \(\(.* / (v\d+)\) % 2 [!=]= 0\)"),
    ("Euclid by subtraction", r"if \((v\d+) (>|>=) (v\d+)\) \1 = \1 - \3;"),
    ("Stein's binary gcd step", r"else if \((v\d+) % 2 == 0\) \1 = \1 / 2;"),
    ("interval walk over rows wider than 1 KB", r"^\s+int ti\d+\[\d\]\[(260|700|1030)\];"),
    ("row update modulo a prime from a run-time column", r"^\s+int w = \((mr\d+)\[(j\d+)\]\[(k\d+)\] - v\d+ \* \1\[v\d+\]\[\3\]\) % \d+;"),
    ("column walk over rows wider than 1 KB", r"(mr\d+)\[(k\d+) \+ 1\]\[(v\d+)\] \* \(\2 \+ 2\) - \1\[\2\]\[\3\]"),
    ("float absolute value by a branch", r"if \((f\d+) <=? 0\.0\) \1 = -\1;"),
    ("float running maximum by a branch", r"if \((f\d+) > (f\d+)\) \2 = \1;"),
    ("schoolbook product accumulated at i + j", r"(pr\d+)\[(i\d+) \+ (j\d+)\] = \1\[\2 \+ \3\] \+ dx\d+\[\2\] \* dy\d+\[\3\];"),
    ("bisection midpoint lo + (hi - lo) / 2", r"int m\d+ = (l\d+) \+ \((h\d+) - \1\) / 2;"),
    ("closed bisection with hi = mid - 1", r"else h\d+ = m\d+ - 1;"),
    ("dispatch loop over an if-else chain", r"else if \((v\d+) == \d+\) \{ (i\d+) = \2 \+ 2;"),
    ("dispatch on five or more constants", r"^\s+if \((v\d+) == \d+\) \{[^\n]*\n(\s+else if \(\1 == \d+\) \{[^\n]*\n){4}"),
    ("alignment table stored on every arm", r"else (al\d+)\[(i\d+)\]\[(j\d+)\] = \1\[\2\]\[\3 - 1\];"),
    ("knapsack counts from a top read at run time", r"int (v\d+) = \d+ - idx\(.*\r?\n\s+int i\d+ = 0;\r?\n\s+while \(i\d+ < \d+\) \{ kw"),
    ("knapsack row read at the counter less a weight", r"(kt\d+)\[(i\d+) - 1\]\[(j\d+) - v\d+\]"),
    ("row cell made from the cell stored just before", r"(kt\d+)\[(i\d+)\]\[(j\d+)\] = \(\1\[\2\]\[\3 - 1\] \*"),
    ("row cell the minimum of the cell stored just before and another", r"int v\d+ = (kt\d+)\[(i\d+)\]\[(j\d+) - 1\] \+ \d; if"),
    ("row cell stored under a test of the cell before", r"if \((kt\d+)\[(i\d+)\]\[(j\d+) - 1\] % 3 == \d\) \1"),
    ("counts walked down while above a loaded weight", r"while \((j\d+) >= (kw\d+)\[i\d+\]\)"),
    ("two comparisons of a loop's values joined by && or ||", r"^\s+if \(qx\d+ [^()]*(&&|\|\|) [^()]*\) "),
    ("a chain of three comparisons with a parenthesised pair", r"^\s+if \(\([^()]*qx\d+[^()]*(&&|\|\|)[^()]*\) (&&|\|\|) "),
    ("loop walking from both ends while two counters stay in range", r"^\s+while \((i\d+) < \d+ && (i\d+) >= \d\) \{\r?\n\s+int qx\d+ = w\d+\[\1\];"),
    ("counter under two bounds", r"while \((i\d+) (<|<=) v\d+ && v\d+ (>|>=) \1"),
    ("counter above two bounds", r"while \((i\d+) (>|>=) v\d+ && v\d+ (<|<=) \1"),
    ("if on two bounds of a counter", r"if \((i\d+) <=? v\d+ && \1 [<>]=? v\d+\) v\d+ ="),
    ("halving under an even test", r"if \((n\d+) % 2 == 0\) \1 = \1 / 2;"),
    ("inner loop up to the outer counter", r"^\s+while \((j\d+) <=? (i\d+)\) \{ "),
    ("inner loop from past the outer counter", r"^\s+(j\d+) = (i\d+) \+ 1;\r?\n\s+while \(\1 < \w+\) \{ "),
    ("inner loop counting down from the outer counter", r"^\s+(j\d+) = (i\d+)( - 1)?;\r?\n\s+while \(\1 >= 0\) \{ "),
    ("inner loop counting down to past the outer counter", r"^\s+(j\d+) = \w+ - 1;\r?\n\s+while \(\1 > i\d+\) \{ "),
    ("inner loop testing the outer counter", r"^\s+while \((j\d+) < \w+\) \{ if \(\1 (<|>|==) i\d+\) "),
    ("outer exit test shared by an if", r"^\s+if \((i\d+) (\+ 1 < \w+|< \w+ - 1)\) "),
    ("if on the outer loop's last round", r"^\s+if \((i\d+) (== \w+ - 1|\+ 1 == \w+)\) "),
    ("Gauss-Seidel sweep", r"^\s+while \((j\d+) < (i\d+)\) \{[^\n]*\}\r?\n\s+\1 = \2 \+ 1;\r?\n\s+while \(\1 < \w+\) \{[^\n]*\}\r?\n(?:\s+if [^\n]*\n)*\s+\w+\[\2\] = "),
    ("test of a tail-recursive function's argument", r"^\s+if \(depth <= 0\) return [^;]+;\r?\n\s+if \(p\d+ (==|<|>=) -?\d\) return "),
    ("sign picked by two ifs", r"^\s+if \(\w+ > 0\) m\d+ = 1; else if \([^)]*\)?\) m\d+ = -?1;"),
    ("join retested by a related comparison", r"^\s+if \(m\d+ [<>=!]+ m\d+\) m\d+ = m\d+ \+ \d+; else m\d+ = m\d+ - m\d+;\r?\n\s+la\d+\[[01]\] = m\d+;\r?\n\s+int m\d+s = 3;\r?\n\s+if \(m\d+ [<>=!]+ m\d+\) \{"),
    ("two values picked by one condition", r"^\s+if \(\w+ [<>=!]+ \w+\) \{ m\d+ = \w+; m\d+ = \w+; \}"),
    ("loop tested on its counter plus a fixed distance", r"^\s+while \((i\d+) \+ (m\d+) < \d+\) \{\r?\n\s+if \(la\d+\[\1\] == la\d+\[\1 \+ \2\]\)"),
    ("loop tested on its counter less a fixed distance", r"^\s+while \((i\d+) - (m\d+) >= 0\) \{\r?\n\s+if \(la\d+\[\1\] == la\d+\[\1 - \2\]\)"),
    ("a difference and its mirror compared with 1", r"\((\w+) - (\w+) == 1 \|\| \2 - \1 == 1\)"),
    ("pair search from both ends of a sorted array", r"^\s+\w+ w\d+ = w\d+\[i\d+\] \+ w\d+\[i\d+\];\r?\n\s+k\d+ = k\d+ \+ 1;"),
    ("merge of two sorted runs", r"^\s+while \(i\d+ < \d+ && i\d+ < \d+\) \{\r?\n\s+if \(w\d+\[i\d+\] <= w\d+\[i\d+\]\)"),
    ("element-wise loop over arrays, one a few elements ahead or behind", r"^\s+s\d+\[(i\d+)\] = s\d+\[\1\] [-+*] s\d+\[\1 [-+] \d\] [-+*] -?\d+;"),
    ("sum of products carried round to round", r"^\s+(v\d+) = \1 [-+] s\d+\[(i\d+)\] \* s\d+\[\2 [-+] \d\]"),
    ("larger or smaller of two values stored lane by lane", r"^\s+if \(\S+ [<>]=? (v\d+)\) \1 = \S+;\r?\n\s+s\d+\[i\d+\] = \1;"),
    ("running maximum or minimum over arrays", r"^\s+if \((s\d+\[i\d+[^\]]*\]( - s\d+\[[^\]]+\])?) [<>]=? (v\d+)\) \3 = \1;"),
    ("element-wise update of an array from itself", r"^\s+(s\d+)\[(i\d+)\] = \1\[\2 [-+] \d\] \* -?\d \+ s\d+\[\2\]"),
    ("element compared with its mirror about a point fixed for the loop", r"^\s+while \((i\d+) <= (m\d+)\) \{\r?\n(\s+if [^\n]*\n)?\s+if \(la\d+\[\1\] == la\d+\[\2 - \1\]\)"),
]


def coverage(count):
    """Checks that `count` programs together contain every feature; returns the missing."""
    seen = set()
    for seed in range(count):
        text, _ = generate(seed)
        for name, pattern in FEATURES:
            if name not in seen and re.search(pattern, text, re.M):
                seen.add(name)
    return [name for name, _ in FEATURES if name not in seen]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seed", nargs="?", type=int)
    ap.add_argument("-o", type=Path, help="write the program here (and its input beside it)")
    ap.add_argument("--coverage", type=int, metavar="N", help="check that N programs cover every feature")
    args = ap.parse_args()
    if args.coverage:
        missing = coverage(args.coverage)
        if missing:
            print("features missing from", args.coverage, "programs:", ", ".join(missing))
            sys.exit(1)
        print(f"{args.coverage} programs cover all {len(FEATURES)} features")
        return
    if args.seed is None:
        ap.error("a seed is required")
    text, stdin = generate(args.seed)
    if args.o:
        args.o.write_text(text)
        args.o.with_suffix(".in").write_text(stdin)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
