#!/usr/bin/env python3
"""Embed an OpenCL C file, with the project headers it includes, in a C file.

usage: opencl_kernels.py IN.cl OUT.c DEPFILE INCLUDE_DIR...

OpenCL programs are built at run time from source (clBuildProgram), on a
device the build machine may not have, so the library carries the source:
IN.cl with every `#include "..."` replaced by the text of the file it names
(looked up in the INCLUDE_DIRs, recursively; include guards keep a header
included twice from being defined twice). Angle-bracket includes are left as
they are: the headers compiled as OpenCL C guard theirs with
`#ifndef __OPENCL_VERSION__` (core/hd.h defines the integer types there).
Each inlined file is bracketed by #line directives, so the compiler's log
names the project's file and line.

OUT.c defines
    const char tvmaf_NAME_cl[];   (the source, NUL-terminated)
with NAME the basename of IN.cl (psnr.cl -> tvmaf_psnr_cl), the module the
registry gives the twin's OpenCL executor (src/gpu/opencl/opencl_exec.c). The depfile lists every file inlined, so
editing a header rebuilds OUT.c. The build's one recipe for every .cl file
is the generator in src/gpu/opencl/meson.build.

fp64-free programs. Every program is one: its .cl file defines TVMAF_FP64_FREE
(before its includes), a promise of a program without fp64, for devices that
have none; a file without the promise is refused.
core/hd.h then turns the type name `double` into an unknown type, so a
declaration or cast fails on every device (PoCL, which has fp64, accepts
double even under `#pragma OPENCL EXTENSION cl_khr_fp64 : disable`). A double
literal (1.0, 2e3: no f suffix) names no type and would still compute in fp64
where the device has it, so this script checks the program at build time:
it preprocesses the embedded text as OpenCL C would see it (the C compiler
given with --cc, __OPENCL_VERSION__ and cl_khr_fp64 defined) and fails the build, naming
file and line, on any identifier containing "double" and on any floating
literal without an f suffix.

usage: opencl_kernels.py --cc CC IN.cl OUT.c DEPFILE INCLUDE_DIR...
"""
import os
import re
import subprocess
import sys

FP64_FREE = re.compile(r"^\s*#\s*define\s+TVMAF_FP64_FREE\b", re.M)
LINEMARK = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"([^"]*)"')
# string and character literals (skipped), identifiers, preprocessing numbers
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*')


def fp64_uses(text, cc):
    """The uses of fp64 in the program text (a list of "file:line: what"), after
    preprocessing it as OpenCL C with the C compiler cc."""
    # cl_khr_fp64 defined, as on a device that has fp64 (NVIDIA, AMD, PoCL): code under
    # `#if defined(cl_khr_fp64)` is then in the program there, and must be checked too
    p = subprocess.run([cc, "-E", "-x", "c", "-D__OPENCL_VERSION__=120",
                        "-D__OPENCL_C_VERSION__=120", "-Dcl_khr_fp64=1", "-"],
                       input=text, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        raise SystemExit("opencl_kernels.py: preprocessing for the fp64 check failed:\n" + p.stderr)
    found = []
    where_file, where_line = "?", 0
    for line in p.stdout.splitlines():
        m = LINEMARK.match(line)
        if m:
            where_line, where_file = int(m.group(1)), m.group(2)
            continue
        for tok in TOKEN.findall(line):
            what = None
            if tok[0] in "\"'":
                continue
            if tok[0].isalpha() or tok[0] == "_":
                if "double" in tok:
                    what = "names double (%s)" % tok
            else:
                t = tok.lower()
                is_hex = t.startswith("0x")
                is_float = ("p" in t) if is_hex else ("." in t or "e" in t)
                if is_float and not t.endswith("f"):
                    what = "double literal %s (write %sf)" % (tok, tok)
            if what:
                found.append("%s:%d: %s" % (where_file, where_line, what))
        where_line += 1
    return found

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


def expand(path, dirs, deps, depth=0):
    if depth > 32:
        raise SystemExit("opencl_kernels.py: includes nested too deep at %s" % path)
    deps.add(os.path.abspath(path))
    out = ['#line 1 "%s"\n' % path.replace("\\", "/")]
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for n, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            out.append(line if line.endswith("\n") else line + "\n")
            continue
        name = m.group(1)
        cands = [os.path.join(os.path.dirname(path), name)] + [os.path.join(d, name) for d in dirs]
        found = next((c for c in cands if os.path.isfile(c)), None)
        if not found:
            raise SystemExit('opencl_kernels.py: %s:%d: "%s" not found in %s'
                             % (path, n, name, ", ".join(dirs)))
        out += expand(found, dirs, deps, depth + 1)
        out.append('#line %d "%s"\n' % (n + 1, path.replace("\\", "/")))
    return out


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    if argv[1] != "--cc" or len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    cc = argv[2]
    argv = argv[:1] + argv[3:]
    src, out, depfile = argv[1:4]
    dirs = argv[4:]
    name = os.path.splitext(os.path.basename(src))[0]
    symbol = "tvmaf_%s_cl" % name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", symbol):
        sys.stderr.write("opencl_kernels.py: %r is not a C identifier\n" % symbol)
        return 2
    # this script too: a change to its check re-checks every program
    deps = {os.path.abspath(__file__)}
    source = "".join(expand(src, dirs, deps))
    with open(src, encoding="utf-8") as f:
        fp64_free = bool(FP64_FREE.search(f.read()))
    if not fp64_free:
        sys.stderr.write("opencl_kernels.py: %s does not define TVMAF_FP64_FREE: every OpenCL "
                         "program is fp64-free (src/meson.build writes the definition)\n" % src)
        return 1
    uses = fp64_uses(source, cc)
    if uses:
        sys.stderr.write("opencl_kernels.py: %s defines TVMAF_FP64_FREE but uses fp64:\n  %s\n"
                         % (src, "\n  ".join(uses[:20])))
        return 1
    text = source.encode("utf-8") + b"\0"
    rows = []
    for i in range(0, len(text), 20):
        rows.append("    " + ",".join("%d" % b for b in text[i:i + 20]) + ",")
    with open(out, "w") as f:
        f.write("/* Generated by scripts/opencl_kernels.py from %s; do not edit. */\n"
                "extern const char %s[];\n"
                "const char %s[] = {\n%s\n};\n" % (os.path.basename(src), symbol, symbol,
                                                   "\n".join(rows)))
    with open(depfile, "w") as f:
        f.write("%s: %s\n" % (out.replace(" ", "\\ "),
                              " ".join(sorted(d.replace(" ", "\\ ") for d in deps))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
