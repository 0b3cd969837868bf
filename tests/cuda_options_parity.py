#!/usr/bin/env python3
"""CPU vs CUDA with non-default options (exits 77 without a usable CUDA device).

The gate (test_cuda_parity.py) runs each feature with its default options (plus the gate's
OPTIONS). This test runs a feature's CUDA twin with each option set of OPTION_SETS on every clip
of CLIPS found in the clip folder, and requires every output of every frame, pooled and
aggregate value, to be identical as a double (bit patterns) to --backend cpu --threads 1 at
--precision max. An option set the CPU refuses on a clip must be refused by the twin too
(non-zero exit), and the other way round. Besides, every line of the option goldens'
list (SHARED/testdata/options.tsv) for a feature of OPTION_SETS runs on its own clip (forest
1080p for the high-resolution cambi and bilinear speed sets), where that clip is present.

usage: cuda_options_parity.py TVMAF_EXE [--clips DIR] [--feature NAME] [--frames N] [--clip NAME]
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SKIP = 77
NO_DEVICE = re.compile(r"no usable \S+ device", re.I)

# feature -> option sets (the part after "NAME=" of --feature), each run on every clip
OPTION_SETS = {
    'float_vif': [
        'debug=true',
        'debug=true:vif_skip_scale0=true',
        'debug=true:vif_enhn_gain_limit=1.0',
        'debug=true:vif_sigma_nsq=0.5',
        'debug=true:vif_sigma_nsq=0.0',
        'debug=true:vif_scale1_min_val=0.9:vif_scale2_min_val=0.5:vif_scale3_min_val=1.0',
        'debug=true:vif_kernelscale=0.5',
        'debug=true:vif_kernelscale=2.0',
        'debug=true:vif_kernelscale=3.711340',
        'debug=true:vif_prescale=2.0:vif_prescale_method=bilinear',
        'debug=true:vif_prescale=0.7:vif_prescale_method=bilinear',
        'debug=true:vif_prescale=1.5:vif_prescale_method=bicubic',
        'debug=true:vif_prescale=0.5:vif_prescale_method=bicubic',
        'debug=true:vif_prescale=1.3:vif_prescale_method=lanczos4',
        'debug=true:vif_prescale=0.6:vif_prescale_method=lanczos4',
        'debug=true:vif_prescale=1.7',
    ],
    # every prescale method shrinking and growing, the unit prescale's crop, the kernel
    # scales at both ends, noise and floor, every variance weighting mode, clipping
    'speed_chroma': [
        'speed_weight_var_mode=1', 'speed_weight_var_mode=3', 'speed_weight_var_mode=4',
        'speed_weight_var_mode=5', 'speed_weight_var_mode=6', 'speed_kernelscale=0.5',
        'speed_kernelscale=3.711340', 'speed_sigma_nn=0.1:speed_nn_floor=1.0',
        'speed_max_val=1.0', 'speed_prescale=0.5',
        'speed_prescale=0.5:speed_prescale_method=bilinear',
        'speed_prescale=0.6:speed_prescale_method=bicubic',
        'speed_prescale=0.8:speed_prescale_method=lanczos4',
        'speed_prescale=1.5:speed_prescale_method=bicubic',
        'speed_prescale=1.3:speed_prescale_method=lanczos4',
        'speed_prescale=2.0:speed_prescale_method=bilinear', 'speed_prescale=0.9995',
    ],
    'speed_temporal': [
        'speed_use_ref_diff=true', 'speed_kernelscale=0.5', 'speed_kernelscale=3.711340',
        'speed_kernelscale=1.5:speed_sigma_nn=0.9:speed_nn_floor=0.5', 'speed_prescale=0.5',
        'speed_prescale=0.7:speed_prescale_method=bicubic',
        'speed_prescale=0.6:speed_prescale_method=lanczos4',
        'speed_prescale=1.3:speed_prescale_method=lanczos4',
        'speed_prescale=2.0:speed_prescale_method=bilinear', 'speed_prescale=1.7',
        'speed_prescale=0.9995',
    ],
    # the option goldens' sets, topk / tvi / eotf / contrast / visibility threshold, window
    # sizes, encode and source sizes and depth, full_ref, the high-resolution speed-up, clipping
    'cambi': [
        'topk=0.2:tvi_threshold=0.01', 'full_ref=true', 'eotf=pq:max_log_contrast=3',
        'cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17',
        'topk=1.0', 'cambi_topk=0.0001', 'tvi_threshold=0.0001', 'cambi_eotf=pq',
        'max_log_contrast=0', 'max_log_contrast=5', 'cambi_vis_lum_threshold=5',
        'cambi_vis_lum_threshold=300', 'window_size=15', 'window_size=127',
        'enc_width=320:enc_height=200:enc_bitdepth=8', 'enc_bitdepth=6', 'enc_bitdepth=16',
        'full_ref=true:src_width=400:src_height=240',
        'full_ref=true:src_width=320:src_height=200:enc_width=300:enc_height=180',
        'full_ref=true:enc_bitdepth=8:topk=0.5', 'cambi_max_val=0.5',
    ],
}

# clips of every layout and depth, small enough for many option sets
CLIPS = ['tiny_177x99', 'flat_64x64', 'cups_576x324', 'cups_576x324_10b', 'cups_576x324_12b',
         'cups_576x324_16b', 'cups_576x324_422', 'cups_576x324_444_10b', 'noise_320x180']


def clip_info(path):
    info = {}
    with open(path) as f:
        for line in f:
            if '=' in line:
                k, v = line.strip().split('=', 1)
                info[k] = v
    return info


def bits(v):
    return None if v is None else struct.pack('<d', float(v))


FRAMES = []  # --frames N: ['--frame_cnt', 'N'] for every run


def run(exe, clip_dir, name, info, backend, spec, out):
    args = [exe, '-r', os.path.join(clip_dir, name + '.ref.yuv'),
            '-d', os.path.join(clip_dir, name + '.dis.yuv'),
            '-w', info['width'], '-h', info['height'], '-p', info['layout'],
            '-b', info['bitdepth'], '--backend', backend, '--feature', spec,
            '--precision', 'max', '--json', '-o', out, '-q'] + FRAMES
    if out.endswith('cpu.json'):  # the reference
        args += ['--threads', '1']
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode(errors='replace')


def golden_sets(feats, clip_dir):
    """(clip, spec) of the option goldens' list for these features, on clips present here;
    says how many of the list's lines for them run."""
    shared = os.environ.get('TVMAF_SHARED') or os.path.join(os.path.dirname(ROOT), 'shared')
    tsv = os.path.join(shared, 'testdata', 'options.tsv')
    out = []
    if not os.path.isfile(tsv):
        print('no %s: the option goldens\' sets are not run' % tsv)
        return out
    listed = 0
    with open(tsv) as fh:
        for line in fh:
            if line.startswith('#') or '\t' not in line:
                continue
            clip, spec = line.rstrip('\n').split('\t')[:2]
            if spec.split('=', 1)[0] not in feats:
                continue
            listed += 1
            if os.path.exists(os.path.join(clip_dir, clip + '.info')):
                out.append((clip, spec))
    print("option goldens' sets: %d of %d run (the others' clips are not in %s)"
          % (len(out), listed, clip_dir) if len(out) < listed else
          "option goldens' sets: all %d run" % listed)
    return out


