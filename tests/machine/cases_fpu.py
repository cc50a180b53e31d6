"""Executable COP1 and VU0 cases: one or more per row, run as instruction words on the Machine.

``CASES`` maps every COP1/VU0 row mnemonic to a list of callables; each builds
``Machine(float_model=..., coverage=True)``, loads its inputs with instructions (LUI/ORI/MTC1,
QMTC2 ...) or state, runs the words, asserts the result and returns the machine
(tests/machine/test_coverage.py checks ``m.coverage`` on it). Expected values come from the spec
(the hardware vectors of ee-fpu-hw.txt, ee-float.md §5, the [HW] examples of r5900.md §7, §8) or
from tests/machine/floatcheck, the independent simple model — never from eemu_ext itself.
"""
from __future__ import annotations

import os
import random
from typing import Callable, Dict, List

from eemu_ext import Machine, eefloat
from eemu_ext.core.machine import choose_engine
from eemu_ext.isa import ROWS
from eemu_ext.core.testing import CODE_BASE, JR_RA, put_words, run_words
from tests.machine import floatcheck

M32 = 0xFFFFFFFF
# The spec's vectors/ee-fpu-hw.txt, in the repository's copy of the spec (docs/spec, checked
# against the spec by tests/test_spec_copy.py); EEDIFF_FPU_VECTORS points elsewhere.
VECTOR_FILE = os.environ.get("EEDIFF_FPU_VECTORS", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "spec", "vectors",
    "ee-fpu-hw.txt"))

FPU_ROWS = [r for r in ROWS if r.cls in ("cop1", "vu0")]
ROWS_BY_MN: Dict[str, list] = {}
for _r in FPU_ROWS:
    ROWS_BY_MN.setdefault(_r.mnemonic, []).append(_r)


# ---------------------------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------------------------

def enc(mn: str, ft=0, fs=0, fd=0, rt=None, rs=0, rd=None, imm=0, dest=0, fsf=0, ftf=0,
        imm5=0, imm15=0) -> int:
    """The word of the COP1/VU0 row ``mn`` with these fields (rt/rd alias ft/fs)."""
    if rt is not None:
        ft = rt
    if rd is not None:
        fs = rd
    w = (ft << 16) | (fs << 11) | (fd << 6) | (rs << 21) | (imm & 0xFFFF)
    w |= (dest << 21) | (fsf << 21) | (ftf << 23) | ((imm5 & 31) << 6) | ((imm15 & 0x7FFF) << 6)
    for row in ROWS_BY_MN[mn]:
        if not w & row.mask & ~row.match:       # no given field contradicts the row's fixed bits
            return (w & ~row.mask) | row.match
    raise ValueError(f"fields {w:#010x} do not fit a {mn} row")


def lui(rt, v):
    return 0x3C000000 | (rt << 16) | (v & 0xFFFF)


def ori(rt, rs, v):
    return 0x34000000 | (rs << 21) | (rt << 16) | (v & 0xFFFF)


def li32(rt: int, v: int) -> List[int]:
    """lui/ori: rt := sx32(v)."""
    return [lui(rt, v >> 16), ori(rt, rt, v & 0xFFFF)]


def load_f(fr: int, v: int) -> List[int]:
    """$f<fr> := v through $at and MTC1."""
    return li32(1, v) + [enc("mtc1", rt=1, fs=fr)]


NOP = 0


_SHARED: Dict[tuple, Machine] = {}


def machine(model="hw", reset_counts=True) -> Machine:
    """A coverage-counting machine for one case: one per model, reused (building a Machine costs
    ~0.2 s), with its coverage counts and the FPU/VU0 control state reset to power-on values.
    One per engine too: the machine tests run once per engine ($EEMU_ENGINE, conftest.py), and a
    machine shared across them would test only the engine of the first."""
    key = (model, choose_engine(None))
    m = _SHARED.get(key)
    if m is None:
        m = _SHARED[key] = Machine(float_model=model, coverage=True)
    if reset_counts:
        m.coverage.clear()
    return power_on(m)


def power_on(m: Machine) -> Machine:
    """The FPU/VU0 control state, VI and VF1-VF31 at their power-on values."""
    S = m.S
    S.fcr31, S.acc, S.acc_ovf = 0x01000001, 0, 0
    S.mac = S.status = S.clip = S.q = S.i = 0
    S.r = 0x3F800000
    S.vacc[:] = [0, 0, 0, 0]
    m.VI[:] = [0] * 16
    for k in range(1, 32):
        m.VF[k][:] = [0, 0, 0, 0]
    return m


def run_each(model, programs, batch=500):
    """For each (words, setup) of programs, in order: the machine after `run(machine(model), words,
    setup)`, as the caller's loop sees it (read it before asking for the next).

    The same runs as one at a time, on one machine per `batch` programs laid out side by side, each
    start declared an entry: the native engine compiles a batch as one program, where one program
    at a time was a gcc run each (20 s for 150 sequences; the Python engine is unaffected)."""
    for b0 in range(0, len(programs), batch):
        part = programs[b0:b0 + batch]
        stride = 1 << (4 * (max(len(w) for w, _ in part) + 2) - 1).bit_length()
        m = Machine(float_model=model, coverage=True)
        bases = [CODE_BASE + stride * k for k in range(len(part))]
        for base, (words, _) in zip(bases, part):
            put_words(m, base, list(words) + [JR_RA, NOP])
        m.declare_entries(bases)
        for base, (_, setup) in zip(bases, part):
            m.coverage.clear()
            yield run_words(power_on(m), None, setup, base=base)


def run(m: Machine, words, setup=None) -> Machine:
    return run_words(m, words, setup=setup)


# ---------------------------------------------------------------------------------------------
# The hardware vectors (ee-fpu-hw.txt), as instruction sequences
# ---------------------------------------------------------------------------------------------

def parse_vectors(path: str = VECTOR_FILE):
    """[(line number, op, operands, expected)] of the vector file."""
    out = []
    with open(path) as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            lhs, rhs = line.split("->")
            toks = lhs.split()
            out.append((no, toks[0], [int(t.replace("acc=", ""), 16) for t in toks[1:]],
                        int(rhs, 16)))
    return out


_UNARY = {"abs": "abs.s", "neg": "neg.s", "mov": "mov.s", "cvt.s.w": "cvt.s.w", "cvt.w.s": "cvt.w.s"}
_BINARY = {"add": "add.s", "sub": "sub.s", "mul": "mul.s", "div": "div.s", "rsqrt": "rsqrt.s",
           "max": "max.s", "min": "min.s"}
_ACC2 = {"adda": "adda.s", "suba": "suba.s", "mula": "mula.s"}
_MADD = {"madd": "madd.s", "msub": "msub.s"}
_MADDA = {"madda": "madda.s", "msuba": "msuba.s"}
MNEMONIC_OF_VECTOR_OP = {**_UNARY, **_BINARY, **_ACC2, **_MADD, **_MADDA, "sqrt": "sqrt.s"}

# f30 = -0 and f31 = +0 for the ACC idioms of the vector file's header
_ZEROS = load_f(30, 0x80000000) + load_f(31, 0)
_READ_ACC = [enc("madd.s", fd=3, fs=30, ft=31)]         # MADD.S fd, -0, +0 copies ACC out
_SET_ACC = [enc("adda.s", fs=4, ft=30)]                 # ADDA.S x, -0 copies x into ACC


def vector_words(op: str, args) -> List[int]:
    """Instruction words computing one vector's result into $f3 (the file's header protocol)."""
    if op in _UNARY:
        return load_f(1, args[0]) + [enc(_UNARY[op], fd=3, fs=1)]
    if op == "sqrt":
        return load_f(1, args[0]) + [enc("sqrt.s", fd=3, ft=1)]
    if op in _BINARY:
        return load_f(1, args[0]) + load_f(2, args[1]) + [enc(_BINARY[op], fd=3, fs=1, ft=2)]
    if op in _ACC2:
        return (load_f(1, args[0]) + load_f(2, args[1]) + _ZEROS
                + [enc(_ACC2[op], fs=1, ft=2)] + _READ_ACC)
    acc, a, b = args
    pre = load_f(4, acc) + load_f(1, a) + load_f(2, b) + _ZEROS + _SET_ACC
    if op in _MADD:
        return pre + [enc(_MADD[op], fd=3, fs=1, ft=2)]
    return pre + [enc(_MADDA[op], fs=1, ft=2)] + _READ_ACC
    

