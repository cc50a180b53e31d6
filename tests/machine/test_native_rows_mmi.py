"""The MMI rows' compiled semantics (Row.c) do what their Python sem does, bit for bit.

Every MMI row has a compiled form (eemu_ext/engines/native/csrc/mmi.h supplies the
mmi_* helpers). For every row its C (field tokens substituted) and its sem run on the same random
state — 128-bit GPRs biased to lane edges (0, all ones, 0x8000 / 0x7FFF / 0xFFFF halfwords, the
most negative word), rd, rs, rt including r0 and aliasing each other, every shift amount and SA
value, divisors 0 and -1 against 0x80000000 — and GPRs, HI/LO (both pipelines) and the rest of
the state are compared as raw integers (tests/machine/native_rowcheck.py). A planted
off-by-one in one lane is caught.

DECISION: MMI rows touch no float state, so they are checked under the hw model only.
"""
from __future__ import annotations

import pytest

from eemu_ext.isa import mmi
from eemu_ext.isa.row import fields_of
from tests.machine import native_rowcheck as rowcheck   # skips the module without a C compiler
from tests.machine.native_rowcheck import engine  # noqa: F401  (conftest.py's, once, not per engine)


WORDS, STATES = 12, 6
SLOW_WORDS, SLOW_STATES = 80, 20
ROWS = {r.mnemonic: r for r in mmi.ROWS}
DIVIDES = ("pdivw", "pdivuw", "pdivbw")


def divide_edges(row, word, st, rng):
    """Divisors 0 and -1 (word and halfword) against 0x80000000 and other edge dividends."""
    if row.mnemonic not in DIVIDES or rng.random() < 0.4:
        return
    f = fields_of(word)
    if f["rt"]:
        ws = [rng.choice((0, 0xFFFFFFFF, 0x0000FFFF, 1, rng.getrandbits(32))) for _ in range(4)]
        st["R"][f["rt"]] = ws[0] | ws[1] << 32
        st["RH"][f["rt"]] = ws[2] | ws[3] << 32
    if f["rs"] and f["rs"] != f["rt"]:
        ws = [rng.choice((0x80000000, 0x7FFFFFFF, 0xFFFFFFFF, 0, rng.getrandbits(32))) for _ in range(4)]
        st["R"][f["rs"]] = ws[0] | ws[1] << 32
        st["RH"][f["rs"]] = ws[2] | ws[3] << 32


def test_every_mmi_row_is_compiled():
    for r in mmi.ROWS:
        assert r.c.strip() and not r.python_only, r.mnemonic


def _assert_clean(res, words, states):
    assert not res.failures, "\n".join(res.failures[:20])
    for r in mmi.ROWS:
        assert res.compared.get(r.mnemonic, 0) == words * states, r.mnemonic


def test_mmi_rows_compiled_semantics_match_python():
    res = rowcheck.check_rows("hw", [(r, r.c) for r in mmi.ROWS], WORDS, STATES, "mmi-rows",
                              prepare=divide_edges)
    _assert_clean(res, WORDS, STATES)


@pytest.mark.slow
def test_mmi_rows_compiled_semantics_match_python_slow():
    res = rowcheck.check_rows("hw", [(r, r.c) for r in mmi.ROWS], SLOW_WORDS, SLOW_STATES,
                              "mmi-rows-slow", prepare=divide_edges)
    _assert_clean(res, SLOW_WORDS, SLOW_STATES)


def test_a_lane_off_by_one_is_caught():
    row = ROWS["paddw"]
    wrong = "{ " + row.c + " if (rd) RH[rd] += 1; }"          # word 2 of rd one too large
    res = rowcheck.check_rows("hw", [(row, wrong)], WORDS, STATES, "planted")
    assert res.failures
    assert all("RH[" in f for f in res.failures)


def test_a_saturation_error_is_caught():
    """A wrapping add where the row saturates differs only on overflowing lanes."""
    row = ROWS["paddsh"]
    wrong = row.c.replace("mmi_adds", "mmi_add")
    assert wrong != row.c
    res = rowcheck.check_rows("hw", [(row, wrong)], 40, STATES, "planted-sat")
    assert res.failures


def test_a_hi_lo_pipeline_mixup_is_caught():
    row = ROWS["pmfhi"]
    wrong = "R[rd] = HI[1]; RH[rd] = HI[0];"
    res = rowcheck.check_rows("hw", [(row, wrong)], WORDS, STATES, "planted-hilo")
    assert res.failures
