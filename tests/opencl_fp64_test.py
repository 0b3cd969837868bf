#!/usr/bin/env python3
"""An fp64-free OpenCL program (one that defines TVMAF_FP64_FREE) that uses double does not build.

Two guards, both tried here on small programs that include core/hd.h as the twins' kernels do:
  1. scripts/opencl_kernels.py, at build time, rejects a double type name and a floating literal
     without an f suffix (1.0, 2e3) in the preprocessed program, and a program without the
     promise (every OpenCL program is fp64-free), and accepts an fp64-free one that is clean;
     the real programs (every twin's generated F.cl) must pass.
  2. core/hd.h turns `double` into an unknown type name, so the device compiler rejects the
     program too: checked with clang's OpenCL front end when clang is installed (PoCL compiles
     with it; it accepts double even with cl_khr_fp64 disabled, hence the guard).

usage: opencl_fp64_test.py PROGRAM.cl...   (the build's fp64-free programs)
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EMBED = os.path.join(ROOT, "scripts", "opencl_kernels.py")
CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")

HEAD = '#include "core/hd.h"\n'
CASES = [
    # (name, fp64-free?, body, must build)
    ("double variable", True, "__kernel void k(__global float *o) { double x = o[0]; o[0] = x; }\n", False),
    ("double cast", True, "__kernel void k(__global float *o) { o[0] = (float)((double)o[0] * 3.0f); }\n", False),
    ("double literal", True, "__kernel void k(__global float *o) { o[0] = o[0] * 0.5; }\n", False),
    ("exponent literal", True, "__kernel void k(__global float *o) { o[0] = o[0] * 1e3; }\n", False),
    ("hex literal", True, "__kernel void k(__global float *o) { o[0] = o[0] * 0x1.8p1; }\n", False),
    ("convert_double", True, "__kernel void k(__global float *o) { o[0] = (float)convert_double(o[0]); }\n", False),
    ("double where the device has fp64", True, "#if defined(cl_khr_fp64)\n__kernel void d(__global float *o) { double x = o[0]; o[0] = (float)x; }\n#endif\n__kernel void k(__global float *o) { o[0] = 1.0f; }\n", False),
    ("clean", True, "__kernel void k(__global float *o) { o[0] = o[0] * 0.5f + 0x1.8p1f + 1e3f + 7; }\n", True),
    ("clean, without the promise", False, "__kernel void k(__global float *o) { o[0] = o[0] * 0.5f; }\n", False),
]


def embed(path, out):
    return subprocess.run([sys.executable, EMBED, "--cc", CC, path, out, out + ".d",
                           os.path.join(ROOT, "src"), os.path.join(ROOT, "include")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def main():
    if not CC:
        print("no C compiler for the preprocessor")
        return 1
    clang = shutil.which("clang")
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, free, body, ok in CASES:
            src = os.path.join(tmp, "k.cl")
            with open(src, "w") as f:
                f.write(("#define TVMAF_FP64_FREE 1\n" if free else "") + HEAD + body)
            p = embed(src, os.path.join(tmp, "k_cl.c"))
            built = p.returncode == 0
            verdict = "ok" if built == ok else "FAIL"
            fails += built != ok
            print("%-36s opencl_kernels.py %s (%s)%s" % (name, "accepts" if built else "rejects",
                  verdict, "" if built else ": " + p.stderr.strip().splitlines()[-1]))
            # the type guard alone, on the device compiler's front end
            if clang and free and "double" in body and "convert_double" not in body:
                # (the OpenCL runtimes define __OPENCL_VERSION__; clang's front end
                # alone does not)
                c = subprocess.run([clang, "-x", "cl", "-cl-std=CL1.2", "-fsyntax-only",
                                    "-D__OPENCL_VERSION__=120",
                                    "-I", os.path.join(ROOT, "src"), src],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                rejected = c.returncode != 0
                fails += not rejected
                print("%-36s clang -x cl %s (%s)" % ("", "rejects" if rejected else "accepts",
                                                    "ok" if rejected else "FAIL"))
        # the real fp64-free kernels pass
        if len(sys.argv) < 2:
            print("no fp64-free program given (FAIL)")
            fails += 1
        for cl in sys.argv[1:]:
            # every twin's program makes the promise (src/meson.build writes it)
            with open(cl) as f:
                promised = "#define TVMAF_FP64_FREE" in f.read()
            p = embed(cl, os.path.join(tmp, "real_cl.c"))
            fails += p.returncode != 0 or not promised
            print("%-36s opencl_kernels.py %s%s" % (
                os.path.basename(cl), "accepts (ok)" if p.returncode == 0 else
                "rejects (FAIL): " + p.stderr, "" if promised else
                ", but it does not define TVMAF_FP64_FREE (FAIL)"))
    if not clang:
        print("clang not installed: the device-compiler check of the type guard was not run")
    print("FAIL" if fails else "all as expected")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