def run_vectors(vectors, model="hw", m=None) -> Machine:
    """Run many vectors in one program; each result is stored with SWC1 to a buffer and checked."""
    buf = 0x00100000
    words = li32(8, buf)
    for k, (no, op, args, want) in enumerate(vectors):
        words += vector_words(op, args) + [enc("swc1", ft=3, rs=8, imm=4 * k)]
    m = m or machine(model)
    run(m, words)
    bad = []
    for k, (no, op, args, want) in enumerate(vectors):
        got = m.read_u32(buf + 4 * k)
        if got != want:
            bad.append(f"ee-fpu-hw.txt:{no} {op} {' '.join('%08x' % a for a in args)}: "
                       f"want {want:08x} got {got:08x}")
    assert not bad, f"{len(bad)} of {len(vectors)} vectors differ:\n" + "\n".join(bad[:20])
    return m


def vector_result(M, op: str, args) -> int:
    """One vector's result computed by the float model ``M``'s functions (eefloat.HW, or another
    with the same names), in the protocol vector_words runs on a machine: ACC set with ADDA.S x, -0
    and read back with MADD.S fd, -0, +0."""
    OVF = eefloat.OVF
    unary = {"abs": M.fabs, "neg": M.fneg, "mov": lambda x: x, "cvt.s.w": M.from_int,
             "cvt.w.s": M.to_int, "sqrt": M.sqrt}
    binary = {"add": M.add, "sub": M.sub, "mul": M.mul, "div": M.div, "rsqrt": M.rsqrt,
              "max": M.fmax, "min": M.fmin}
    if op in unary:
        return unary[op](args[0]) & M32
    if op in binary:
        return binary[op](*args) & M32
    if op in ("adda", "suba", "mula"):
        r = {"adda": M.add, "suba": M.sub, "mula": M.mul}[op](*args)
        return M.madd(r & M32, 0x80000000, 0, bool(r & OVF)) & M32
    r = M.add(args[0], 0x80000000)
    acc, latch = r & M32, bool(r & OVF)
    f = M.madd if op.startswith("madd") else M.msub
    r = f(acc, args[1], args[2], latch)
    if op in ("madd", "msub"):
        return r & M32
    return M.madd(r & M32, 0x80000000, 0, bool(r & OVF)) & M32


# ---------------------------------------------------------------------------------------------
# CASES
# ---------------------------------------------------------------------------------------------

CASES: Dict[str, List[Callable[[], Machine]]] = {}


def case(*mnemonics):
    """Register a case under one or more mnemonics."""
    def deco(fn):
        for mn in mnemonics:
            CASES.setdefault(mn, []).append(fn)
        return fn
    return deco


def _vector_case(mn, vecs):
    def fn():
        return run_vectors(vecs, "hw")
    fn.__name__ = f"hw_vectors_{mn}"
    return fn


def _vector_cases():
    by_mn: Dict[str, list] = {}
    for v in parse_vectors():
        by_mn.setdefault(MNEMONIC_OF_VECTOR_OP[v[1]], []).append(v)
    for mn, vecs in by_mn.items():
        # every 5th vector of the op plus its last one (all 636 run in test_cop1_vectors.py)
        CASES.setdefault(mn, []).append(_vector_case(mn, vecs[::5] + vecs[-1:]))


_vector_cases()

# ee-float.md §5: (op, fs-or-acc..., hw, trunc); the COP1 subset (row 4 is VU0 with I, row 36 VRSQRT)
TABLE5 = [
    ("add", (0x3FFFFFFF, 0x3F800000), 0x403FFFFF, 0x403FFFFF),
    ("add", (0x7FFFFFFF, 0xFFFFFFFF), 0x00000000, 0x00000000),
    ("add", (0x7F800000, 0x7F800000), 0x7FFFFFFF, 0x7FFFFFFF),
    ("add", (0xB3E2A618, 0x42546666), 0x42546666, 0x42546665),
    ("add", (0x3CA9459A, 0xC0347EB5), 0xC0332C2A, 0xC0332C29),
    ("add", (0xC1031529, 0x3F67596F), 0xC0E93F25, 0xC0E93F24),
    ("add", (0xBF2C66FF, 0x3D405EF1), 0xBF206110, 0xBF20610F),
    ("add", (0x3DF480B8, 0xBFF14C99), 0xBFE2048D, 0xBFE2048D),
    ("sub", (0x00E00000, 0x00800000), 0x00400000, 0x00000000),
    ("sub", (0x3FFFFFFF, 0x3F800000), 0x3F7FFFFE, 0x3F7FFFFE),
    ("mul", (0x3F800000, 0x3FFFFFFF), 0x3FFFFFFE, 0x3FFFFFFF),
    ("mul", (0x3FFFFFFF, 0x3F800000), 0x3FFFFFFF, 0x3FFFFFFF),
    ("mul", (0x3F800000, 0x7FFFFFFF), 0x7FFFFFFE, 0x7FFFFFFF),
    ("mul", (0x7F800000, 0x7F800000), 0x7FFFFFFF, 0x7FFFFFFF),
    ("mul", (0x7FFFFFFF, 0x00000000), 0x00000000, 0x00000000),
    ("mul", (0x3F4D4872, 0x417865CA), 0x41472FCD, 0x41472FCE),
    ("mul", (0x3F06685D, 0x3FB8D18A), 0x3F42120C, 0x3F42120D),
    ("mul", (0x3FB8D18A, 0x3F06685D), 0x3F42120D, 0x3F42120D),
    ("mul", (0xC38262D9, 0x4596DDA3), 0xC999AD9A, 0xC999AD9B),
    ("mul", (0x46FCC888, 0x43A0DA10), 0x4B1ED4A7, 0x4B1ED4A7),
    ("mul", (0xB063B75B, 0x42FECCCD), 0xB3E2A618, 0xB3E2A618),
    ("madd", (0xFFFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF), 0x7FFFFFFF, 0x00000000),
    ("madd", (0x7FFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF), 0xFFFFFFFF, 0x00000000),
    ("madd", (0x00000000, 0x3F800000, 0x3FFFFFFF), 0x3FFFFFFE, 0x3FFFFFFF),
    ("div", (0x3F800000, 0x3FFFFFFF), 0x3F000001, 0x3F000000),
    ("div", (0x3F800000, 0x00000000), 0x7FFFFFFF, 0x7FFFFFFF),
    ("div", (0x00000000, 0x80000000), 0xFFFFFFFF, 0xFFFFFFFF),
    ("div", (0x38D3BA65, 0x43FA9092), 0x34585229, 0x34585228),
    ("div", (0x39739F4F, 0x445B0631), 0x348E6019, 0x348E6019),
    ("div", (0x3F800000, 0x7F800001), 0x00000000, 0x00000000),
    ("sqrt", (0x7FFFFFFF,), 0x5FB504F3, 0x5FB504F2),
    ("sqrt", (0xBF800000,), 0x3F800000, 0x3F800000),
    ("sqrt", (0x42C80CF3,), 0x4120052E, 0x4120052D),
    ("sqrt", (0x3B04AA68,), 0x3D3849F6, 0x3D3849F6),
    ("rsqrt", (0x3F800000, 0x41C80000), 0x3E4CCCCD, 0x3E4CCCCC),
    ("cvt.s.w", (0x7FFFFFFF,), 0x4EFFFFFF, 0x4EFFFFFF),
    ("cvt.s.w", (0x3FC147AE,), 0x4E7F051E, 0x4E7F051E),
    ("max", (0x00000000, 0x80000000), 0x00000000, None),
    ("min", (0x00000000, 0x80000000), 0x80000000, None),
]


