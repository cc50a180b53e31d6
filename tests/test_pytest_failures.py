"""A failing differential test reads in a few lines: the chunk and its count, the first mismatches
one line each, and the repro; `-v` adds each recorded mismatch in full (its context) and the
traceback. Before: 40-60 lines per failure, with whole Options and Profile reprs."""
import os
import re
import subprocess
import sys

import pytest

from eediff_pytest import ROOT

MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "note_list_file_order.elf")


def failing_run(*extra):
    if not os.path.isfile(MUTANT):
        from shutil import which
        if which("mipsel-linux-gnu-gcc") is None:
            pytest.skip("stand-in mutant ELFs not built and no gcc-mipsel-linux-gnu to build them")
        pytest.fail(f"{MUTANT} not built: make mutant-elfs")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EEDIFF_", "PYTEST_"))}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-k", "notes",
                           "--chunks", "2", "--image", MUTANT, "tests/differential/test_chunks.py", *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)


def failures(out):
    """Each failure's block of the FAILURES section (header line excluded)."""
    section = out.split(" FAILURES ", 1)[1].split(" short test summary info ", 1)[0]
    return [b.strip("\n").splitlines()[:-1] if b.rstrip().endswith("=") else b.strip("\n").splitlines()
            for b in re.split(r"^_{3,} .* _{3,}$", section, flags=re.M)[1:]]


def test_a_failing_chunk_shows_its_mismatches_and_repro_in_a_few_lines():
    r = failing_run("-q")
    assert r.returncode == 1, r.stdout[-3000:]
    blocks = failures(r.stdout)
    assert blocks, r.stdout[-3000:]
    for lines in blocks:
        assert len(lines) <= 8, "\n".join(lines)
        assert re.match(r"\S+::ANM_\S+ notes: \d+ mismatch", lines[0]), lines
        assert any(l.startswith("  notes | ") and "reference [" in l and "game [" in l for l in lines), lines
        assert lines[-1].startswith("  repro: .venv/bin/python -m harness one --case "), lines
    assert "Options(" not in r.stdout and "Profile(" not in r.stdout


def test_verbose_shows_the_records_in_full():
    r = failing_run("-v")
    assert r.returncode == 1
    assert "  context   " in r.stdout and "raise mismatch_failure" in r.stdout, r.stdout[-3000:]
