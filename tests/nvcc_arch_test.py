#!/usr/bin/env python3
"""Every CUDA kernel file of the build compiles for each GPU architecture the
project supports, not only the one the build embeds (-Dnvcc_arch).

usage: nvcc_arch_test.py NVCC ARCHS SRC_DIR INCLUDE_DIR BUILD_DIR FILE.cu...

ARCHS: comma-separated (sm_80,sm_90). Each FILE.cu (the generated kernel files
of the twins, gpu/kernel_stub.in) is compiled to a fatbin for each arch with
the project's exactness flags (src/gpu/cuda/meson.build), in a temporary
directory. Exits 77 when NVCC is not there.
"""
import os
import subprocess
import sys
import tempfile

FLAGS = ['--fatbin', '-std=c++17', '--fmad=false', '--ftz=false', '--prec-div=true',
         '--prec-sqrt=true', '-Xptxas=-warn-spills']


def main():
    nvcc, archs, src, inc, build = sys.argv[1:6]
    files = sys.argv[6:]
    if not os.path.exists(nvcc):
        print('no nvcc: skipped')
        return 77
    if not files:
        print('FAIL: no kernel files given')
        return 1
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for arch in archs.split(','):
            num = arch.strip()[3:]
            for f in files:
                out = os.path.join(tmp, os.path.basename(f) + '.' + arch + '.fatbin')
                p = subprocess.run([nvcc] + FLAGS + [
                    '-gencode', 'arch=compute_%s,code=sm_%s' % (num, num),
                    '-I' + src, '-I' + inc, '-I' + build, f, '-o', out],
                    capture_output=True, text=True)
                ok = p.returncode == 0
                fails += not ok
                print('%-8s %-40s %s' % (arch, os.path.basename(f), 'ok' if ok else 'FAIL'))
                if not ok:
                    print(p.stderr[-3000:])
    print('%d failed' % fails)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