def table5_vectors(model: str):
    """§5 rows as vector-file style tuples for one model's column (ties unspecified are skipped)."""
    out = []
    for k, (op, args, hw, tr) in enumerate(TABLE5):
        want = hw if model == "hw" else tr
        if want is not None:
            out.append((f"§5 row {k + 1}", op, list(args), want))
    return out


def _table5_case(model, op):
    def fn():
        return run_vectors([v for v in table5_vectors(model) if v[1] == op], model)
    fn.__name__ = f"table5_{op}_{model}"
    return fn


for _op in sorted({t[0] for t in TABLE5}):
    for _model in ("hw", "trunc"):
        if any(v[1] == _op for v in table5_vectors(_model)):
            CASES.setdefault(MNEMONIC_OF_VECTOR_OP[_op], []).append(_table5_case(_model, _op))


# ---- FCR31 (ee-float.md §3.9; r5900.md §7) ---------------------------------------------------------

def fcr31_after(model, words_before_op, reset_counts=True):
    """(machine, FCR31 read with CFC1) after clearing FCR31 and running the words."""
    m = machine(model, reset_counts)
    run(m, li32(9, 0) + [enc("ctc1", rt=9, fs=31)] + words_before_op + [enc("cfc1", rt=2, fs=31)])
    return m, m.R[2]


FCR31_EXAMPLES = [  # [HW] "Observed FCR31 values, each from a cleared FCR31"
    ("sqrt(-1)", load_f(1, 0xBF800000) + [enc("sqrt.s", fd=3, ft=1)], 0x01020041, "sqrt.s"),
    ("0/0", load_f(1, 0) + load_f(2, 0) + [enc("div.s", fd=3, fs=1, ft=2)], 0x01020041, "div.s"),
    ("1/0", load_f(1, 0x3F800000) + load_f(2, 0) + [enc("div.s", fd=3, fs=1, ft=2)], 0x01010021, "div.s"),
    ("0x7F800001 + 0x7F800001", load_f(1, 0x7F800001) + [enc("add.s", fd=3, fs=1, ft=1)],
     0x01008011, "add.s"),
    ("FLT_MAX * FLT_MAX", load_f(1, 0x7F7FFFFF) + [enc("mul.s", fd=3, fs=1, ft=1)], 0x01008011, "mul.s"),
    ("FLT_MIN / 3", load_f(1, 0x00800000) + load_f(2, 0x40400000) + [enc("div.s", fd=3, fs=1, ft=2)],
     0x01000001, "div.s"),
    ("1 / 0x4040FFFF", load_f(1, 0x3F800000) + load_f(2, 0x4040FFFF) + [enc("div.s", fd=3, fs=1, ft=2)],
     0x01000001, "div.s"),
]


def _fcr_case(name, words, want, mn):
    def fn():
        m, got = fcr31_after("hw", words)
        assert got == want, f"FCR31 after {name}: want {want:#010x} got {got:#010x}"
        m2, got2 = fcr31_after("trunc", words)
        assert got2 == 0x01000001, f"trunc keeps only C in FCR31: after {name} got {got2:#010x}"
        return m
    fn.__name__ = f"fcr31_{mn}"
    return fn


for _n, _w, _want, _mn in FCR31_EXAMPLES:
    CASES.setdefault(_mn, []).append(_fcr_case(_n, _w, _want, _mn))
    CASES.setdefault("cfc1", []).append(_fcr_case(_n, _w, _want, _mn))


@case("add.s", "sub.s", "adda.s", "mul.s", "mula.s", "madd.s", "msub.s", "madda.s", "msuba.s",
      "abs.s", "neg.s", "max.s", "min.s")
def flags_overflow_underflow_rules():
    """§3.9: O/SO and U/SU per instruction; ABS/NEG/MAX/MIN clear O and U; MADDA sets SU only."""
    fm = 0x7F800001
    seqs = [
        ("add.s", load_f(1, fm) + [enc("add.s", fd=3, fs=1, ft=1)], 0x01008011),
        ("sub.s", load_f(1, 0x00E00000) + load_f(2, 0x00800000) + [enc("sub.s", fd=3, fs=1, ft=2)],
         0x01004009),
        ("mula.s", load_f(1, fm) + [enc("mula.s", fs=1, ft=1)], 0x01008011),
        ("mul.s", load_f(1, 0x00800000) + [enc("mul.s", fd=3, fs=1, ft=1)], 0x01004009),
        ("adda.s then abs.s", load_f(1, fm) + [enc("adda.s", fs=1, ft=1), enc("abs.s", fd=3, fs=1)],
         0x01000011),
        ("neg.s clears O", load_f(1, fm) + [enc("add.s", fd=3, fs=1, ft=1), enc("neg.s", fd=3, fs=1)],
         0x01000011),
        ("max.s clears U", load_f(1, 0x00800000) + [enc("mul.s", fd=3, fs=1, ft=1),
                                                  enc("max.s", fd=3, fs=1, ft=1)], 0x01000009),
        ("min.s clears O", load_f(1, fm) + [enc("add.s", fd=3, fs=1, ft=1),
                                          enc("min.s", fd=3, fs=1, ft=1)], 0x01000011),
        # product underflow inside MADD: SU even though the final result is fine
        ("madd.s product underflow", load_f(4, 0x3F800000) + load_f(30, 0x80000000)
         + load_f(1, 0x00800000) + [enc("adda.s", fs=4, ft=30), enc("madd.s", fd=3, fs=1, ft=1)],
         0x01000009),
        ("msub.s overflow", load_f(4, 0x3F800000) + load_f(30, 0x80000000) + load_f(1, fm)
         + [enc("adda.s", fs=4, ft=30), enc("msub.s", fd=3, fs=1, ft=1)], 0x01008011),
        # MADDA underflow: SU only, U untouched (§3.9)
        ("madda.s underflow", load_f(4, 0x00E00000) + load_f(30, 0x80000000)
         + load_f(1, 0x80800000) + load_f(2, 0x3F800000)
         + [enc("adda.s", fs=4, ft=30), enc("madda.s", fs=1, ft=2)], 0x01000009),
        ("msuba.s overflow", load_f(4, 0x3F800000) + load_f(30, 0x80000000) + load_f(1, fm)
         + [enc("adda.s", fs=4, ft=30), enc("msuba.s", fs=1, ft=1)], 0x01008011),
        ("suba.s underflow", load_f(1, 0x00E00000) + load_f(2, 0x00800000)
         + [enc("suba.s", fs=1, ft=2)], 0x01004009),
    ]
    last = None
    for k, (name, words, want) in enumerate(seqs):
        last, got = fcr31_after("hw", words, reset_counts=k == 0)
        assert got == want, f"FCR31 after {name}: want {want:#010x} got {got:#010x}"
    return last


@case("madd.s", "madda.s", "msuba.s", "adda.s", "mula.s")
def acc_overflow_latch():
    """§3.6: the hidden latch. ADDA overflowing sets it; MADD with a fine product returns ACC."""
    m = machine("hw")
    fm = 0x7F800001
    run(m, load_f(1, fm) + load_f(2, 0x3F800000) + load_f(5, 0x40000000) + load_f(30, 0x80000000)
        + [enc("adda.s", fs=1, ft=1),            # ACC := Fmax with overflow latched
           enc("madd.s", fd=3, fs=2, ft=2),      # rule 2: ACC value, O
           enc("mula.s", fs=2, ft=2),            # ACC := 1.0, latch cleared
           enc("madd.s", fd=6, fs=2, ft=5),      # 1 + 1*2 = 3
           enc("msuba.s", fs=1, ft=1),           # ACC := -Fmax (product overflow, to_plus false)
           enc("madda.s", fs=2, ft=2),           # latch set: ACC keeps -Fmax
           enc("madd.s", fd=7, fs=30, ft=30)])   # read ACC out
    assert m.F[3] == 0x7FFFFFFF and m.F[6] == 0x40400000 and m.F[7] == 0xFFFFFFFF
    return m


