"""The VU0 rows' compiled semantics (Row.c) do what their Python sem does, bit for bit.

Every executable row carries its compiled form next to its sem, or is marked
Python-only. For every VU0 row with C, its C (field tokens substituted) and its sem run on the same
random state — VF lanes biased to the float edges (E = 0, E = 255, Fmax, 1 +- ulp, close exponents),
random dest masks, registers including 0 and aliasing each other, the ACC overflow latch in MAC —
under both float models, and all state is compared as raw patterns: GPRs, VF (VF0 included), VI,
ACC, Q, I, R, MAC, status, CLIP, VU0 memory and RAM (tests/machine/native_rowcheck.py).
A planted one-ulp error and a planted write before a load that can fail are both caught.
"""
from __future__ import annotations

import pytest

from eemu_ext.isa import vu0
from tests.machine import native_rowcheck as rowcheck   # skips the module without a C compiler
from tests.machine.native_rowcheck import engine  # noqa: F401  (conftest.py's, once, not per engine)


WORDS, STATES = 10, 6          # per row and model: 10 encodings x 6 states = 60 cases
SLOW_WORDS, SLOW_STATES = 60, 20
# VCALLMS/VCALLMSR start VU0 micro mode. CTC2 is compiled; a write to vi31 (CMSAR1), which raises,
# leaves the block for Python (test_ctc2_write_rules_in_c_match_python_except_vi31).
PYTHON_ONLY = {"vcallms", "vcallmsr"}
ROWS = {r.mnemonic: r for r in vu0.ROWS}


def compiled_rows():
    return [(r, r.c) for r in vu0.ROWS if r.c]


def test_every_vu0_row_is_compiled_or_python_only_with_a_reason():
    for r in vu0.ROWS:
        assert bool(r.c.strip()) != bool(r.python_only.strip()), r.mnemonic
    assert {r.mnemonic for r in vu0.ROWS if r.python_only} == PYTHON_ONLY


def _assert_clean(res, rows, words, states):
    assert not res.failures, "\n".join(res.failures[:20])
    for r, _ in rows:
        n = res.compared.get(r.mnemonic, 0)
        # memory rows leave C on some addresses (checked to leave the state untouched)
        assert n >= words * states // 3, f"{r.mnemonic}: only {n} cases compared"
        assert n + res.exits.get(r.mnemonic, 0) == words * states, r.mnemonic


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_vu0_rows_compiled_semantics_match_python(model):
    rows = compiled_rows()
    res = rowcheck.check_rows(model, rows, WORDS, STATES, "vu0-rows")
    _assert_clean(res, rows, WORDS, STATES)
    # the load/store rows did meet addresses native code cannot serve, and left no trace
    assert res.exits.get("lqc2", 0) > 0 and res.exits.get("sqc2", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_vu0_rows_compiled_semantics_match_python_slow(model):
    rows = compiled_rows()
    res = rowcheck.check_rows(model, rows, SLOW_WORDS, SLOW_STATES, "vu0-rows-slow")
    _assert_clean(res, rows, SLOW_WORDS, SLOW_STATES)


# Lane values at the float edges: zero and -0, denormals (E = 0), the smallest and the largest
# normal, E = 255 (Fmax and its neighbours), 1 and 1 +- 1 ulp, of both signs.
EDGE_LANES = (0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000,
              0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0x7FFFFFFF, 0xFFFFFFFF, 0x3F800000, 0x3F800001,
              0xBF7FFFFF, 0x3F000000, 0x7F000000, 0x00FFFFFF)
LANE_HELPERS = ("vu_op(", "vu_madd(", "vu_sel(", "vu_map(")


def _edge_lanes(row, word, st, rng):
    """Every VF lane (VF0 kept), ACC, I and Q drawn from EDGE_LANES."""
    for v in st["VF"][1:]:
        v[:] = [rng.choice(EDGE_LANES) for _ in range(4)]
    st["vacc"] = [rng.choice(EDGE_LANES) for _ in range(4)]
    st["i"], st["q"] = rng.choice(EDGE_LANES), rng.choice(EDGE_LANES)


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_lane_helpers_match_python_on_edge_operands_in_every_lane(model):
    """vu0.h's lane helpers (one copy per float operation, lanes unrolled) on operands at the
    float edges in every lane and every dest mask: denormals, overflow, -0, the largest normal."""
    rows = [(r, c) for r, c in compiled_rows() if any(h in c for h in LANE_HELPERS)]
    assert {h for h in LANE_HELPERS if any(h in c for _, c in rows)} == set(LANE_HELPERS)
    res = rowcheck.check_rows(model, rows, WORDS, STATES, "vu0-edges", prepare=_edge_lanes)
    _assert_clean(res, rows, WORDS, STATES)


def test_ctc2_write_rules_in_c_match_python_except_vi31():
    """CTC2's compiled form leaves its vi31 write (which raises) to Python; every other control
    register's write rule is compared here."""
    rows = [(ROWS[mn], ROWS[mn].c) for mn in ("ctc2.ni", "ctc2.i")]
    res = rowcheck.check_rows("hw", rows, 40, 4, "ctc2",
                              accept=lambda w: (w >> 11) & 31 != 31)
    _assert_clean(res, rows, 40, 4)


def test_a_one_ulp_error_in_one_lane_is_caught():
    row = ROWS["vaddx"]
    wrong = "{ " + row.c + " if ((dest & 4) && fd) VF[fd][1] ^= 1; }"
    res = rowcheck.check_rows("hw", [(row, wrong)], WORDS, STATES, "planted")
    assert res.failures
    assert all("VF[" in f for f in res.failures)


def test_a_wrong_flag_rule_is_caught():
    row = ROWS["vmaddaw"]
    wrong = row.c.replace("dest, 1);", "dest, 0);")       # ignores the ACC overflow latch
    assert wrong != row.c
    res = rowcheck.check_rows("hw", [(row, wrong)], 40, STATES, "planted-latch")
    assert res.failures


def test_a_write_before_a_load_that_can_fail_is_caught():
    """ee.h: no state written before the last load or store that can fail. Writing VF first gives
    the same final state when the load succeeds, so only the exit cases can show it."""
    row = ROWS["lqc2"]
    wrong = "{ if (rt) VF[rt][0] = 0; " + row.c + " }"
    res = rowcheck.check_rows("hw", [(row, wrong)], WORDS, STATES, "planted-order")
    assert res.failures
    assert all("left native code after writing state" in f for f in res.failures)


def test_substitution_leaves_attributes_and_longer_names_alone():
    f = {"fs": 3, "ft": 4, "fd": 5, "dest": 15, "bc": 2, "imm": -8, "rs": 1}
    got = rowcheck.substitute_c("S.fs st->ft _fd fdx VF[fs][bc] + imm + rs", f)
    assert got == "S.fs st->ft _fd fdx VF[3][2] + (-8) + 1"

