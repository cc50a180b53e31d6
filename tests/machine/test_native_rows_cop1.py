"""Every COP1 row's compiled semantics (Row.c) does what its Python sem does.

issue 11, item 1 ("one table, two engines") for the COP1 rows: each row carries ``c`` next to
``sem``. tests/machine/native_rowcheck.py compiles each row's c for random encodings and runs it
on an ee_state against Machine.step() from the same random state, comparing every register,
FCR31, ACC, the ACC overflow latch, memory and the branch decision, under both float models.
A trial whose load or store the C fast path does not serve (unaligned, or through a RAM mirror)
must leave the state untouched (ee.h's rule), and is counted as handed back.
"""
from __future__ import annotations

import pytest

from eemu_ext.isa import cop1
from eemu_ext.native import build

if build.compiler() is None:
    pytest.skip("no host C compiler (cc or gcc): compiled row semantics cannot be built",
                allow_module_level=True)

from tests.machine.native_rowcheck import RowChecker  # noqa: E402


@pytest.fixture
def engine():
    """Once, not once per engine (overrides conftest.py's fixture by name): each row's C runs on
    its own ee_state against Machine.step(), the Python engine's."""
    return None


PER_ROW = 4          # random encodings per row
TRIALS = 60          # random states per encoding

_CHECKERS = {}


def checker(model: str) -> RowChecker:
    c = _CHECKERS.get(model)
    if c is None:
        c = _CHECKERS[model] = RowChecker(model)
    return c


def test_every_cop1_row_has_compiled_semantics():
    """No COP1 row is left without c, and none needs to be Python-only."""
    missing = [r.mnemonic for r in cop1.ROWS if not r.c.strip() and not r.python_only]
    assert not missing, missing
    assert not [r.mnemonic for r in cop1.ROWS if r.python_only]


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_cop1_rows_agree_with_python(model, request):
    """Each COP1 row: 4 encodings x 60 random states, C and Python states identical afterwards."""
    seed = request.config.getoption("--seed")
    rep = checker(model).check(cop1.ROWS, f"cop1:{seed}", PER_ROW, TRIALS)
    assert not rep.mismatches, "\n".join(rep.mismatches)
    assert set(rep.compared) == {r.mnemonic for r in cop1.ROWS}
    assert all(rep.compared[r.mnemonic] > 0 for r in cop1.ROWS), rep.compared
    # the memory rows were also handed back sometimes (unserved accesses), and still compared often
    for mn in ("lwc1", "swc1"):
        assert rep.handed_back[mn] > 0 and rep.compared[mn] > PER_ROW * TRIALS // 2, (mn, rep)


def _rows(*names):
    return [r for r in cop1.ROWS if r.mnemonic in names]


def test_a_dropped_flag_update_is_caught(request):
    """ADD.S whose C forgets FCR31 on an overflow or underflow is reported, naming fcr31."""
    rows = _rows("add.s")
    rep = checker("hw").check(rows, "planted-flags", 4, 200, patch=lambda row, c: c.replace(
        "if (r >> 32) S.fcr31 = fcr_arith(S.fcr31, r);\nelse ", ""))
    assert rep.mismatches and all("fcr31" in m for m in rep.mismatches), rep.mismatches


def test_a_one_ulp_error_is_caught():
    """MUL.S one ulp off in C is reported at the FPR it writes."""
    rows = _rows("mul.s")
    rep = checker("trunc").check(rows, "planted-ulp", 2, 20, patch=lambda row, c: c.replace(
        "F[fd] = (uint32_t)r;", "F[fd] = (uint32_t)r + 1;"))
    assert rep.mismatches and all("F[" in m for m in rep.mismatches), rep.mismatches


def test_a_wrong_branch_sense_is_caught():
    """BC1T with its condition inverted is reported as a wrong next pc."""
    rep = checker("hw").check(_rows("bc1t"), "planted-branch", 2, 20,
                              patch=lambda row, c: c.replace("!= 0", "== 0"))
    assert rep.mismatches and all("next pc" in m for m in rep.mismatches), rep.mismatches


def test_a_write_before_a_failing_load_is_caught():
    """LWC1 that writes its FPR before the load decides whether it can be served breaks ee.h's
    rule; the trials where the load is handed back report it."""
    rep = checker("hw").check(_rows("lwc1"), "planted-order", 4, 60, patch=lambda row, c:
                              "F[ft] = 0;\n" + c)
    assert any("changed before the unserved access" in m for m in rep.mismatches), rep.mismatches


def test_a_wrong_store_address_is_caught():
    """SWC1 storing 4 bytes too high is reported (memory window or stray store)."""
    rep = checker("hw").check(_rows("swc1"), "planted-store", 2, 30,
                              patch=lambda row, c: c.replace("ST32((R[", "ST32(4 + (R["))
    assert rep.mismatches and all("memory" in m or "stored" in m for m in rep.mismatches)


def test_a_lost_overflow_latch_is_caught():
    """MADDA.S that never sets the ACC overflow latch is reported at acc_ovf."""
    rep = checker("hw").check(_rows("madda.s"), "planted-latch", 4, 150,
                              patch=lambda row, c: c.replace("S.acc_ovf = r & F_OVF;", "S.acc_ovf = 0;"))
    assert rep.mismatches and all("acc_ovf" in m for m in rep.mismatches), rep.mismatches
