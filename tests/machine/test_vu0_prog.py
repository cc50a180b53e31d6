"""Real code: a C + inline-asm R5900 program with VU0 macro ops and COP1 loops runs through m.call.

tests/machine/cprog/vu0_prog.c, built with Debian's gcc-mipsel-linux-gnu
(-march=r5900 -mabi=eabi -mlong32 -msingle-float, linked at 0x00100000; the ELF is committed),
computes a 4x4 matrix product exactly as sceVu0MulMatrix (animation-semantics.md §3.2: VMULAx,
VMADDAy, VMADDAz, VMADDw), an ACC dot product (MADDA.S), a MADD.S loop and a plain C float loop.
Expected bits come from tests/machine/floatcheck (the independent model), per float model.
"""
from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess

import pytest

from eemu_ext import Machine
from tests.machine import floatcheck

HERE = os.path.join(os.path.dirname(__file__), "cprog")
ELF = os.path.join(HERE, "vu0_prog.elf")
CC = "mipsel-linux-gnu-gcc"
CFLAGS = ["-march=r5900", "-mabi=eabi", "-mlong32", "-msingle-float", "-O2", "-G0", "-mno-abicalls",
          "-fno-pic", "-ffreestanding", "-nostdlib", "-static", "-no-pie", "-Wl,-Ttext=0x00100000",
          "-Wl,-e,mul_matrix", "-Wl,--build-id=none"]
BUF = 0x01000000
MODELS = ["hw", "trunc"]
EDGE = [0x7FFFFFFF, 0xFFFFFFFF, 0x7F800001, 0x00001337, 0x80000000, 0x00800000, 0x3FFFFFFF, 0x3F800000]


@pytest.fixture(scope="module", params=MODELS)
def m(request):
    mm = Machine(float_model=request.param)
    mm.load_elf(ELF)
    return mm


def words(m, addr, n):
    return list(struct.unpack(f"<{n}I", m.read(addr, 4 * n)))


def put(m, addr, vals):
    m.write(addr, struct.pack(f"<{len(vals)}I", *vals))


def rand_float(rng):
    return (rng.getrandbits(1) << 31) | (rng.randint(110, 140) << 23) | rng.getrandbits(23)


def mul_matrix_ref(model, L, R):
    """§3.2 ⊗ on column-major 16-word matrices; VU0 overflow latch per §3.10 (hw only)."""
    ref = floatcheck.ops(model)
    out = [0] * 16
    for j in range(4):
        for k in range(4):
            a, fl = ref.mul(L[k], R[4 * j])
            for i in (1, 2):
                latch = model == "hw" and "O" in fl and "U" not in fl and (a >> 23) & 255 != 0
                a, fl = ref.madd(a, L[4 * i + k], R[4 * j + i], latch)
            out[4 * j + k], _ = ref.madd(a, L[12 + k], R[4 * j + 3], False)
    return out


def test_mul_matrix_random(m):
    rng = random.Random(f"vu0_prog:mul:{m.float_model}")
    for _ in range(20):
        L = [rand_float(rng) for _ in range(16)]
        R = [rand_float(rng) for _ in range(16)]
        put(m, BUF + 0x40, L)
        put(m, BUF + 0x80, R)
        m.call("mul_matrix", BUF, BUF + 0x40, BUF + 0x80)
        assert words(m, BUF, 16) == mul_matrix_ref(m.float_model, L, R)


def test_mul_matrix_edges(m):
    """Fmax, E = 255, E = 0 patterns and signed zeros through the VU0 overflow rules."""
    rng = random.Random(f"vu0_prog:edge:{m.float_model}")
    for _ in range(20):
        L = [rng.choice(EDGE + [rand_float(rng)]) for _ in range(16)]
        R = [rng.choice(EDGE + [rand_float(rng)]) for _ in range(16)]
        put(m, BUF + 0x40, L)
        put(m, BUF + 0x80, R)
        m.call("mul_matrix", BUF, BUF + 0x40, BUF + 0x80)
        assert words(m, BUF, 16) == mul_matrix_ref(m.float_model, L, R)


