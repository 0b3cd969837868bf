"""What the benchmarks in bench/ share: the decoded clips they use, the long
inputs built from them, reading inputs into the page cache, and timing one
command (wall and CPU seconds)."""
import os
import time
import subprocess

# The decoded clips (as scripts/ writes them to .cache/clips): 8-bit 4:2:0.
CLIPS = {
    'forest_1920x1080': dict(w=1920, h=1080, frames=10),
    'meadow_3840x2160': dict(w=3840, h=2160, frames=3),
}


def frame_bytes(w, h):
    return w * h * 3 // 2


def make_long(src_dir, work, name, frames, first_only, tag='long'):
    """A clip's reference and distorted inputs of `frames` frames in `work`:
    its frames cycled (or its frame 0 repeated, with first_only), written
    once as WORK/NAME.TAGFRAMES.{ref,dis}.yuv and reused while the size is
    right. Returns ({'ref': path, 'dis': path}, frames)."""
    os.makedirs(work, exist_ok=True)
    c = CLIPS[name]
    fb = frame_bytes(c['w'], c['h'])
    out = {}
    for side in ('ref', 'dis'):
        dst = os.path.join(work, f'{name}.{tag}{frames}.{side}.yuv')
        out[side] = dst
        if os.path.exists(dst) and os.path.getsize(dst) == fb * frames:
            continue
        with open(os.path.join(src_dir, f'{name}.{side}.yuv'), 'rb') as f:
            data = f.read()
        chunk = data[:fb] if first_only else data
        n = len(chunk) // fb
        tmp = dst + '.part'
        with open(tmp, 'wb') as f:
            for i in range(frames):
                j = i % n
                f.write(chunk[j * fb:(j + 1) * fb])
        os.replace(tmp, dst)
    return out, frames


def warm(paths):
    """Read files once so that the timed runs find them in the page cache."""
    for p in paths:
        with open(p, 'rb') as f:
            while f.read(1 << 24):
                pass


def run_timed(cmd):
    """(returncode, stderr, wall seconds, CPU seconds: user + system) of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err.decode(errors='replace'), dt, ru.ru_utime + ru.ru_stime