def values(doc):
    """Every number of the JSON as (path, value), in document order."""
    out = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ('version', 'fps'):
                    continue
                walk(v, path + '/' + str(k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + '/' + str(i))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            out.append((path, node))
    walk(doc, '')
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tvmaf')
    ap.add_argument('--clips', default=os.environ.get('TVMAF_CLIPS', os.path.join(ROOT, '.cache', 'clips')))
    ap.add_argument('--feature', action='append', help='only these features (default: all)')
    ap.add_argument('--backend', default='cuda',
                    help="the backend compared with the CPU (default cuda; 'cpu' checks this script)")
    ap.add_argument('--frames', type=int,
                    help="each clip's first N frames only (a slow backend such as the tests' "
                    "CUDA driver stand-in)")
    ap.add_argument('--clip', action='append',
                    help='only these clips of the list (default: every one present)')
    a = ap.parse_args()
    if a.frames:
        FRAMES[:] = ['--frame_cnt', str(a.frames)]
    feats = a.feature or sorted(OPTION_SETS)
    clips = [c for c in CLIPS if os.path.exists(os.path.join(a.clips, c + '.info'))
             and (not a.clip or c in a.clip)]
    if not clips:
        print('no clip of %s in %s' % (', '.join(CLIPS), a.clips))
        return 1
    failures, compared, refused = 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        cpu_json, cuda_json = os.path.join(tmp, 'cpu.json'), os.path.join(tmp, 'cuda.json')
        cases = [(c, f + '=' + opts) for f in feats for opts in OPTION_SETS[f] for c in clips]
        cases += golden_sets(feats, a.clips)
        per = {}
        for c, spec in cases:
            info = clip_info(os.path.join(a.clips, c + '.info'))
            rc_gpu, err_gpu = run(a.tvmaf, a.clips, c, info, a.backend, spec, cuda_json)
            if rc_gpu and NO_DEVICE.search(err_gpu):
                print('no usable device: %s' % err_gpu.strip())
                return SKIP
            rc_cpu, err_cpu = run(a.tvmaf, a.clips, c, info, 'cpu', spec, cpu_json)
            what = '%s on %s' % (spec, c)
            if rc_cpu or rc_gpu:
                if bool(rc_cpu) != bool(rc_gpu):
                    failures += 1
                    print('FAIL %s: cpu exit %d, cuda exit %d\n  cpu: %s\n  cuda: %s' %
                          (what, rc_cpu, rc_gpu, err_cpu.strip(), err_gpu.strip()))
                else:
                    refused += 1
                continue
            with open(cpu_json) as fh:
                vc = values(json.load(fh))
            with open(cuda_json) as fh:
                vg = values(json.load(fh))
            if [p for p, _ in vc] != [p for p, _ in vg]:
                failures += 1
                print('FAIL %s: the outputs differ in keys' % what)
                continue
            diff = [(p, x, y) for (p, x), (_, y) in zip(vc, vg) if bits(x) != bits(y)]
            compared += len(vc)
            feature = spec.split('=', 1)[0]
            per[feature] = per.get(feature, 0) + len(vc)
            if diff:
                failures += 1
                print('FAIL %s: %d of %d values differ, first %s cpu %r cuda %r' %
                      (what, len(diff), len(vc), diff[0][0], diff[0][1], diff[0][2]))
    for f in sorted(per):
        print('  %s: %d values compared' % (f, per[f]))
    print('cuda options parity: %d values compared, %d runs refused by both, %d failures' %
          (compared, refused, failures))
    return 1 if failures or not compared else 0


if __name__ == '__main__':
    sys.exit(main())
