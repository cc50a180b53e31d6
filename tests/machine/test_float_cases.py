"""Every executable COP1/VU0 case of tests/machine/cases_fpu.py, run per mnemonic.

(tests/machine/test_coverage.py also runs them and checks the coverage counts; this
file runs them on their own so a failure names the COP1/VU0 row directly.)
"""
from __future__ import annotations

import pytest

from eemu_ext.isa import ROWS
from tests.machine.cases_fpu import CASES

FPU_MNEMONICS = sorted({r.mnemonic for r in ROWS if r.cls in ("cop1", "vu0")})


def test_every_cop1_vu0_row_has_a_case():
    assert not [mn for mn in FPU_MNEMONICS if not CASES.get(mn)]


@pytest.mark.parametrize("mnemonic", FPU_MNEMONICS)
def test_cases(mnemonic):
    for case in CASES[mnemonic]:
        m = case()
        assert m.coverage[mnemonic] > 0, f"{case.__name__} did not execute {mnemonic}"
