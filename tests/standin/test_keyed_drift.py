"""Keyed rotations stay well inside the tolerance of checks.md §3 after many keys: the stand-in's
float axis-angle code (animation-semantics.md §3.4-3.6) against the reference's double model,
for a rotation of 80 random keys (each step up to 40 degrees per axis), at times across all of
them. The bound is d <= 1e-5 + 1e-7 * passed; the stand-in must use at most half of it."""
import random
import struct

import pytest

pytest.importorskip("eemu_ext")
np = pytest.importorskip("numpy")
reference = pytest.importorskip("reference")
from corpus.anime import build_anime, obj_track, keyed  # noqa: E402

from .driver import ANM, Driver  # noqa: E402
from .elfinfo import ELF_PATH  # noqa: E402


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def chunk(seed, nk=80):
    r = random.Random(f"standin-drift:{seed}")
    a, keys = [0.0, 0.0, 0.0], []
    for i in range(nk):
        a = [x + r.uniform(-40, 40) for x in a]
        keys.append((2 * i, tuple((x + 180) % 360 - 180 for x in a)))
    return build_anime(object=7, frames=2 * nk + 5, loops=True, tracks=[obj_track(3, rot=keyed(*keys))])


@pytest.mark.parametrize("float_model", ["hw", "trunc"])
def test_keyed_rotation_drift_after_80_keys(float_model):
    data = chunk(1)
    anim = reference.Animation.parse(data, float_model=float_model)
    d = Driver(ELF_PATH, float_model)
    (obj, ctrl), = d.load(data)
    d.new_anm()
    work, _ = d.work(ctrl)
    tr = anim.tracks[0]
    worst = 0.0
    for t in list(range(1, anim.last, 431)) + [anim.last]:
        d.call("ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork", ANM, work)
        rot = d.step(work, t)["rot"]
        got = np.array([[f32(rot[4 * c + r]) for c in range(3)] for r in range(3)])
        pose = anim.pose(tr, t)
        dev = float(np.max(np.abs(got - np.array(pose.rot_matrix))))
        bound = 1e-5 + 1e-7 * pose.passed
        assert dev <= 0.5 * bound, f"t={t}: d={dev:.3g} passed={pose.passed} bound={bound:.3g}"
        worst = max(worst, dev)
    assert pose.passed >= 70
    print(f"worst keyed-rotation deviation over 80 keys ({float_model}): {worst:.3g}")
