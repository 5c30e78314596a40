#!/usr/bin/env python3
"""Tests of the differential-testing tools: the generator's determinism and coverage, and
the reducer shrinking a big program while its predicate holds; and of the compile-time
bench: its stress programs, shrunk, are valid and print what the generator computed, and
its measured runs report exit status, crashes and timeouts; of scripts/run.py's exit
status and quiet build; of setup.sh naming a missing toolchain and building the runtime
library; of the README's judge sequence, run as written; of the bench's chart, page,
progress lines and output folder; of the A72 cycle model (chains against independent work, the
plugin's block counts adding up) and of the hot-block profile.

    python3 scripts/test_tools.py
"""

import itertools
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import a72
import a72_chains
import bench
import compile_bench
import harness
import profile
import reduce
import stress_programs
import sysy_gen


class Generator(unittest.TestCase):
    def test_same_seed_same_program(self):
        self.assertEqual(sysy_gen.generate(5), sysy_gen.generate(5))
        self.assertNotEqual(sysy_gen.generate(5), sysy_gen.generate(6))

    def test_expressions_stay_bounded(self):
        # Seed 879 once recursed without end: call arguments and array subscripts nest
        # expressions beyond their `depth`; 2,000 seeds from there on must all generate.
        for seed in range(879, 2879):
            sysy_gen.generate(seed)

    def test_two_hundred_programs_cover_every_feature(self):
        self.assertEqual(sysy_gen.coverage(200), [])

    def test_programs_are_valid(self):
        with tempfile.TemporaryDirectory() as d:
            for seed in range(30):
                path = Path(d) / f"p{seed}.sy"
                text, _ = sysy_gen.generate(seed)
                path.write_text(text)
                r = subprocess.run([str(harness.COMPILER), "--check", str(path)], capture_output=True)
                self.assertEqual(r.returncode, 0, r.stderr.decode())


class GeneratedInput(unittest.TestCase):
    """Each read of a generated program must find what it asks for: a failed scanf leaves
    the runtime's value undefined. (Seed 283 once gave " 0 +" for getfarray, getch, getint:
    getch read the space and getint choked on "+ 888".)"""
    READ = re.compile(r"\b(getint|getch|getfloat|getarray|getfarray)\(")
    INT = re.compile(r"\s*[+-]?\d+")
    FLOAT = re.compile(r"\s*[+-]?(0x[0-9a-f]+(\.[0-9a-f]*)?p[+-]?\d+|\d+(\.\d*)?(e[+-]?\d+)?)")

    def consume(self, pattern, text, pos, seed):
        m = pattern.match(text, pos)
        self.assertIsNotNone(m, f"seed {seed}: malformed input at {pos}: {text!r}")
        return m.end(), m.group()

    def test_every_read_finds_its_value(self):
        for seed in range(500):
            program, text = sysy_gen.generate(seed)
            pos = 0
            for kind in self.READ.findall(program):
                if kind == "getch":
                    self.assertLess(pos, len(text), f"seed {seed}: input ends early")
                    pos += 1
                elif kind in ("getarray", "getfarray"):
                    pos, n = self.consume(self.INT, text, pos, seed)
                    element = self.INT if kind == "getarray" else self.FLOAT
                    for _ in range(int(n)):
                        pos, _ = self.consume(element, text, pos, seed)
                else:
                    pos, _ = self.consume(self.INT if kind == "getint" else self.FLOAT, text, pos, seed)


class StressPrograms(unittest.TestCase):
    def test_each_program_is_valid_and_prints_its_expected_result(self):
        with tempfile.TemporaryDirectory() as d:
            paths = stress_programs.write_all(Path(d), scale=0.01, log=lambda _: None)
            self.assertEqual([p.stem for p in paths], list(stress_programs.GENERATORS))
            for path in paths:
                r = subprocess.run([str(harness.COMPILER), "--check", str(path)],
                                   capture_output=True)
                self.assertEqual(r.returncode, 0, f"{path.name}: {r.stderr.decode()}")
                stdin = path.with_suffix(".in")
                r = subprocess.run([str(harness.COMPILER), "--run", str(path)],
                                   input=stdin.read_bytes() if stdin.exists() else b"",
                                   capture_output=True)
                self.assertEqual(r.returncode, 0, path.name)
                self.assertEqual(r.stdout.decode(), path.with_suffix(".out").read_text(),
                                 path.name)

    def test_scale_sets_each_size(self):
        text, _, _ = stress_programs.nested_while(stress_programs.size("nested_while", 0.01))
        self.assertEqual(text.count("while"), 100)
        text, _, _ = stress_programs.big_global_init(stress_programs.size("big_global_init", 0.001))
        self.assertEqual(text.split("{", 1)[1].split("}", 1)[0].count(",") + 1, 1000)


