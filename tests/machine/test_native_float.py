"""The compiled float runtime agrees bit for bit with eemu_ext/eefloat.py.

The EE float models (hw and trunc: the guard-bit adder, the non-commutative Booth
multiplier, SRT divide and square root, flags, the ACC and VU0 rules) are compiled, and checked
against eemu_ext/eefloat.py on the 636 hardware vectors and on random and edge-biased operand sets:
200,000 per operation in CI, 10,000,000 in the slow test. Results are compared as raw patterns
with their flag bits (``bits | flags``), never as floats.

Operands come from tests/machine/test_float_crosscheck.py's edge-biased generator.
DECISION: in CI every operation of one argument kind is checked on the same 200,000 seeded operand
sets (generating them in Python costs more than most operations); the slow test draws fresh sets
per operation. DECISION: the internal steps that are not model operations (booth_carry_lost,
_srt_div, _srt_sqrt, _tr_round, macc, bits_e) take 50,000 sets in CI, to keep the file near a
minute of CPU: Python's Booth array and digit loops cost ~20 us a call, and every one of them is
also exercised inside the model operations (hw_mul, hw_div, hw_sqrt, hw_rsqrt, hw_madd, tr_*),
which take the full 200,000.
"""
from __future__ import annotations

import random
from typing import Dict, List, Tuple

import numpy as np
import pytest

from eemu_ext import Machine, eefloat
from eemu_ext.engines.native import build
from tests.machine.cases_fpu import parse_vectors, vector_result
from tests.machine.test_float_crosscheck import operand, partner

if build.compiler() is None:
    pytest.skip("no host C compiler (cc or gcc): the compiled float runtime cannot be built",
                allow_module_level=True)

from eemu_ext.engines.native import cfloat  # noqa: E402  (needs the compiler check above)


@pytest.fixture
def engine():
    """Once, not once per engine (overrides conftest.py's fixture by name): the compiled float
    runtime is checked against eefloat.py directly."""
    return None


M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
CI_COUNT = 200_000
STEP_CI_COUNT = 50_000
SLOW_COUNT = 10_000_000
SLOW_CHUNK = 200_000

# Every function of eefloat.py, by argument kind (eefloat.c's EEF_OPS kinds).
KIND = {
    "bits_e": "X1", "hw_add": "X2", "hw_sub": "X2", "booth_carry_lost": "BOOTH", "hw_mul": "X2",
    "_srt_div": "SRTD", "_srt_sqrt": "SRTS", "hw_div": "X2", "hw_sqrt": "X1", "hw_rsqrt": "X2",
    "hw_vrsqrt": "X2", "macc": "XM", "hw_madd": "X4", "hw_msub": "X4", "from_int": "X1",
    "ftoi": "XN", "to_int": "X1", "itof": "XN", "key": "X1", "raw_key": "X1", "fmax": "X2",
    "fmin": "X2", "fabs": "X1", "fneg": "X1", "_tr_round": "XR", "tr_add": "X2", "tr_sub": "X2",
    "tr_mul": "X2", "tr_div": "X2", "tr_sqrt": "X1", "tr_rsqrt": "X2", "tr_madd": "X4",
    "tr_msub": "X4", "tr_itof": "XN", "tr_ftoi": "XN", "fcr_arith": "XF", "fcr_acc": "XF",
    "fcr_div": "XF", "fcr_sqrt": "XF", "fcr_noflags": "XF",
}
CI_COUNTS = {n: STEP_CI_COUNT for n in ("booth_carry_lost", "_srt_div", "_srt_sqrt", "_tr_round",
                                         "macc", "bits_e")}
SIGNED = ("key", "raw_key")


def sig(rng: random.Random) -> int:
    """A 24-bit significand with its hidden bit, from an edge-biased pattern."""
    return (operand(rng) & 0x7FFFFF) | 0x800000


