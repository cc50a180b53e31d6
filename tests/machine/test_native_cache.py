"""The native engine's build cache checks what it loads (ground/ccache.py): a library is
loaded only when it matches the checksum written at its build, and a damaged one is built again.
A failure of the host (a cache directory that is a file, a compiler that fails) is a HostError
naming the cache or the compiler, never an error of the emulated code at some pc."""
import os
import subprocess
import sys

import pytest

from eemu_ext.errors import EmulationError, HostError
from eemu_ext.engines.native import build
from ground import ccache
from eemu_ext.core.testing import asm, run_words

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no host C compiler: no native engine here")

SOURCE = {"answer.c": "int answer(void) { return 42; }\n"}


@pytest.fixture
def engine(monkeypatch):
    """This module is about the native engine alone."""
    monkeypatch.setenv("EEMU_ENGINE", "native")
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    return "native"


@pytest.fixture
def cache(engine, monkeypatch, tmp_path):
    """An empty native cache of the test's own, and no program kept from earlier tests."""
    d = tmp_path / "native"
    monkeypatch.setenv("EEMU_NATIVE_CACHE", str(d))
    from eemu_ext.engines.native import engine as eng
    monkeypatch.setattr(eng, "_PROGRAMS", {})
    monkeypatch.setattr(eng, "_SPANS", {})
    monkeypatch.setattr(eng, "_WAITED", {})
    return d


def _libraries(d, name):
    return sorted(p / ccache.LIBRARY for p in d.iterdir() if p.name.startswith(name + "-"))


def _truncate(path):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 3)


def _build_elsewhere(name="answer"):
    """The library as an earlier process left it in the cache (built, not loaded here)."""
    return build._cache().library(name, SOURCE)


def test_a_build_writes_the_checksum_of_its_library(cache):
    _build_elsewhere()
    [lib] = _libraries(cache, "answer")
    assert (lib.parent / ccache.CHECKSUM).read_text().strip() == ccache._sha256(str(lib))
    assert ccache.intact(str(lib.parent))


def test_a_truncated_library_is_built_again_not_loaded(cache):
    _build_elsewhere()
    [lib] = _libraries(cache, "answer")
    whole = os.path.getsize(lib)
    _truncate(lib)
    assert not ccache.intact(str(lib.parent))
    assert build.shared_library("answer", SOURCE).answer() == 42
    assert os.path.getsize(lib) == whole and ccache.intact(str(lib.parent))


def test_a_library_with_no_checksum_is_built_again(cache):
    _build_elsewhere()
    [lib] = _libraries(cache, "answer")
    os.unlink(lib.parent / ccache.CHECKSUM)
    assert build.shared_library("answer", SOURCE).answer() == 42
    assert ccache.intact(str(lib.parent))


def _sum_words():
    return [asm("addu $2, $4, $5")]


EARLIER_PROCESS = """
from eemu_ext.core.testing import asm, run_words
m = run_words(None, [asm("addu $2, $4, $5")], setup=lambda m: (m.gpr.__setitem__(4, 2), m.gpr.__setitem__(5, 3)))
assert m.gpr[2] == 5 and m.native.prog is not None
"""


def test_a_damaged_program_in_the_cache_is_rebuilt_and_the_run_is_right(cache):
    subprocess.run([sys.executable, "-c", EARLIER_PROCESS], check=True, env=dict(os.environ))
    [lib] = _libraries(cache, "program")
    _truncate(lib)
    m = run_words(None, _sum_words(), setup=lambda m: (m.gpr.__setitem__(4, 20), m.gpr.__setitem__(5, 3)))
    assert m.gpr[2] == 23 and m.native.prog is not None
    assert ccache.intact(str(lib.parent))


def test_a_cache_directory_that_is_a_file_is_a_host_error_naming_it(cache):
    cache.write_text("not a directory\n")
    with pytest.raises(HostError) as e:
        run_words(None, _sum_words())
    assert not isinstance(e.value, EmulationError)
    assert str(cache) in str(e.value) and "pc 0x" not in str(e.value)


def test_a_failing_compiler_is_a_host_error_naming_the_compiler(cache, monkeypatch):
    monkeypatch.setenv("CC", "/bin/false")
    with pytest.raises(HostError) as e:
        run_words(None, _sum_words())
    assert not isinstance(e.value, EmulationError)
    assert "/bin/false" in str(e.value) and "pc 0x" not in str(e.value)


STANDIN = os.path.join(os.path.dirname(__file__), "..", "..", "standin", "standin.elf")
PATCHED = "SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki"


def _patched_call(lines):
    """The stand-in with PATCHED's first instructions replaced by `lines`, called once: its v0."""
    from eemu_ext.core.machine import Machine
    m = Machine()
    m.load_elf(STANDIN)
    at = m.symbol(PATCHED)
    for i, line in enumerate(lines):
        m.write_u32(at + 4 * i, asm(line, at + 4 * i))
    return m.call(PATCHED, 0, 0)


def test_code_patched_after_loading_runs_as_patched_not_as_a_program_of_other_code(cache):
    """The walk of the code is kept per image; a function patched after loading (as the ABI tests
    patch SetAnmCtrlWork) reaches code that walk never saw. Two patches that agree on the bytes
    the first walk found and differ beyond them each run their own code."""
    assert _patched_call(["addiu v0, zero, 1", "jr ra", "nop"]) == 1      # the walk: 3 words there
    head = ["nop", "nop", "nop"]
    assert _patched_call(head + ["addiu v0, zero, 2", "jr ra", "nop"]) == 2
    assert _patched_call(head + ["addiu v0, zero, 3", "jr ra", "nop"]) == 3
