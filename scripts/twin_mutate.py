#!/usr/bin/env python3
"""Shows that a twin's host-executor test can fail: applies each mutation of
a feature's list to its plan or kernels, rebuilds the test, runs it, expects
a failure, and restores the file. Not part of CI (each mutation is a build).

    scripts/twin_mutate.py BUILD_DIR FEATURE

Prints one line per mutation: what changed and the first failure line the
test printed (or SURVIVED)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# feature -> [(kind, file, old text, new text)]; each old text occurs once
MUTATIONS = {
    'psnr': [
        ('buffer offset', 'src/feature/psnr/psnr_plan.c',
         'tvd_view(s->sums, row0 * 8, h * 8)', 'tvd_view(s->sums, row0 * 8 + 8, h * 8)'),
        ('buffer offset (totals)', 'src/feature/psnr/psnr_plan.c',
         'tvd_view(s->sums, p * 8, 8)', 'tvd_view(s->sums, p * 8 + 8, 8)'),
        ('swapped arguments', 'src/feature/psnr/psnr_plan.c',
         '.pitch = tvd_pitch(t, f, p),\n            .w = s->p.pw[p],',
         '.pitch = s->p.pw[p],\n            .w = tvd_pitch(t, f, p),'),
        ('grid one group short', 'src/feature/psnr/psnr_plan.c',
         'TVD_GRID(PSNR_GRID_X(h), 1)', 'TVD_GRID(PSNR_GRID_X(h) - 1, 1)'),
        ('short read-back', 'src/feature/psnr/psnr_plan.c',
         'tvd_download(t, tvd_whole(t, s->sums))',
         'tvd_download(t, tvd_view(s->sums, 0, s->totals ? 16 : s->rows * 8 - 8))'),
        ('barrier removed (tree)', 'src/feature/psnr/psnr_kernels.h',
         '    loc->part[t] = s;\n    TVD_BARRIER();', '    loc->part[t] = s;'),
        ('barrier removed (warps)', 'src/feature/psnr/psnr_kernels.h',
         '    if (!(t & 31u)) loc->part[t >> 5] = s;\n    TVD_BARRIER();',
         '    if (!(t & 31u)) loc->part[t >> 5] = s;'),
        ('fill removed', 'src/feature/psnr/psnr_plan.c',
         'int err = s->totals ? tvd_fill(t, tvd_whole(t, s->sums), 0) : 0;', 'int err = 0;'),
    ],
    # one entry per twin moved onto the plan design, each its own list
    'float_psnr': [],
    'float_moment': [],
    'float_ansnr': [],
    'float_ssim': [],
    'float_ms_ssim': [],
    'float_vif': [],
    'float_adm': [],
    'float_motion': [],
    'psnr_hvs': [],
    'speed': [],
    'cambi': [],
    'ciede': [],
    'motion': [
        ('buffer offset', 'src/feature/motion/motion_plan.c',
         'tvd_view(m->luma, (size_t)(k % m->n_slots) * plane, plane)',
         'tvd_view(m->luma, (size_t)(k % m->n_slots) * plane + 1, plane - 1)'),
        ('swapped arguments', 'src/feature/motion/motion_plan.c',
         '.prev = slot(m, index - motion_lag(&m->s)),\n        .cur = slot(m, index),',
         '.prev = slot(m, index),\n        .cur = slot(m, index - motion_lag(&m->s)),'),
        ('swapped values', 'src/feature/motion/motion_plan.c',
         '.w = m->s.w,\n        .h = m->s.h,', '.w = m->s.h,\n        .h = m->s.w,'),
        ('grid one group short', 'src/feature/motion/motion_plan.c',
         'TVD_GRID(MOTION_GRID_X(m->s.w), MOTION_GRID_Y(m->s.h))',
         'TVD_GRID(MOTION_GRID_X(m->s.w), MOTION_GRID_Y(m->s.h) - 1)'),
        ('short read-back', 'src/feature/motion/motion_plan.c',
         'return err ? err : tvd_download(t, tvd_whole(t, m->rows));',
         'return err ? err : tvd_download(t, tvd_view(m->rows, 0, 4 * m->s.h - 4));'),
        ('fill removed', 'src/feature/motion/motion_plan.c',
         'int err = tvd_fill(t, tvd_whole(t, m->rows), 0);', 'int err = 0;'),
        ('barrier removed (ys)', 'src/feature/motion/motion_kernels.h',
         '        }                                                                                      \\\n        TVD_BARRIER();                                                                         \\\n        uint32_t v = 0;',
         '        }                                                                                      \\\n        uint32_t v = 0;'),
        ('barrier removed (tree)', 'src/feature/motion/motion_kernels.h',
         '    loc->part[t] = v;                                                                          \\\n    TVD_BARRIER();',
         '    loc->part[t] = v;                                                                          \\'),
    ],
    'vif': [],
    'adm': [],
}


def main():
    build, feature = sys.argv[1], sys.argv[2]
    test = os.path.join(build, 'tests', 'test_%s_replay' % feature)
    env = dict(os.environ, TVMAF_CLIPS_DEFAULT=os.path.join(ROOT, '.cache', 'clips'))
    survived = 0
    for kind, path, old, new in MUTATIONS[feature]:
        full = os.path.join(ROOT, path)
        text = open(full).read()
        if text.count(old) != 1:
            print('%-26s NOT APPLICABLE (text not found once in %s)' % (kind, path))
            survived += 1
            continue
        open(full, 'w').write(text.replace(old, new))
        try:
            b = subprocess.run(['ninja', '-C', build, os.path.relpath(test, build)],
                               capture_output=True, text=True)
            if b.returncode:
                # a mutation the compiler rejects counts only if the tree
                # builds without it
                open(full, 'w').write(text)
                clean = subprocess.run(['ninja', '-C', build, os.path.relpath(test, build)],
                                       capture_output=True, text=True)
                print('%-26s %s' % (kind, 'caught by the build' if not clean.returncode
                                    else 'INCONCLUSIVE (the tree does not build without it)'))
                survived += clean.returncode != 0
                continue
            r = subprocess.run([test], capture_output=True, text=True, env=env, timeout=900)
            lines = [l for l in (r.stdout + r.stderr).splitlines()
                     if 'differ' in l or 'FAIL' in l or 'fail' in l or 'host executor' in l
                     or 'feature "' in l]
            if r.returncode:
                print('%-26s caught: %s' % (kind, (lines[0] if lines else 'exit %d' % r.returncode)[:150]))
            else:
                print('%-26s SURVIVED' % kind)
                survived += 1
        finally:
            open(full, 'w').write(text)
    subprocess.run(['ninja', '-C', build, os.path.relpath(test, build)], capture_output=True)
    return 1 if survived else 0


if __name__ == '__main__':
    sys.exit(main())
