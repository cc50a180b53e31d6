"""The stand-in's mutant executables (standin/build/mutants/*.elf, `make mutant-elfs`) for the tests.

A machine without gcc-mipsel-linux-gnu cannot build them: the test skips and says why. With the
cross compiler, a mutant that is not built is a failure naming the make target."""
import os
from shutil import which

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MUTANTS = os.path.join(ROOT, "standin", "build", "mutants")


def built(elf):
    """elf, which must exist (see the module's note)."""
    if not os.path.isfile(elf):
        if which("mipsel-linux-gnu-gcc") is None:
            pytest.skip("stand-in mutant ELFs not built and no gcc-mipsel-linux-gnu to build them")
        pytest.fail(f"{elf} not built: make mutant-elfs")
    return elf


def mutant_elf(name):
    """The path of the mutant `name` (e.g. "note_list_file_order"), built."""
    return built(os.path.join(MUTANTS, f"{name}.elf"))
