"""One table, two engines: every executable row carries compiled
semantics next to its Python sem, or says why it is Python-only; the C runtime every block
includes exists."""
import os

from eemu_ext.isa import ROWS
from eemu_ext.engines.native.build import CSRC
from eemu_ext.engines.native.translate import PRELUDE_HEADERS

import pytest


@pytest.fixture
def engine():
    """Once, not once per engine (overrides conftest.py's fixture by name): the table and the
    translator's walk are checked directly."""
    return None


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


def test_the_walk_finds_the_blocks_the_compile_translates(engine):
    """The walk that keys the program cache (extents only) and the translation that is compiled
    (with C text) agree on every block's start, end, size and successors, on the stand-in."""
    from eemu_ext import Machine
    from eemu_ext.engines.native.engine import code_ranges
    from eemu_ext.engines.native.translate import Translator
    m = Machine(engine="python")
    img = m.load_elf(os.path.join(os.path.dirname(__file__), "..", "..", "standin", "standin.elf"))
    roots = sorted({img.entry} | {a for a, _s, _n in img._funcs})
    ranges = code_ranges(m)

    def inside(pc):
        return any(a <= pc < b for a, b in ranges)
    tr = Translator(m)
    full = tr.discover(roots, inside)
    walk = tr.discover(roots, inside, text=False)
    assert len(full) > 100
    assert {a: (b.end, b.n, b.succ) for a, b in walk.items()} == {a: (b.end, b.n, b.succ) for a, b in full.items()}
