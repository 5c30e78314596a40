"""Shared machinery of the test runner and the bench: building the runtime library,
compiling SysY programs with our compiler, linking them with the ARM cross toolchain,
running them under qemu-arm, and comparing with the judge's expected output."""

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_TESTS = ROOT.parent / "shared" / "sysy-tests"
BUILD = ROOT / "target" / "sysy"
COMPILER = ROOT / "target" / "release" / "compiler"
CROSS_GCC = "arm-linux-gnueabihf-gcc"
CROSS_FLAGS = ["-march=armv7-a", "-mfpu=vfpv4", "-mfloat-abi=hard"]
QEMU = "qemu-arm"

# Symbols a generated program may leave undefined: the runtime library, libc's memset and memcpy.
RUNTIME_SYMBOLS = {
    "getint", "getch", "getfloat", "getarray", "getfarray", "putint", "putch", "putfloat",
    "putarray", "putfarray", "putf", "_sysy_starttime", "_sysy_stoptime", "memset",
    "memcpy",
}


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def build_compiler():
    """cargo build --release. Nothing is printed when the build is up to date; otherwise
    cargo's lines are shown as they come (a first build takes a minute)."""
    with subprocess.Popen(["cargo", "build", "--release"], cwd=ROOT, stderr=subprocess.PIPE,
                          text=True) as cargo:
        shown = False
        for line in cargo.stderr:
            if not shown and line.strip().startswith("Finished"):
                continue
            if not shown:
                print("building the compiler (cargo build --release)", file=sys.stderr, flush=True)
                shown = True
            print(line, end="", file=sys.stderr, flush=True)
    if cargo.returncode != 0:
        fail("cargo build --release failed")


def build_runtime():
    """Builds runtime/libsysy.a (into target/sysy) with the cross compiler; returns its path."""
    BUILD.mkdir(parents=True, exist_ok=True)
    lib = BUILD / "libsysy.a"
    src = ROOT / "runtime" / "sylib.c"
    if lib.exists() and lib.stat().st_mtime >= max(src.stat().st_mtime,
                                                     (ROOT / "runtime" / "sylib.h").stat().st_mtime):
        return lib
    obj = BUILD / "sylib.o"
    run_checked([CROSS_GCC, *CROSS_FLAGS, "-O2", "-c", str(src), "-o", str(obj)])
    run_checked(["arm-linux-gnueabihf-ar", "rcs", str(lib), str(obj)])
    return lib


def run_checked(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(map(str, cmd))} failed:\n{r.stderr}")
    return r


def link(asm, runtime, exe):
    """Links our assembly with the runtime library as the judge does; stops on failure."""
    run_checked([CROSS_GCC, *CROSS_FLAGS, "-static", str(asm), str(runtime), "-o", str(exe)])


@dataclass
class Case:
    """A program with its input (may be missing) and expected output."""
    sy: Path

    @property
    def name(self):
        return self.sy.stem

    @property
    def input(self):
        p = self.sy.with_suffix(".in")
        return p if p.exists() else None

    @property
    def expected(self):
        p = self.sy.with_suffix(".out")
        return p.read_bytes() if p.exists() else None


def find_cases(paths):
    """Every .sy under the given files and directories that has an .out file, sorted."""
    cases = []
    for p in map(Path, paths):
        files = [p] if p.is_file() else sorted(p.rglob("*.sy"))
        cases += [Case(f) for f in files if f.with_suffix(".out").exists()]
    return cases


def judge_output(stdout, code):
    """What the judge compares: stdout, a newline if non-empty and lacking one, the exit
    code and a newline."""
    out = stdout
    if out and not out.endswith(b"\n"):
        out += b"\n"
    return out + f"{code & 0xff}\n".encode()


def same_output(got, expected):
    """Compares, tolerating a missing final newline in the expected file."""
    if not expected.endswith(b"\n"):
        expected += b"\n"
    return got == expected


@dataclass
class Outcome:
    ok: bool
    stage: str  # compile, link, run, output
    detail: str = ""
    stdout: bytes = b""
    code: int = 0


def compile_and_run(case, work, opt, runtime, timeout, extra_qemu=()):
    """Compiles, links and runs one case in directory `work`; returns an Outcome."""
    work.mkdir(parents=True, exist_ok=True)
    asm = work / f"{case.name}.s"
    exe = work / case.name
    r = subprocess.run([str(COMPILER), "-S", f"-{opt}", "-o", str(asm), str(case.sy)],
                       capture_output=True, timeout=120)
    if r.returncode != 0:
        return Outcome(False, "compile", r.stderr.decode(errors="replace"))
    r = subprocess.run([CROSS_GCC, *CROSS_FLAGS, "-static", str(asm), str(runtime), "-o", str(exe)],
                       capture_output=True)
    if r.returncode != 0:
        return Outcome(False, "link", r.stderr.decode(errors="replace"))
    stdin = open(case.input, "rb") if case.input else subprocess.DEVNULL
    try:
        r = subprocess.run([QEMU, *extra_qemu, str(exe)], stdin=stdin, capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(False, "run", f"timed out after {timeout} s")
    finally:
        if case.input:
            stdin.close()
    got = judge_output(r.stdout, r.returncode)
    expected = case.expected
    if expected is not None and not same_output(got, expected):
        return Outcome(False, "output", "", r.stdout, r.returncode)
    return Outcome(True, "ok", r.stderr.decode(errors="replace"), r.stdout, r.returncode)


def undefined_symbols(asm):
    """The symbols an assembly file leaves for the linker to find."""
    obj = asm.with_suffix(".o")
    run_checked([CROSS_GCC, *CROSS_FLAGS, "-c", str(asm), "-o", str(obj)])
    r = run_checked(["arm-linux-gnueabihf-nm", "-u", str(obj)])
    return {line.split()[-1] for line in r.stdout.splitlines() if line.strip()}


def jobs_default():
    return os.cpu_count() or 2
