"""Batched evaluation: all times of one track and all steps of one playback in
one call, through the compiled kernels, equal the per-call Python path bit for bit on chunks of
the corpus (--data: the synthetic corpus by default). A kernel planted wrong is caught."""
import random

import numpy as np
import pytest

from reference import Animation

from .kernel_support import compiled_kernels, planted_kernels
from .test_corpus_sweep import open_data

SPEEDS = (256, 100, 384, 700)
CI_CHUNKS = 12


def chunk_sample(request, n, salt):
    c = open_data(request)
    ids = c.chunk_ids()
    seed = request.config.getoption("--seed")
    rng = random.Random(f"{seed}:batched-evaluation:{salt}")
    return c, seed, rng.sample(ids, min(n, len(ids)))


def sample_times(anim, rng, n=20):
    last = anim.last
    ts = {0, 1, last, last + 1, 0xFFFFFFFF}
    ts |= {rng.randint(0, max(1, last)) for _ in range(n)}
    ts |= {256 * f for f in range(anim.frames)} if anim.frames <= 64 else set()
    return sorted(t & 0xFFFFFFFF for t in ts)


def same_pose(p, q):
    assert p.time == q.time
    assert p.pos == q.pos and p.scale == q.scale and p.alpha == q.alpha
    assert all(type(w) is int for w in p.pos + p.scale + (p.alpha,))
    assert p.rot_keyed == q.rot_keyed and p.passed == q.passed and p.rot_kind == q.rot_kind
    assert p.rot == q.rot and p.rot16 == q.rot16
    # double matrices: the same IEEE operations in the same order, compared as raw 64-bit words
    assert np.array_equal(np.asarray(p.rot_matrix).view(np.uint64), np.asarray(q.rot_matrix).view(np.uint64))


def compare_chunk(ch, seed, model, fast, per_playback=None):
    """fast (batched, compiled) against the per-call Python path on one chunk; returns the number
    of (track, time) entries compared. per_playback: compare about this many evaluated steps of
    each playback, evenly spread (None: every step); the playback itself is always whole."""
    slow = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=model, where=ch.id, native=False)
    rng = random.Random(f"{seed}:batched:{ch.id}")
    ts = sample_times(slow, rng)
    compared = 0
    for tr in slow.tracks:
        batch = fast.poses(tr.index, ts)
        L = fast.local_matrices(tr.index, ts)
        assert len(batch) == len(ts)
        for j, t in enumerate(ts):
            want = slow.pose(tr, t)
            same_pose(batch.pose(j), want)
            same_pose(fast.pose(tr.index, t), want)               # the per-call API, compiled
            wl = slow.local_matrix(tr, t)
            if tr.keyed_rotation:
                assert np.array_equal(L[j].view(np.uint64), np.asarray(wl).view(np.uint64))
            else:
                assert L.dtype == np.uint32 and tuple(L[j].tolist()) == wl, (ch.id, tr.index, t)
                assert fast.local_matrix(tr.index, t) == wl
            compared += 1
    # all steps of a playback at each speed, as the nightly plays them (checks.md §4.2)
    for speed in SPEEDS:
        steps = [speed] * min(400, (2 * slow.frames * 256) // speed + 3)
        pb = fast.playback(steps)
        tb = pb.tracks([tr.index for tr in slow.tracks])          # every track in one call
        stride = max(1, len(steps) // per_playback) if per_playback else 1
        t = 0
        for i, s in enumerate(steps):
            f = slow.forward(t, s)
            assert pb.forwards[i] == f
            t = f.time
            if f.pose_at is None:
                assert i not in pb.row
                continue
            if i % stride and i != len(steps) - 1:
                continue
            T = min(f.pose_at, slow.last)
            k = pb.row[i]
            for c, tr in enumerate(slow.tracks):
                want = slow.pose(tr, T)
                same_pose(pb.pose(tr.index, i), want)
                assert tuple(tb.chan[k, c].tolist()) == want.pos + want.scale + (want.alpha,), (ch.id, tr.index, i)
                assert bool(tb.keyed[c]) == tr.keyed_rotation
                if not tr.keyed_rotation:
                    assert pb.local_matrix(tr.index, i) == slow.local_matrix(tr, T)
                    assert tuple(tb.local[k, c].tolist()) == slow.local_matrix(tr, T)
                else:
                    assert np.array_equal(tb.rot[k, c].view(np.uint64), np.asarray(want.rot_matrix).view(np.uint64))
                    assert tb.passed[k, c] == want.passed
                compared += 1
    return compared


@pytest.fixture(scope="module")
def kern():
    return compiled_kernels()


def test_batched_compiled_evaluation_equals_the_per_call_python_path(request, kern):
    """12 chunks (--chunks N for more): every track at ~25 times, and four full playbacks."""
    model = request.config.getoption("--float-model")
    c, seed, ids = chunk_sample(request, request.config.getoption("--chunks") or CI_CHUNKS, "agree")
    compared, keyed = 0, 0
    for cid in ids:
        ch = c.chunk(cid)
        fast = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=model, where=ch.id, native=True)
        assert fast.kernels is not None
        compared += compare_chunk(ch, seed, model, fast, per_playback=25)
        keyed += sum(t.keyed_rotation for t in fast.tracks)
    assert compared > 1000 and keyed > 0, (compared, keyed)


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_batched_python_fallback_equals_the_per_call_python_path(request, model):
    """With no kernels, poses()/local_matrices()/playback() loop over the Python model."""
    c, seed, ids = chunk_sample(request, 2, "fallback")
    for cid in ids:
        ch = c.chunk(cid)
        fast = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=model, where=ch.id, native=False)
        assert fast.kernels is None
        assert compare_chunk(ch, seed, model, fast, per_playback=10) > 0


