"""The reference build of a SysY program: as C++ with arm-linux-gnueabihf-g++ (C++ because
SysY allows `const int` array sizes at file scope), against scripts/sysy_compat.h. SysY
identifiers that are C++ keywords are renamed, and `const` becomes `constexpr` (SysY
constants are compile-time constants, even where C++ would not take a `const` array element
as one). `-ffp-contract=off` keeps `a*b+c` rounded twice, as SysY requires."""

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
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|[A-Za-z_][A-Za-z0-9_]*|.', re.S)


def to_cxx(source):
    """SysY source as C++: the compatibility header first, keyword identifiers renamed."""
    out = []
    for m in TOKEN.finditer(source):
        t = m.group(0)
        if t == "const":
            t = "constexpr"
        elif t in CXX_KEYWORDS:
            t += "_sysy"
        out.append(t)
    return '#include "sysy_compat.h"\n' + "".join(out)


def build(sy, work, runtime, opt="-O2", extra=()):
    """Compiles `sy` with g++ into `work`; returns (executable or None, error text)."""
    work.mkdir(parents=True, exist_ok=True)
    cpp = work / (sy.stem + ".cpp")
    exe = work / (sy.stem + ".ref")
    cpp.write_text(to_cxx(sy.read_text(errors="replace")))
    cmd = [CXX, *harness.CROSS_FLAGS, opt, "-ffp-contract=off", "-w", "-Wno-narrowing", "-static",
           f"-I{harness.ROOT / 'scripts'}", *extra, str(cpp), str(runtime), "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr
    return exe, ""
