"""synth --volume: each volume's synthetic archive has that volume's records per category
(volumes.md §5: MUT 1,031, OUT and QUA 1,072), the disc's format and figures, and reads clean."""
import os
import subprocess
import sys

import pytest

from corpus.synth.plan import build_plan, check_plan
from corpus.synth.volumes import VOLUME_RECORDS
from corpus.tables import CATEGORIES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COUNTS = {"inf": 1023, "mut": 1031, "out": 1072, "qua": 1072}
# volumes.md §5, records per category (INF / MUT / OUT / QUA) where they differ
DIFFER = {"desktop": (136, 136, 177, 177), "spc": (18, 21, 21, 21), "pc": (37, 38, 38, 38),
          "town": (14, 15, 15, 15), "event": (50, 53, 53, 53)}


@pytest.mark.parametrize("volume", sorted(COUNTS))
def test_a_volumes_plan_has_its_records_per_category_and_the_disc_figures(volume):
    plan = build_plan(1, records=VOLUME_RECORDS[volume])
    check_plan(plan)                                   # the anime-chunk figures stay corpus-stats.md's
    assert len(plan) == COUNTS[volume]
    per = [sum(1 for m in plan if m.category == k) for k in range(len(CATEGORIES))]
    at = "inf mut out qua".split().index(volume)
    for k, cat in enumerate(CATEGORIES):
        assert per[k] == (DIFFER[cat][at] if cat in DIFFER else VOLUME_RECORDS["inf"][k]), cat
    assert len({m.name for m in plan}) == len(plan)
    assert [m.name for m in build_plan(1, records=VOLUME_RECORDS[volume])] == [m.name for m in plan]


@pytest.mark.slow
@pytest.mark.parametrize("volume", ["mut"])
def test_a_volumes_synthetic_archive_has_its_member_count_and_reads_clean(tmp_path, volume):
    out = tmp_path / volume
    r = subprocess.run([sys.executable, "-m", "corpus", "synth", "--volume", volume, "--out", str(out), "-q"],
                       cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stderr[-2000:]
    from corpus import open_corpus
    c = open_corpus(data=str(out / "DATA.BIN"), use_cache=False)
    assert len(c.members) == COUNTS[volume] and c.bad == []
    assert len(c.chunk_ids()) == 4091
    assert f"--volume {volume}" in (out / "categories.c").read_text()


@pytest.mark.slow
def test_a_volume_whose_members_do_not_fit_infections_sectors_is_one_line_exit_2(tmp_path):
    """OUT's 41 extra desktop members move the seed-1 chunk split so that the toppage member no longer
    fits Infection's sectors (the generator keeps the disc's base sectors): one line, exit 2."""
    r = subprocess.run([sys.executable, "-m", "corpus", "synth", "--volume", "out", "--out", str(tmp_path), "-q"],
                       cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr[-2000:]
    assert r.stderr.startswith("error: synth --volume out --seed 1: category 4: members need "), r.stderr
