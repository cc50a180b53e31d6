"""The compiled kernels' EE float operations agree bit for bit with the reference's Python model
(ee-float.md): on the 636 hardware vectors, and on random operand sets per op and
model (50 k in CI, 1 M with --slow). A kernel planted one ulp off is caught."""
import numpy as np
import pytest

from reference import eefloat as F

from .kernel_support import (SCALAR_OPS, compiled_kernels, disagreements, mac4_disagreements,
                             operand_sets, planted_kernels, rng_for)
from .test_eefloat_vectors import _vector_lines

NEG0 = 0x80000000
CI_N = 50_000
SLOW_N = 1_000_000
RAW_BIT_OPS = ("abs", "neg", "mov", "max", "min")     # raw bit moves: no arithmetic, no kernel


@pytest.fixture(scope="module")
def kern():
    return compiled_kernels()


def _kernel_eval(k, op, a):
    """One hardware-log row through the compiled kernels, as ee-fpu-hw.txt's header says to read it."""
    one = lambda name, *xs: int(k.op("hw", name, *[np.array([x], dtype=np.uint32) for x in xs])[0])

    def read_acc(acc, latch):
        # the log reads ACC back with MADD.S fd, -0, +0 under the latch of the last ACC write
        r, _ = k.acc_op("hw", "madda", [NEG0], [0], acc=[acc], latch=[latch])
        return int(r[0])

    if op in ("add", "sub", "mul", "div", "rsqrt"):
        return one(op, a[0], a[1])
    if op == "sqrt":
        return one("sqrt", a[0])
    if op == "cvt.s.w":
        return one("from_int", a[0])
    if op == "cvt.w.s":
        return one("to_int", a[0])
    if op in ("madd", "msub", "madda", "msuba"):
        acc, _ = k.acc_op("hw", "adda", [a[0]], [NEG0])          # ADDA.S X, -0
        if op in ("madd", "msub"):
            return one(op, a[1], a[2], int(acc[0]))
        r, over = k.acc_op("hw", op, [a[1]], [a[2]], acc=acc, latch=[0])
        return read_acc(int(r[0]), bool(over[0]))
    if op in ("mula", "adda", "suba"):
        r, over = k.acc_op("hw", op, [a[0]], [a[1]])
        return read_acc(int(r[0]), bool(over[0]))
    raise AssertionError(f"unknown op {op}")


def test_compiled_kernels_reproduce_the_hardware_vectors(kern):
    """ee-float.md §5: every arithmetic row of the 636 recorded COP1 vectors (the raw-bit rows
    abs/neg/mov/max/min have no kernel and stay with the Python model's test)."""
    lines = _vector_lines()
    assert len(lines) == 636
    rows = [r for r in lines if r[1] not in RAW_BIT_OPS]
    assert len(rows) == 636 - 107
    bad = [(n, op, [hex(x) for x in a], hex(want), hex(_kernel_eval(kern, op, a)))
           for n, op, a, want in rows if _kernel_eval(kern, op, a) != want]
    assert not bad, bad[:10]


def _agree(kern, model, op, n):
    a, b, c = operand_sets(12, op, model, n)
    count, bad = disagreements(kern, model, op, a, b, c)
    assert count == 0, f"{count} of {n} disagree, first {bad}"


@pytest.mark.parametrize("model", ["hw", "trunc"])
@pytest.mark.parametrize("op", SCALAR_OPS)
def test_kernel_op_agrees_with_the_python_model(kern, model, op):
    """50 k random operand sets per op and model, bit for bit (the CI size)."""
    _agree(kern, model, op, CI_N)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["hw", "trunc"])
@pytest.mark.parametrize("op", SCALAR_OPS)
def test_kernel_op_agrees_on_a_million_sets(kern, model, op):
    """≥ 1 M random operand sets per op and model."""
    _agree(kern, model, op, SLOW_N)


