"""The ctypes mirror of the public headers (tvmaf/tvmaf.h, tvmaf/reader.h)
stays in step with them: the same fields, in the same order, for every
struct the bindings pass by pointer (a field added in C and not here would
let the library read past the Python struct); the same size, offset and
field sizes as the system compiler lays them out (a field whose C type
changed moves what follows it), the same enum values; and every function
they call is declared there."""
import ctypes
import os
import re
import shutil
import subprocess

import pytest

from tvmaf import _lib

INCLUDE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), 'include')
HEADERS = [os.path.join(INCLUDE, 'tvmaf', h) for h in ('tvmaf.h', 'reader.h')]

# C name of each struct _lib.py declares
STRUCTS = [('TvmafConfiguration', _lib.Configuration), ('TvmafPicture', _lib.Picture),
           ('TvmafModelConfig', _lib.ModelConfig), ('TvmafVideoFormat', _lib.VideoFormat),
           ('TvmafReaderConfig', _lib.ReaderConfig)]
# C constant of each entry of _lib.py's enum dicts, with the C enum type (None: anonymous)
ENUMS = [
    ('PIX_FMT', 'enum TvmafPixelFormat',
     {'420': 'TVMAF_PIX_FMT_YUV420P', '422': 'TVMAF_PIX_FMT_YUV422P',
      '444': 'TVMAF_PIX_FMT_YUV444P', '400': 'TVMAF_PIX_FMT_YUV400P'}),
    ('BACKEND', 'enum TvmafBackend', 'TVMAF_BACKEND_'),
    ('POOL', 'enum TvmafPoolMethod', 'TVMAF_POOL_'),
    ('LOG_LEVEL', 'enum TvmafLogLevel', 'TVMAF_LOG_'),
    ('MODEL_FLAGS', 'enum TvmafModelFlags', 'TVMAF_MODEL_'),
    ('GPU_FLAGS', None, 'TVMAF_GPU_'),
    ('OPENCL_FP64', 'enum TvmafOpenclFp64', 'TVMAF_OPENCL_FP64_'),
]


def header():
    text = ''.join(open(h).read() for h in HEADERS)
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def struct_fields(text, name):
    body = re.search(r'typedef struct %s \{(.*?)\} %s;' % (name, name), text, re.S).group(1)
    fields = []
    for decl in body.split(';'):
        decl = decl.strip()
        # "unsigned w[3], h[3]" declares two fields
        for part in decl.split(',') if decl else []:
            fields.append(re.match(r'.*?(\w+)\s*(\[\d+\])?$', part.strip(), re.S).group(1))
    return fields


def enum_constants():
    """[(dict name, python key, C constant, C enum type)] of every enum entry."""
    out = []
    for name, ctype, names in ENUMS:
        for key in getattr(_lib, name):
            c = names[key] if isinstance(names, dict) else names + key.upper()
            out.append((name, key, c, ctype))
    return out


def test_structs_match_header():
    text = header()
    for c_name, py in STRUCTS:
        assert struct_fields(text, c_name) == [f[0] for f in py._fields_], c_name


def test_functions_declared_in_header():
    text = header()
    missing = [f for f in _lib._SIGNATURES if not re.search(r'\b%s\s*\(' % f, text)]
    assert not missing


@pytest.fixture(scope='module')
def c_layout(tmp_path_factory):
    """{line name: value} printed by a C program compiled against include/:
    each struct's size, each field's offset and size, each enum value and
    each enum type's size."""
    cc = os.environ.get('CC', 'cc')
    if not shutil.which(cc):
        pytest.skip(f'no C compiler ({cc})')
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "tvmaf/tvmaf.h"',
             '#include "tvmaf/reader.h"', 'int main(void) {']
    for c_name, py in STRUCTS:
        lines.append(f'printf("size {c_name} %zu\\n", sizeof({c_name}));')
        for f in py._fields_:
            lines.append(f'printf("offset {c_name}.{f[0]} %zu\\n", offsetof({c_name}, {f[0]}));')
            lines.append(f'printf("fsize {c_name}.{f[0]} %zu\\n", '
                         f'sizeof((({c_name} *)0)->{f[0]}));')
    for name, key, c, ctype in enum_constants():
        lines.append(f'printf("enum {name}.{key} %lld\\n", (long long){c});')
    for _, ctype, _ in ENUMS:
        if ctype:
            lines.append(f'printf("esize {ctype.split()[1]} %zu\\n", sizeof({ctype}));')
    lines += ['return 0;', '}']
    tmp = tmp_path_factory.mktemp('layout')
    src, exe = tmp / 'layout.c', tmp / 'layout'
    src.write_text('\n'.join(lines) + '\n')
    p = subprocess.run([cc, '-std=c11', '-Wall', '-Werror', '-I', INCLUDE, str(src), '-o',
                        str(exe)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return {' '.join(l.split()[:2]): int(l.split()[2]) for l in out.splitlines()}


@pytest.mark.parametrize('c_name,py', STRUCTS, ids=[s[0] for s in STRUCTS])
def test_struct_layout_matches_compiler(c_layout, c_name, py):
    got = {f'size {c_name}': ctypes.sizeof(py)}
    for f in py._fields_:
        d = getattr(py, f[0])
        got[f'offset {c_name}.{f[0]}'] = d.offset
        got[f'fsize {c_name}.{f[0]}'] = d.size
    want = {k: c_layout[k] for k in got}
    assert got == want


def test_enum_values_match_header(c_layout):
    got = {f'enum {name}.{key}': getattr(_lib, name)[key] for name, key, _, _ in enum_constants()}
    assert got == {k: c_layout[k] for k in got}
    # ctypes passes every enum as a C int
    for _, ctype, _ in ENUMS:
        if ctype:
            assert c_layout[f'esize {ctype.split()[1]}'] == ctypes.sizeof(ctypes.c_int), ctype