def operand_set(kind: str, rng: random.Random) -> Tuple[int, ...]:
    """One argument tuple for a function of this kind (edge-biased, as the cross-check's)."""
    a = operand(rng)
    if kind == "X1":
        return (a,)
    if kind == "XN":
        return (a, rng.choice((0, 4, 12, 15)))
    if kind == "X2":
        return (a, partner(rng, a))
    if kind == "X4":
        # the latch as COP1 keeps it (0 or the OVF bit), which Python reads as a truth value
        return (partner(rng, a), a, partner(rng, a), eefloat.OVF if rng.random() < 0.1 else 0)
    if kind == "XM":
        b = partner(rng, a)
        return (partner(rng, a), eefloat.hw_mul(a, b), eefloat.OVF if rng.random() < 0.1 else 0,
                rng.choice((0, 0x80000000)))
    if kind == "XF":
        fcr = (rng.getrandbits(32) & eefloat.FCR_WRITABLE) | eefloat.FCR_FIXED
        flags = rng.getrandbits(5) << 32 if rng.random() < 0.7 else 0
        return (fcr, a | flags)
    if kind == "XR":
        return (rng.getrandbits(1) << 31, rng.getrandbits(rng.randint(1, 62)) | 1,
                rng.randint(-60, 320))
    if kind == "BOOTH":
        return (sig(rng), sig(rng))
    if kind == "SRTD":
        return (sig(rng), sig(rng))
    if kind == "SRTS":
        return (sig(rng) << rng.choice((1, 2)),)
    raise ValueError(kind)


_POOLS: Dict[Tuple[str, str, int], tuple] = {}


def pool(kind: str, n: int, seed: str):
    """(cases, numpy columns) of n seeded operand sets of one kind, built once per process."""
    k = (kind, seed, n)
    p = _POOLS.get(k)
    if p is None:
        rng = random.Random(f"{seed}:{kind}")
        p = _POOLS[k] = columns([operand_set(kind, rng) for _ in range(n)])
    return p


def columns(cases: List[Tuple[int, ...]]):
    """The cases with their argument columns as uint64 arrays (negative ints as two's complement)."""
    cols = [np.array([v & M64 for v in c], dtype=np.uint64) for c in zip(*cases)]
    return cases, cols


def compare(lib, name: str, data, limit: int = 5):
    """Run name over the cases in C (one batch) and in Python; the first disagreements, and the
    number of cases compared."""
    cases, cols = data
    py = getattr(eefloat, name)
    want = [py(*args) for args in cases]
    if name in SIGNED:
        want = [w & M64 for w in want]
    got = lib.batch(name, *cols)
    want_a = np.array(want, dtype=np.uint64)
    assert len(got) == len(want_a) == len(cases)
    bad_idx = np.nonzero(got != want_a)[0]
    bad = [(name, tuple(hex(x) for x in cases[i]), hex(want[i] & M64), hex(int(got[i])))
           for i in bad_idx[:limit]]
    return bad, len(cases)


@pytest.fixture(scope="module")
def lib():
    return cfloat.load()


def test_every_eefloat_function_is_compiled(lib):
    """Every function defined in eefloat.py has a C counterpart with a batch entry (none left out)."""
    import inspect
    pyfuncs = {n for n, f in vars(eefloat).items()
               if inspect.isfunction(f) and f.__module__ == eefloat.__name__
               and n not in ("model", "_remember", "_tr_sqrt_parts")}
    assert pyfuncs == set(KIND), sorted(pyfuncs ^ set(KIND))
    for n in KIND:
        assert cfloat.C_NAMES.get(n, n) in lib.ops, n


def test_tr_sqrt_parts_every_exponent(lib):
    """_tr_sqrt_parts (a pair, not a pattern) for every exponent field."""
    for e in range(256):
        x = (e << 23) | 0x123
        assert lib.tr_sqrt_parts(x) == eefloat._tr_sqrt_parts(x), e


def test_model_bindings_match_eefloat_models(lib):
    """cfloat.model(name) binds each FloatModel attribute to the C port of the same function."""
    for name in ("hw", "trunc"):
        fm = eefloat.model(name)
        attrs = {k for k, v in vars(fm).items() if callable(v)}
        assert attrs == set(cfloat.MODEL_BINDINGS[name]), name
        for attr in attrs:
            py = getattr(fm, attr).__name__
            assert cfloat.C_NAMES.get(py, py) == cfloat.MODEL_BINDINGS[name][attr], (name, attr)


def test_all_636_hardware_vectors(lib):
    """ee-fpu-hw.txt: the C hw model reproduces every recorded result, as eefloat.HW does."""
    vectors = parse_vectors()
    assert len(vectors) == 636
    C = lib.model("hw")
    bad = [(no, op, [hex(a) for a in args], hex(want), hex(vector_result(C, op, args)))
           for no, op, args, want in vectors if vector_result(C, op, args) != want]
    assert not bad, f"ee-fpu-hw.txt lines where the C hw model differs: {bad[:10]}"
    assert all(vector_result(C, op, args) == vector_result(eefloat.HW, op, args)
               for _, op, args, _ in vectors)


