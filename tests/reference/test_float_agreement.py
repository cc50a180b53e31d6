"""The reference's EE float arithmetic agrees with eemu_ext's, operation by operation.

The only test that imports both packages: the two float units were written independently from
ee-float.md, so agreement on random and awkward operands is evidence that neither misreads it.
≥ 50k operand sets per operation and model in CI; ≥ 1M with --slow.
"""
import importlib
import random

import pytest

from reference import eefloat as R

M32 = 0xFFFFFFFF
CI_N = 50_000
SLOW_N = 1_000_000
SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x3F800000,
           0xBF800000, 0x3FFFFFFF, 0x40000000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FFFFFFF,
           0xFFFFFFFF, 0xFF800000, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0x43360B61, 0x38C90FDB,
           0x40490FDB, 0x3FC90FDB, 0x45800000, 0x34000000, 0x0DA24260, 0x72000000]


def machine_floats():
    return importlib.import_module("eemu_ext.eefloat")


def operand(rng):
    """One float pattern: normal values near 1, anything at all, specials, extreme exponents."""
    k = rng.random()
    if k < 0.40:
        return (rng.getrandbits(1) << 31) | (rng.randint(97, 157) << 23) | rng.getrandbits(23)
    if k < 0.65:
        return rng.getrandbits(32)
    if k < 0.75:
        return rng.choice(SPECIAL)
    e = rng.choice([0, 1, 2, 3, 60, 64, 190, 200, 252, 253, 254, 255])
    return (rng.getrandbits(1) << 31) | (e << 23) | rng.getrandbits(23)


def near(a, rng):
    """A second operand close to a in exponent (cancellations, guard-bit cases)."""
    e = ((a >> 23) & 0xFF) + rng.randint(-26, 26)
    e = min(255, max(0, e))
    f = (a & 0x7FFFFF) ^ (rng.getrandbits(rng.randint(0, 23)) if rng.random() < 0.7 else 0)
    return (rng.getrandbits(1) << 31) | (e << 23) | f


def pairs(seed, op, model, n):
    rng = random.Random(f"{seed}:float-agreement:{op}:{model}")
    for _ in range(n):
        a = operand(rng)
        b = near(a, rng) if rng.random() < 0.35 else operand(rng)
        c = operand(rng) if rng.random() < 0.5 else near(b, rng)
        yield a, b, c, rng


def integer(rng):
    k = rng.random()
    if k < 0.3:
        return rng.randint(-70000, 70000) & M32
    if k < 0.4:
        return rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x00FFFFFF, 0x01000001])
    return rng.getrandbits(32)


def sign(x):
    return (x > 0) - (x < 0)


OPS = ["add", "sub", "mul", "madd", "msub", "div", "sqrt", "rsqrt", "from_int", "to_int", "cmp"]


def run(op, model, n, seed):
    E = machine_floats()
    m = E.model(model)
    o = R.ops(model)
    bad = []
    for a, b, c, rng in pairs(seed, op, model, n):
        if op in ("add", "sub", "mul", "div", "rsqrt"):
            mine = getattr(o, "f_" + op)(a, b)
            theirs = getattr(m, op)(a, b) & M32
            args = (a, b)
        elif op in ("madd", "msub"):
            if model == "hw":
                over = rng.random() < 0.1
                mine = R.hw_madd_acc(c, over, a, b, sub=op == "msub")[0]
                theirs = getattr(m, op)(c, a, b, over) & M32
                args = (c, a, b, over)
            else:
                mine = getattr(o, "f_" + op)(c, a, b)
                theirs = getattr(m, op)(c, a, b) & M32
                args = (c, a, b)
        elif op == "sqrt":
            mine, theirs, args = o.f_sqrt(a), m.sqrt(a) & M32, (a,)
        elif op == "from_int":
            i = integer(rng)
            mine, theirs, args = o.f_from_int(i), m.from_int(i) & M32, (i,)
        elif op == "to_int":
            mine, theirs, args = o.f_to_int(a), m.to_int(a) & M32, (a,)
        elif op == "cmp":
            mine, theirs, args = o.f_cmp(a, b), sign(m.key(a) - m.key(b)), (a, b)
        if mine != theirs:
            bad.append((op, model, tuple(hex(x) if isinstance(x, int) and not isinstance(x, bool)
                                         else x for x in args), hex(mine), hex(theirs)))
            if len(bad) >= 10:
                break
    return bad


@pytest.mark.parametrize("model", ["hw", "trunc"])
@pytest.mark.parametrize("op", OPS)
def test_float_agreement(op, model, request):
    """≥ 50k operand sets: reference.eefloat and eemu_ext.eefloat give the same bits."""
    seed = request.config.getoption("--seed")
    bad = run(op, model, CI_N, seed)
    assert not bad, f"reference vs eemu_ext disagree (op, model, operands, reference, machine): {bad}"


@pytest.mark.slow
@pytest.mark.parametrize("model", ["hw", "trunc"])
@pytest.mark.parametrize("op", OPS)
def test_float_agreement_million(op, model, request):
    """≥ 1M operand sets per operation and model (slow)."""
    seed = request.config.getoption("--seed")
    bad = run(op, model, SLOW_N, seed + 1)
    assert not bad, f"reference vs eemu_ext disagree (op, model, operands, reference, machine): {bad}"
