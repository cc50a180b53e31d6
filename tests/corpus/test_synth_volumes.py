"""synth --volume: each volume's synthetic archive has that volume's records per category
(volumes.md §5: MUT 1,031, OUT and QUA 1,072) and its DATA.BIN's size (volumes.md §1), the disc's
format and figures, and reads clean."""
import os
import subprocess
import sys

import pytest

from corpus.synth.plan import build_plan, check_plan
from corpus.synth.volumes import INF_SPANS, VOLUME_RECORDS, figures, spans
from corpus.tables import CATEGORIES, DISC_BASE_SECTORS
from corpus.volumes import BY_KEY

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


SIZES = {"inf": 136_665_088, "mut": 138_172_416, "out": 142_372_864, "qua": 142_372_864}


@pytest.mark.parametrize("volume", sorted(COUNTS))
def test_a_volumes_archive_is_its_data_bins_size_with_infections_padding_per_member(volume):
    f = figures(volume)
    assert f.sectors * 2048 == SIZES[volume] == BY_KEY[volume].data_bytes
    if volume == "inf":
        assert (f.csize, f.usize) == (135_599_928, 338_646_324)      # corpus-stats.md
    inf_pad = figures("inf").padding / 1023
    assert abs(f.padding / COUNTS[volume] - inf_pad) < 1 and 2.49 < f.usize / f.csize < 2.50


def test_infections_categories_span_the_disc_sectors_of_formats_md():
    assert INF_SPANS[:-1] == tuple(b - a for a, b in zip(DISC_BASE_SECTORS, DISC_BASE_SECTORS[1:]))
    assert spans("inf", [1] * 19) == list(INF_SPANS) and sum(INF_SPANS) == 136_665_088 // 2048


@pytest.mark.parametrize("volume", ["mut", "out", "qua"])
def test_a_later_volumes_categories_span_its_whole_archive_and_what_its_members_need(volume):
    need = list(INF_SPANS)
    need[CATEGORIES.index("toppage")] += 1          # OUT's seed-1 split: the toppage member one sector over
    got = spans(volume, need)
    assert sum(got) == figures(volume).sectors and all(g >= n for g, n in zip(got, need))
    grown = {CATEGORIES[k] for k, (g, n) in enumerate(zip(got, need)) if g > n}
    assert grown == ({"desktop"} if volume != "mut" else set()) | {"spc", "pc", "town", "event"}


def test_members_that_need_more_than_the_volumes_archive_is_an_error_naming_the_volume():
    need = list(INF_SPANS)
    need[0] += figures("out").sectors
    with pytest.raises(ValueError, match=r"^Outbreak's archive of 69518 sectors cannot hold .* short in cmn\)$"):
        spans("out", need)
    with pytest.raises(ValueError, match=r"^Infection's archive of 66731 sectors"):
        spans("inf", [s + 1 for s in INF_SPANS])


@pytest.mark.slow
@pytest.mark.parametrize("volume", sorted(COUNTS))
def test_a_volumes_synthetic_archive_has_its_size_and_member_count_and_reads_every_member(tmp_path, volume):
    out = tmp_path / volume
    r = subprocess.run([sys.executable, "-m", "corpus", "synth", "--volume", volume, "--out", str(out), "-q"],
                       cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert os.path.getsize(out / "DATA.BIN") == SIZES[volume]
    from corpus import open_corpus
    c = open_corpus(data=str(out / "DATA.BIN"), use_cache=False)
    assert len(c.members) == COUNTS[volume] and c.bad == []
    assert len(c.chunk_ids()) == 4091
    assert f"--volume {volume}" in (out / "categories.c").read_text()
