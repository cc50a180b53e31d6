"""Random COP1 sequences against the plain state model (tests/machine/floatcheck/state.py).

Seeded mixes of every COP1 arithmetic, ACC, compare and conversion instruction over a few
registers with edge-biased values, so FCR31's current and sticky flags (ee-float.md §3.9), the
hidden ACC-overflow latch (§3.6) and C evolve across instructions. Both models.
"""
from __future__ import annotations

import random

import pytest

from tests.machine.cases_fpu import ROWS_BY_MN, enc, run_each
from tests.machine.floatcheck.state import Cop1State

POOL = ["add.s", "sub.s", "mul.s", "div.s", "sqrt.s", "rsqrt.s", "adda.s", "suba.s", "mula.s",
        "madd.s", "msub.s", "madda.s", "msuba.s", "abs.s", "neg.s", "mov.s", "max.s", "min.s",
        "cvt.s.w", "cvt.w.s", "c.f.s", "c.eq.s", "c.lt.s", "c.le.s"]
EDGE = [0x3F800000, 0x3FFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F800001, 0x00800000, 0x80000000, 0,
        0x00001337, 0xBF800000, 0x00E00000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x4EFFFFFF]


def value(rng):
    r = rng.random()
    if r < 0.35:
        return rng.choice(EDGE)
    if r < 0.45:
        return rng.getrandbits(32)
    return (rng.getrandbits(1) << 31) | (rng.randint(118, 136) << 23) | rng.getrandbits(23)


def one_sequence(model, seed, length=12):
    """(words, setup, want, listing) of the seeded sequence: its instruction words, the machine
    set-up of its starting state and the state model's result."""
    rng = random.Random(f"cop1seq:{model}:{seed}")
    ref = Cop1State(model)
    for r in range(1, 7):
        ref.f[r] = value(rng)
    ref.acc = value(rng)
    ref.latch = model == "hw" and rng.random() < 0.2
    if model == "hw":
        ref.fcr31 = 0x01000001 | (rng.getrandbits(32) & 0x0083C078)
    else:
        ref.fcr31 = 0x01000001 | (rng.getrandbits(32) & 0x00800000)
    init = (list(ref.f), ref.acc, ref.latch, ref.fcr31)
    prog, words = [], []
    for _ in range(length):
        mn = rng.choice(POOL)
        f = {k: rng.randint(0, 6) for k in ROWS_BY_MN[mn][0].operands if k in ("fd", "fs", "ft")}
        prog.append((mn, f))
        words.append(enc(mn, **f))
        ref.step(mn, **f)

    def setup(m):
        f, acc, latch, fcr = init
        m.F[:7] = f[:7]
        m.S.acc, m.S.acc_ovf, m.S.fcr31 = acc, (1 << 32) if latch else 0, fcr
    want = (ref.f[:7], ref.acc, ref.latch, ref.fcr31)
    return words, setup, want, "\n".join(f"  {mn} {f}" for mn, f in prog)


def check_sequences(model, seeds, length=12):
    """Each seeded sequence on the machine against the state model (run_each: one native program
    for the lot)."""
    cases = [one_sequence(model, seed, length) for seed in seeds]
    for seed, (_, _, want, listing), m in zip(seeds, cases, run_each(model, [c[:2] for c in cases])):
        got = (list(m.F[:7]), m.S.acc, bool(m.S.acc_ovf), m.S.fcr31)
        if got != want:
            names = ("F0-6", "ACC", "latch", "FCR31")
            diff = [(n, g, w) for n, g, w in zip(names, got, want) if g != w]
            raise AssertionError(f"cop1 sequence {model}:{seed} differs in {[d[0] for d in diff]}:\n"
                                 f"{listing}\n got  {diff[0][1]}\n want {diff[0][2]}")


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_random_cop1_sequences(model, request):
    seed = request.config.getoption("--seed")
    check_sequences(model, [f"{seed}:{k}" for k in range(200)])


@pytest.mark.slow
@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_random_cop1_sequences_slow(model, request):
    seed = request.config.getoption("--seed")
    check_sequences(model, [f"slow{seed}:{k}" for k in range(10000)], length=24)