@case("cfc1")
def cfc1_reads_fcr0_and_aliases():
    """r5900.md §7: FCR0-15 read 0x2E30, FCR16-31 read FCR31; sign-extended, bits 64-127 kept."""
    m = machine()
    buf = 0x00100000
    words = li32(8, buf)
    for k in range(32):
        words += [enc("cfc1", rt=2, fs=k), 0xAD020000 | (4 * k)]          # sw v0, 4k(t0)
    m.RH[2] = 0x1234
    run(m, words)
    for k in range(32):
        want = 0x00002E30 if k < 16 else 0x01000001
        assert m.read_u32(buf + 4 * k) == want, k
    assert m.RH[2] == 0x1234
    return m


@case("ctc1")
def ctc1_mask_examples():
    """r5900.md §7 [HW]: writing 0xFFFFFFFF, 0x7C, 0x1F000 reads back 0x0183C079, 0x01000079, 0x0101C001;
    CTC1 to another number is ignored. Under trunc FCR31 keeps only C (DECISION)."""
    for model, wants in (("hw", (0x0183C079, 0x01000079, 0x0101C001)),
                         ("trunc", (0x01800001, 0x01000001, 0x01000001))):
        for v, want in zip((0xFFFFFFFF, 0x7C, 0x1F000), wants):
            m = machine(model)
            run(m, li32(9, v) + [enc("ctc1", rt=9, fs=31), enc("ctc1", rt=9, fs=30),
                                 enc("cfc1", rt=2, fs=31)])
            assert m.R[2] & M32 == want, (model, hex(v), hex(m.R[2]))
            assert m.R[2] >> 32 == (0xFFFFFFFF if want >> 31 else 0)
    return m


@case("mfc1", "mtc1")
def mfc1_sign_extends_mtc1_raw():
    """r5900.md §7: MFC1 rt := sx32(fs) in bits 0-63 (bits 64-127 kept); MTC1 copies raw bits."""
    m = machine()
    m.RH[2] = 0xABCDEF
    run(m, li32(9, 0x80000001) + [enc("mtc1", rt=9, fs=5), enc("mfc1", rt=2, fs=5),
                                  enc("mtc1", rt=0, fs=6), enc("mfc1", rt=3, fs=6)])
    assert m.F[5] == 0x80000001
    assert m.R[2] == 0xFFFFFFFF80000001 and m.RH[2] == 0xABCDEF and m.R[3] == 0
    return m


@case("lwc1", "swc1")
def lwc1_swc1_raw_bits():
    """LWC1/SWC1 move raw bits (an E = 0 pattern stays as it is)."""
    m = machine()
    m.write_u32(0x00100010, 0x00001337)
    run(m, li32(8, 0x00100000) + [enc("lwc1", ft=7, rs=8, imm=0x10), enc("swc1", ft=7, rs=8, imm=-4 & 0xFFFF)])
    assert m.F[7] == 0x00001337 and m.read_u32(0x000FFFFC) == 0x00001337
    return m


def _cmp_case(mn, pred):
    def fn():
        pairs = [(0, 0x80000000), (0x00000001, 0), (0x80001337, 0x00000001), (0x7F800000, 0x7FFFFFFF),
                 (0xFF800000, 0x7F800000), (0xBF800000, 0xBF800001), (0x3F800001, 0x3F800000),
                 (0xFFFFFFFF, 0xFF800000), (0x3F800000, 0x3F800000)]
        m = machine()
        buf = 0x00100000
        words = li32(8, buf)
        for k, (a, b) in enumerate(pairs):
            words += load_f(1, a) + load_f(2, b) + [enc(mn, fs=1, ft=2), enc("cfc1", rt=2, fs=31),
                                                    0xAD020000 | (4 * k)]
        run(m, words)
        for k, (a, b) in enumerate(pairs):
            c = floatcheck.cmp_value(a, b)
            want = pred(c)
            got = (m.read_u32(buf + 4 * k) >> 23) & 1
            assert got == want, (mn, hex(a), hex(b), got)
        return m
    fn.__name__ = f"compare_{mn}"
    return fn


# §3.7: C from the exact comparison (all E = 0 patterns equal, E = 255 ordinary); C.F clears C
CASES.setdefault("c.f.s", []).append(_cmp_case("c.f.s", lambda c: 0))
CASES.setdefault("c.eq.s", []).append(_cmp_case("c.eq.s", lambda c: int(c == 0)))
CASES.setdefault("c.lt.s", []).append(_cmp_case("c.lt.s", lambda c: int(c < 0)))
CASES.setdefault("c.le.s", []).append(_cmp_case("c.le.s", lambda c: int(c <= 0)))


def _bc1_case(mn, c_value, taken, likely):
    def fn():
        # set C by a compare, then: bc1x +2; delay: addiu v0,v0,1; addiu v0,v0,16; (target) addiu v0,v0,256
        a, b = (0x3F800000, 0x3F800000) if c_value else (0x3F800000, 0x40000000)
        m = machine()
        words = li32(2, 0) + load_f(1, a) + load_f(2, b) + [enc("c.eq.s", fs=1, ft=2),
                                                             enc(mn, imm=2),
                                                             0x24420001, 0x24420010, 0x24420100]
        run(m, words)
        want = (1 if (taken or not likely) else 0) + (0 if taken else 16) + 256
        assert m.R[2] == want, (mn, c_value, m.R[2])
        return m
    fn.__name__ = f"branch_{mn}_{c_value}"
    return fn


for _mn, _cond in (("bc1f", 0), ("bc1t", 1), ("bc1fl", 0), ("bc1tl", 1)):
    for _c in (0, 1):
        CASES.setdefault(_mn, []).append(_bc1_case(_mn, _c, _c == _cond, _mn.endswith("l")))


@case("cvt.w.s", "cvt.s.w")
def conversions_both_models():
    """§3.7: CVT.W.S truncates and saturates above E = 157; CVT.S.W truncates to 24 bits; both models."""
    vals = [0x4EFFFFFF, 0xCEFFFFFF, 0x4F000000, 0x7FFFFFFF, 0x3FC00000, 0xBFC00000, 0x00001337,
            0x7F800001, 0xFF800000, 0x80000000, 0x00FFFFFF, 0x12345678]
    for model in ("hw", "trunc"):
        m = machine(model)
        buf = 0x00100000
        words = li32(8, buf)
        for k, v in enumerate(vals):
            words += load_f(1, v) + [enc("cvt.w.s", fd=2, fs=1), enc("cvt.s.w", fd=3, fs=1),
                                     enc("swc1", ft=2, rs=8, imm=8 * k), enc("swc1", ft=3, rs=8, imm=8 * k + 4)]
        run(m, words)
        ref = floatcheck.ops(model)
        for k, v in enumerate(vals):
            assert m.read_u32(buf + 8 * k) == ref.to_int(v)[0], (model, hex(v))
            assert m.read_u32(buf + 8 * k + 4) == ref.from_int(v)[0], (model, hex(v))
    return m


def _trunc_random_case(mn, op, arity):
    """Seeded operands under trunc, expected from floatcheck.TRUNC."""
    def fn():
        rng = random.Random(f"cases_fpu:{mn}")
        vecs = []
        for k in range(12):
            args = [rng.choice((rng.getrandbits(32), (rng.getrandbits(1) << 31) | (rng.randint(100, 150) << 23)
                                | rng.getrandbits(23))) for _ in range(arity)]
            want, _ = getattr(floatcheck.TRUNC, op)(*args)
            vecs.append((f"trunc {mn} #{k}", {"madd": "madd", "msub": "msub"}.get(op, op), args, want))
        return run_vectors(vecs, "trunc")
    fn.__name__ = f"trunc_{mn}"
    return fn


