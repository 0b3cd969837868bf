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
    # float_psnr and float_moment share their arguments, plan steps and folds
    # (common/float_picture_kernels.h): each runs every mutation of that text
    'float_psnr': [
        ('buffer offset', 'src/feature/common/float_picture_kernels.h',
         '.rows = tvd_whole(t, rows), .out', '.rows = tvd_view(rows, 8, tvd_whole(t, rows).size - 8), .out'),
        ('swapped arguments', 'src/feature/common/float_picture_kernels.h',
         '.pitch = pitch, .w = w, .bpc = bpc,', '.pitch = pitch, .w = bpc, .bpc = w,'),
        ('grid one group short', 'src/feature/common/float_picture_kernels.h',
         'TVD_GRID(h, 1)', 'TVD_GRID(h - 1, 1)'),
        ('short read-back', 'src/feature/common/float_picture_kernels.h',
         'tvd_download(t, tvd_whole(t, out))',
         'tvd_download(t, tvd_view(out, 0, tvd_whole(t, out).size - 4))'),
        ('barrier removed (warps)', 'src/feature/common/float_picture_kernels.h',
         '    if (!lane) warps[warp] = v;\n    TVD_BARRIER();', '    if (!lane) warps[warp] = v;'),
        ('barrier removed (tree)', 'src/feature/common/float_picture_kernels.h',
         '    part[t] = v;\n    TVD_BARRIER();', '    part[t] = v;'),
    ],
    'float_moment': [
        ('buffer offset', 'src/feature/common/float_picture_kernels.h',
         '.rows = tvd_whole(t, rows), .out', '.rows = tvd_view(rows, 8, tvd_whole(t, rows).size - 8), .out'),
        ('swapped arguments', 'src/feature/common/float_picture_kernels.h',
         '.pitch = pitch, .w = w, .bpc = bpc,', '.pitch = pitch, .w = bpc, .bpc = w,'),
        ('grid one group short', 'src/feature/common/float_picture_kernels.h',
         'TVD_GRID(h, 1)', 'TVD_GRID(h - 1, 1)'),
        ('short read-back', 'src/feature/common/float_picture_kernels.h',
         'tvd_download(t, tvd_whole(t, out))',
         'tvd_download(t, tvd_view(out, 0, tvd_whole(t, out).size - 4))'),
        ('rows buffer one row short', 'src/feature/float_moment/float_moment_plan.c',
         'sizeof(uint64_t) * FMOMENT_SLOTS * s->p.h,', 'sizeof(uint64_t) * FMOMENT_SLOTS * (s->p.h - 1),'),
        ('barrier removed (warps)', 'src/feature/common/float_picture_kernels.h',
         '    if (!lane) warps[warp] = v;\n    TVD_BARRIER();', '    if (!lane) warps[warp] = v;'),
        ('barrier removed (tree)', 'src/feature/common/float_picture_kernels.h',
         '    part[t] = v;\n    TVD_BARRIER();', '    part[t] = v;'),
    ],
    # no barrier or local memory in float_ansnr's kernels
    'float_ansnr': [
        ('buffer offset', 'src/feature/float_ansnr/float_ansnr_plan.c',
         '.sums = tvd_whole(t, s->sums),', '.sums = tvd_view(s->sums, 8, tvd_whole(t, s->sums).size - 8),'),
        ('swapped arguments', 'src/feature/float_ansnr/float_ansnr_plan.c',
         '.ref_taps = tvd_whole(t, s->ref_taps), .dis_taps = tvd_whole(t, s->dis_taps),',
         '.ref_taps = tvd_whole(t, s->dis_taps), .dis_taps = tvd_whole(t, s->ref_taps),'),
        ('grid one group short (rows)', 'src/feature/float_ansnr/float_ansnr_plan.c',
         '(h + FANSNR_ROW_THREADS - 1) / FANSNR_ROW_THREADS, 1)',
         '(h + FANSNR_ROW_THREADS - 1) / FANSNR_ROW_THREADS - 1, 1)'),
        ('grid one group short (y)', 'src/feature/float_ansnr/float_ansnr_plan.c',
         'FANSNR_GRID_Y(h));', 'FANSNR_GRID_Y(h) - 1);'),
        ('short read-back', 'src/feature/float_ansnr/float_ansnr_plan.c',
         'tvd_download(t, tvd_whole(t, s->sums))',
         'tvd_download(t, tvd_view(s->sums, 0, tvd_whole(t, s->sums).size - 4))'),
    ],
    # no barrier or local memory in float_ssim's kernels
    'float_ssim': [
        ('buffer offset', 'src/feature/float_ssim/float_ssim_plan.c',
         'five1 = tvd_view(s->five, small, small)', 'five1 = tvd_view(s->five, small + 4, small)'),
        ('swapped arguments', 'src/feature/float_ssim/float_ssim_plan.c',
         '.ow = s->ow, .oh = s->oh,', '.ow = s->oh, .oh = s->ow,'),
        ('grid one group short', 'src/feature/float_ssim/float_ssim_plan.c',
         'SSIM_GRID_Y((unsigned)s->oh))', 'SSIM_GRID_Y((unsigned)s->oh) - 1)'),
        ('short read-back', 'src/feature/float_ssim/float_ssim_plan.c',
         'tvd_download(t, tvd_whole(t, s->s))',
         'tvd_download(t, tvd_view(s->s, 0, tvd_whole(t, s->s).size - 4))'),
    ],
    'float_ms_ssim': [
        ('buffer offset', 'src/feature/float_ms_ssim/float_ms_ssim_plan.c',
         '.sums = tvd_whole(t, s->sums),', '.sums = tvd_view(s->sums, 8, 8 * (N_SUMS - 1)),'),
        ('swapped arguments', 'src/feature/float_ms_ssim/float_ms_ssim_plan.c',
         '.ow = ow, .oh = oh,', '.ow = oh, .oh = ow,'),
        ('grid one group short', 'src/feature/float_ms_ssim/float_ms_ssim_plan.c',
         'TVD_GRID(GX(ow), GY(oh)), &wa)', 'TVD_GRID(GX(ow) - 1, GY(oh)), &wa)'),
        ('short read-back', 'src/feature/float_ms_ssim/float_ms_ssim_plan.c',
         'tvd_download(t, tvd_whole(t, s->sums))',
         'tvd_download(t, tvd_view(s->sums, 0, 8 * (N_SUMS - 1)))'),
        ('barrier removed (tile 0)', 'src/feature/float_ms_ssim/float_ms_ssim_kernels.h',
         '        loc->tile[i] = term == 2 ? MS_SSIM_WIDEN(vf[i]) : vd[i];\n    TVD_BARRIER();',
         '        loc->tile[i] = term == 2 ? MS_SSIM_WIDEN(vf[i]) : vd[i];'),
        ('barrier removed (tiles)', 'src/feature/float_ms_ssim/float_ms_ssim_kernels.h',
         '        TVD_BARRIER();\n    }\n    if (tid == 0)', '    }\n    if (tid == 0)'),
    ],
    'float_vif': [
        ('buffer offset', 'src/feature/float_vif/float_vif_plan.c',
         'tvd_view(s->rows, row0 + rn, rn)', 'tvd_view(s->rows, row0 + rn - 4, rn)'),
        ('swapped arguments', 'src/feature/float_vif/float_vif_plan.c',
         '.gain_limit = p->stat.gain_limit, .sigma_max_inv = p->stat.sigma_max_inv,',
         '.gain_limit = p->stat.sigma_max_inv, .sigma_max_inv = p->stat.gain_limit,'),
        ('grid one group short', 'src/feature/float_vif/float_vif_plan.c',
         'TVD_GRID(GX(w), GY(h)), &sa)', 'TVD_GRID(GX(w) - 1, GY(h)), &sa)'),
        ('short read-back', 'src/feature/float_vif/float_vif_plan.c',
         'sizeof(float) * s->rows_n - first)', 'sizeof(float) * s->rows_n - first - 4)'),
    ],
    'float_adm': [
        ('buffer offset', 'src/feature/float_adm/float_adm_plan.c',
         'tvd_view(s->scales, sizeof(*c) * (size_t)k, sizeof(*c))',
         'tvd_view(s->scales, sizeof(*c) * (size_t)((k + 1) % FADM_N_SCALES), sizeof(*c))'),
        ('swapped arguments', 'src/feature/float_adm/float_adm_plan.c',
         '.ref = tvd_plane(t, f, 0, 0), .dis = tvd_plane(t, f, 1, 0),',
         '.ref = tvd_plane(t, f, 1, 0), .dis = tvd_plane(t, f, 0, 0),'),
        ('grid one group short', 'src/feature/float_adm/float_adm_plan.c',
         'TVD_GRID(FADM_GRID_X(c->pw), FADM_GRID_Y(c->ph))',
         'TVD_GRID(FADM_GRID_X(c->pw) - 1, FADM_GRID_Y(c->ph))'),
        ('short read-back', 'src/feature/float_adm/float_adm_plan.c',
         'tvd_download(t, tvd_whole(t, s->p.cube ? s->rows : s->terms))',
         'tvd_download(t, tvd_view(s->p.cube ? s->rows : s->terms, 0, '
         'tvd_whole(t, s->p.cube ? s->rows : s->terms).size - 4))'),
    ],
    # no barrier or local memory in float_motion's kernels
    'float_motion': [
        ('buffer offset', 'src/feature/float_motion/float_motion_plan.c',
         '.sums = tvd_view(s->sums, sizeof(float) * s->sums_off[m][q], sizeof(float) * (size_t)h),',
         '.sums = tvd_view(s->sums, sizeof(float) * (s->sums_off[m][q] + 1), sizeof(float) * (size_t)h),'),
        ('swapped arguments', 'src/feature/float_motion/float_motion_plan.c',
         '.stride = p->stride, .w = w, .h = h,', '.stride = p->stride, .w = h, .h = w,'),
        ('grid one group short', 'src/feature/float_motion/float_motion_plan.c',
         'TVD_GRID(GX(w), FMOT_GRID_Y((uint32_t)h))', 'TVD_GRID(GX(w) - 1, FMOT_GRID_Y((uint32_t)h))'),
        ('grid one group short (rows)', 'src/feature/float_motion/float_motion_plan.c',
         'TVD_GRID(GROWS(h), 1), &rows)', 'TVD_GRID(GROWS(h) - 1, 1), &rows)'),
        ('short read-back', 'src/feature/float_motion/float_motion_plan.c',
         'tvd_download(t, tvd_whole(t, s->sums))',
         'tvd_download(t, tvd_view(s->sums, 0, sizeof(float) * (s->sums_n - 1)))'),
        ('ring fill removed', 'src/feature/float_motion/float_motion_plan.c',
         'err = tvd_fill(t, tvd_whole(t, s->ring), 0);', 'err = 0;'),
    ],
    'psnr_hvs': [
        ('buffer offset', 'src/feature/psnr_hvs/psnr_hvs_plan.c',
         'tvd_view(s->weights, sizeof(PhvsWeights) * p, sizeof(PhvsWeights))',
         'tvd_view(s->weights, sizeof(PhvsWeights) * ((p + 1) % 3), sizeof(PhvsWeights))'),
        ('swapped arguments', 'src/feature/psnr_hvs/psnr_hvs_plan.c',
         '.bytes = s->p.bpc > 8 ? 2 : 1,\n            .bx = s->bx[p],',
         '.bytes = s->bx[p],\n            .bx = s->p.bpc > 8 ? 2 : 1,'),
        ('grid one group short', 'src/feature/psnr_hvs/psnr_hvs_plan.c',
         'TVD_GRID((uint32_t)n_reg, 1)', 'TVD_GRID((uint32_t)n_reg - 1, 1)'),
        ('short read-back', 'src/feature/psnr_hvs/psnr_hvs_plan.c',
         'tvd_download(t, tvd_whole(t, s->counts))',
         'tvd_download(t, tvd_view(s->counts, 0, sizeof(uint32_t) * ((size_t)s->n_regions - 1)))'),
        ('barrier removed (rows)', 'src/feature/psnr_hvs/psnr_hvs_kernels.h',
         '        loc->start[tid + 1] = 0;\n    }\n    TVD_BARRIER();',
         '        loc->start[tid + 1] = 0;\n    }'),
        ('barrier removed (packing)', 'src/feature/psnr_hvs/psnr_hvs_kernels.h',
         'phvs_pack(row, loc->packed, loc->start[tid]);\n    TVD_BARRIER();',
         'phvs_pack(row, loc->packed, loc->start[tid]);'),
        ('fill removed', 'src/feature/psnr_hvs/psnr_hvs_plan.c',
         'err = tvd_fill(t, tvd_whole(t, s->terms), 0);', 'err = 0;'),
    ],
    'speed': [
        ('buffer offset', 'src/feature/speed/speed_plan.c',
         'const TvdView r = floats(d->kqr, 2 * z * nn, z * nn);',
         'const TvdView r = floats(d->kqr, 2 * z * nn - 1, z * nn);'),
        ('swapped arguments', 'src/feature/speed/speed_plan.c',
         '.ew = ew, .ow = g->ow, .oh = g->oh,', '.ew = ew, .ow = g->oh, .oh = g->ow,'),
        ('grid one image short (z)', 'src/feature/speed/speed_plan.c',
         'SAMPLES(ew, g->oh, z), &av)', 'SAMPLES(ew, g->oh, z - 1), &av)'),
        ('grid one group short', 'src/feature/speed/speed_plan.c',
         'TVD_GRID(gb, z), &bl)', 'TVD_GRID(gb - 1, z), &bl)'),
        ('short read-back', 'src/feature/speed/speed_plan.c',
         'return tvd_download(t, out);', 'return tvd_download(t, tvd_view(d->out, 0, out.size - 4));'),
        ('barrier removed (cov)', 'src/feature/speed/speed_kernels.h',
         't / SPEED_BLOCK, t % SPEED_BLOCK);\n    TVD_BARRIER();', 't / SPEED_BLOCK, t % SPEED_BLOCK);'),
        ('barrier removed (QR)', 'src/feature/speed/speed_kernels.h',
         'speed_qr_vector(loc->zm, loc->a, loc->v, n, s);\n        TVD_BARRIER();',
         'speed_qr_vector(loc->zm, loc->a, loc->v, n, s);'),
        ('fill removed', 'src/feature/speed/speed_plan.c',
         'if ((err = tvd_fill(t, tvd_whole(t, d->scaled), 0))) return err;', 'err = 0;'),
    ],
    # a grid one group short in y, or in the top-k passes, is an equivalent
    # mutant there: those kernels stride by the grid
    'cambi': [
        ('buffer offset (c-values)', 'src/feature/cambi/cambi_plan.c',
         'tvd_view(s->cval, sizeof(float) * off, sizeof(float) * w * h)',
         'tvd_view(s->cval, sizeof(float) * off + 4, sizeof(float) * w * h)'),
        ('buffer offset (top-k state)', 'src/feature/cambi/cambi_plan.c',
         'sizeof(CambiTopk) * (which * CAMBI_NUM_SCALES + k),',
         'sizeof(CambiTopk) * (which * CAMBI_NUM_SCALES + k) + 8,'),
        ('swapped arguments (mode)', 'src/feature/cambi/cambi_plan.c',
         '.gw = gw,\n                                   .gh = gh, .w = (int32_t)w, .h = (int32_t)h };',
         '.gw = gw,\n                                   .gh = gh, .w = (int32_t)h, .h = (int32_t)w };'),
        ('swapped arguments (c-values)', 'src/feature/cambi/cambi_plan.c',
         '.radius = g->window >> 1, .rows = rows,', '.radius = rows, .rows = g->window >> 1,'),
        ('grid one group short (x)', 'src/feature/cambi/cambi_plan.c',
         'return TVD_GRID((w + CAMBI_BLOCK_W - 1) / CAMBI_BLOCK_W,',
         'return TVD_GRID((w + CAMBI_BLOCK_W - 1) / CAMBI_BLOCK_W - 1,'),
        ('grid one group short (c-values)', 'src/feature/cambi/cambi_plan.c',
         'TVD_GRID((w + CAMBI_CVAL_THREADS - 1) / CAMBI_CVAL_THREADS,',
         'TVD_GRID((w + CAMBI_CVAL_THREADS - 1) / CAMBI_CVAL_THREADS - 1,'),
        ('grid one strip short', 'src/feature/cambi/cambi_plan.c',
         '(h + (unsigned)rows - 1) / (unsigned)rows), &a);',
         '(h + (unsigned)rows - 1) / (unsigned)rows - 1), &a);'),
        ('short read-back (states)', 'src/feature/cambi/cambi_plan.c',
         'tvd_download(t, tvd_whole(t, s->topk))',
         'tvd_download(t, tvd_view(s->topk, 0, tvd_whole(t, s->topk).size - 8))'),
        ('short read-back (flags)', 'src/feature/cambi/cambi_plan.c',
         'tvd_download(t, tvd_whole(t, s->flag))', 'tvd_download(t, tvd_view(s->flag, 0, 4))'),
        ('short read-back (c-values)', 'src/feature/cambi/cambi_plan.c',
         'sizeof(float) * s->n_pic[i]);', 'sizeof(float) * s->n_pic[i] - 4);'),
        ('fill removed (states)', 'src/feature/cambi/cambi_plan.c',
         '    tvd_fill(t, tvd_whole(t, s->topk), 0);\n', ''),
        ('mid-frame wait removed', 'src/feature/cambi/cambi_plan.c',
         'if ((heat && !p->full_ref) || tvd_sync(t)) return 0;',
         'if (heat && !p->full_ref) return 0;'),
        ('barrier removed (hist)', 'src/feature/cambi/cambi_kernels.h',
         '        loc->ss[b] = 0;\n    }\n    TVD_BARRIER();', '        loc->ss[b] = 0;\n    }'),
        ('barrier removed (hist flush)', 'src/feature/cambi/cambi_kernels.h',
         '        TVD_ATOMIC_ADD_U64(&loc->ss[b], u);\n    }\n    TVD_BARRIER();',
         '        TVD_ATOMIC_ADD_U64(&loc->ss[b], u);\n    }'),
        ('barrier removed (pairs)', 'src/feature/cambi/cambi_kernels.h',
         '        loc->sc[b] = loc->lo[b] = loc->hi[b] = 0;\n    TVD_BARRIER();',
         '        loc->sc[b] = loc->lo[b] = loc->hi[b] = 0;'),
        ('barrier removed (pairs flush)', 'src/feature/cambi/cambi_kernels.h',
         '        CAMBI_ADD_PAIR(&loc->lo[b], &loc->hi[b], u);\n    }\n    TVD_BARRIER();',
         '        CAMBI_ADD_PAIR(&loc->lo[b], &loc->hi[b], u);\n    }'),
        ('barrier removed (scan)', 'src/feature/cambi/cambi_kernels.h',
         '        r->sum[b] = 0;\n    }\n    TVD_BARRIER();', '        r->sum[b] = 0;\n    }'),
        ('barrier removed (scan pairs)', 'src/feature/cambi/cambi_kernels.h',
         '        sum[2 * b] = sum[2 * b + 1] = 0;\n    }\n    TVD_BARRIER();',
         '        sum[2 * b] = sum[2 * b + 1] = 0;\n    }'),
    ],
    'ciede': [
        ('buffer offset', 'src/feature/ciede/ciede_plan.c',
         '.de = tvd_whole(t, s->de),', '.de = tvd_view(s->de, 4, tvd_whole(t, s->de).size - 4),'),
        ('swapped arguments', 'src/feature/ciede/ciede_plan.c',
         '.w = s->w, .h = s->h, .cw = s->cw, .ch = s->ch,',
         '.w = s->w, .h = s->h, .cw = s->ch, .ch = s->cw,'),
        ('grid one group short', 'src/feature/ciede/ciede_plan.c',
         '(s->h + CIEDE_BLOCK_H - 1) / CIEDE_BLOCK_H);', '(s->h + CIEDE_BLOCK_H - 1) / CIEDE_BLOCK_H - 1);'),
        ('short read-back', 'src/feature/ciede/ciede_plan.c',
         'return err ? err : tvd_download(t, tvd_whole(t, s->de));',
         'return err ? err : tvd_download(t, tvd_view(s->de, 0, tvd_whole(t, s->de).size - 4));'),
    ],
    'motion': [
        ('buffer offset', 'src/feature/motion/motion_plan.c',
         'tvd_view(m->luma, (size_t)(k % m->n_slots) * plane, plane)',
         'tvd_view(m->luma, (size_t)(k % m->n_slots) * plane + 1, plane - 1)'),
        ('swapped arguments', 'src/feature/motion/motion_plan.c',
         '.prev = slot(m, index - motion_lag(&m->s)),\n        .cur = slot(m, index),',
         '.prev = slot(m, index),\n        .cur = slot(m, index - motion_lag(&m->s)),'),
        ('swapped values', 'src/feature/motion/motion_plan.c',
         '.w = m->s.w,\n        .h = m->s.h,', '.w = m->s.h,\n        .h = m->s.w,'),
        # (group y strides over the rows, so one group fewer in y still covers them: the
        # short grid is in x, the tiles of columns)
        ('grid one group short', 'src/feature/motion/motion_plan.c',
         'TVD_GRID(MOTION_GRID_X(m->s.w), MOTION_GRID_Y(m->s.h))',
         'TVD_GRID(MOTION_GRID_X(m->s.w) - 1, MOTION_GRID_Y(m->s.h))'),
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
         '    loc->part[t] = v;                                                                          \\\n    (void)0;'),
    ],
    'vif': [
        ('buffer offset', 'src/feature/vif/vif_plan.c',
         'return tvd_view(v->img, off, v->pitch[k] * v->p.h[k]);',
         'return tvd_view(v->img, off + 256, v->pitch[k] * v->p.h[k]);'),
        ('swapped arguments', 'src/feature/vif/vif_plan.c',
         '.out_r = plane(v, n, v->off_ref[n ? n : 1]),\n        .out_d = plane(v, n, v->off_dis[n ? n : 1]),',
         '.out_r = plane(v, n, v->off_dis[n ? n : 1]),\n        .out_d = plane(v, n, v->off_ref[n ? n : 1]),'),
        ('grid one group short', 'src/feature/vif/vif_plan.c',
         'return tvd_launch(t, scale_kernel(v, first, k),\n                      TVD_GRID(VIF_GRID_X(v->p.w[k]), VIF_GRID_Y(v->p.h[k])), &a);',
         'return tvd_launch(t, scale_kernel(v, first, k),\n                      TVD_GRID(VIF_GRID_X(v->p.w[k]), VIF_GRID_Y(v->p.h[k]) - 1), &a);'),
        ('short read-back', 'src/feature/vif/vif_plan.c',
         ': tvd_download(t, v->atomics ? pair_sums : tvd_whole(t, v->sums));',
         ': tvd_download(t, v->atomics ? tvd_sub(pair_sums, 0, 96) : tvd_sub(tvd_whole(t, v->sums), 0, tvd_whole(t, v->sums).size - 32));'),
        ('barrier removed (load)', 'src/feature/vif/vif_kernels.h',
         '&m);                                       \\\n    TVD_BARRIER();  ',
         '&m);                                       \\\n    (void)0;        '),
        ('barrier removed (tree)', 'src/feature/vif/vif_kernels.h',
         '    red[t] = v;\n    TVD_BARRIER();', '    red[t] = v;'),
    ],
    'adm': [
        ('buffer offset', 'src/feature/adm/adm_plan.c',
         'return m->atomics ? all : tvd_sub(all, m->slot0[k] * 8, all.size - m->slot0[k] * 8);',
         'return m->atomics ? tvd_sub(all, 8, all.size - 8) : tvd_sub(all, m->slot0[k] * 8 + 8, all.size - m->slot0[k] * 8 - 8);'),
        ('swapped arguments', 'src/feature/adm/adm_plan.c',
         '.a_ref = tvd_whole(t, m->a_ref[0]),\n            .a_dis = tvd_whole(t, m->a_dis[0]),',
         '.a_ref = tvd_whole(t, m->a_dis[0]),\n            .a_dis = tvd_whole(t, m->a_ref[0]),'),
        ('grid one group short', 'src/feature/adm/adm_plan.c',
         'return TVD_GRID(ADM_GRID_X((unsigned)c->w), (unsigned)c->h);',
         'return TVD_GRID(ADM_GRID_X((unsigned)c->w), (unsigned)c->h - 1);'),
        ('short read-back', 'src/feature/adm/adm_plan.c',
         'return err ? err : tvd_download(t, tvd_whole(t, m->sums));',
         'return err ? err : tvd_download(t, tvd_sub(tvd_whole(t, m->sums), 0, tvd_whole(t, m->sums).size - 8));'),
        ('fill removed', 'src/feature/adm/adm_plan.c',
         'if (!err) err = tvd_fill(t, tvd_whole(t, m->rows), 0);', ''),
        ('barrier removed (warps)', 'src/feature/adm/adm_kernels.h',
         '        if (!(t & 31u)) part[(t >> 5) * n + q] = s;\n    }\n    TVD_BARRIER();',
         '        if (!(t & 31u)) part[(t >> 5) * n + q] = s;\n    }'),
        ('barrier removed (tree)', 'src/feature/adm/adm_kernels.h',
         '        red[t] = v[q];\n        TVD_BARRIER();', '        red[t] = v[q];'),
    ],
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
