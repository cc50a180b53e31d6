"""A truncated DATA.BIN as the executable's index tables see it: the members past its end (and
so their Anime chunks) are named, the probe is NOT READY and a bulk refuses it (exit 2) unless
--allow-bad-members. Before: READY, and a bulk over what was left naming one bad member."""
import os
import subprocess
import sys

from corpus.truncation import past_the_end
from tests.harness import archives

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYNTH = os.path.join(ROOT, "build", "synth", "DATA.BIN")
STANDIN = os.path.join(ROOT, "standin", "standin.elf")
CUT = 40_000_000


def truncated(tmp_path):
    path = tmp_path / "DATA.BIN"
    with open(SYNTH, "rb") as src, open(path, "wb") as out:
        out.write(src.read(CUT))
    return str(path)


def test_the_tables_name_the_members_past_the_end(tmp_path):
    t = past_the_end(truncated(tmp_path), STANDIN)
    assert t and t.size == CUT and t.expected > os.path.getsize(SYNTH) - 4096
    assert t.cut and len(t.gone) > 100 and t.cut not in t.gone
    assert past_the_end(SYNTH, STANDIN) is None                       # a whole archive


def test_tables_of_another_archive_say_nothing(tmp_path):
    other = archives.small_archive(str(tmp_path / "DATA.BIN"))
    assert past_the_end(other, STANDIN) is None


def test_the_probe_is_not_ready_and_a_bulk_refuses_naming_the_members(tmp_path):
    data = truncated(tmp_path)
    probe = subprocess.run([sys.executable, "-m", "harness", "probe", "--data", data], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert probe.returncode == 1 and "ERROR truncated archive" in probe.stdout, probe.stdout[-2000:]
    bulk = subprocess.run([sys.executable, "-m", "harness", "bulk", "--n", "2", "--data", data, "--runs",
                           str(tmp_path / "runs")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert bulk.returncode == 2 and "is truncated" in bulk.stderr and "members and every Anime chunk" in bulk.stderr