for _mn, _op, _ar in (("add.s", "add", 2), ("sub.s", "sub", 2), ("mul.s", "mul", 2), ("div.s", "div", 2),
                      ("sqrt.s", "sqrt", 1), ("rsqrt.s", "rsqrt", 2), ("madd.s", "madd", 3),
                      ("msub.s", "msub", 3)):
    CASES.setdefault(_mn, []).append(_trunc_random_case(_mn, _op, _ar))


# ---------------------------------------------------------------------------------------------
# VU0
# ---------------------------------------------------------------------------------------------

LANE = "xyzw"


def vu_run(model, words, setup=None) -> Machine:
    """Run VU0 words on a fresh machine; ``setup(m)`` places inputs in VF/VI/ACC/I/Q/flags."""
    return run(machine(model), words, setup)


def mac_nibble_ref(bits: int, flags: set) -> int:
    """ee-float.md §3.10 for one lane, restated: (Z, S, U, O) as bits 0-3."""
    s = 2 if bits >> 31 else 0
    if "U" in flags:
        return s | 1 | 4
    if (bits >> 23) & 255 == 0:
        return s | 1
    if "O" in flags:
        return s | 8
    return s


def mac_ref(nibbles) -> int:
    """MAC from per-lane nibbles (None outside dest): Z at o, S at 4+o, U at 8+o, O at 12+o, o = 3-lane."""
    mac = 0
    for c, n in enumerate(nibbles):
        if n is None:
            continue
        for k in range(4):
            if n >> k & 1:
                mac |= 1 << (4 * k + 3 - c)
    return mac


def status_ref(old: int, mac: int) -> int:
    """Status after a flag-updating FMAC op: ZSUO from MAC, sticky bits ORed, I/D kept."""
    low = sum(1 << k for k in range(4) if mac >> (4 * k) & 0xF)
    return (old & 0xFF0) | low | (low << 6)


def fmac_spec(mn: str):
    """(kind, form, target) of an FMAC mnemonic: kind add/sub/mul/madd/msub/max/min, form
    x/y/z/w (broadcast), i, q or '' (vector), target 'fd' or 'acc'."""
    name = mn[1:]
    for k in ("madd", "msub", "add", "sub", "mul", "max", "mini"):
        if name.startswith(k):
            rest = name[len(k):]
            target = "fd"
            if k not in ("max", "mini") and rest.startswith("a"):
                target, rest = "acc", rest[1:]
            return ("min" if k == "mini" else k), rest, target
    raise ValueError(mn)


FMAC_MNEMONICS = sorted(mn for mn in ROWS_BY_MN
                        if mn.startswith(("vadd", "vsub", "vmul", "vmadd", "vmsub", "vmax", "vmini")))

_EDGE_LANES = [0x3F800000, 0x3FFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F800001, 0x00800000, 0x80000000,
               0x00001337, 0xBF800000, 0x42546666, 0xB3E2A618, 0x3F06685D, 0x3FB8D18A, 0x00E00000,
               0x80800000]


def fmac_case(mn: str, model: str, seed: int = 0, dest: int = 0xB, fd: int = 3):
    """One FMAC row on seeded lanes; lanes, ACC, MAC and status expected from floatcheck and
    the restated §3.10 rules. fd = 1 aliases fd with fs; fd = 0 checks that VF0 never changes."""
    kind, form, target = fmac_spec(mn)
    rng = random.Random(f"fmac:{mn}:{model}:{seed}")

    def pick():
        return rng.choice(_EDGE_LANES + [rng.getrandbits(32), (rng.getrandbits(1) << 31)
                                         | (rng.randint(120, 135) << 23) | rng.getrandbits(23)])
    vs, vt, va, vd = ([pick() for _ in range(4)] for _ in range(4))
    ival, qval = pick(), pick()
    old_mac = rng.choice((0, 0xF000, 0x8421, 0xA5A5))
    old_status = rng.choice((0, 0xFFF, 0x030))
    if form in ("x", "y", "z", "w"):
        b = [vt[LANE.index(form)]] * 4
    elif form == "i":
        b = [ival] * 4
    elif form == "q":
        b = [qval] * 4
    else:
        b = vt
    ref = floatcheck.ops(model)
    if target == "acc":
        before = list(va)
    elif fd == 1:
        before = list(vs)
    elif fd == 0:
        before = [0, 0, 0, 0x3F800000]
    else:
        before = list(vd)
    want = list(before)
    nibbles = [None] * 4
    for c in range(4):
        if not dest & (8 >> c):
            continue
        if kind in ("add", "sub", "mul"):
            r, fl = getattr(ref, kind)(vs[c], b[c])
        elif kind in ("madd", "msub"):
            latch = target == "acc" and bool(old_mac >> (15 - c) & 1)     # §3.10 overflow latch
            r, fl = getattr(ref, kind)(va[c], vs[c], b[c], latch)
        else:
            r, fl = getattr(ref, "fmax" if kind == "max" else "fmin")(vs[c], b[c])
        want[c] = r
        nibbles[c] = mac_nibble_ref(r, fl)
    if fd == 0 and target == "fd":
        want = [0, 0, 0, 0x3F800000]
    word = fmac_word(mn, dest, fd)

    def setup(m):
        m.VF[1][:] = vs
        m.VF[2][:] = vt
        m.VF[3][:] = vd
        m.S.vacc[:] = va
        m.S.i, m.S.q, m.S.mac, m.S.status = ival, qval, old_mac, old_status

    m = word_run(model, word, setup)
    got = list(m.S.vacc) if target == "acc" else list(m.VF[fd])
    assert got == want, (mn, model, [hex(x) for x in got], [hex(x) for x in want])
    if kind in ("max", "min") or model == "trunc":
        # no flags: MAX/MINI never set them; trunc keeps no VU0 flags (ee-float.md §2.2)
        assert (m.S.mac, m.S.status) == (old_mac, old_status), mn
    else:
        mac = mac_ref(nibbles)
        assert m.S.mac == mac, (mn, hex(m.S.mac), hex(mac))
        assert m.S.status == status_ref(old_status, mac), (mn, hex(m.S.status))
    return m


def fmac_word(mn: str, dest: int, fd: int) -> int:
    """fmac_case's instruction: fs = 1, ft = 2 (0 for the I and Q forms), fd (an fd-target row)."""
    kind, form, target = fmac_spec(mn)
    fs, ft = 1, (0 if form in ("i", "q") else 2)
    return enc(mn, dest=dest, fs=fs, ft=ft, fd=fd) if target == "fd" else enc(mn, dest=dest, fs=fs, ft=ft)


def fmac_variants(mn: str):
    """The (model, seed, dest, fd) of the row's fmac cases."""
    kind, form, target = fmac_spec(mn)
    variants = [("hw", 0, 0xB, 3), ("trunc", 0, 0xF, 3)]
    variants.append(("hw", 1, 0xF, 1 if len(mn) % 2 else 0) if target == "fd" else ("hw", 1, 0x6, 3))
    return variants


_WORD_BOOKS: Dict[tuple, tuple] = {}     # (model, engine) -> (machine, {word: address})


def book_words() -> List[int]:
    """Every one-word case's instruction: fmac_case's and _fdiv_case's."""
    words = {fmac_word(mn, dest, fd) for mn in FMAC_MNEMONICS for _, _, dest, fd in fmac_variants(mn)}
    words |= {fdiv_word(mn, k % 4, (k + 1) % 4) for mn in FDIV_MNEMONICS for k in range(4)}
    return sorted(words)


def word_run(model: str, word: int, setup) -> Machine:
    """vu_run(model, [word], setup) on the word book's machine: one coverage-counting machine per
    model and engine (like machine()) holding every one-word case's instruction (book_words), each
    followed by jr ra, at its own address, every start declared an entry. The native engine
    translates the book once, where a program per word was a gcc run each (270 of them); the
    machine's counts are cleared and its control state reset before each case, so the counts
    are the case's own."""
    key = (model, choose_engine(None))
    got = _WORD_BOOKS.get(key)
    if got is None:
        m = Machine(float_model=model, coverage=True)
        at = {w: CODE_BASE + 12 * k for k, w in enumerate(book_words())}
        for w, a in at.items():
            put_words(m, a, [w, JR_RA, NOP])
        m.declare_entries(sorted(at.values()))
        got = _WORD_BOOKS[key] = (m, at)
    m, at = got
    m.coverage.clear()
    return run_words(power_on(m), None, setup, base=at[word])


