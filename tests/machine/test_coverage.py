"""Coverage: every COP1, COP2-macro (VU0), MMI and SA row of the table has an executing test.

A test lists every COP1, COP2-macro and MMI instruction of the table and
fails if any lacks an executing test. The cases come from tests/machine/cases_mmi.py (MMI, SA)
and tests/machine/cases_fpu.py (COP1, VU0). Each case runs on
``Machine(coverage=True)``; the test checks through ``m.coverage`` that the row it is filed under
really executed.
"""
from __future__ import annotations

import importlib

import pytest

from eemu_ext import Machine
from eemu_ext.isa import ROWS

COVERED_CLASSES = ("cop1", "vu0", "mmi", "sa")


def _case_modules():
    return [importlib.import_module("tests.machine.cases_mmi"), importlib.import_module("tests.machine.cases_fpu")]


def _all_cases():
    cases = {}
    for mod in _case_modules():
        for mn, lst in mod.CASES.items():
            cases.setdefault(mn, []).extend(lst)
    return cases


CASES = _all_cases()
TABLE = sorted({r.mnemonic for r in ROWS if r.cls in COVERED_CLASSES})


def test_every_row_has_a_case():
    """Fails listing every COP1/VU0/MMI/SA row mnemonic that no case is filed under."""
    missing = [mn for mn in TABLE if not CASES.get(mn)]
    assert not missing, (f"{len(missing)} of {len(TABLE)} rows have no executing case: "
                         + ", ".join(missing))


def test_cases_name_real_rows():
    """A case filed under a mnemonic the table does not have is a typo that hides a gap."""
    known = {r.mnemonic for r in ROWS}
    assert not [mn for mn in CASES if mn not in known]


@pytest.mark.parametrize("mnemonic", TABLE)
def test_case_executes_row(mnemonic, monkeypatch):
    """Run every case filed under the mnemonic and check the machine counted it."""
    cases = CASES.get(mnemonic)
    if not cases:
        pytest.fail(f"no case for {mnemonic} (see test_every_row_has_a_case)")
    built = []
    init = Machine.__init__

    def recording_init(self, *a, **kw):
        init(self, *a, **kw)
        built.append(self)

    monkeypatch.setattr(Machine, "__init__", recording_init)
    for case in cases:
        built.clear()
        returned = case()
        machines = built + ([returned] if isinstance(returned, Machine) else [])
        counted = sum(m.coverage[mnemonic] for m in machines if m.coverage is not None)
        assert counted > 0, (f"case {getattr(case, '__name__', case)} filed under {mnemonic} "
                             f"never executed it (machines built: {len(built)})")
