"""The developer loop against a broken build (README, `pytest -k notes`): it stops after a few
failing chunks and says how to see them all, and no failure is headed by the xdist worker's
"[gw1] linux -- Python ..." line."""
import os
import re
import subprocess
import sys

from eediff_pytest import MAXFAIL
from tests.harness import archives

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def loop(tmp_path, *extra):
    elf = archives.return_at_once_elf(str(tmp_path / "silent.elf"), symbol="NoteProcess__5ccAnmFv")
    return subprocess.run([sys.executable, "-m", "pytest", "-k", "notes", "--image", elf, "--chunks", "40",
                           "-n", "2", "-p", "no:cacheprovider", *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_against_a_broken_build_the_loop_stops_after_a_few_failures_and_says_how_to_see_all(tmp_path):
    r = loop(tmp_path)
    assert r.returncode in (1, 2), r.stdout[-3000:] + r.stderr[-3000:]     # 2: xdist says "Interrupted"
    failed = re.findall(r"^FAILED ", r.stdout, re.M)
    assert MAXFAIL <= len(failed) <= 3 * MAXFAIL, r.stdout[-3000:]       # + those the workers had started
    assert "--maxfail=0 runs and shows every one" in r.stdout
    assert not re.search(r"^\[gw\d+\] .* -- Python", r.stdout, re.M), r.stdout[:3000]
    assert len(r.stdout.splitlines()) < 40 * MAXFAIL
