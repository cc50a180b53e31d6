"""The committed stand-in rebuilds byte-identically, and its mutants are
well-formed (interfaces.md §5): a header naming the check that catches each, a patch that applies."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from ground import vocabulary

from .elfinfo import STANDIN

CHECKS = {*vocabulary.CHECK_NAMES, "probe"}
MUTANTS = sorted(f for f in os.listdir(os.path.join(STANDIN, "mutants")) if f.endswith(".patch"))
have_cross = shutil.which("mipsel-linux-gnu-gcc") is not None
CATS = os.path.join(STANDIN, "..", "build", "synth", "categories.c")


@pytest.mark.needs_cross
@pytest.mark.skipif(not have_cross, reason="needs gcc-mipsel-linux-gnu (apt-get install gcc-mipsel-linux-gnu)")
def test_committed_elf_rebuilds_byte_identically():
    """`make -C standin check-reproducible` rebuilds into a temp dir and cmp's with standin.elf."""
    r = subprocess.run(["make", "-s", "-C", STANDIN, "check-reproducible", f"PY={sys.executable}"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "byte-identically" in r.stdout


def test_at_least_twelve_mutants_with_headers():
    """interfaces.md §5: `# Catches: <check>`, `# Why: <one line>`, optional `# Cases:`."""
    assert len(MUTANTS) >= 12
    for name in MUTANTS:
        lines = open(os.path.join(STANDIN, "mutants", name)).read().splitlines()
        m = re.match(r"# Catches: (\w+)$", lines[0])
        assert m and m.group(1) in CHECKS, f"{name}: first line {lines[0]!r}"
        assert lines[1].startswith("# Why: ") and len(lines[1]) > 12, name
        cases = [l for l in lines[:4] if l.startswith("# Cases: ")]
        for c in cases:
            for case in c[len("# Cases: "):].split(","):
                assert re.fullmatch(r"[\w.]+\.cmp::ANM_\w+", case.strip()), f"{name}: case {case!r}"


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_patch_applies(name, tmp_path):
    """Each patch applies to the current sources (the mutants target builds exactly this)."""
    shutil.copytree(os.path.join(STANDIN, "src"), tmp_path / "src")
    r = subprocess.run(["patch", "-p1", "--dry-run", "-i", os.path.join(STANDIN, "mutants", name)],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
@pytest.mark.needs_cross
@pytest.mark.skipif(not have_cross, reason="needs gcc-mipsel-linux-gnu")
def test_mutants_build(tmp_path):
    """`make -C standin mutants` builds every mutant ELF, each different from the stand-in."""
    r = subprocess.run(["make", "-s", "-C", STANDIN, "mutants", f"PY={sys.executable}",
                        f"BUILD={tmp_path}"], capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout + r.stderr
    base = open(os.path.join(STANDIN, "standin.elf"), "rb").read()
    for name in MUTANTS:
        elf = tmp_path / "mutants" / name.replace(".patch", ".elf")
        assert elf.exists() and elf.read_bytes() != base, name