def _fmac_cases(mn):
    out = []
    for model, seed, dest, fd in fmac_variants(mn):
        def fn(model=model, seed=seed, dest=dest, fd=fd):
            return fmac_case(mn, model, seed, dest, fd)
        fn.__name__ = f"fmac_{mn}_{model}_{seed}"
        out.append(fn)
    return out


for _mn in FMAC_MNEMONICS:
    CASES.setdefault(_mn, []).extend(_fmac_cases(_mn))


@case("vaddi", "vmul")
def vu0_hardware_vectors():
    """ee-float.md §5 rows 4, 20, 21 [HW] (VU0): add with ft = I, and two VU0 products."""
    def setup(m):
        m.VF[1][:] = [0xB3E2A618, 0x46FCC888, 0xB063B75B, 0]
        m.VF[2][:] = [0, 0x43A0DA10, 0x42FECCCD, 0]
        m.S.i = 0x42546666
    m = vu_run("hw", [enc("vaddi", dest=8, fd=3, fs=1), enc("vmul", dest=6, fd=3, fs=1, ft=2)], setup)
    assert m.VF[3][:3] == [0x42546666, 0x4B1ED4A7, 0xB3E2A618]
    return m


def _cross(model, vs, vt, va):
    ref = floatcheck.ops(model)
    pairs = [(vs[1], vt[2]), (vs[2], vt[0]), (vs[0], vt[1])]
    acc = [ref.mul(a, b)[0] for a, b in pairs] + [va[3]]
    res = [ref.msub(va[c], a, b)[0] for c, (a, b) in enumerate(pairs)]
    return acc, res


@case("vopmula", "vopmsub")
def opmula_opmsub_cross_product():
    """r5900.md §8.2: VOPMULA then VOPMSUB form fs x ft; w untouched; MAC covers xyz only."""
    vs, vt = [0x3F800000, 0x40000000, 0x40400000, 0x12345678], [0x40800000, 0x40A00000, 0x40C00000, 0x9ABCDEF0]
    for model in ("hw", "trunc"):
        def setup(m):
            m.VF[1][:] = vs
            m.VF[2][:] = vt
            m.VF[3][:] = [7, 7, 7, 7]
            m.S.vacc[:] = [1, 2, 3, 0x3F800000]
        m = vu_run(model, [enc("vopmula", dest=0xE, fs=1, ft=2), enc("vopmsub", dest=0xE, fd=3, fs=2, ft=1)],
                   setup)
        acc, _ = _cross(model, vs, vt, [1, 2, 3, 0x3F800000])
        ref = floatcheck.ops(model)
        res = [ref.msub(acc[0], vt[1], vs[2])[0], ref.msub(acc[1], vt[2], vs[0])[0],
               ref.msub(acc[2], vt[0], vs[1])[0], 7]
        assert list(m.S.vacc) == acc
        assert list(m.VF[3]) == res
        # (1,2,3) x (4,5,6) = (-3, 6, -3)
        assert res[:3] == [0xC0400000, 0x40C00000, 0xC0400000]
        if model == "hw":
            assert m.S.mac & 0x1111 == 0 and m.S.mac == 0x00A0     # S set on x and z only
    return m


def _itof_ftoi_case(mn):
    n = int(mn[5:])
    conv = mn[:5]

    def fn():
        vals = [0x7FFFFFFF, 0x80000000, 0x00001337, 0xFFFFFFF0]
        if conv == "vftoi":
            vals = [0x4EFFFFFF, 0xC7000000, 0x3FC00000, 0x00001337]
        for model in ("hw", "trunc"):
            def setup(m):
                m.VF[1][:] = vals
                m.VF[2][:] = [5, 6, 7, 8]
                m.S.mac, m.S.status = 0x1234, 0x0F0
            m = vu_run(model, [enc(mn, dest=0xD, ft=2, fs=1)], setup)
            ref = floatcheck.ops(model)
            f = ref.itof if conv == "vitof" else ref.ftoi
            want = [f(v, n)[0] for v in vals]
            want[2] = 7
            assert list(m.VF[2]) == want, (mn, model, [hex(x) for x in m.VF[2]])
            assert (m.S.mac, m.S.status) == (0x1234, 0x0F0), "conversions set no flag"
        return m
    fn.__name__ = f"conv_{mn}"
    return fn


for _n in (0, 4, 12, 15):
    for _c in ("vitof", "vftoi"):
        CASES.setdefault(f"{_c}{_n}", []).append(_itof_ftoi_case(f"{_c}{_n}"))


@case("vabs", "vmove", "vmr32")
def raw_lane_moves():
    """§8.2: VABS clears bit 31, VMOVE copies, VMR32 rotates (ft.x := fs.y ...); raw bits, no flags;
    ft = 0 leaves VF0 alone."""
    src = [0x80001337, 0xFFFFFFFF, 0x00000001, 0xBF800000]

    def setup(m):
        m.VF[1][:] = src
        for r in (2, 3, 4):
            m.VF[r][:] = [9, 9, 9, 9]
    m = vu_run("hw", [enc("vabs", dest=0xF, ft=2, fs=1), enc("vmove", dest=0x9, ft=3, fs=1),
                      enc("vmr32", dest=0xF, ft=4, fs=1), enc("vmove", dest=0xF, ft=0, fs=1),
                      enc("vmr32", dest=0xF, ft=1, fs=1)], setup)
    assert list(m.VF[2]) == [0x00001337, 0x7FFFFFFF, 0x00000001, 0x3F800000]
    assert list(m.VF[3]) == [0x80001337, 9, 9, 0xBF800000]
    assert list(m.VF[4]) == [0xFFFFFFFF, 0x00000001, 0xBF800000, 0x80001337]
    assert list(m.VF[1]) == [0xFFFFFFFF, 0x00000001, 0xBF800000, 0x80001337]   # in-place rotate
    assert list(m.VF[0]) == [0, 0, 0, 0x3F800000]
    return m


def clip_ref(fs, w):
    """ee-float.md §3.10 VCLIPw judgement bits, restated with signed integers."""
    W = (w & 0x7FFFFFFF) if (w >> 23) & 255 else 0x007FFFFF
    s32 = lambda x: x - 2 ** 32 if x >= 2 ** 31 else x
    bits = 0
    for c in range(3):
        if s32(fs[c]) > W:
            bits |= 1 << (2 * c)
        if s32(fs[c] ^ 0x80000000) > W:
            bits |= 2 << (2 * c)
    return bits


@case("vclipw")
def clip_flags():
    """§3.10: CLIP := ((CLIP << 6) | judgement bits) & 0xFFFFFF, W = |ft.w| or 0x7FFFFF when E = 0."""
    rng = random.Random("clip")
    tests = [([0x40000000, 0xC0000000, 0x3F000000, 0], 0x3F800000),
             ([0x00000001, 0x80000001, 0x00800000, 0], 0x00000005),
             ([0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 0], 0xFF800000)]
    tests += [([rng.getrandbits(32) for _ in range(4)], rng.getrandbits(32)) for _ in range(5)]
    for model in ("hw", "trunc"):
        clip = 0xABCDEF

        def setup(m):
            m.S.clip = 0xABCDEF
            for k, (fsv, w) in enumerate(tests):
                m.VF[1 + 2 * k][:] = fsv
                m.VF[2 + 2 * k][:] = [0, 0, 0, w]
        words = [enc("vclipw", dest=0xE, fs=1 + 2 * k, ft=2 + 2 * k) for k in range(len(tests))]
        m = vu_run(model, words, setup)
        for fsv, w in tests:
            clip = ((clip << 6) | clip_ref(fsv, w)) & 0xFFFFFF
        assert m.S.clip == clip, (model, hex(m.S.clip), hex(clip))
    return m


