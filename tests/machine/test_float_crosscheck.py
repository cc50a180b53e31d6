"""Cross-check: the machine's float models against the independent simple implementation.

A second, deliberately simple implementation of every hw and trunc
operation (tests/machine/floatcheck: exact Fractions, the per-window Booth statement, a plain
restatement of the SRT recurrences) compared with eemu_ext.eefloat on >= 50k operand pairs per
operation and model in CI and >= 1M in the slow test, operands biased to the edges: E = 0
patterns, E = 255, +-Fmax, 1 +- ulp, large and small exponent gaps. Bits and flags must agree.
"""
from __future__ import annotations

import random

import pytest

from eemu_ext import eefloat
from tests.machine import floatcheck

M32 = 0xFFFFFFFF
EDGES = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F800000,
         0xFF800000, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F7FFFFF, 0x3F800000, 0xBF800000, 0x3F800001,
         0x3F7FFFFF, 0xBF800001, 0x3FFFFFFF, 0x00FFFFFF, 0x7F000000, 0x01000000]


def operand(rng: random.Random) -> int:
    """A pattern biased to the edges of ee-float.md (E = 0, E = 255, Fmax, 1 +- ulp ...)."""
    r = rng.random()
    if r < 0.15:
        return rng.choice(EDGES)
    if r < 0.35:
        return rng.getrandbits(32)
    e = rng.choice((0, 0, 1, 2, 3, 125, 126, 127, 128, 129, 150, 157, 158, 252, 253, 254, 255, 255,
                    rng.randint(1, 254), rng.randint(100, 160)))
    f = rng.choice((0, 1, 2, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, rng.getrandbits(23),
                    rng.getrandbits(23), rng.getrandbits(23) & ~0xFFFF, rng.getrandbits(8)))
    return (rng.getrandbits(1) << 31) | (e << 23) | f


def partner(rng: random.Random, a: int) -> int:
    """A second operand: independent, or at a chosen exponent gap from a (small and large gaps)."""
    if rng.random() < 0.4:
        return operand(rng)
    gap = rng.choice((0, 0, 1, 1, 2, 3, 22, 23, 24, 25, 26, 27, 60, 61, 120, 254)) * rng.choice((1, -1))
    e = max(0, min(255, ((a >> 23) & 255) + gap))
    f = rng.choice((a & 0x7FFFFF, (a & 0x7FFFFF) ^ 1, 0, 0x7FFFFF, rng.getrandbits(23)))
    s = rng.choice((a >> 31, 1 - (a >> 31)))
    return (s << 31) | (e << 23) | f


_FLAG_NAMES = ((eefloat.OVF, "O"), (eefloat.UNF, "U"), (eefloat.DIVZ, "D"), (eefloat.INV, "I"),
               (eefloat.PUNF, "PU"))


@pytest.fixture
def engine():
    """Once, not once per engine (overrides tests/machine/conftest.py's fixture by name): the check
    compares two Python float models and builds no Machine, so the engine the conftest would set
    takes no part in it."""
    return None


def flags_of(r: int) -> set:
    return {n for bit, n in _FLAG_NAMES if r & bit}


# operation -> arity ("1": x, "n": x and a shift n, "2": a, b, "3": acc, a, b, latch)
OPS = {"add": "2", "sub": "2", "mul": "2", "div": "2", "sqrt": "1", "rsqrt": "2", "vrsqrt": "2",
       "madd": "3", "msub": "3", "from_int": "1", "to_int": "1", "itof": "n", "ftoi": "n",
       "fmax": "2", "fmin": "2"}


def check(model_name: str, op: str, n: int, seed: str):
    """Compare n seeded cases of one operation; returns the first few disagreements."""
    mine = getattr(eefloat.model(model_name), op)
    ref = getattr(floatcheck.ops(model_name), op)
    rng = random.Random(f"{seed}:{model_name}:{op}")
    kind = OPS[op]
    bad = []
    for _ in range(n):
        a = operand(rng)
        if kind == "1":
            args = (a,)
        elif kind == "n":
            args = (a, rng.choice((0, 4, 12, 15)))
        elif kind == "2":
            args = (a, partner(rng, a))
        else:
            args = (partner(rng, a), a, partner(rng, a), rng.random() < 0.1)
        got = mine(*args)
        want, want_flags = ref(*args)
        got_flags = flags_of(got) if model_name == "hw" else set()
        if model_name == "trunc":
            want_flags = set()
        if (got & M32) != want or got_flags != want_flags:
            bad.append((op, tuple(hex(x) if isinstance(x, int) and not isinstance(x, bool) else x
                                  for x in args), hex(want), sorted(want_flags),
                        hex(got & M32), sorted(got_flags)))
            if len(bad) >= 5:
                break
    return bad


@pytest.mark.parametrize("model_name", ["hw", "trunc"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_crosscheck_50k(model_name, op, request):
    """50,000 edge-biased operand sets per operation and model agree bit for bit (and in flags)."""
    seed = request.config.getoption("--seed")
    bad = check(model_name, op, 50_000, f"ci{seed}")
    assert not bad, f"{model_name} {op} disagrees with floatcheck (op, args, want, got): {bad}"


@pytest.mark.slow
@pytest.mark.parametrize("model_name", ["hw", "trunc"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_crosscheck_1m(model_name, op, request):
    """The same comparison on 1,000,000 operand sets per operation and model."""
    seed = request.config.getoption("--seed")
    bad = check(model_name, op, 1_000_000, f"slow{seed}")
    assert not bad, f"{model_name} {op} disagrees with floatcheck (op, args, want, got): {bad}"


def test_crosscheck_can_fail():
    """The comparison is not vacuous: a model with a one-ulp error in MUL is caught."""
    orig = eefloat.HW.mul
    try:
        eefloat.HW.mul = lambda a, b: orig(a, b) ^ 1 if (a >> 23) & 255 and (b >> 23) & 255 else orig(a, b)
        assert check("hw", "mul", 200, "canfail")
    finally:
        eefloat.HW.mul = orig
