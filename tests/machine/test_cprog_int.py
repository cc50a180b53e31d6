"""A small integer C program compiled for the R5900 runs through m.call.

tests/machine/cprog/int_prog.c (loops, recursion, 64-bit arithmetic through our own __muldi3 and
__divdi3 helpers, struct copies, a jump table, function pointers), built with Debian's
gcc-mipsel-linux-gnu for -march=r5900 -mabi=eabi -mlong32 and linked at 0x00100000. The ELF is
committed; test_cprog_rebuild_is_byte_identical rebuilds it when the compiler is present.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import struct

import pytest

from eemu_ext import Machine

HERE = os.path.join(os.path.dirname(__file__), "cprog")
ELF = os.path.join(HERE, "int_prog.elf")
CC = "mipsel-linux-gnu-gcc"
CFLAGS = ["-march=r5900", "-mabi=eabi", "-mlong32", "-msingle-float", "-O2", "-G0", "-mno-abicalls", "-fno-pic",
          "-ffreestanding", "-nostdlib", "-static", "-no-pie", "-Wl,-Ttext=0x00100000", "-Wl,-e,entry",
          "-Wl,--build-id=none"]
BUF = 0x01000000
M32, M64 = 0xFFFFFFFF, (1 << 64) - 1


def build(out_path):
    """Compile int_prog.c (run from its directory, so the recorded file name is the same)."""
    subprocess.run([CC, *CFLAGS, "-o", os.path.abspath(out_path), "int_prog.c"], cwd=HERE, check=True)


@pytest.fixture(scope="module")
def m():
    mm = Machine()
    mm.load_elf(ELF)
    return mm


def s32(x):
    x &= M32
    return x - (1 << 32) if x & 0x80000000 else x


def s64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def test_loops_and_recursion(m):
    rnd = random.Random("cprog:loops")
    for n in (0, 1, 7, 100):
        vals = [rnd.randrange(-2**31, 2**31) for _ in range(n)]
        m.write(BUF, struct.pack(f"<{n}i", *vals))
        assert s32(m.call("sum_array", BUF, n)) == s32(sum(vals))
    assert m.call("fib", 20) == 6765
    for x in (1, 27, 97, 871):
        n, y = 0, x
        while y != 1:
            y = 3 * y + 1 if y & 1 else y >> 1
            n += 1
        assert m.call("collatz_steps", x) == n


def test_gcd_uses_div(m):
    from math import gcd
    for a, b in ((12, 18), (-48, 36), (1071, 462), (7, 0), (0x7FFFFFFF, 0x7FFFFFFE)):
        assert m.call("gcd", a, b) == gcd(a, b) & M32


def test_64_bit_arithmetic(m):
    rnd = random.Random("cprog:64")
    for _ in range(25):
        a, b = s64(rnd.getrandbits(64)), s64(rnd.getrandbits(rnd.choice((8, 33, 64))) or 3)
        m.write(BUF + 0x100, struct.pack("<qq", a, b))
        _call64(m, "mul64", BUF, a, b)
        assert struct.unpack("<q", m.read(BUF, 8))[0] == s64(a * b)
        _call64(m, "div64", BUF, a, b)
        q, r = struct.unpack("<qq", m.read(BUF, 16))
        assert q == c_div(a, b) and r == a - c_div(a, b) * b
        ua, ub = a & M64, b & M64
        _call64(m, "udiv64", BUF, ua, ub)
        assert struct.unpack("<QQ", m.read(BUF, 16)) == (ua // ub, ua % ub)
    for s in (0, 1, 31, 32, 63):
        a = s64(0x8123456789ABCDEF)
        want = s64(((a << s) & M64) ^ ((a >> (s & 31)) & M64)) + s64((a & M64) >> (63 - s))
        _call64(m, "shifts64", None, a, s)
        assert (m.R[2] & M64) == (want & M64)


def _call64(m, name, ptr, a, b):
    """Call with 64-bit register arguments (EABI64 passes long long in one register)."""
    from eemu_ext.core.machine import SENTINEL, STACK_TOP, sx32
    R = m.R
    R[:] = [0] * 32
    m.RH[:] = [0] * 32
    R[28], R[29], R[31] = sx32(m.image.gp), STACK_TOP, sx32(SENTINEL)
    regs = ([ptr] if ptr is not None else []) + [a, b]
    for i, v in enumerate(regs):
        R[4 + i] = v & M64
    m.run(m.symbol(name))


def test_fnv1a64_hash(m):
    data = bytes(range(200))
    m.write(BUF, data)
    lo = m.call("fnv1a64", BUF, len(data), BUF + 0x400)
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & M64
    assert lo == h & M32 and m.read_u32(BUF + 0x400) == h >> 32


def rec_bytes(i):
    """struct rec of int_prog.c as the EABI lays it out: 56 bytes, padding zero."""
    kind = s32(i * 3) & 0xFFFF
    name = bytes(ord("a") + (i + k) % 26 for k in range(13))
    head = struct.pack("<iH13s", i, kind, name) + bytes(5)                 # big is 8-aligned at 24
    return head + struct.pack("<q5I", i * -1000000007, *[(i << k) & M32 for k in range(5)]) + bytes(4)


def test_struct_copies(m):
    recs = b"".join(rec_bytes(i) for i in range(1, 6))
    assert len(recs) == 5 * 56
    m.write(BUF, recs)
    m.write(BUF + 0x800, bytes(len(recs)))
    m.call("copy_recs", BUF + 0x800, BUF, 5)
    assert m.read(BUF + 0x800, len(recs)) == recs
    for i in (1, 9, 1234):
        h = 0
        for c in rec_bytes(i):                  # make_rec builds it, returns it by value, c = r copies it
            h = (h * 31 + c) & M32
        assert m.call("rec_checksum", i) == h


def test_switch_and_function_pointers(m):
    rnd = random.Random("cprog:calc")
    for _ in range(40):
        op, a, b = rnd.randrange(-1, 9), s32(rnd.getrandbits(32)), rnd.randrange(0, 40)
        want = {0: a + b, 1: a - b, 2: a * b, 3: a & b, 4: a | b, 5: a ^ b,
                6: a << (b & 31), 7: a >> (b & 31)}.get(op, -1)
        assert m.call("calc", op, a, b) == want & M32, (op, a, b)


def test_insertion_sort(m):
    rnd = random.Random("cprog:sort")
    vals = [rnd.randrange(-1000, 1000) for _ in range(33)]
    m.write(BUF, struct.pack("<33i", *vals))
    assert s32(m.call("sort_and_median", BUF, 33)) == sorted(vals)[16]
    assert list(struct.unpack("<33i", m.read(BUF, 132))) == sorted(vals)


@pytest.mark.needs_cross
def test_cprog_rebuild_is_byte_identical(tmp_path):
    if shutil.which(CC) is None:
        pytest.skip(f"{CC} not installed (apt-get install gcc-mipsel-linux-gnu)")
    out = tmp_path / "int_prog.elf"
    build(out)
    assert out.read_bytes() == open(ELF, "rb").read(), "committed int_prog.elf is stale: rebuild it"