def _fdiv_case(mn):
    def fn():
        rng = random.Random(f"fdiv:{mn}")
        pairs = [(0x3F800000, 0x3FFFFFFF), (0xBF800000, 0x00000000), (0x00000000, 0x80000000),
                 (0x80000000, 0x00001337), (0x3F800000, 0xBF800000), (0x7FFFFFFF, 0x7FFFFFFF),
                 (0x3F800000, 0x41C80000)]
        pairs += [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(4)]
        for model in ("hw", "trunc"):
            ref = floatcheck.ops(model)
            for k, (a, b) in enumerate(pairs):
                fsf, ftf = k % 4, (k + 1) % 4
                old_status = (0x03F, 0xFFF, 0x000)[k % 3]

                def setup(m):
                    m.VF[1][:] = [0] * 4
                    m.VF[2][:] = [0] * 4
                    m.VF[1][fsf] = a
                    m.VF[2][ftf] = b
                    m.S.status = old_status
                    m.S.mac = 0x5555
                m = word_run(model, fdiv_word(mn, fsf, ftf), setup)
                if mn == "vsqrt":
                    q, fl = ref.sqrt(b)
                elif mn == "vdiv":
                    q, fl = ref.div(a, b)
                else:
                    q, fl = ref.vrsqrt(a, b)
                assert m.S.q == q, (mn, model, hex(a), hex(b), hex(m.S.q), hex(q))
                if model == "hw":
                    # §3.10: FDIV replaces status I and D and ORs them into IS and DS
                    i, d = ("I" in fl), ("D" in fl)
                    want = (old_status & ~0x30) | (0x10 if i else 0) | (0x20 if d else 0) \
                        | (0x400 if i else 0) | (0x800 if d else 0)
                    assert m.S.status == want, (mn, hex(a), hex(b), hex(m.S.status), hex(want))
                else:
                    assert m.S.status == old_status
                assert m.S.mac == 0x5555
        return m
    fn.__name__ = f"fdiv_{mn}"
    return fn


def fdiv_word(mn: str, fsf: int, ftf: int) -> int:
    """_fdiv_case's instruction: VSQRT Q, VF2[ftf]; VDIV/VRSQRT Q, VF1[fsf], VF2[ftf]."""
    return enc(mn, ft=2, ftf=ftf) if mn == "vsqrt" else enc(mn, fs=1, ft=2, fsf=fsf, ftf=ftf)


FDIV_MNEMONICS = ("vdiv", "vsqrt", "vrsqrt")
for _mn in FDIV_MNEMONICS:
    CASES.setdefault(_mn, []).append(_fdiv_case(_mn))


@case("vrsqrt")
def vrsqrt_by_zero():
    """ee-float.md §5 row 36 and §3.10: VRSQRT by zero is +0x7FFFFFFF whatever the signs (D);
    trunc keeps the sign of fs (0xFFFFFFFF)."""
    def setup(m):
        m.VF[1][:] = [0xBF800000, 0, 0, 0]
    m = vu_run("hw", [enc("vrsqrt", fs=1, ft=2, fsf=0, ftf=0)], setup)
    assert m.S.q == 0x7FFFFFFF and m.S.status & 0x30 == 0x20
    m2 = vu_run("trunc", [enc("vrsqrt", fs=1, ft=2, fsf=0, ftf=0)], setup)
    assert m2.S.q == 0xFFFFFFFF
    return m


@case("vwaitq", "vnop")
def waitq_and_nop_change_nothing():
    """§8.4: VWAITQ is a no-op when Q is written at once; VNOP does nothing."""
    def setup(m):
        m.VF[1][:] = [0x3F800000, 0, 0, 0]
        m.VF[2][:] = [0x40800000, 0, 0, 0]
    m = vu_run("hw", [enc("vsqrt", ft=2, ftf=0), enc("vwaitq"), enc("vnop")], setup)
    assert m.S.q == 0x40000000 and list(m.VF[1]) == [0x3F800000, 0, 0, 0]
    return m


@case("viadd", "visub", "viaddi", "viand", "vior")
def integer_ops():
    """§8.3: 16-bit wrapping integer ops; VI0 stays 0; VIADDI takes imm5 sign-extended."""
    def setup(m):
        m.VI[1], m.VI[2] = 0xFFFF, 0x0003
    m = vu_run("hw", [enc("viadd", fd=3, fs=1, ft=2), enc("visub", fd=4, fs=2, ft=1),
                      enc("viaddi", ft=5, fs=2, imm5=-16), enc("viand", fd=6, fs=1, ft=2),
                      enc("vior", fd=7, fs=2, ft=4), enc("viadd", fd=0, fs=1, ft=2),
                      enc("viaddi", ft=8, fs=0, imm5=15)], setup)
    assert m.VI[3] == 0x0002 and m.VI[4] == 0x0004 and m.VI[5] == 0xFFF3
    assert m.VI[6] == 0x0003 and m.VI[7] == 0x0007 and m.VI[0] == 0 and m.VI[8] == 15
    return m


VU0_MEM = 0x11004000


@case("vlqi", "vsqi", "vlqd", "vsqd")
def vu0_memory_increment_decrement():
    """§8.3: VLQI/VSQI use VI[is]*16 then increment; VLQD/VSQD decrement first; dest selects lanes;
    the data is VU0 memory at 0x11004000 (4 KiB)."""
    def setup(m):
        for k in range(8):
            m.write_u32(VU0_MEM + 0x20 + 4 * k, 0x1000 + k)
        m.VI[1], m.VI[2] = 2, 0x10
        m.VF[3][:] = [0xA, 0xB, 0xC, 0xD]
        m.VF[4][:] = [9, 9, 9, 9]
        m.VF[5][:] = [9, 9, 9, 9]
    m = vu_run("hw", [enc("vlqi", dest=0xF, ft=4, fs=1), enc("vlqi", dest=0x5, ft=5, fs=1),
                      enc("vsqi", dest=0xA, fs=3, ft=2), enc("vsqd", dest=0xF, fs=3, ft=2),
                      enc("vlqd", dest=0xF, ft=6, fs=1)], setup)
    assert list(m.VF[4]) == [0x1000, 0x1001, 0x1002, 0x1003]
    assert list(m.VF[5]) == [9, 0x1005, 9, 0x1007]
    assert m.VI[1] == 3 and m.VI[2] == 0x10
    assert [m.read_u32(VU0_MEM + 0x100 + 4 * c) for c in range(4)] == [0xA, 0xB, 0xC, 0xD]
    assert list(m.VF[6]) == [0x1004, 0x1005, 0x1006, 0x1007]
    return m


@case("vilwr.x", "vilwr.y", "vilwr.z", "vilwr.w", "viswr.x", "viswr.y", "viswr.z", "viswr.w")
def vilwr_viswr_lanes():
    """§8.3: VILWR.lane VI[it] := low 16 bits of that lane's word at VI[is]*16; VISWR.lane stores
    VI[it] zero-extended into that lane (one lane per instruction: one row per lane)."""
    def setup(m):
        for c in range(4):
            m.write_u32(VU0_MEM + 0x30 + 4 * c, 0xABCD0000 + 0x111 * (c + 1))
        m.VI[1], m.VI[7] = 3, 4
        m.VI[6] = 0xBEEF
    words = []
    for c in range(4):
        words.append(enc(f"vilwr.{LANE[c]}", ft=2 + c, fs=1))
    words += [enc(f"viswr.{LANE[c]}", ft=6, fs=7) for c in range(4)]
    m = vu_run("hw", words, setup)
    assert [m.VI[2 + c] for c in range(4)] == [0x111, 0x222, 0x333, 0x444]
    assert [m.read_u32(VU0_MEM + 0x40 + 4 * c) for c in range(4)] == [0xBEEF] * 4
    return m