class MeasuredRun(unittest.TestCase):
    def run_sh(self, script, timeout=10):
        with tempfile.TemporaryDirectory() as d:
            return compile_bench.run_measured(["sh", "-c", script], Path(d) / "err", timeout)

    def test_cpu_time_counts_the_grandchild(self):
        _, cpu, _, code, _ = self.run_sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
        self.assertEqual(code, 0)
        self.assertGreater(cpu, 0.05)

    def test_exit_status_crash_and_timeout(self):
        seconds, cpu, peak, code, timed_out = self.run_sh("exit 3")
        self.assertEqual((code, timed_out), (3, False))
        self.assertGreater(peak, 0)
        self.assertLess(seconds, 5)
        self.assertLess(cpu, 5)
        _, _, _, code, timed_out = self.run_sh("kill -SEGV $$")
        self.assertEqual((code, timed_out), (-11, False))
        seconds, _, _, _, timed_out = self.run_sh("sleep 30", timeout=0.3)
        self.assertTrue(timed_out)
        self.assertLess(seconds, 10)


class RunScript(unittest.TestCase):
    """scripts/run.py's exit status: 0 on a match, 1 with a diff on a mismatch, 128 + N for
    a death by signal N, 124 on a timeout; and its build, silent when nothing changed."""

    @classmethod
    def setUpClass(cls):
        harness.build_compiler()

    def run_program(self, source, expected=None, extra=(), stdin=None):
        with tempfile.TemporaryDirectory() as d:
            program = Path(d) / "prog.sy"
            program.write_text(source)
            if expected is not None:
                program.with_suffix(".out").write_text(expected)
            if stdin is not None:
                program.with_suffix(".in").write_text(stdin)
            return subprocess.run([sys.executable, str(harness.ROOT / "scripts" / "run.py"),
                                   *extra, str(program)], capture_output=True, text=True)

    def test_a_match_exits_0(self):
        r = self.run_program("int main() { putint(42); return 3; }", "42\n3\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("[matches", r.stdout)
        # The compiler is up to date: no word of the build.
        for word in ("building", "cargo", "Finished", "Compiling"):
            self.assertNotIn(word, r.stdout + r.stderr)

    def test_a_mismatch_exits_1_with_a_diff(self):
        r = self.run_program("int main() { putint(41); return 3; }", "42\n3\n")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("-42", r.stdout)
        self.assertIn("+41", r.stdout)

    def test_a_segmentation_fault_exits_139(self):
        r = self.run_program("int a[4]; int main() { int i = getint(); putint(a[i]); return 0; }",
                             stdin="-16777216")
        self.assertEqual(r.returncode, 139, r.stdout + r.stderr)
        self.assertIn("SIGSEGV", r.stdout)

    def test_a_timeout_exits_124(self):
        r = self.run_program("int main() { while (1) { getint(); } return 0; }",
                             extra=("--timeout", "1"))
        self.assertEqual(r.returncode, 124, r.stdout + r.stderr)
        self.assertIn("timed out", r.stdout)


class Setup(unittest.TestCase):
    def test_each_missing_tool_is_named_before_anything_is_installed(self):
        # A PATH with nothing on it but `dirname`, which the script needs to find its folder.
        with tempfile.TemporaryDirectory() as d:
            dirname = shutil.which("dirname")
            Path(d, "dirname").symlink_to(dirname)
            r = subprocess.run([shutil.which("bash"), str(harness.ROOT / "scripts" / "setup.sh")],
                               env={"PATH": d}, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for tool in ("cargo not found", "rustc not found", "no host C compiler"):
            self.assertIn(f"setup: {tool}", r.stderr)
        self.assertNotIn("installing", r.stdout)


class JudgeSequence(unittest.TestCase):
    """scripts/setup.sh builds the runtime library, and the README's judge sequence
    (compile, link as the judge does, run under qemu-arm) runs as it is written there."""

    INTRO = "The judge's whole sequence"

    def readme_commands(self):
        """The indented lines of the first block after the paragraph that introduces it."""
        lines = (harness.ROOT / "README.md").read_text().splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith(self.INTRO))
        block = itertools.dropwhile(lambda line: not line.startswith("    "), lines[start:])
        return [line[4:] for line in itertools.takewhile(lambda line: line.startswith("    "), block)]

    def test_setup_builds_the_runtime_library(self):
        lib = harness.BUILD / "libsysy.a"
        if lib.exists():
            os.utime(lib, (0, 0))
        r = subprocess.run(["bash", str(harness.ROOT / "scripts" / "setup.sh")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertGreaterEqual(lib.stat().st_mtime,
                                (harness.ROOT / "runtime" / "sylib.c").stat().st_mtime)

    def test_the_readme_sequence_prints_what_the_judge_expects(self):
        harness.build_compiler()
        harness.build_runtime()
        commands = self.readme_commands()
        self.assertEqual(len(commands), 3, commands)
        self.assertTrue(commands[1].startswith("arm-linux-gnueabihf-gcc "), commands)
        stdin = re.search(r"< (\S+)\.in\b", commands[2])
        expected = (harness.ROOT / f"{stdin.group(1)}.out").read_bytes()
        # In a folder of its own, which sees the repository's target/ and testcases/, so that
        # out.s and prog land there.
        with tempfile.TemporaryDirectory() as d:
            for name in ("target", "testcases"):
                Path(d, name).symlink_to(harness.ROOT / name)
            r = subprocess.run(["bash", "-c", "\n".join(commands)], cwd=d, capture_output=True)
            self.assertTrue(Path(d, "prog").exists(), r.stderr.decode())
        self.assertEqual(r.stdout, expected, r.stderr.decode())


class BenchOutput(unittest.TestCase):
    """The bench's chart, page, progress lines and output folder."""

    @staticmethod
    def results(n, name_length=30):
        return [{"name": f"p{k}".ljust(name_length, "x"), "seconds": 1.0,
                 "ours": {"status": "ok", "cycles": 10, "insns": 10, "cost": 10, "wall": 1.0},
                 "gcc": {"status": "ok", "cycles": 10, "insns": 10, "cost": 10, "wall": 1.0},
                 "ratio": {"cycles": 0.004 * 3 ** k, "insns": 1.0, "cost": 1.0, "wall": 1.0}}
                for k in range(n)]

    def test_the_chart_grows_with_the_programs_and_keeps_everything_on_the_canvas(self):
        small, large = bench.svg_chart(self.results(5)), bench.svg_chart(self.results(60))
        width = lambda svg: int(re.search(r'width="(\d+)"', svg).group(1))
        self.assertGreater(width(large), width(small))
        for svg in (small, large):
            w = width(svg)
            h = int(re.search(r'height="(\d+)"', svg).group(1))
            for x in re.findall(r' x2?="(-?[\d.]+)"', svg):
                self.assertTrue(0 <= float(x) <= w, (x, w))
            for y in re.findall(r' y[12]?="(-?[\d.]+)"', svg):
                self.assertTrue(0 <= float(y) <= h, (y, h))
            # Each name sits under its bar.
            bars = [float(x) for x in re.findall(r'<rect x="([\d.]+)"', svg)]
            names = [float(x) for x in re.findall(r'<text x="([\d.]+)" y="[\d.]+" transform', svg)]
            self.assertEqual(len(bars), len(names))
            for b, t in zip(bars, names):
                self.assertTrue(b <= t <= b + 10)
            # Slanted 60 degrees, the longest name still fits below and to the right.
            self.assertGreaterEqual(h - 24 - 240, 6 * 30 * 0.86)
            # The title, at about 6 px a character, too.
            title = re.search(r'<text x="(\d+)" y="12">([^<]*)<', svg)
            self.assertLessEqual(int(title.group(1)) + 6 * len(title.group(2)), w)

    def test_slanted_names_keep_a_line_apart_however_few_the_bars(self):
        # Neighbouring names are parallel lines of text: their baselines, `dx` apart along
        # the axis, lie dx * sin(angle) apart, which must hold a line (the font size) and a
        # gap of half of one.
        for n in (2, 3, 4, 5, 6, 60):
            svg = bench.svg_chart(self.results(n, 12))
            font = float(re.search(r'font-size="([\d.]+)"', svg).group(1))
            names = re.findall(r'<text x="([\d.]+)" y="[\d.]+" transform="rotate\(([\d.]+) ', svg)
            self.assertEqual(len(names), n)
            for (x0, angle), (x1, _) in zip(names, names[1:]):
                apart = (float(x1) - float(x0)) * math.sin(math.radians(float(angle)))
                self.assertGreaterEqual(apart, 1.5 * font, (n, x0, x1, angle))

    def test_the_page_holds_the_table_and_the_chart(self):
        results = self.results(3)
        means = bench.summary(results)
        page = bench.html_page(results, means, "O2")
        self.assertIn("<svg", page)
        self.assertEqual(page.count("<tr>"), 4)
        self.assertIn(results[2]["name"], page)
        self.assertNotIn("src=", page)

    def test_progress_gives_own_and_elapsed_time_and_what_is_left(self):
        line = bench.progress_line(5, 20, {"name": "fft0", "seconds": 3.2}, "cost ratio 1.31", 50.0)
        self.assertEqual(line, "[5/20] fft0: cost ratio 1.31 (3 s; 50 s elapsed, about 150 s left)")

    def test_a_filtered_run_never_writes_over_a_full_run_nor_one_at_another_level(self):
        self.assertEqual(bench.output_dir(None, "", "O2"), bench.OUT_DIR)
        filtered = bench.output_dir(None, "fft|mm[12]", "O2")
        self.assertNotEqual(filtered, bench.OUT_DIR)
        self.assertEqual(filtered.parent, bench.OUT_DIR / "filtered")
        self.assertEqual(filtered.name, "fft_mm_12-O2")
        self.assertNotEqual(bench.output_dir(None, "fft|mm[12]", "O0"), filtered)
        self.assertEqual(bench.output_dir(Path("/x"), "fft", "O2"), Path("/x"))


class CycleModel(unittest.TestCase):
    """The A72 model: what llvm-mca says of dependent and independent work, and the plugin's
    per-block counts, which must add up to its instruction counts."""

    PROGRAM = """int a[300];
int main() {
  int n = getint();
  int i = 0;
  while (i < n) { a[i] = i * 7 % 13; i = i + 1; }
  starttime();
  int s = 0;
  int r = 0;
  while (r < 20) {
    i = 0;
    while (i < n) { if (a[i] > 5) s = s + a[i] * r; else s = s - 1; i = i + 1; }
    r = r + 1;
  }
  stoptime();
  putint(s);
  return 0;
}
"""

    def cycles(self, lines):
        with tempfile.TemporaryDirectory() as d:
            model = a72.Model(Path(d) / "cache.json")
            key = a72.Model.key("arm", lines)
            return model.cycles([key])[key]

    def test_a_dependent_chain_takes_its_latencies_and_independent_work_its_pipes(self):
        # Two integer pipes: four independent adds issue in 2 cycles, a chain of four in 4.
        chain = self.cycles(["add\tr0, r0, r1"] * 4)
        apart = self.cycles([f"add\tr{k}, r{k}, r5" for k in range(4)])
        self.assertAlmostEqual(chain, 4.0, delta=0.1)
        self.assertAlmostEqual(apart, 2.0, delta=0.1)
        # One multiply pipe, 3 cycles of latency: a chain of three in 9, three apart in 3.
        self.assertAlmostEqual(self.cycles(["mul\tr0, r0, r1"] * 3), 9.0, delta=0.1)
        self.assertAlmostEqual(self.cycles([f"mul\tr{k}, r{k}, r5" for k in range(3)]), 3.0, delta=0.1)

    def test_the_guides_divide_latency_replaces_the_a57_tables(self):
        line = a72.normalise("sdiv\tr0, r0, r1")
        self.assertAlmostEqual(self.cycles(line), 12.0, delta=0.2)
        self.assertAlmostEqual(self.cycles(a72.normalise("vdiv.f32\ts0, s0, s1")), 11.0, delta=0.2)
        # A call is a branch, not the 100 cycles llvm-mca assumes.
        self.assertLess(self.cycles(a72.normalise("bl\t0x10400 <f>")), 2.0)

    def test_a_load_multiple_does_not_wait_for_the_registers_it_loads(self):
        # llvm-mca takes a load-multiple's registers as read: `vldmia r0!, {s2}` would wait
        # for the division that last wrote s2. Modelled as its loads, it waits for nothing.
        def block(load):
            lines = ["vdiv.f32\ts2, s4, s5", load, "vadd.f32\ts6, s2, s2"]
            return self.cycles([line for text in lines for line in a72.normalise(text)])
        self.assertAlmostEqual(block("vldmia\tr0!, {s2}"), block("vldr\ts2, [r0]"), delta=0.6)
        self.assertGreater(self.cycles(["vdiv.f32\ts2, s4, s5", "vldmia\tr0!, {s2}"]), 9.0)
        self.assertEqual(a72.normalise("ldm\tr0!, {r2, r3}"),
                         ["ldr\tr2, [r0, #0]", "ldr\tr3, [r0, #4]", "add\tr0, r0, #8"])
        self.assertEqual(a72.normalise("vpop\t{d8-d9}"),
                         ["vldr\td8, [sp, #0]", "vldr\td9, [sp, #8]", "add\tsp, sp, #16"])
        # A return's pop and a load into its own base stay as they are.
        self.assertEqual(a72.normalise("pop\t{r4, pc}"), ["pop\t{r4, pc}"])
        self.assertEqual(a72.normalise("ldm\tr0, {r0, r1}"), ["ldm\tr0, {r0, r1}"])

    def test_the_cost_models_table_is_the_bench_models(self):
        # backend/src/cost_model.rs: each class's latency (a chain of one instruction
        # depending on itself) and issue half cycles (independent copies) as llvm-mca,
        # with a72.py's stand-ins, models a representative instruction.
        source = (harness.ROOT / "backend" / "src" / "cost_model.rs").read_text()
        table = {}
        for fn in ("latency", "issue"):
            body = source[source.index(f"pub const fn {fn}(self)"):]
            body = body[:body.index("\n    }\n")]
            for name, value in re.findall(r"CostClass::(\w+) => (\d+),", body):
                table.setdefault(name, {})[fn] = int(value)
        # class: (an instruction depending on itself or None, independent copies)
        representative = {
            "Alu": ("add\tr0, r0, #1", [f"add\tr{k}, r9, #1" for k in range(6)]),
            "ShiftedAlu": ("add\tr0, r0, r9, lsl #2", [f"add\tr{k}, r9, r10, lsl #2" for k in range(4)]),
            "Multiply": ("mul\tr0, r0, r9", [f"mul\tr{k}, r9, r10" for k in range(4)]),
            "Divide": ("sdiv\tr0, r0, r9", [f"sdiv\tr{k}, r9, r10" for k in range(4)]),
            "Load": ("ldr\tr0, [r0]", [f"ldr\tr{k}, [r9, #{4 * k}]" for k in range(4)]),
            "Store": (None, [f"str\tr{k}, [r9, #{4 * k}]" for k in range(4)]),
            "VfpArith": ("vadd.f32\ts0, s0, s31", [f"vadd.f32\ts{k}, s30, s31" for k in range(8)]),
            "VfpMulAcc": ("vmla.f32\ts0, s0, s31", [f"vmla.f32\ts{k}, s30, s31" for k in range(8)]),
            "VfpDivide": ("vdiv.f32\ts0, s0, s31", [f"vdiv.f32\ts{k}, s30, s31" for k in range(4)]),
            "VfpSqrt": ("vsqrt.f32\ts0, s0", [f"vsqrt.f32\ts{k}, s31" for k in range(2)]),
            "VfpConvert": ("vcvt.f32.s32\ts0, s0", [f"vcvt.f32.s32\ts{k}, s31" for k in range(8)]),
            "VfpLoad": (None, [f"vldr\ts{k}, [r9, #{4 * k}]" for k in range(4)]),
            "VfpStore": (None, [f"vstr\ts{k}, [r9, #{4 * k}]" for k in range(4)]),
            "Transfer": (None, [f"vmov\tr{k}, s{k}" for k in range(4)]),
        }
        self.assertEqual(set(table), set(representative))
        for name, (chain, apart) in representative.items():
            lines = [line for text in apart for line in a72.normalise(text)]
            issue = 2 * self.cycles(lines) / len(apart)
            self.assertAlmostEqual(issue, table[name]["issue"], delta=0.25, msg=name)
            if chain is not None:
                latency = self.cycles(a72.normalise(chain))
                self.assertAlmostEqual(latency, table[name]["latency"], delta=0.2, msg=name)

    def test_a_block_cut_where_no_branch_is_goes_on_in_the_next(self):
        # qemu cuts a translated block at a page boundary; the piece before the cut is
        # modelled with its continuation (what a loop body cut in two costs whole).
        cut = a72.Block(0x10ff0, 2, 8, 10, 10, mode="arm", text=["mov\tr1, r8", "movw\tr1, #0xf730"])
        rest = a72.Block(0x10ff8, 3, 12, 12, 12, mode="arm",
                         text=["movt\tr1, #0x25", "add\tr1, r1, r2", "blt\t0x10ff0 <main+0x8>"])
        other = a72.Block(0x11100, 1, 4, 5, 5, mode="arm", text=["bx\tlr"])
        self.assertEqual(a72.continuations([cut, rest, other]), [rest, None, None])
        for text in ("pop\t{r4, pc}", "bne.w\t0x1000 <f>", "cbz\tr0, 0x1000 <f>", "ldr\tpc, [sp], #4"):
            self.assertTrue(a72.ends_block(text), text)
        for text in ("bic\tr0, r0, #1", "ldr\tr0, [pc, #8]", "push\t{r4, lr}", "blsomething"):
            self.assertFalse(a72.ends_block(text), text)

    def test_a_loop_cut_in_two_keeps_the_chain_its_branch_carries(self):
        # A loop body cut at a page boundary: the joined text reads r0 first and writes it
        # later, and the continuation's branch goes straight back to the cut block, so the
        # chain is the loop's own even though the continuation writes r0.
        cut = a72.Block(0x10ff8, 2, 8, 10, 10, mode="arm",
                        text=["ldr	lr, [r2]", "add	r0, r0, lr"])
        rest = a72.Block(0x11000, 3, 12, 10, 10, mode="arm",
                         text=["mul	r0, r0, r0", "cmp	r0, r3", "bne	0x10ff8 <main+0x8>"])
        joined = cut.text + rest.text
        self.assertEqual(a72.false_chains([cut, rest], [joined, rest.text], [1, 1])[0], set())

    def test_a_chain_only_the_loop_of_itself_makes_is_broken(self):
        # The dispatch block reads r2 first (the opcode) and loads the next one into it;
        # when the handler it goes to writes r2 before coming back, the modelled chain from
        # one execution to the next is not the program's.
        dispatch = ["mov\tr6, r2", "ldr\tr2, [r7, r6, lsl #2]", "add\tr10, r10, #1",
                    "cmp\tr2, #1", "bne\t0x1020 <main+0x20>"]
        self.assertEqual(a72_chains.carried(dispatch), {"r2": 1, "r10": 2})
        handler = ["mov\tr2, r10", "b\t0x1000 <main>"]
        keeps = ["add\tr3, r3, #1", "b\t0x1000 <main>"]
        for other, broken in ((handler, {"r2"}), (keeps, set())):
            blocks = [a72.Block(0x1000, 5, 20, 9, 9, mode="arm", text=dispatch),
                      a72.Block(0x1020, 2, 8, 9, 9, mode="arm", text=other)]
            # r10 comes back unwritten on either way: the loop's real counter.
            self.assertEqual(a72.false_chains(blocks, [b.text for b in blocks], [0, 1])[0], broken)
        renamed = a72_chains.break_false_chains(dispatch, {"r2"})
        self.assertEqual(renamed[0], "mov\tr6, r2")
        self.assertEqual(a72_chains.carried(renamed), {"r10": 2})
        # Dependent on a chain through r2 (4 cycles of load latency and a move) before,
        # the block is bound by its issue after.
        before, after = self.cycles(dispatch), self.cycles(renamed)
        self.assertGreater(before, after + 2)
        # A return ends what a function's registers carry; a tied write is set first.
        self.assertEqual(a72.successors(a72.Block(0, 1, 4, 1, 1, text=["pop\t{r4, pc}"])), [])
        self.assertEqual(a72_chains.break_false_chains(["vmla.f32\ts3, s1, s2"], {"s3"}),
                         ["vmov.f32\ts3, #1.000000e+00", "vmla.f32\ts3, s1, s2"])

    def test_a_return_ends_the_chains_through_the_registers_it_restores(self):
        # A function's last block adds a callee-saved register's value and then restores
        # it: modelled as a loop of itself, the pop's load would feed the next execution's
        # add. The caller runs the function body, which sets r4 again, before this block
        # comes back, so the chain is not the program's; the pop restores another register.
        ret = ["mla\tr0, r0, r12, r1", "ldr\tr0, [lr, r0, lsl #2]", "add\tr1, r2, r3",
               "add\tr1, r1, r4", "add\tr0, r1, r0", "pop\t{r4, r5, r6, pc}"]
        self.assertEqual(a72_chains.carried(ret), {"r0": 0, "r1": 2, "r4": 5, "sp": 5})
        blocks = [a72.Block(0x1000, 6, 24, 9, 9, mode="arm", text=ret)]
        false = a72.false_chains(blocks, [ret], [0])[0]
        self.assertEqual(false, {"r0", "r1", "r4", "sp"})
        # The stack pointer's chain stays: the pop's writeback takes one cycle.
        broken = a72_chains.break_false_chains(ret, false)
        # r0 and r1 are written to r7 and r8, as in any block, and r4 is restored into r9,
        # which the block does not name either, the list sorted again.
        self.assertEqual(broken[-1], "pop\t{r5, r6, r9, pc}")
        self.assertEqual(len(broken), len(ret))
        # With every core register named, the restored one is set first instead.
        crowded = ["add\tr0, r4, r5"] + [f"mov\tr{k}, #1" for k in (1, 2, 3, 7, 8, 9, 10, 11, 12)]
        crowded += ["mov\tlr, #1", "pop\t{r4, r5, r6, pc}"]
        self.assertEqual(a72_chains.break_false_chains(crowded, {"r4"})[0], "mov\tr4, #0")
        self.assertGreater(self.cycles(ret), self.cycles(broken) + 2)
        # Other register lists that write pc stay not understood.
        self.assertIsNone(a72_chains.accesses("ldm\tsp, {r4, pc}"))

    def test_a_chain_moved_through_copies_is_kept_unless_work_on_the_way_hides_it(self):
        # A block reads a hash from r3 and writes the new one back; the blocks between its
        # runs hold the hash in r0. The copies move the value, they do not end it, so the
        # chain is the program's whichever registers hold it. When the way back issues
        # three times the block's instructions, the chain's latency overlaps that work and
        # the chain is broken.
        mix = ["eor\tr3, r3, r1", "mul\tr3, r3, r2", "cmp\tr1, r4", "bge\t0x1010 <main+0x10>"]
        inner = ["add\tr5, r5, #1", "cmp\tr5, r6", "blt\t0x1020 <main+0x20>"]
        cases = (("mov\tr0, r3", "mov\tr3, r0", 0, set()),
                 ("mov\tr0, r3", "mov\tr3, r5", 0, {"r3"}),
                 ("mov\tr0, r3, lsl #1", "mov\tr3, r0", 0, {"r3"}),
                 ("mov\tr0, r3", "mov\tr3, r0", 5, {"r3"}))
        for there, back, more_work, broken in cases:
            work = ["add\tr6, r6, #3"] * more_work
            blocks = [a72.Block(0x1000, 4, 16, 9, 9, mode="arm", text=mix),
                      a72.Block(0x1010, 2, 8, 9, 9, mode="arm", text=[there, "b\t0x1020 <main+0x20>"]),
                      a72.Block(0x1020, 3, 12, 90, 90, mode="arm", text=inner),
                      a72.Block(0x102c, 2, 8, 9, 9, mode="arm", text=work + [back, "b\t0x1000 <main>"])]
            chains = a72.false_chains(blocks, [b.text for b in blocks], [0, 1, 2, 3])
            self.assertEqual(chains[0], broken, (there, back, more_work))
        # The block itself copies the new hash away at its end, and the way back copies it
        # back: the chain is kept.
        ends_in_copy = ["eor\tr3, r3, r1", "mul\tr3, r3, r2", "mov\tr0, r3", "bge\t0x1010 <main+0x10>"]
        self.assertEqual(a72_chains.left_in(ends_in_copy, "r3"), {"r3", "r0"})
        blocks = [a72.Block(0x1000, 4, 16, 9, 9, mode="arm", text=ends_in_copy),
                  a72.Block(0x1010, 3, 12, 9, 9, mode="arm",
                            text=["add\tr5, r5, #1", "mov\tr3, r0", "b\t0x1000 <main>"])]
        self.assertEqual(a72.false_chains(blocks, [b.text for b in blocks], [0, 1])[0], set())
        # The way back passes a jump table's dispatch, which ends in an indirect branch but
        # writes the register first: the chain is not the program's.
        dispatch = ["ldr\tr3, [r7, r6, lsl #2]", "add\tr0, r7, r6, lsl #2", "cmp\tr3, #17",
                    "ldrls\tpc, [r1, r3, lsl #2]"]
        self.assertEqual(a72_chains.holders(dispatch, {"r0"}), set())
        self.assertEqual(a72_chains.holders(dispatch, {"r5"}), {"r5"})
        case = ["ldr\tr0, [r0, #4]", "ldr\tr0, [r9, r0, lsl #2]", "str\tr0, [r8, r5, lsl #2]",
                "b\t0x1000 <main>"]
        blocks = [a72.Block(0x1000, 4, 16, 9, 9, mode="arm", text=dispatch),
                  a72.Block(0x1010, 4, 16, 9, 9, mode="arm", text=case)]
        chains = a72.false_chains(blocks, [b.text for b in blocks], [0, 1])
        self.assertEqual(chains[1], {"r0"})
        # A broken chain through lr is renamed like any core register's, adding nothing.
        rotate = ["mov\tr5, lr", "mov\tlr, r8", "cmp\tr0, #40", "blt\t0x1000 <main>"]
        self.assertEqual(a72_chains.break_false_chains(rotate, {"lr"}),
                         ["mov\tr5, lr", "mov\tr1, r8", "cmp\tr0, #40", "blt\t0x1000 <main>"])
        self.assertEqual(a72_chains.copy_of("vmov.f32\ts2, s5"), ("s2", "s5"))
        self.assertEqual(a72_chains.copy_of("mov\tr2, #5"), None)

    def test_block_counts_add_up_to_the_instruction_counts(self):
        with tempfile.TemporaryDirectory() as d:
            sy, asm, exe = Path(d) / "p.sy", Path(d) / "p.s", Path(d) / "p"
            sy.write_text(self.PROGRAM)
            harness.run_checked([str(harness.COMPILER), "-S", "-O2", str(sy), "-o", str(asm)])
            harness.link(asm, harness.build_runtime(), exe)
            got, counts, blocks_file, _ = bench.run_counted(exe, b"300\n", bench.build_plugin(), 60)
            self.assertEqual(got, b"272530\n0\n")
            blocks = a72.read_blocks(blocks_file)
            self.assertEqual(sum(b.insns * b.executions for b in blocks), counts["insns"])
            self.assertEqual(sum(b.insns * b.region for b in blocks), counts["region_insns"])
            self.assertEqual(counts["regions"], 1)
            # The inner loop's 300 rounds, 20 times, in `main`: once a round, or once per
            # unrolled group of up to 8 rounds.
            hottest = max(blocks, key=lambda b: b.region)
            self.assertEqual(hottest.region % 20, 0)
            self.assertTrue(20 * 300 // 9 <= hottest.region <= 20 * 300, hottest.region)
            modelled = a72.model(exe, blocks_file, a72.Model(Path(d) / "cache.json"), True)
            self.assertEqual(modelled["binary"].function(hottest.vaddr)[0], "main")
            self.assertGreater(modelled["cycles"], 0)
            self.assertEqual(modelled["unmodelled"], 0)

    def test_the_profile_names_the_hot_loop_and_its_ir_block(self):
        with tempfile.TemporaryDirectory() as d:
            sy, asm, exe = Path(d) / "p.sy", Path(d) / "p.s", Path(d) / "p"
            sy.write_text(self.PROGRAM)
            harness.run_checked([str(harness.COMPILER), "-S", "-O2", str(sy), "-o", str(asm)])
            harness.link(asm, harness.build_runtime(), exe)
            model = a72.Model(Path(d) / "cache.json")
            ours = profile.profile(exe, b"300\n", bench.build_plugin(), 60, model, asm)
            top = ours["rows"][0]
            self.assertTrue(top["where"].startswith("main+"), top["where"])
            self.assertRegex(top["ir"], r"^bb\d+$")
            self.assertEqual(top["executions"] % 20, 0)
            self.assertTrue(20 * 300 // 9 <= top["executions"] <= 20 * 300, top["executions"])
            text = profile.report("p", ours, ours, 3)
            self.assertIn("== ours: the 3 hottest blocks", text)
            self.assertIn(f"#1 {top['where']} ({top['ir']})", text)


    def test_a_comparison_with_another_build_lists_the_blocks_that_changed_most(self):
        def run(rows):
            out = []
            for where, ir, cycles, executions, text in rows:
                block = a72.Block(vaddr=0, insns=len(text), bytes=4 * len(text),
                                  executions=executions, region=executions, text=text,
                                  cycles=cycles / executions)
                out.append({"block": block, "executions": executions, "cycles": cycles,
                            "where": where, "ir": ir})
            return {"rows": out, "cycles": sum(r[2] for r in rows), "timed": True,
                    "unmodelled": 0}
        ours = run([("f+0x10", "bb3", 900, 100, ["lsr r1, r0, #31", "add r0, r0, r1"]),
                    ("f+0x40", "bb5", 500, 100, ["bx lr"]),
                    ("main+0x8", None, 50, 1, ["bl f"])])
        other = run([("f+0x10", "bb3", 1000, 100, ["add r0, r0, r0, lsr #31"]),
                     ("f+0x40", "bb5", 500, 100, ["bx lr"]),
                     ("main+0x8", None, 60, 1, ["bl f"])])
        text = profile.compare("p", ours, other, 5)
        self.assertIn("ours 1,450, against 1,560, ours/against 0.929", text)
        lines = text.splitlines()
        self.assertEqual(lines[2].split(), ["1", "f", "(bb3)", "ours", "900", "against", "1,000",
                                            "(-100)"])
        self.assertEqual(lines[3].split()[:2], ["2", "main"])
        self.assertNotIn("(bb5)", "\n".join(lines[:5]), "an unchanged block is listed")
        self.assertIn("    add r0, r0, r0, lsr #31", text)


class Reducer(unittest.TestCase):
    def test_shrinks_a_big_program_keeping_the_predicate(self):
        seed = next(s for s in range(1000) if sysy_gen.generate(s)[0].count("\n") >= 200)
        text, stdin = sysy_gen.generate(seed)
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            program, input_file = d / "big.sy", d / "big.in"
            program.write_text(text)
            input_file.write_text(stdin)
            out = subprocess.run([str(harness.COMPILER), "--run", str(program)],
                                 input=input_file.read_bytes(), capture_output=True).stdout
            marker = out.decode().split("\n")[0]
            # Interesting: still compiles and still prints the original's first line.
            predicate = d / "predicate.sh"
            predicate.write_text(
                "#!/bin/sh\n"
                f"{shlex.quote(str(harness.COMPILER))} --check \"$1\" 2>/dev/null || exit 1\n"
                f"{shlex.quote(str(harness.COMPILER))} --run --max-steps 1000000 \"$1\" < {shlex.quote(str(input_file))} 2>/dev/null"
                f" | grep -qF -- {shlex.quote(marker)}\n")
            predicate.chmod(0o755)
            lines = text.splitlines()
            reduced = reduce.Reducer(str(predicate)).reduce(lines)
            self.assertGreaterEqual(len(lines), 200)
            # A sixth of the original or less (what is left depends on the generated
            # program: the first of at least 200 lines).
            self.assertLess(len(reduced), 34, "\n".join(reduced))
            program.write_text("\n".join(reduced) + "\n")
            self.assertEqual(subprocess.run([str(predicate), str(program)]).returncode, 0)


if __name__ == "__main__":
    harness.build_compiler()
    unittest.main(argv=sys.argv[:1], verbosity=2)
