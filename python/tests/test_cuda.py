"""On a CUDA device: the package's backend='cuda' scores equal the CLI's
CPU JSON at --precision max bit for bit (and the CLI's CUDA JSON). Skips
without a usable device (tests/python_test.py --cuda exits 77 then).
TVMAF_TEST_CUDA_FRAMES=N scores the clip's first N frames only (the tests'
CUDA driver stand-in runs every work-item on the CPU)."""
import os
import subprocess

import pytest

import tvmaf
from common import EXE, assert_same, cli_json, clip, raw_args

pytestmark = pytest.mark.skipif(not tvmaf.cuda_available(), reason='no usable CUDA device')

# twins (psnr, ciede, float_ssim, float_ms_ssim, VMAF's vif/adm/motion) and cambi, which ran on
# the CPU beside them until its twin was registered: where a build lacks a twin, the CPU scores it
FEATURES = ['psnr=enable_apsnr=true', 'ciede', 'float_ssim', 'float_ms_ssim=enable_lcs=true', 'cambi']


def cambi_backend():
    """Where cambi runs under backend='cuda': on the device where this build registers its
    twin (tvmaf --list-features lists each feature's backends), else on the CPU. It asserted
    'cpu' after cambi's twin was registered, so the test failed on every GPU run since."""
    out = subprocess.run([EXE, '--list-features'], capture_output=True, text=True, check=True).stdout
    line = next(l.split() for l in out.splitlines() if l.split()[:1] == ['cambi'])
    return 'cuda' if 'cuda' in line[1:] else 'cpu'


@pytest.mark.parametrize('threads,pinned', [(0, False), (4, False), (0, True)])
def test_cuda_matches_cpu_cli_json(threads, pinned):
    ref, dis, info = clip()
    frames = int(os.environ.get('TVMAF_TEST_CUDA_FRAMES', '0'))
    common = ['-r', ref, '-d', dis] + raw_args(info) + sum((['--feature', f] for f in FEATURES), [])
    common += ['--frame_cnt', str(frames)] if frames else []
    doc_cpu = cli_json(common + ['--backend', 'cpu'])
    doc_cuda = cli_json(common + ['--backend', 'cuda', '--threads', str(threads)])
    r = tvmaf.score_files(ref, dis, width=576, height=324, pix_fmt='420', bitdepth=8,
                          features=FEATURES, backend='cuda', threads=threads,
                          pinned_pictures=pinned, frame_cnt=frames or None)
    assert r.backends['adm'] == 'cuda' and r.backends['float_ssim'] == 'cuda'
    assert r.backends['float_ms_ssim'] == 'cuda'
    assert r.backends['cambi'] == cambi_backend()
    assert_same(r, doc_cpu)
    assert_same(r, doc_cuda)