def test_vector_operands_every_function(lib):
    """Every one-, two- and multiply-add-operand function agrees with Python on all singles,
    pairs and (acc, a, b, latch) combinations of the vector file's 29 distinct operands."""
    vals = sorted({a for _, _, args, _ in parse_vectors() for a in args})
    sets = {"X1": [(a,) for a in vals], "X2": [(a, b) for a in vals for b in vals],
            "X4": [(c, a, b, l) for c in vals for a in vals for b in vals for l in (0, eefloat.OVF)]}
    checked = set()
    for name, kind in KIND.items():
        if kind in sets:
            bad, n = compare(lib, name, columns(sets[kind]))
            assert not bad and n == len(sets[kind]), bad
            checked.add(name)
    assert {"hw_add", "hw_mul", "hw_div", "hw_sqrt", "hw_madd", "tr_msub"} <= checked


@pytest.mark.parametrize("name", sorted(KIND))
def test_200k_operand_sets(lib, name, request):
    """200,000 edge-biased operand sets: C and Python agree in bits and flags."""
    seed = request.config.getoption("--seed")
    n = CI_COUNTS.get(name, CI_COUNT)
    bad, count = compare(lib, name, pool(KIND[name], n, f"ci{seed}"))
    assert count == n
    assert not bad, f"C {name} differs from eefloat (op, args, python, C): {bad}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(KIND))
