"""Random VU0 macro sequences against the plain state model (tests/machine/floatcheck/state.py).

Each seeded sequence mixes FMAC forms (bc, i, q, A, vector), OPMULA/OPMSUB, moves, conversions,
CLIP and the FDIV unit over a few registers (VF0 included, fd/fs/ft aliasing, random dest masks),
so lane snapshots, the ACC-overflow latch through MAC (ee-float.md §3.10), MAC/status/clip
evolution and VF0's protection are exercised across instructions. Both models.
"""
from __future__ import annotations

import random

import pytest

from tests.machine.cases_fpu import FMAC_MNEMONICS, ROWS_BY_MN, enc, run_each
from tests.machine.floatcheck.state import Vu0State

POOL = FMAC_MNEMONICS + ["vopmula", "vopmsub", "vmove", "vmr32", "vabs", "vitof0", "vitof4",
                         "vitof15", "vftoi0", "vftoi12", "vclipw", "vdiv", "vsqrt", "vrsqrt"]
EDGE = [0x3F800000, 0x3FFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F800001, 0x00800000, 0x80000000,
        0x00001337, 0xBF800000, 0x00E00000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF]


def lane(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(EDGE)
    if r < 0.4:
        return rng.getrandbits(32)
    return (rng.getrandbits(1) << 31) | (rng.randint(118, 136) << 23) | rng.getrandbits(23)


def fields_for(mn, rng):
    """Random operand fields for the row's operand kinds (registers 0-6, any dest)."""
    ops = ROWS_BY_MN[mn][0].operands
    f = {}
    reg = lambda: rng.choice((0, 1, 2, 3, 4, 5, 6, rng.randint(1, 6)))
    for k in ops:
        if k == "dest":
            f["dest"] = 0xE if mn in ("vopmula", "vopmsub", "vclipw") else rng.randint(1, 15)
        elif k == "vfd":
            f["fd"] = reg()
        elif k in ("vfs",):
            f["fs"] = reg()
        elif k in ("vft", "vftbc", "vftw"):
            f["ft"] = reg()
        elif k == "vfsf":
            f["fs"], f["fsf"] = reg(), rng.randint(0, 3)
        elif k == "vftf":
            f["ft"], f["ftf"] = reg(), rng.randint(0, 3)
    return f


def one_sequence(model, seed, length=10):
    """(words, setup, want, listing) of the seeded sequence: its instruction words, the machine
    set-up of its starting state and the state model's result."""
    rng = random.Random(f"vu0seq:{model}:{seed}")
    ref = Vu0State(model)
    for r in range(1, 7):
        ref.vf[r] = [lane(rng) for _ in range(4)]
    ref.acc = [lane(rng) for _ in range(4)]
    ref.i, ref.q = lane(rng), lane(rng)
    ref.mac = rng.choice((0, 0xF000, rng.getrandbits(16)))
    ref.status = rng.getrandbits(12)
    ref.clip = rng.getrandbits(24)
    init = (
        [list(v) for v in ref.vf], list(ref.acc), ref.i, ref.q, ref.mac, ref.status, ref.clip)
    prog, words = [], []
    for _ in range(length):
        mn = rng.choice(POOL)
        f = fields_for(mn, rng)
        prog.append((mn, f))
        words.append(enc(mn, **f))
    for mn, f in prog:
        ref.step(mn, **f)

    def setup(m):
        vf, acc, i, q, mac, status, clip = init
        for r in range(1, 7):
            m.VF[r][:] = vf[r]
        m.S.vacc[:] = acc
        m.S.i, m.S.q, m.S.mac, m.S.status, m.S.clip = i, q, mac, status, clip
    want = (ref.vf[:7], ref.acc, ref.mac, ref.status, ref.clip, ref.q)
    return words, setup, want, "\n".join(f"  {mn} {f}" for mn, f in prog)


def check_sequences(model, seeds, length=10):
    """Each seeded sequence on the machine against the state model (run_each: one native program
    for the lot)."""
    cases = [one_sequence(model, seed, length) for seed in seeds]
    for seed, (_, _, want, listing), m in zip(seeds, cases, run_each(model, [c[:2] for c in cases])):
        got = ([list(m.VF[r]) for r in range(7)], list(m.S.vacc), m.S.mac, m.S.status, m.S.clip, m.S.q)
        if got != want:
            names = ("VF0-6", "ACC", "MAC", "status", "clip", "Q")
            diff = [(n, g, w) for n, g, w in zip(names, got, want) if g != w]
            raise AssertionError(f"vu0 sequence {model}:{seed} differs in {[d[0] for d in diff]}:\n"
                                 f"{listing}\n got  {diff[0][1]}\n want {diff[0][2]}")


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_random_vu0_sequences(model, request):
    seed = request.config.getoption("--seed")
    check_sequences(model, [f"{seed}:{k}" for k in range(150)])


@pytest.mark.slow
@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_random_vu0_sequences_slow(model, request):
    seed = request.config.getoption("--seed")
    check_sequences(model, [f"slow{seed}:{k}" for k in range(5000)], length=20)
