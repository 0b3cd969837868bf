"""The ctypes mirror of the public header stays in step with it: the same
fields, in the same order, for every struct the bindings pass by pointer (a
field added in C and not here would let the library read past the Python
struct), and every function they call is declared there."""
import os
import re

from tvmaf import _lib

HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      'include', 'tvmaf', 'tvmaf.h')


def header():
    text = open(HEADER).read()
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


def test_structs_match_header():
    text = header()
    for c_name, py in (('TvmafConfiguration', _lib.Configuration), ('TvmafPicture', _lib.Picture),
                       ('TvmafModelConfig', _lib.ModelConfig)):
        assert struct_fields(text, c_name) == [f[0] for f in py._fields_], c_name


def test_functions_declared_in_header():
    text = header()
    missing = [f for f in _lib._SIGNATURES if not re.search(r'\b%s\s*\(' % f, text)]
    assert not missing
