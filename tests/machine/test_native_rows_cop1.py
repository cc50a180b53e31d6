"""Every COP1 row's compiled semantics (Row.c) does what its Python sem does.

One table, two engines, for the COP1 rows: each row carries ``c`` next to
``sem``. tests/machine/native_rowcheck.py compiles each row's c for random encodings and runs it
on an ee_state against Machine.step() from the same random state, comparing every register,
FCR31, ACC, the ACC overflow latch, memory and the next pc, under both float models.
A case whose load or store the C fast path does not serve (misaligned, or through a RAM mirror)
must leave the state untouched (ee.h's rule), and is counted as an exit.
"""
from __future__ import annotations

import pytest

from eemu_ext.isa import cop1
from tests.machine import native_rowcheck as rowcheck   # skips the module without a C compiler
from tests.machine.native_rowcheck import engine  # noqa: F401  (conftest.py's, once, not per engine)


PER_ROW = 4          # random encodings per row
TRIALS = 60          # random states per encoding


def test_every_cop1_row_has_compiled_semantics():
    """No COP1 row is left without c, and none needs to be Python-only."""
    missing = [r.mnemonic for r in cop1.ROWS if not r.c.strip() and not r.python_only]
    assert not missing, missing
    assert not [r.mnemonic for r in cop1.ROWS if r.python_only]


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_cop1_rows_agree_with_python(model, request):
    """Each COP1 row: 4 encodings x 60 random states, C and Python states identical afterwards."""
    seed = request.config.getoption("--seed")
    res = rowcheck.check_rows(model, [(r, r.c) for r in cop1.ROWS], PER_ROW, TRIALS, f"cop1:{seed}")
    assert not res.failures, "\n".join(res.failures[:20])
    assert set(res.compared) == {r.mnemonic for r in cop1.ROWS}
    for r in cop1.ROWS:
        assert res.compared[r.mnemonic] + res.exits.get(r.mnemonic, 0) == PER_ROW * TRIALS, r.mnemonic
    # the memory rows also left C sometimes (unserved accesses), and were still compared often
    for mn in ("lwc1", "swc1"):
        assert res.exits.get(mn, 0) > 0 and res.compared[mn] > PER_ROW * TRIALS // 2, (mn, res.compared, res.exits)


def planted(mnemonic, rewrite):
    """The COP1 row ``mnemonic`` with its C rewritten (the rewrite must change it)."""
    row = next(r for r in cop1.ROWS if r.mnemonic == mnemonic)
    wrong = rewrite(row.c)
    assert wrong != row.c, mnemonic
    return [(row, wrong)]


def test_a_dropped_flag_update_is_caught(request):
    """ADD.S whose C forgets FCR31 on an overflow or underflow is reported, naming fcr31."""
    res = rowcheck.check_rows("hw", planted("add.s", lambda c: c.replace(
        "if (r >> 32) S.fcr31 = fcr_arith(S.fcr31, r);\nelse ", "")), 4, 200, "planted-flags")
    assert res.failures and all("fcr31" in f for f in res.failures), res.failures


def test_a_one_ulp_error_is_caught():
    """MUL.S one ulp off in C is reported at the FPR it writes."""
    res = rowcheck.check_rows("trunc", planted("mul.s", lambda c: c.replace(
        "F[fd] = (uint32_t)r;", "F[fd] = (uint32_t)r + 1;")), 2, 20, "planted-ulp")
    assert res.failures and all("F[" in f for f in res.failures), res.failures


def test_a_wrong_branch_sense_is_caught():
    """BC1T with its condition inverted is reported as a wrong next pc."""
    res = rowcheck.check_rows("hw", planted("bc1t", lambda c: c.replace("!= 0", "== 0")), 2, 20,
                              "planted-branch")
    assert res.failures and all("next pc" in f for f in res.failures), res.failures


def test_a_write_before_a_failing_load_is_caught():
    """LWC1 that writes its FPR before the load decides whether it can be served breaks ee.h's
    rule; the cases where the load leaves C report it."""
    res = rowcheck.check_rows("hw", planted("lwc1", lambda c: "F[ft] = 0;\n" + c), 4, 60, "planted-order")
    assert any("left native code after writing state" in f for f in res.failures), res.failures


def test_a_wrong_store_address_is_caught():
    """SWC1 storing 4 bytes too high is reported (compared memory or a stray store)."""
    res = rowcheck.check_rows("hw", planted("swc1", lambda c: c.replace("ST32((R[", "ST32(4 + (R[")),
                              2, 30, "planted-store")
    assert res.failures and all("ram[" in f or "vu0[" in f or "stored" in f for f in res.failures), \
        res.failures


def test_a_lost_overflow_latch_is_caught():
    """MADDA.S that never sets the ACC overflow latch is reported at acc_ovf."""
    res = rowcheck.check_rows("hw", planted("madda.s", lambda c: c.replace(
        "S.acc_ovf = r & F_OVF;", "S.acc_ovf = 0;")), 4, 150, "planted-latch")
    assert res.failures and all("acc_ovf" in f for f in res.failures), res.failures
