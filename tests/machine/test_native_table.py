"""One table, two engines (issue: the native engine): every executable row carries compiled
semantics next to its Python sem, or says why it is Python-only; the C runtime every block
includes exists."""
import os

from eemu_ext.isa import ROWS
from eemu_ext.native.build import CSRC
from eemu_ext.native.translate import PRELUDE_HEADERS


def test_every_row_has_a_compiled_form_or_says_why_not():
    missing = [r.mnemonic for r in ROWS if not r.c and not r.python_only]
    assert not missing, f"rows with neither c nor python_only: {missing}"


def test_python_only_rows_have_no_compiled_form():
    both = [r.mnemonic for r in ROWS if r.c and r.python_only]
    assert not both, f"rows with both c and python_only: {both}"


def test_every_header_a_block_includes_exists():
    assert all(os.path.exists(os.path.join(CSRC, h)) for h in PRELUDE_HEADERS)


def test_the_table_test_goes_red_on_a_row_without_c():
    import dataclasses
    rows = list(ROWS)
    rows[0] = dataclasses.replace(rows[0], c="")
    assert [r.mnemonic for r in rows if not r.c and not r.python_only] == [rows[0].mnemonic]
