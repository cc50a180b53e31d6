"""The native engine is tiered (eemu_ext/engines/native/engine.py, COMPILE_AFTER): a program at hand runs
at once; otherwise the Python engine runs until it has executed COMPILE_AFTER instructions of the
same code, and only then is the program walked and compiled. Results and step counts are the
same either way."""
import os

import pytest

from eemu_ext import Machine
from eemu_ext.engines.native.build import compiler

ELF = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")
pytestmark = pytest.mark.skipif(compiler() is None, reason="no host C compiler: no native engine here")


@pytest.fixture
def engine(monkeypatch, tmp_path):
    """This module is about the native engine alone, with its own empty program cache."""
    monkeypatch.setenv("EEMU_ENGINE", "native")
    monkeypatch.setenv("EEMU_NATIVE_CACHE", str(tmp_path / "native"))
    from eemu_ext.engines.native import engine as eng
    monkeypatch.setattr(eng, "_WAITED", {})
    monkeypatch.setattr(eng, "_PROGRAMS", {})
    monkeypatch.setattr(eng, "_SPANS", {})
    return "native"


def _programs(tmp_path):
    d = tmp_path / "native"
    return sorted(p.name for p in d.iterdir() if p.name.startswith("program-")) if d.is_dir() else []


def _fib(threshold, monkeypatch, n=12):
    monkeypatch.setenv("EEMU_COMPILE_AFTER", str(threshold))
    m = Machine()
    m.load_elf(ELF)
    return m, m.call("fib", n), m.steps


def test_a_short_run_below_the_threshold_compiles_nothing(engine, monkeypatch, tmp_path):
    m, v0, steps = _fib(10_000_000, monkeypatch)
    assert m.native.prog is None and _programs(tmp_path) == []
    assert v0 == 144 and steps > 0


def test_past_the_threshold_the_program_is_compiled_and_runs_native(engine, monkeypatch, tmp_path):
    m, v0, steps = _fib(500, monkeypatch)         # fib(12) runs well over 500 instructions
    assert m.native.prog is None                 # the first run went in Python ...
    assert m.call("fib", 12) == v0 and m.steps == steps
    assert m.native.prog is not None and len(_programs(tmp_path)) == 1   # ... the second native


def test_a_cached_program_runs_at_once_in_a_fresh_process_state(engine, monkeypatch, tmp_path):
    _fib(0, monkeypatch)                          # compiled at once, into the disk cache
    from eemu_ext.engines.native import engine as eng
    monkeypatch.setattr(eng, "_WAITED", {})
    monkeypatch.setattr(eng, "_PROGRAMS", {})
    monkeypatch.setattr(eng, "_SPANS", {})        # as a new process: only the disk cache remains
    m, v0, _ = _fib(10_000_000, monkeypatch)
    assert m.native.prog is not None and v0 == 144


def test_a_bad_threshold_is_refused_by_name(engine, monkeypatch):
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "lots")
    with pytest.raises(ValueError, match="EEMU_COMPILE_AFTER"):
        Machine()
