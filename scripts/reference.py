"""The reference build of a SysY program: as C++ with arm-linux-gnueabihf-g++ (C++ because
SysY allows `const int` array sizes at file scope), against scripts/sysy_compat.h. SysY
identifiers that are C++ keywords are renamed, `const` becomes `constexpr` (SysY
constants are compile-time constants, even where C++ would not take a `const` array element
as one), and float literals get an `f` suffix (they are single precision in SysY). `-ffp-contract=off` keeps `a*b+c` rounded twice, as SysY requires."""

import re
import subprocess

import harness

CXX = "arm-linux-gnueabihf-g++"
CXX_KEYWORDS = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "case",
    "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "consteval",
    "constexpr", "constinit", "const_cast", "co_await", "co_return", "co_yield", "decltype",
    "default", "delete", "do", "double", "dynamic_cast", "enum", "explicit", "export", "extern",
    "false", "for", "friend", "goto", "inline", "long", "mutable", "namespace", "new", "noexcept",
    "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "volatile", "wchar_t", "xor", "xor_eq", "restrict",
}
NUMBER = (r"0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+|0[xX][0-9a-fA-F]+"
          r"|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+")
# For when the reference must follow SysY's semantics to the bit (expected outputs,
# differential tests) rather than be the fast gcc the bench compares with: int overflow
# wraps, and no float folding may change the sign of a zero (without -frounding-math, g++
# folds `0.0f - (float)i` into `-(float)i`, which is -0.0 for i == 0, even at -O0).
EXACT_FLAGS = ("-fwrapv", "-frounding-math")
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|[A-Za-z_][A-Za-z0-9_]*|' + NUMBER + '|.', re.S)


def is_float_literal(t):
    if t[:2] in ("0x", "0X"):
        return "p" in t or "P" in t
    return "." in t or "e" in t or "E" in t


def to_cxx(source):
    """SysY source as C++: the compatibility header first, keyword identifiers renamed."""
    out = []
    for m in TOKEN.finditer(source):
        t = m.group(0)
        if t == "const":
            t = "constexpr"
        elif t in CXX_KEYWORDS:
            t += "_sysy"
        elif (t[0].isdigit() or t[0] == ".") and is_float_literal(t):
            # SysY float literals are single precision; C++ ones without `f` are double.
            t += "f"
        out.append(t)
    return '#include "sysy_compat.h"\n' + "".join(out)


def build(sy, work, runtime, opt="-O2", extra=()):
    """Compiles `sy` with g++ into `work`; returns (executable or None, error text). Warnings
    are silenced unless `extra` makes some of them errors."""
    work.mkdir(parents=True, exist_ok=True)
    cpp = work / (sy.stem + ".cpp")
    exe = work / (sy.stem + ".ref")
    cpp.write_text(to_cxx(sy.read_text(errors="replace")))
    quiet = [] if any(f.startswith("-Werror") for f in extra) else ["-w"]
    cmd = [CXX, *harness.CROSS_FLAGS, opt, "-ffp-contract=off", *quiet, "-Wno-narrowing", "-static",
           f"-I{harness.ROOT / 'scripts'}", *extra, str(cpp), str(runtime), "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr
    return exe, ""
