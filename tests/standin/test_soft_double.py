"""The keyed-rotation angle comes from a double-precision atan2 (animation-semantics.md §3.4), and
on the EE a double is software arithmetic: the stand-in's double.c, run on the machine, against
IEEE binary64 on the host. The 64-bit operands travel in single 64-bit registers (EABI on a 64-bit
core), so each call goes through a small trampoline that loads them with LD and stores v0 with SD."""
import math
import random
import struct

import pytest

pytest.importorskip("eemu_ext")
from eemu_ext import Machine  # noqa: E402

from .elfinfo import ELF_PATH, load  # noqa: E402

TRAMP, BUF = 0x01000000, 0x01000100


def d2u(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def u2d(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def f2u(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def sx32(w):
    """A 32-bit argument as a 64-bit core holds it: sign-extended."""
    return w | 0xFFFFFFFF00000000 if w >> 31 else w


def lui_ori(reg, value):
    return [0x3C000000 | (reg << 16) | (value >> 16), 0x34000000 | (reg << 21) | (reg << 16) | (value & 0xFFFF)]


class Soft:
    """Calls a stand-in function of up to two u64 arguments and returns its 64-bit v0."""

    def __init__(self, float_model="hw"):
        self.m = Machine(float_model=float_model)
        self.m.load_elf(ELF_PATH)

    def __call__(self, name, a, b=0):
        m = self.m
        target = m.symbol(name)
        code = ([0x27BDFFF0, 0xFFBF0000] + lui_ori(8, BUF) + [0xDD040000, 0xDD050008,
                0x0C000000 | ((target >> 2) & 0x3FFFFFF), 0] + lui_ori(8, BUF)
                + [0xFD020010, 0xDFBF0000, 0x03E00008, 0x27BD0010])
        m.allow_fetch(TRAMP, TRAMP + 4 * len(code))        # a trampoline outside the image
        m.write(TRAMP, struct.pack(f"<{len(code)}I", *code))
        m.write_u64(BUF, a)
        m.write_u64(BUF + 8, b)
        m.call(TRAMP)
        return m.read_u64(BUF + 16)


@pytest.fixture(scope="module")
def soft():
    return Soft()


def operands(seed, n):
    r = random.Random(f"soft-double:{seed}")
    out = []
    for _ in range(n):
        a = r.choice((1, -1)) * r.uniform(0, 1) * 10.0 ** r.randint(-12, 12)
        b = r.choice((1, -1)) * r.uniform(0, 1) * 10.0 ** r.randint(-12, 12)
        out.append((a, b))
    out += [(1.0, 1.0), (1.0, -1.0), (0.5, 0.25), (3.0, 1e-17), (1.0, -1.0 + 2 ** -52)]
    return out


@pytest.mark.parametrize("name, op", [("f64_add", lambda a, b: a + b), ("f64_sub", lambda a, b: a - b),
                                      ("f64_mul", lambda a, b: a * b), ("f64_div", lambda a, b: a / b)])
def test_the_double_operations_round_like_ieee(soft, name, op):
    bad = []
    for a, b in operands(name, 300):
        got, want = soft(name, d2u(a), d2u(b)), d2u(op(a, b))
        if got != want and not (u2d(got) == 0 == u2d(want)):
            bad.append(f"{name}({a!r}, {b!r}) = {u2d(got)!r}, want {u2d(want)!r}")
    assert not bad, "\n".join(bad[:10])


def test_float_double_conversions(soft):
    r = random.Random("soft-double:conv")
    for _ in range(300):
        x = r.choice((1, -1)) * r.uniform(0, 1) * 10.0 ** r.randint(-30, 30)
        f = struct.unpack("<f", struct.pack("<f", x))[0]
        assert soft("f64_from_f32", sx32(f2u(f))) == d2u(f)
        assert soft("f64_to_f32", d2u(x)) & 0xFFFFFFFF == f2u(x), x   # struct rounds to nearest even
    assert soft("f64_from_f32", 0x00000001) == 0          # a zero-exponent float is zero on the EE


def test_atan2_within_one_ulp_of_the_host(soft):
    r = random.Random("soft-double:atan2")
    pairs = [(r.uniform(-2, 2), r.uniform(-2, 2)) for _ in range(400)]
    pairs += [(0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0), (1e-9, 1.0), (0.3, 0.3), (-0.7, -0.7)]
    worst = 0
    for y, x in pairs:
        got, want = soft("atan2", d2u(y), d2u(x)), math.atan2(y, x)
        ulps = abs(got - d2u(want)) if (got >> 63) == (d2u(want) >> 63) else 1 << 60
        worst = max(worst, ulps)
        assert ulps <= 1, f"atan2({y!r}, {x!r}) = {u2d(got)!r}, want {want!r}"
    print(f"soft atan2: worst {worst} ulp over {len(pairs)} pairs")
