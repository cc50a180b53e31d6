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