@pytest.mark.slow
@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_batched_compiled_evaluation_on_200_chunks(request, kern, model):
    c, seed, ids = chunk_sample(request, 200, "agree-slow")
    for cid in ids:
        ch = c.chunk(cid)
        fast = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=model, where=ch.id, native=True)
        compare_chunk(ch, seed, model, fast)


PLANTS = [
    # the controller's product with fs and ft swapped (hw MUL is not commutative, §3.3)
    ("kernels.c", "out[k] = f_add(model, acc[k], f_mul(model, delta[k], frac));",
     "out[k] = f_add(model, acc[k], f_mul(model, frac, delta[k]));"),
    # the local matrix's translation one ulp up when its low byte is 0x33
    ("kernels.c", "for (int k = 0; k < 3; k++) out[12 + k] = f_add(model, out[12 + k], p[k]);",
     "for (int k = 0; k < 3; k++) { out[12 + k] = f_add(model, out[12 + k], p[k]); "
     "out[12 + k] += (out[12 + k] & 0xFF) == 0x33; }"),
    # a keyed rotation's fraction one ulp up
    ("kernels.c", "if (k->has_axis[i]) a2m(k->axis + 3 * i, k->angle[i] * bits_to_double(fb), step);",
     "if (k->has_axis[i]) a2m(k->axis + 3 * i, k->angle[i] * bits_to_double(fb ? fb + 1 : 0), step);"),
    # every track at once: the alpha channel of the fourth pose time read one unit later
    ("kernels.c", "ctrl_eval(model, &k->ch[2], times[j], c + 6);",
     "ctrl_eval(model, &k->ch[2], times[j] + (j == 3), c + 6);"),
]


@pytest.mark.parametrize("edit", PLANTS, ids=["mul-operand-order", "translation-ulp", "keyed-frac-ulp",
                                                   "tracks-alpha-time"])
def test_a_planted_wrong_batched_kernel_is_caught(request, tmp_path, kern, edit):
    """The agreement check above goes red on kernels built with one deliberate error."""
    model = request.config.getoption("--float-model")
    bad = planted_kernels(tmp_path, [edit])
    c, seed, ids = chunk_sample(request, CI_CHUNKS, "agree")
    with pytest.raises(AssertionError):
        for cid in ids:
            ch = c.chunk(cid)
            fast = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=model, where=ch.id,
                                   native=False)
            fast.kernels = bad
            compare_chunk(ch, seed, model, fast, per_playback=25)
