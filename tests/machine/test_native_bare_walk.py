"""Code without an image (eemu_ext/engines/native/engine.py, translate_program): the walk that
finds its blocks is kept in the process by its roots, so machines that hold the same code walk it
once; it is taken again only where every word it read is the same, so a machine whose code
differs in a word the walk read, even one left to Python outside every block, is walked anew and
gets its own program."""
import pytest

from eemu_ext import Machine
from eemu_ext.core.testing import CODE_BASE as B, program, put_words, run_words
from eemu_ext.engines.native import engine as eng
from eemu_ext.engines.native.build import compiler
from eemu_ext.engines.native.translate import Translator

pytestmark = pytest.mark.skipif(compiler() is None, reason="no host C compiler: no native engine here")


@pytest.fixture
def engine(monkeypatch):
    """This module is about the native engine alone."""
    monkeypatch.setenv("EEMU_ENGINE", "native")
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    monkeypatch.setattr(eng, "_BARE_WALKS", {})
    return "native"


@pytest.fixture
def walks(engine, monkeypatch):
    """The starts of the walks the translator makes to find blocks (not those that write C)."""
    made = []
    discover = Translator.discover

    def counting(self, roots, *a, **kw):
        if kw.get("text") is False:
            made.append(sorted(roots))
        return discover(self, roots, *a, **kw)
    monkeypatch.setattr(Translator, "discover", counting)
    return made


def test_machines_holding_the_same_code_walk_it_once(walks):
    for _ in range(3):
        m = run_words(None, program(["addiu v0, zero, 7", "jr ra", "nop"]))
        assert m.R[2] == 7
    assert walks == [[B]]


def test_a_word_the_walk_left_to_python_changed_is_walked_again(walks):
    first = Machine()
    put_words(first, B, program(["addiu v0, zero, 7", "syscall 0", "jr ra", "nop"]))
    assert eng.translate_program(first, [B]).starts == [B, B + 8]      # the syscall runs in Python
    second = Machine()
    put_words(second, B, program(["addiu v0, zero, 7", "addiu v0, v0, 1", "jr ra", "nop"]))
    assert eng.translate_program(second, [B]).starts == [B]            # one block, the word included
    assert walks == [[B], [B]]
    assert run_words(second, None).R[2] == 8
