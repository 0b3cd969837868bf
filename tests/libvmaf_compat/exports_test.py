#!/usr/bin/env python3
"""libvmaf.so.3 exports libvmaf's 33 functions (libvmaf.map) and no other
symbol (nm -D --defined-only), under the soname libvmaf.so.3.

usage: exports_test.py LIBVMAF_SO MAP"""
import re
import subprocess
import sys

lib, mapfile = sys.argv[1:3]
with open(mapfile) as f:
    text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
want = set(re.findall(r'\b(vmaf_\w+);', text))
out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True,
                     check=True).stdout
have = {l.split()[-1] for l in out.splitlines() if l.strip()}
soname = subprocess.run(['readelf', '-d', lib], capture_output=True, text=True, check=True).stdout
ok = 0
checks = [
    (len(want) == 33, f'libvmaf.map lists 33 functions ({len(want)})'),
    (have == want, f'exported: {len(have)} symbols, extra {sorted(have - want)[:8]}, '
                   f'missing {sorted(want - have)}'),
    ('[libvmaf.so.3]' in soname, 'soname libvmaf.so.3'),
]
for good, what in checks:
    print(('ok    ' if good else 'FAIL  ') + what)
    ok += good
print(f'{ok} passed, {len(checks) - ok} failed')
sys.exit(0 if ok == len(checks) else 1)