def test_10m_operand_sets(lib, name, request):
    """10,000,000 fresh edge-biased operand sets per function, in seeded chunks."""
    seed = request.config.getoption("--seed")
    kind = KIND[name]
    done = 0
    for chunk in range(SLOW_COUNT // SLOW_CHUNK):
        rng = random.Random(f"slow{seed}:{name}:{chunk}")
        bad, count = compare(lib, name, columns([operand_set(kind, rng) for _ in range(SLOW_CHUNK)]))
        assert not bad, f"C {name} differs from eefloat in chunk {chunk}: {bad}"
        done += count
    assert done == SLOW_COUNT


# ----------------------------------------------------------------------------------------------
# model.h: the names compiled row semantics use
# ----------------------------------------------------------------------------------------------

# name -> (C parameter list, call arguments); results widen to uint64_t (f_key: int64_t)
MODEL_NAMES = {
    "f_add": "X2", "f_sub": "X2", "f_mul": "X2", "f_div": "X2", "f_sqrt": "X1", "f_rsqrt": "X2",
    "f_madd": "X4", "f_msub": "X4", "f_from_int": "X1", "f_to_int": "X1", "f_key": "X1",
    "f_max": "X2", "f_min": "X2", "fcr_arith": "XF", "fcr_acc": "XF", "fcr_div": "XF",
    "fcr_sqrt": "XF", "f_itof": "XN", "f_ftoi": "XN", "f_vdiv": "X2", "f_vsqrt": "X1",
    "f_vrsqrt": "X2",
}
_C_PARAMS = {"X1": ("uint32_t a", "a"), "X2": ("uint32_t a, uint32_t b", "a, b"),
             "XN": ("uint32_t a, int n", "a, n"), "XF": ("uint32_t a, uint64_t r", "a, r"),
             "X4": ("uint32_t c, uint32_t a, uint32_t b, uint64_t l", "c, a, b, l")}
MODEL_CONSTS = ("F_OVF", "FCR0_VALUE", "FCR31_MASK", "EE_FLAGS")


def model_h_library(model: str, patch=None):
    """A library of one wrapper per model.h name, compiled with EE_MODEL_HW or EE_MODEL_TRUNC."""
    import ctypes
    flag = "EE_MODEL_HW" if model == "hw" else "EE_MODEL_TRUNC"
    lines = [f"#define {flag} 1", '#include "model.h"']
    for name, kind in MODEL_NAMES.items():
        params, call = _C_PARAMS[kind]
        lines.append(f"uint64_t mt_{name}({params}) {{ return (uint64_t){name}({call}); }}")
    lines.append("uint64_t mt_const(int k) {")
    for k, c in enumerate(MODEL_CONSTS):
        lines.append(f"    if (k == {k}) return (uint64_t)({c});")
    lines.append("    return ~0ULL;\n}")
    src = cfloat.sources(patch)
    src["model.h"] = build.csrc("model.h")
    src["modeltest.c"] = "\n".join(lines) + "\n"
    del src["eefloat.c"]
    so = build.shared_library(f"eefloat-model-{model}", src)
    types = {"X1": [ctypes.c_uint32], "X2": [ctypes.c_uint32] * 2,
             "XN": [ctypes.c_uint32, ctypes.c_int], "XF": [ctypes.c_uint32, ctypes.c_uint64],
             "X4": [ctypes.c_uint32] * 3 + [ctypes.c_uint64]}
    fns = {}
    for name, kind in MODEL_NAMES.items():
        f = getattr(so, f"mt_{name}")
        f.argtypes, f.restype = types[kind], ctypes.c_uint64
        fns[name] = f
    so.mt_const.restype = ctypes.c_uint64
    return fns, [so.mt_const(k) for k in range(len(MODEL_CONSTS))]


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_model_h_binds_the_namespace_functions(model, request):
    """Each model.h name computes what the machine's sem namespace binds to it (cop1 and vu0),
    on 2,000 operand sets per name; the constants and EE_FLAGS equal the namespace's."""
    fns, consts = model_h_library(model)
    G = Machine(float_model=model).python.G
    fm = eefloat.model(model)
    assert consts == [G["F_OVF"], G["FCR0_VALUE"], G["FCR31_MASK"], int(fm.flags)]
    seed = request.config.getoption("--seed")
    for name, kind in MODEL_NAMES.items():
        py = G[name]
        rng = random.Random(f"modelh{seed}:{model}:{name}")
        for _ in range(2000):
            args = operand_set(kind, rng)
            want, got = py(*args) & M64, fns[name](*args)
            assert got == want, (model, name, [hex(a) for a in args], hex(want), hex(got))


# ----------------------------------------------------------------------------------------------
# The comparison can fail
# ----------------------------------------------------------------------------------------------

def _patched(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"planted fault: {old!r} not found once in eefloat.h"
    return text.replace(old, new)


def test_a_dropped_flag_is_caught():
    """A variant of hw_add that forgets the UNF flag on underflow differs from eefloat."""
    bad_lib = cfloat.load(patch=lambda t: _patched(
        t, "return (uint64_t)(sx | ((uint32_t)m & 0x7FFFFF)) | EE_UNF;",
        "return (uint64_t)(sx | ((uint32_t)m & 0x7FFFFF));"), name="eefloat-planted-unf")
    bad, _ = compare(bad_lib, "hw_add", pool("X2", 20_000, "planted"))
    assert bad, "a hw_add without UNF passed the comparison"
    # the fault is in the flag only: every reported pattern agrees
    assert all(int(w, 16) & M32 == int(g, 16) & M32 and int(w, 16) & eefloat.UNF
               for _, _, w, g in bad)


def test_a_one_digit_short_divider_is_caught():
    """A variant whose SRT divider runs 24 digit steps instead of 25 differs from eefloat's
    hw_div, and (through f_div) the model.h binding test's comparison sees it too."""
    patch = lambda t: _patched(t, "for (i = 0; i < 25; i++) {\n        Q = Q + Q + q;",
                               "for (i = 0; i < 24; i++) {\n        Q = Q + Q + q;")
    bad_lib = cfloat.load(patch=patch, name="eefloat-planted-srt")
    bad, _ = compare(bad_lib, "hw_div", pool("X2", 2_000, "planted"))
    assert bad
    fns, _ = model_h_library("hw", patch)
    G = Machine(float_model="hw").python.G
    assert any(fns["f_div"](a, b) != G["f_div"](a, b) for a, b in pool("X2", 2_000, "planted")[0])


@pytest.mark.parametrize("name", ["tr_sqrt", "tr_rsqrt"])
def test_portable_integer_square_root(name, request):
    """Without SSE2 the 128-bit integer square root is the plain digit loop; trunc's sqrt and
    rsqrt agree with eefloat through it as well."""
    plain = cfloat.load(patch=lambda t: _patched(t, "#if defined(__SSE2__)", "#if 0"),
                        name="eefloat-no-sse2")
    seed = request.config.getoption("--seed")
    bad, n = compare(plain, name, pool(KIND[name], CI_COUNT, f"ci{seed}"))
    assert n == CI_COUNT and not bad, bad
