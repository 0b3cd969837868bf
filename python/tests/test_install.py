"""`pip install` of the package (pip and setuptools from the system, no
index) gives a working module outside this tree."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_pip_install(tmp_path):
    src = tmp_path / 'src'
    shutil.copytree(os.path.dirname(HERE), src, ignore=shutil.ignore_patterns(
        'tests', 'build', '*.egg-info', '__pycache__'))
    target = tmp_path / 'site'
    p = subprocess.run([sys.executable, '-m', 'pip', 'install', '--no-build-isolation',
                        '--no-index', '--no-deps', '--target', str(target), str(src)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    code = ('import tvmaf, numpy as np; '
            'a = np.full((2, 48, 64), 100, np.uint8); b = a.copy(); b[:, ::2] = 104; '
            'r = tvmaf.score_frames(a, b, models=(), features=["psnr"]); '
            'print(tvmaf.__file__, repr(r.pooled["psnr_y"]["mean"]))')
    env = dict(os.environ, PYTHONPATH=str(target))
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    path, mean = p.stdout.split()
    assert path.startswith(str(target))
    # 4 on every other row: MSE 8
    assert float(mean) > 0
