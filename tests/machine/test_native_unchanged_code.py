"""A write over translated code that leaves its bytes as they were (a restore of a page the code
shares with data, the same word written again) keeps the native program, and a hook going in or
out only re-indexes the blocks: neither walks, hashes or loads the program again. Code whose
bytes did change is translated afresh (test_native_code_changes.py, test_snapshot.py)."""
import os

import pytest

from eemu_ext import Machine
from eemu_ext.core.testing import program
from eemu_ext.engines.native import engine as eng
from eemu_ext.engines.native.build import compiler

ELF = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")
# the native engine alone: conftest's engine fixture, given only "native"
pytestmark = [pytest.mark.skipif(compiler() is None, reason="no host C compiler: no native engine here"),
              pytest.mark.parametrize("engine", ["native"], indirect=True)]


@pytest.fixture
def translations(engine, monkeypatch):
    """The calls of translate_program from here on."""
    calls = []
    real = eng.translate_program

    def counted(*args, **kw):
        calls.append(args)
        return real(*args, **kw)
    monkeypatch.setattr(eng, "translate_program", counted)
    return calls


def _machine():
    m = Machine()
    m.load_elf(ELF)
    assert m.call("fib", 10) == 55
    return m


def test_the_same_bytes_written_over_code_keep_the_program(translations):
    m = _machine()
    prog, a = m.native.prog, m.symbol("fib")
    translations.clear()
    m.write(a, m.read(a, 64))
    assert m.call("fib", 10) == 55
    assert translations == [] and m.native.prog is prog


def test_a_restore_of_code_as_it_was_keeps_the_program(translations):
    m = _machine()
    prog, a = m.native.prog, m.symbol("fib")
    s = m.snapshot()
    m.write(a, m.read(a, 16))           # the page is written, its bytes unchanged
    translations.clear()
    assert m.restore(s) >= 1
    assert m.call("fib", 10) == 55
    assert translations == [] and m.native.prog is prog


def test_a_restore_that_brings_back_older_code_runs_that_code(translations):
    m = _machine()
    a = m.symbol("fib")
    s = m.snapshot()
    for i, w in enumerate(program(["addiu v0, zero, 99", "jr ra", "nop"], a)):
        m.write_u32(a + 4 * i, w)
    assert m.call("fib", 10) == 99
    m.restore(s)
    assert m.call("fib", 10) == 55, "the restored code ran, not the patched translation"


def test_a_hook_going_in_and_out_reindexes_without_translating(translations):
    m = _machine()
    prog = m.native.prog
    translations.clear()
    with m.hooks.add("address", lambda mm: 7, "fib"):
        assert m.call("fib", 10) == 7
    assert m.call("fib", 10) == 55
    assert translations == [] and m.native.prog is prog


def test_the_block_index_leaves_a_block_with_a_hook_inside_to_python(engine):
    """Every block's first word holds its number, but for a block with a hooked address after
    its first word (-1: the Python engine, whose blocks stop at the hook); a hooked word holds
    -2 (-3 a tap, -4 a bump hook), whatever block starts there."""
    m = _machine()
    prog = m.native.prog
    long = max(range(len(prog.starts)), key=lambda i: prog.ends[i] - prog.starts[i])
    inside = prog.starts[long] + 8
    heap_hook = m.symbol("fib")
    with m.hooks.add("address", lambda mm: 0, inside), m.hooks.add("tap", addr=heap_hook):
        m.native._ensure(heap_hook)
        hooks = {inside: -2, heap_hook: -3}
        want = [-1] * prog.nwords
        for i, (a, e) in enumerate(zip(prog.starts, prog.ends)):
            if not any(a < h < e for h in hooks):
                want[(a - prog.lo) >> 2] = i
        for h, code in hooks.items():
            want[(h - prog.lo) >> 2] = code
        assert list(m.native.bidx) == want and want[(prog.starts[long] - prog.lo) >> 2] == -1
    m.native._ensure(heap_hook)
    assert [i for i in m.native.bidx if i >= 0] == list(range(len(prog.starts)))
