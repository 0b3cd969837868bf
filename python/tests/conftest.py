"""Makes `pytest python/` work from a built checkout: the package from this
tree, libtvmaf and the CLI from build/ unless TVMAF_LIBRARY / TVMAF_EXE say
otherwise, the test clips from .cache/clips (TVMAF_CLIPS), the models from
$TVMAF_SHARED/models or ../shared/models (unless TVMAF_MODEL_PATH is set),
the encoded streams from $TVMAF_SHARED/testdata/streams (TVMAF_STREAMS)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

_lib = os.path.join(ROOT, 'build', 'src', 'libtvmaf.so')
if 'TVMAF_LIBRARY' not in os.environ and os.path.exists(_lib):
    os.environ['TVMAF_LIBRARY'] = _lib
os.environ.setdefault('TVMAF_EXE', os.path.join(ROOT, 'build', 'tools', 'tvmaf'))
os.environ.setdefault('TVMAF_CLIPS', os.path.join(ROOT, '.cache', 'clips'))
os.environ.setdefault('TVMAF_MODEL_PATH', os.path.join(
    os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared')), 'models'))
# the encoded public streams (testdata/streams of the shared data)
os.environ.setdefault('TVMAF_STREAMS', os.path.join(
    os.environ.get('TVMAF_SHARED', os.path.join(ROOT, '..', 'shared')), 'testdata', 'streams'))