@case("vmtir", "vmfir")
def vmtir_vmfir():
    """§8.3: VMTIR takes the low 16 bits of fs.fsf; VMFIR writes VI sign-extended to 32 bits."""
    def setup(m):
        m.VF[1][:] = [0, 0, 0x12348765, 0]
        m.VF[3][:] = [1, 1, 1, 1]
    m = vu_run("hw", [enc("vmtir", ft=2, fs=1, fsf=2), enc("vmfir", dest=0xB, ft=3, fs=2),
                      enc("vmfir", dest=0xF, ft=0, fs=2)], setup)
    assert m.VI[2] == 0x8765
    assert list(m.VF[3]) == [0xFFFF8765, 1, 0xFFFF8765, 0xFFFF8765]
    assert list(m.VF[0]) == [0, 0, 0, 0x3F800000]
    return m


@case("vrinit", "vrnext", "vrget", "vrxor")
def random_register_sequence():
    """r5900.md §8.3 [HW]: RINIT with 0x01234567 gives 0x3FA34567; RNEXT gives 0x3FC68ACE,
    0x3F8D159D, 0x3F9A2B3B, 0x3FB45677; RGET reads R; RXOR folds fs.fsf into the 23-bit field."""
    def setup(m):
        m.VF[1][:] = [0, 0x01234567, 0, 0x00FFFFFF]
    words = [enc("vrinit", fs=1, fsf=1), enc("vrget", dest=0xF, ft=2)]
    for k in range(4):
        words.append(enc("vrnext", dest=0x8, ft=3 + k))
    words += [enc("vrxor", fs=1, fsf=3), enc("vrget", dest=0x1, ft=7)]
    m = vu_run("hw", words, setup)
    assert list(m.VF[2]) == [0x3FA34567] * 4
    assert [m.VF[3 + k][0] for k in range(4)] == [0x3FC68ACE, 0x3F8D159D, 0x3F9A2B3B, 0x3FB45677]
    assert m.VF[7][3] == 0x3F800000 | ((0x3FB45677 ^ 0x00FFFFFF) & 0x7FFFFF)
    return m


def _qm_case(suffix):
    def fn():
        def setup(m):
            m.VF[1][:] = [0x11111111, 0x22222222, 0x33333333, 0x44444444]
            m.R[4], m.RH[4] = 0x8888888877777777, 0xAAAAAAAA99999999
        m = vu_run("hw", [enc("qmfc2" + suffix, rt=2, rd=1), enc("qmtc2" + suffix, rt=4, rd=5),
                          enc("qmtc2" + suffix, rt=4, rd=0), enc("qmfc2" + suffix, rt=0, rd=1)], setup)
        assert m.R[2] == 0x2222222211111111 and m.RH[2] == 0x4444444433333333
        assert list(m.VF[5]) == [0x77777777, 0x88888888, 0x99999999, 0xAAAAAAAA]
        assert list(m.VF[0]) == [0, 0, 0, 0x3F800000] and m.R[0] == 0 and m.RH[0] == 0
        return m
    fn.__name__ = f"qmfc2_qmtc2{suffix}"
    return fn


for _s in (".ni", ".i"):
    CASES.setdefault("qmfc2" + _s, []).append(_qm_case(_s))
    CASES.setdefault("qmtc2" + _s, []).append(_qm_case(_s))

# r5900.md §8.4: CTC2 0xFFFFFFFF then CFC2 reads back (vi, value) [HW]; 26/29 read-only, 31 unsupported
CTC2_READBACK = [(0, 0), (1, 0xFFFF), (7, 0xFFFF), (15, 0xFFFF), (16, 0xFC0), (17, 0), (18, 0xFFFFFF),
                 (19, 0x2E30), (20, 0x7FFFFF), (21, 0xFFFFFFFF), (22, 0xFFFFFFFF), (23, 0), (24, 0xC0C),
                 (25, 0), (27, 0xFFFF), (28, 0)]


def _ctc2_case(suffix):
    def fn():
        buf = 0x00100000
        words = li32(8, buf) + li32(9, 0xFFFFFFFF)
        for k, (vi, _) in enumerate(CTC2_READBACK):
            words += [enc("ctc2" + suffix, rt=9, rd=vi), enc("cfc2" + suffix, rt=2, rd=vi), 0xAD020000 | (4 * k)]
        m = machine("hw")
        m.RH[2] = 0x5555
        run(m, words)
        for k, (vi, want) in enumerate(CTC2_READBACK):
            assert m.read_u32(buf + 4 * k) == want, (vi, hex(m.read_u32(buf + 4 * k)))
        assert m.S.r == 0x3FFFFFFF and m.RH[2] == 0x5555
        assert m.R[2] == 0          # the last read (FBRST) is 0, sign-extended
        return m
    fn.__name__ = f"ctc2_cfc2{suffix}"
    return fn


for _s in (".ni", ".i"):
    CASES.setdefault("ctc2" + _s, []).append(_ctc2_case(_s))
    CASES.setdefault("cfc2" + _s, []).append(_ctc2_case(_s))


@case("cfc2.ni")
def cfc2_sign_extends_and_reads_flags():
    """§8.4: CFC2 sign-extends into bits 0-63 (I = 0x80000000 reads 0xFFFFFFFF80000000); MAC reads."""
    def setup(m):
        m.S.i = 0x80000000
        m.S.mac = 0x1234
    m = vu_run("hw", [enc("cfc2.ni", rt=2, rd=21), enc("cfc2.ni", rt=3, rd=17)], setup)
    assert m.R[2] == 0xFFFFFFFF80000000 and m.R[3] == 0x1234
    return m


@case("lqc2", "sqc2")
def lqc2_sqc2_align_and_vf0():
    """r5900.md §5.2: LQC2/SQC2 ignore address bits 0-3; an LQC2 into VF0 is discarded."""
    m = machine()
    for c in range(4):
        m.write_u32(0x00100020 + 4 * c, 0xC0DE0000 + c)
    run(m, li32(8, 0x00100000) + [enc("lqc2", rt=3, rs=8, imm=0x2B), enc("lqc2", rt=0, rs=8, imm=0x20),
                                  enc("sqc2", rt=3, rs=8, imm=0x47)])
    assert list(m.VF[3]) == [0xC0DE0000, 0xC0DE0001, 0xC0DE0002, 0xC0DE0003]
    assert list(m.VF[0]) == [0, 0, 0, 0x3F800000]
    assert [m.read_u32(0x00100040 + 4 * c) for c in range(4)] == list(m.VF[3])
    return m


def _bc2_case(mn):
    def fn():
        # DECISION (vu0.py): the COP2 condition reads 0, so BC2F(L) is taken and BC2T(L) is not
        taken = mn in ("bc2f", "bc2fl")
        likely = mn.endswith("l")
        m = machine()
        run(m, li32(2, 0) + [enc(mn, imm=2), 0x24420001, 0x24420010, 0x24420100])
        want = (1 if (taken or not likely) else 0) + (0 if taken else 16) + 256
        assert m.R[2] == want, (mn, m.R[2])
        return m
    fn.__name__ = f"branch_{mn}"
    return fn


for _mn in ("bc2f", "bc2t", "bc2fl", "bc2tl"):
    CASES.setdefault(_mn, []).append(_bc2_case(_mn))


def _callms_case(mn):
    def fn():
        from eemu_ext import EmulationError
        m = machine()
        word = enc("vcallms", imm15=0x40) if mn == "vcallms" else enc("vcallmsr")
        try:
            run(m, [word])
        except EmulationError as e:
            assert "VU micro mode is not supported" in str(e), str(e)
        else:
            raise AssertionError(f"{mn} ran without error")
        return m
    fn.__name__ = f"unsupported_{mn}"
    return fn


for _mn in ("vcallms", "vcallmsr"):
    CASES.setdefault(_mn, []).append(_callms_case(_mn))
