"""Shared by the compiled-kernel tests: the kernels fixture and random operands (numpy, seeded)."""
import hashlib
import shutil

import numpy as np
import pytest

from reference import cbuild, eefloat as F, kernels as K

SPECIAL = np.array([0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x3F800000,
                    0xBF800000, 0x3FFFFFFF, 0x40000000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FFFFFFF,
                    0xFFFFFFFF, 0xFF800000, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0x43360B61, 0x38C90FDB,
                    0x40490FDB, 0x3FC90FDB, 0x45800000, 0x34000000, 0x0DA24260, 0x72000000],
                   dtype=np.uint64)


def compiled_kernels():
    """The compiled kernels; skips only when the machine has no C compiler."""
    if cbuild.compiler() is None:
        pytest.skip("no C compiler on this machine (cc / $CC): the compiled kernels cannot be built")
    return K.Kernels(cbuild.build(K.SOURCES, "kernels"))


def rng_for(*parts):
    """A generator seeded from the parts (seed, op, model ...), never from the clock."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "little"))


def operands(rng, n):
    """Float patterns: normal values near 1, any bits, specials, extreme exponents."""
    k = rng.random(n)
    sign = rng.integers(0, 2, n, dtype=np.uint64) << 31
    frac = rng.integers(0, 1 << 23, n, dtype=np.uint64)
    near1 = sign | (rng.integers(97, 158, n, dtype=np.uint64) << 23) | frac
    anyb = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    spec = SPECIAL[rng.integers(0, len(SPECIAL), n)]
    ext = np.array([0, 1, 2, 3, 60, 64, 190, 200, 252, 253, 254, 255], dtype=np.uint64)
    extreme = sign | (ext[rng.integers(0, len(ext), n)] << 23) | frac
    out = np.where(k < 0.40, near1, np.where(k < 0.65, anyb, np.where(k < 0.75, spec, extreme)))
    return out.astype(np.uint32)


def near(rng, a):
    """Operands close to a in exponent (cancellations, guard-bit cases)."""
    a = a.astype(np.int64)
    n = a.size
    e = np.clip(((a >> 23) & 0xFF) + rng.integers(-26, 27, n), 0, 255)
    bits = rng.integers(0, 24, n)
    flip = rng.integers(0, 1 << 23, n) & ((1 << bits) - 1)
    f = (a & 0x7FFFFF) ^ np.where(rng.random(n) < 0.7, flip, 0)
    return ((rng.integers(0, 2, n) << 31) | (e << 23) | f).astype(np.uint32)


def operand_sets(seed, op, model, n):
    """(a, b, c) arrays of n operand sets for one op and model."""
    rng = rng_for(seed, "kernel-agreement", op, model)
    a = operands(rng, n)
    b = np.where(rng.random(n) < 0.35, near(rng, a), operands(rng, n)).astype(np.uint32)
    c = np.where(rng.random(n) < 0.5, operands(rng, n), near(rng, b)).astype(np.uint32)
    return a, b, c


def python_op(model, op):
    """The Python model's function for a kernel op, taking (a, b, c) ints."""
    o = F.ops(model)
    table = {
        "add": lambda a, b, c: o.f_add(a, b), "sub": lambda a, b, c: o.f_sub(a, b),
        "mul": lambda a, b, c: o.f_mul(a, b), "madd": lambda a, b, c: o.f_madd(c, a, b),
        "msub": lambda a, b, c: o.f_msub(c, a, b),
        "div": lambda a, b, c: (F.hw_div if model == "hw" else F.tr_div)(a, b),
        "sqrt": lambda a, b, c: o.f_sqrt(a), "rsqrt": lambda a, b, c: o.f_rsqrt(a, b),
        "from_int": lambda a, b, c: o.f_from_int(a), "to_int": lambda a, b, c: o.f_to_int(a),
        "cmp": lambda a, b, c: o.f_cmp(a, b), "u2f": lambda a, b, c: o.u2f(a),
    }
    return table[op]


SCALAR_OPS = ("add", "sub", "mul", "madd", "msub", "div", "sqrt", "rsqrt", "from_int", "to_int",
              "cmp", "u2f")


def disagreements(kern, model, op, a, b, c, limit=5):
    """Operand sets where the kernel's op differs from the Python model's, and their count."""
    got = kern.op(model, op, a, b, c)
    f = python_op(model, op)
    bad, count = [], 0
    for i, (x, y, z) in enumerate(zip(a.tolist(), b.tolist(), c.tolist())):
        want = f(x, y, z)
        g = int(got[i])
        if g != (want & 0xFFFFFFFF if op != "cmp" else want):
            count += 1
            if len(bad) < limit:
                bad.append((op, model, hex(x), hex(y), hex(z), hex(want & 0xFFFFFFFF), hex(g & 0xFFFFFFFF)))
    return count, bad


def mac4_disagreements(kern, model, fs, ft, limit=5):
    got = kern.op(model, "mac4", fs, ft)
    o = F.ops(model)
    bad, count = [], 0
    for i, (x, y) in enumerate(zip(fs.tolist(), ft.tolist())):
        want = o.mac4(list(zip(x, y)))
        if int(got[i]) != want:
            count += 1
            if len(bad) < limit:
                bad.append(([hex(v) for v in x], [hex(v) for v in y], hex(want), hex(int(got[i]))))
    return count, bad


def planted_kernels(tmp_path, edits):
    """The kernels built from a copy of reference/csrc with text edits [(file, old, new)] applied."""
    src = tmp_path / "csrc"
    shutil.copytree(cbuild.CSRC, src)
    for name, old, new in edits:
        p = src / name
        text = p.read_text()
        assert text.count(old) == 1, f"planted edit not unique in {name}: {old!r}"
        p.write_text(text.replace(old, new))
    return K.Kernels(cbuild.build(K.SOURCES, "planted", csrc=str(src)))