def test_mul_matrix_identity_and_operand_order(m):
    """I ⊗ R = R exactly; and the hw product uses fs = left element, ft = right lane (§3.3)."""
    I = [0x3F800000 if r == c else 0 for c in range(4) for r in range(4)]
    R = [0x3FFFFFFF] * 16
    put(m, BUF + 0x40, I)
    put(m, BUF + 0x80, R)
    m.call("mul_matrix", BUF, BUF + 0x40, BUF + 0x80)
    # fs = 1.0, ft = 0x3FFFFFFF: hw MUL gives 0x3FFFFFFE (ee-float.md §5 row 11), trunc 0x3FFFFFFF
    assert words(m, BUF, 16) == [0x3FFFFFFE if m.float_model == "hw" else 0x3FFFFFFF] * 16


def dot_ref(model, a, b):
    ref = floatcheck.ops(model)
    acc, ovf = 0, False                          # SUBA.S +0, +0
    for x, y in zip(a, b):
        acc, fl = ref.madd(acc, x, y, ovf)       # MADDA.S: the latch takes its own overflow
        ovf = "O" in fl and model == "hw"
    r, _ = ref.madd(acc, 0x80000000, 0, ovf)     # MADD.S s, -0, +0
    return r


def test_dot_madda(m):
    rng = random.Random(f"vu0_prog:dot:{m.float_model}")
    for n in (0, 1, 5, 33):
        a = [rand_float(rng) for _ in range(n)]
        b = [rand_float(rng) for _ in range(n)]
        put(m, BUF, a)
        put(m, BUF + 0x400, b)
        assert m.call("dot_madd", BUF, BUF + 0x400, n) == dot_ref(m.float_model, a, b)
    # overflow latch: Fmax*Fmax overflows, later terms cannot bring it back (§3.6 rule 2)
    a, b = [0x7F7FFFFF, 0x3F800000, 0xBF800000], [0x7F7FFFFF, 0xC0000000, 0x40000000]
    put(m, BUF, a)
    put(m, BUF + 0x400, b)
    want = dot_ref(m.float_model, a, b)
    assert m.call("dot_madd", BUF, BUF + 0x400, 3) == want
    if m.float_model == "hw":
        assert want == 0x7FFFFFFF


def test_axpy_madd(m):
    rng = random.Random(f"vu0_prog:axpy:{m.float_model}")
    ref = floatcheck.ops(m.float_model)
    x = [rand_float(rng) for _ in range(17)] + EDGE
    c, a = rand_float(rng), rand_float(rng)
    put(m, BUF + 0x400, x)
    put(m, BUF + 0x800, [c, a])
    m.call("axpy_madd", BUF, BUF + 0x400, len(x), BUF + 0x800)
    acc, _ = ref.add(c, 0x80000000)                          # ADDA.S c, -0
    assert words(m, BUF, len(x)) == [ref.madd(acc, a, xi, False)[0] for xi in x]


def test_horner_plain_c(m):
    """Compiler-chosen COP1 code: GCC emits mul.s $f1, $f12, $f0, so each product is f_mul(x, acc)."""
    rng = random.Random(f"vu0_prog:horner:{m.float_model}")
    ref = floatcheck.ops(m.float_model)
    for n in (1, 2, 9):
        c = [rand_float(rng) for _ in range(n)]
        x = rand_float(rng)
        put(m, BUF, c)
        m.F[12] = x                                          # EABI: the float argument in $f12
        acc = c[0]
        for ci in c[1:]:
            acc = ref.add(ref.mul(x, acc)[0], ci)[0]
        assert m.call("horner", BUF, n) == acc


@pytest.mark.needs_cross
def test_vu0_prog_rebuild_is_byte_identical(tmp_path):
    if shutil.which(CC) is None:
        pytest.skip(f"{CC} not installed (apt-get install gcc-mipsel-linux-gnu)")
    out = tmp_path / "vu0_prog.elf"
    subprocess.run([CC, *CFLAGS, "-o", str(out), "vu0_prog.c"], cwd=HERE, check=True)
    assert out.read_bytes() == open(ELF, "rb").read(), "committed vu0_prog.elf is stale: rebuild it"
