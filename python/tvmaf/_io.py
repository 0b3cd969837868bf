"""Reading raw planar YUV and Y4M files into numpy planes (the bytes the
CLI's readers hand to the library: 8-bit samples as uint8, deeper ones as
16-bit little-endian)."""
import numpy as np


class FormatError(ValueError):
    pass


def plane_dims(pix_fmt, w, h):
    """(width, height) of each plane of a frame."""
    if pix_fmt == '420':
        cw, ch = (w + 1) // 2, (h + 1) // 2
    elif pix_fmt == '422':
        cw, ch = (w + 1) // 2, h
    elif pix_fmt == '444':
        cw, ch = w, h
    elif pix_fmt == '400':
        return [(w, h)]
    else:
        raise FormatError(f'unknown pixel format {pix_fmt!r} (420, 422, 444 or 400)')
    return [(w, h), (cw, ch), (cw, ch)]


def _dtype(bitdepth):
    return np.dtype(np.uint8) if bitdepth == 8 else np.dtype('<u2')


def _read_frame(f, dims, dtype, what):
    planes = []
    for pw, ph in dims:
        n = pw * ph * dtype.itemsize
        buf = f.read(n)
        if len(buf) != n:
            if not planes and not buf:
                return None
            raise FormatError(f'{what}: truncated frame ({len(buf)} of {n} bytes of a plane)')
        planes.append(np.frombuffer(buf, dtype=dtype).reshape(ph, pw).astype(
            dtype.newbyteorder('=')))
    return tuple(planes)


def _y4m_colorspace(tag, what):
    tag = tag or '420jpeg'
    if tag.startswith('mono'):
        depth = tag[4:]
        return '400', int(depth) if depth else 8
    for fmt in ('420', '422', '444'):
        if tag.startswith(fmt):
            rest = tag[3:]
            if rest in ('', 'jpeg', 'mpeg2', 'paldv'):
                return fmt, 8
            if rest.startswith('p') and rest[1:].isdigit():
                return fmt, int(rest[1:])
    raise FormatError(f'{what}: unsupported Y4M colour space C{tag}')


class VideoFile:
    """Frames of a raw YUV file (needs width, height, pix_fmt, bitdepth) or
    of a Y4M file (detected from its header; its own size and layout)."""

    def __init__(self, path, width=None, height=None, pix_fmt=None, bitdepth=None):
        self.path = path
        self.f = open(path, 'rb')
        head = self.f.read(10)
        self.y4m = head == b'YUV4MPEG2 '
        if self.y4m:
            line = head + self.f.readline()
            if not line.endswith(b'\n'):
                raise FormatError(f'{path}: bad Y4M header')
            params = {}
            for tok in line.decode('ascii', 'replace').split()[1:]:
                params.setdefault(tok[0], tok[1:])
            try:
                self.width, self.height = int(params['W']), int(params['H'])
            except (KeyError, ValueError):
                raise FormatError(f'{path}: Y4M header without a valid W and H') from None
            self.pix_fmt, self.bitdepth = _y4m_colorspace(params.get('C'), path)
        else:
            self.f.seek(0)
            if not (width and height and pix_fmt and bitdepth):
                raise FormatError(f'{path}: a raw YUV file needs width, height, pix_fmt and '
                                  'bitdepth')
            self.width, self.height = int(width), int(height)
            self.pix_fmt, self.bitdepth = str(pix_fmt), int(bitdepth)
        if self.bitdepth not in (8, 10, 12, 16):
            raise FormatError(f'{path}: unsupported bit depth {self.bitdepth} (8, 10, 12, 16)')
        self.dims = plane_dims(self.pix_fmt, self.width, self.height)
        self.dtype = _dtype(self.bitdepth)

    def skip(self, n):
        for _ in range(n):
            if self.read() is None:
                raise FormatError(f'{self.path}: fewer frames than it is asked to skip')

    def read(self):
        """The next frame as a tuple of planes, or None at the end."""
        if self.y4m:
            line = self.f.readline()
            if not line:
                return None
            if not line.startswith(b'FRAME'):
                raise FormatError(f'{self.path}: bad Y4M frame header')
        return _read_frame(self.f, self.dims, self.dtype, self.path)

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
