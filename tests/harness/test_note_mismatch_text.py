"""Note mismatches read as notes: named fields, events in hex, and the two
sides called reference and game."""
import os
import subprocess
import sys

import pytest

from corpus.note_text import notes_text
from harness.options import ROOT

PY = sys.executable
NOTE_MUTANT = os.path.join(ROOT, "standin", "build", "mutants", "note_list_file_order.elf")


def test_a_note_list_names_its_fields_and_prints_the_event_in_hex():
    assert notes_text([[32773, 1, 15, 88]]) == "[{event 0x8005, param 1, time 15, object 88}]"
    assert notes_text([[1, 2], 3]) is None and notes_text("0x3f800000") is None


def test_harness_one_prints_a_note_mismatch_with_named_fields_as_reference_and_game():
    if not os.path.isfile(NOTE_MUTANT):
        pytest.skip("stand-in mutant ELFs not built and no gcc-mipsel-linux-gnu to build them") \
            if subprocess.run(["sh", "-c", "command -v mipsel-linux-gnu-gcc"]).returncode else \
            pytest.fail("make mutant-elfs")
    r = subprocess.run([PY, "-m", "harness", "one", "--case", "ecm1.cmp::ANM_ecm1001", "--check", "notes",
                        "--image", NOTE_MUTANT, "--no-shrink"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].startswith("  reference [{event 0x") and ", param " in lines[1] and ", object " in lines[1]
    assert lines[2].startswith("  game      [{event 0x")
    assert not any(l.startswith(("  expected", "  got")) for l in lines), r.stdout


def test_a_failing_bulks_report_names_note_fields_and_says_reference_and_game(tmp_path):
    if not os.path.isfile(NOTE_MUTANT):
        pytest.skip("stand-in mutant ELFs not built (make mutant-elfs needs gcc-mipsel-linux-gnu)")
    r = subprocess.run([PY, "-m", "harness", "bulk", "--n", "4", "--check", "notes", "--jobs", "2",
                        "--image", NOTE_MUTANT, "--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    html = (tmp_path / "run" / "report.html").read_text()      # a mutant run does not move latest
    assert "{event 0x2, param " in html and "<th>reference (" in html and "<th>game (" in html
    assert "<th>expected" not in html and "<th>got" not in html
