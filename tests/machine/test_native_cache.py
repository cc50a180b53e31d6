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
from eemu_ext.engines.native.translate import PRELUDE
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


# -- a program of an image, compiled in units (engine._library_in_units) ------------------------------

def _units(d):
    return sorted(p.name for p in d.iterdir() if p.name.startswith("unit-program-"))


def test_an_image_program_is_compiled_in_units_and_a_patched_function_recompiles_only_its_own(cache):
    """The stand-in's program is compiled in units of code (UNIT_SPAN bytes each), each cached by
    its text; with one function replaced in place, the next program compiles the unit holding it
    and links it with the units already built, and runs the replaced code."""
    assert _patched_call(["addiu v0, zero, 1", "jr ra", "nop"]) == 1
    first = _units(cache)
    assert len(first) > 1 and len(_libraries(cache, "program")) == 1
    assert _patched_call(["addiu v0, zero, 2", "jr ra", "nop"]) == 2
    assert len(_units(cache)) == len(first) + 1 and set(first) < set(_units(cache))
    assert len(_libraries(cache, "program")) == 2


def test_a_damaged_unit_is_compiled_again(cache):
    """A unit's object is checked against its checksum like a library: a truncated one is compiled
    again, never linked."""
    assert _patched_call(["addiu v0, zero, 1", "jr ra", "nop"]) == 1
    unit = cache / _units(cache)[0] / ccache.OBJECT
    _truncate(unit)
    for lib in _libraries(cache, "program"):
        _truncate(lib)
    from eemu_ext.engines.native import engine as eng
    eng._PROGRAMS.clear()
    assert _patched_call(["addiu v0, zero, 3", "jr ra", "nop"]) == 3
    assert ccache.intact(str(unit.parent), unit.name)


def test_a_library_linked_from_objects_needs_the_callers_key(cache):
    with pytest.raises(ccache.BuildError, match="needs the caller's key"):
        build._cache().library("linked", SOURCE, objects=["elsewhere.o"])


# -- the precompiled prelude (build.precompiled_prelude) ---------------------------------------------

def _sum_run():
    m = run_words(None, _sum_words(), setup=lambda m: (m.gpr.__setitem__(4, 20), m.gpr.__setitem__(5, 3)))
    assert m.gpr[2] == 23 and m.native.prog is not None
    return m


def _preludes(d):
    return sorted(p / (PRELUDE + ".gch") for p in d.iterdir() if p.name.startswith("prelude-"))


def _objects(d):
    """{directory: flags} of the program's objects: its blocks' unit (compiled without the run
    loop) and the run loop's main unit."""
    [lib] = _libraries(d, "program")
    model = "-DEE_MODEL_HW=1" if "-hw-" in lib.parent.name else "-DEE_MODEL_TRUNC=1"
    out = {p: (model, "-O1", "-DEE_RUNTIME_H") for p in d.iterdir() if p.name.startswith("unit-program-")}
    out.update({p: (model, "-O1") for p in d.iterdir() if p.name.startswith("main-program-")})
    return out


def _compile_without_prelude(unit_dir, flags, out):
    """An object's own sources compiled as before the prelude was precompiled: from the text."""
    subprocess.run([build.compiler(), *build.CFLAGS, *flags, "-c", "-I", str(unit_dir), "-o", str(out),
                    str(unit_dir / build.UNIT)], check=True)


def test_a_program_is_compiled_with_the_precompiled_prelude_into_the_same_library(cache, tmp_path):
    """The prelude (every header a program includes) is precompiled once into the cache per set
    of flags (with the run loop, and without it for the blocks' unit); every object of a program
    compiled with it is, byte for byte, the object its text alone gives."""
    _sum_run()
    gchs = _preludes(cache)
    assert len(gchs) == 2 and all(ccache.intact(str(g.parent), g.name) for g in gchs)
    objects = _objects(cache)
    assert len(objects) == 2
    for unit_dir, flags in objects.items():
        assert not (unit_dir / (PRELUDE + ".gch")).exists()        # the build keeps only its sources
        _compile_without_prelude(unit_dir, flags, tmp_path / "from-text.o")
        assert (tmp_path / "from-text.o").read_bytes() == (unit_dir / ccache.OBJECT).read_bytes()


@pytest.mark.skipif("Free Software Foundation" not in build.compiler_version(build.compiler() or "cc"),
                    reason="only gcc reports the precompiled header it uses (-H)")
def test_the_compiler_uses_the_precompiled_prelude(cache):
    _sum_run()
    gchs = _preludes(cache)
    for unit_dir, flags in _objects(cache).items():
        used = []
        for gch in gchs:
            os.symlink(gch, unit_dir / gch.name)
            r = subprocess.run([build.compiler(), *build.CFLAGS, *flags, "-c", "-H", "-I", str(unit_dir),
                                "-o", os.devnull, str(unit_dir / build.UNIT)], capture_output=True, text=True, check=True)
            os.unlink(unit_dir / gch.name)
            if r.stderr.splitlines()[0] == "! " + str(unit_dir / gch.name):
                used.append(gch)
        assert len(used) == 1, (unit_dir.name, used)       # each object's flags have their own


def test_a_changed_header_is_a_new_precompiled_prelude(cache):
    sources = build.runtime_headers()
    flags = ("-DEE_MODEL_HW=1", "-O1")
    first = build.precompiled_prelude(build._cache(), sources, PRELUDE, flags)
    sources["vu0.h"] += "\n/* changed */\n"
    second = build.precompiled_prelude(build._cache(), sources, PRELUDE, flags)
    assert first and second and os.path.dirname(first) != os.path.dirname(second)
    assert build.precompiled_prelude(build._cache(), sources, PRELUDE, ("-DEE_MODEL_TRUNC=1", "-O1")) != second


def test_a_damaged_precompiled_prelude_is_built_again(cache, monkeypatch):
    _sum_run()
    gchs = _preludes(cache)
    for gch in gchs:
        _truncate(gch)
        assert not ccache.intact(str(gch.parent), gch.name)
    from eemu_ext.engines.native import engine as eng
    monkeypatch.setattr(eng, "_PROGRAMS", {})
    m = run_words(None, [asm("subu $2, $4, $5")], setup=lambda m: (m.gpr.__setitem__(4, 20), m.gpr.__setitem__(5, 3)))
    assert m.gpr[2] == 17 and m.native.prog is not None
    for gch in gchs:
        assert ccache.intact(str(gch.parent), gch.name)      # (gcc's precompiled headers vary run to run)


def test_a_compiler_that_cannot_precompile_builds_the_program_from_the_text(cache, monkeypatch):
    def cannot(*args, **kwargs):
        raise ccache.BuildError("this compiler makes no precompiled headers")
    monkeypatch.setattr(ccache.BuildCache, "precompiled_header", cannot)
    monkeypatch.setattr(build, "_NO_PRECOMPILE", {})
    _sum_run()
    assert _preludes(cache) == [] and len(_libraries(cache, "program")) == 1
    assert len(build._NO_PRECOMPILE) == 2          # the blocks' flags and the run loop's