def _mac4_sets(model, n):
    rng = rng_for(12, "mac4", model)
    a, b, _ = operand_sets(12, "mac4", model, 4 * n)
    fs = a.reshape(n, 4)
    # the matrix products of the model: many +0 and 1.0 words, and scales near one
    ft = np.where(rng.random((n, 4)) < 0.3, np.uint32(0),
                  np.where(rng.random((n, 4)) < 0.2, np.uint32(0x3F800000), b.reshape(n, 4)))
    return fs, ft.astype(np.uint32)


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_kernel_mac4_agrees_with_the_python_model(kern, model):
    """VMULA, VMADDA, VMADDA, VMADD (animation-semantics.md §3.2) with the ACC overflow latch."""
    fs, ft = _mac4_sets(model, CI_N // 2)
    count, bad = mac4_disagreements(kern, model, fs, ft)
    assert count == 0, bad


@pytest.mark.parametrize("model", ["hw", "trunc"])
@pytest.mark.parametrize("op", ["madda", "msuba", "mula", "adda", "suba"])
def test_kernel_acc_forms_agree_with_the_python_model(kern, model, op):
    """The ACC-writing forms and their overflow latch (ee-float.md §3.6)."""
    a, b, c = operand_sets(12, op, model, 20_000)
    latch = rng_for(12, "latch", op, model).random(a.size) < 0.3
    got, over = kern.acc_op(model, op, a, b, acc=c, latch=latch)
    o = F.ops(model)
    for i, (x, y, z, l) in enumerate(zip(a.tolist(), b.tolist(), c.tolist(), latch.tolist())):
        if model == "hw":
            if op in ("madda", "msuba"):
                want = F.hw_madd_acc(z, l, x, y, sub=op == "msuba")
            elif op == "mula":
                want = F._hw_mul_o(x, y)
            else:
                want = F._hw_add_o(x, y ^ (NEG0 if op == "suba" else 0))
        else:
            r = {"madda": lambda: o.f_madd(z, x, y), "msuba": lambda: o.f_msub(z, x, y),
                 "mula": lambda: o.f_mul(x, y), "adda": lambda: o.f_add(x, y),
                 "suba": lambda: o.f_sub(x, y)}[op]()
            want = (r, False)
        assert (int(got[i]), bool(over[i])) == want, (op, model, hex(x), hex(y), hex(z), l)


PLANTS = [
    # one ulp up in hw DIV whenever the quotient's low byte is 0x5A
    ("hw", "div", ("eefloat.h", "return sign | ((u32)e << 23) | (Q & FRAC);",
                   "return sign | ((u32)e << 23) | ((Q + ((Q & 0xFF) == 0x5A)) & FRAC);")),
    # hw ADD keeping one more of y's low bits (the guard-bit rule of §3.1 step 5 off by one)
    ("hw", "add", ("eefloat.h", "if (d > 1) my &= ~((((s64)1) << (d - 1)) - 1);",
                   "if (d > 2) my &= ~((((s64)1) << (d - 2)) - 1);")),
    # hw MUL without the Booth array's lost carry (plain truncation)
    ("hw", "mul", ("eefloat.h", "u64 m = ((P & 0x7FFFFF) < 0x8000 ? booth(A, B) : P) >> 23;",
                   "u64 m = P >> 23;")),
    # trunc SQRT one ulp up for odd exponents
    ("trunc", "sqrt", ("eefloat.h", "return tr_round(0, isqrt128(mag), tr_sqrt_half(a) + 150);",
                       "return tr_round(0, isqrt128(mag) + (ex(a) & 1) * ((u128)1 << 40), tr_sqrt_half(a) + 150);")),
]


@pytest.mark.parametrize("model,op,edit", PLANTS, ids=[f"{m}-{o}" for m, o, _ in PLANTS])
def test_a_planted_wrong_kernel_is_caught(tmp_path, kern, model, op, edit):
    """The agreement check goes red on kernels built with one deliberate error."""
    bad_kern = planted_kernels(tmp_path, [edit])
    a, b, c = operand_sets(12, op, model, CI_N)
    count, _ = disagreements(bad_kern, model, op, a, b, c)
    assert count > 0, f"the planted {model} {op} error went unnoticed"
    assert disagreements(kern, model, op, a, b, c)[0] == 0


def _radians(model, n):
    rng = rng_for(12, "rot-matrix", model)
    a, b, c = operand_sets(12, "rot", model, n)
    # angles of the game: |x| up to a few turns, plus the awkward patterns of operand_sets
    turns = (np.sign(rng.random((n, 3)) - 0.5) * rng.random((n, 3)) * 20.0).astype(np.float32).view(np.uint32)
    raw = np.stack([a, b, c], axis=1)
    return np.where(rng.random((n, 3)) < 0.7, turns, raw).astype(np.uint32)


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_kernel_rot_matrix_agrees_with_the_python_model(kern, model):
    """sceVu0RotMatrix with _sceVu0ecossin (animation-semantics.md §3.2, §3.3), 16 words each."""
    from reference.rotation import rot_matrix
    rad = _radians(model, 1500)
    got = kern.rot_matrices(model, rad)
    o = F.ops(model)
    for i, (x, y, z) in enumerate(rad.tolist()):
        assert tuple(got[i].tolist()) == rot_matrix(x, y, z, o), (model, hex(x), hex(y), hex(z))
        assert kern.rot_matrix(model, x, y, z) == tuple(got[i].tolist())


def test_a_planted_wrong_rot_matrix_kernel_is_caught(tmp_path, kern):
    """The rot_matrix check goes red on a cossin whose polynomial skips one term."""
    from reference.rotation import rot_matrix
    bad = planted_kernels(tmp_path, [("kernels.c", "    r = f_add(model, r, p[0]);\n    *c = r;", "    *c = r;")])
    rad = _radians("hw", 200)
    got = bad.rot_matrices("hw", rad)
    o = F.ops("hw")
    assert any(tuple(got[i].tolist()) != rot_matrix(x, y, z, o) for i, (x, y, z) in enumerate(rad.tolist()))


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_kernel_mul_matrices_agrees_with_the_python_model(kern, model):
    """sceVu0MulMatrix (animation-semantics.md §3.2) row by row, 16 words each: the world
    matrices' parent ⊗ local (anim-objects.md §4.2)."""
    from reference.rotation import mul_matrix
    fs, ft = _mac4_sets(model, 4 * 800)
    P, L = fs.reshape(800, 16), ft.reshape(800, 16)
    got = kern.mul_matrices(model, P, L)
    o = F.ops(model)
    for i in range(800):
        assert tuple(got[i].tolist()) == mul_matrix(tuple(P[i].tolist()), tuple(L[i].tolist()), o), (model, i)
