"""The reference evaluates every part of real-shaped chunks without error (the corpus, --data).

Runs on the archive the suite points at (conftest --data: the synthetic corpus by default, the
real DATA.BIN when given). A seeded sample of chunks in CI (--chunks, default 40); every chunk
with --slow. Checks the model's own invariants: bits are u32, a value depends only on its time,
keyed rotation matrices are rotations, notes agree with forward()'s read range.
"""
import os
import random
import time

import numpy as np
import pytest

from reference import Animation

M32 = 0xFFFFFFFF


def open_data(request):
    path = request.config.getoption("--data")
    if not path or not os.path.exists(path):
        pytest.skip(f"no archive at {path} (make corpus builds the synthetic one)")
    from corpus import open_corpus
    return open_corpus(data=path)


def sweep_chunk(ch, seed, float_model, times=6):
    a = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=float_model, where=ch.id)
    rng = random.Random(f"{seed}:{ch.id}")
    last = a.last
    ts = sorted({0, 1, max(1, last)} | {rng.randint(1, max(1, last)) for _ in range(times)})
    poses = 0
    for tr in a.tracks:
        for T in ts:
            p = a.pose(tr, T)
            poses += 1
            assert all(0 <= w <= M32 for w in p.pos + p.scale + (p.alpha,)), (ch.id, tr.index, T)
            if p.rot_keyed:
                R = p.rot_matrix
                assert np.abs(R @ R.T - np.eye(3)).max() < 5e-3, (ch.id, tr.index, T)
                assert p.passed >= 0
            else:
                assert len(p.rot) == 9
        again = a.pose(tr, ts[-1])
        assert again.pos == p.pos and again.scale == p.scale and again.alpha == p.alpha
        a.local_matrix(tr, ts[len(ts) // 2])
    for m in a.materials:
        for T in ts:
            U, V = a.uv(m, T)
            u, v = a.material_offsets(m, T, rng.getrandbits(16), rng.getrandbits(16))
            assert 0 <= u <= 0xFFFF and 0 <= v <= 0xFFFF
    t = 0
    for _ in range(40):
        s = rng.choice([0, 256, rng.randint(1, 600), rng.randint(1, 0xFFFF)])
        r = a.forward(t, s)
        assert a.forward_notes(t, s) == [(n.event, n.param) for n in a.passed_notes(t, s)]
        if r.pose_at is not None:
            a.morph_weights(r.pose_at >> 8)
            a.obj_poses_at(r.pose_at)
        t = r.time
    return poses


def run_sweep(request, n):
    c = open_data(request)
    ids = c.chunk_ids()
    seed = request.config.getoption("--seed")
    model = request.config.getoption("--float-model")
    if n and n < len(ids):
        ids = random.Random(f"{seed}:reference-sweep").sample(ids, n)
    t0, poses = time.perf_counter(), 0
    for cid in ids:
        poses += sweep_chunk(c.chunk(cid), seed, model)
    dt = time.perf_counter() - t0
    print(f"\nreference sweep: {len(ids)} chunks, {poses} poses, {dt:.1f} s, "
          f"{1e6 * dt / max(1, poses):.0f} µs per pose (all parts included)")
    return len(ids)


def test_sweep_sample(request):
    n = request.config.getoption("--chunks") or 40
    assert run_sweep(request, n) > 0


@pytest.mark.slow
def test_sweep_every_chunk(request):
    assert run_sweep(request, 0) > 0
