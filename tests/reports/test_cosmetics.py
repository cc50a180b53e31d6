"""The report reads sensibly: the drift card, the SHA-256 cells, the Run
table's command, the mismatch rows, object names and the page's size. Each test renders a run
with reports.render (the entry of `python -m reports render`) and reads the page."""
import re
from pathlib import Path

import pytest

import reports
from reports.html import asset
from tests.reports.fake_run import SHA_DATA, SHA_IMAGE, mismatch, small_run, write_run
from tests.reports.htmltree import parse

ROOT = Path(__file__).resolve().parents[2]
SYNTH = ROOT / "build" / "synth" / "DATA.BIN"


def page(run):
    return parse(reports.render(run).read_text(encoding="utf-8"))


def drift_run(tmp_path, d, bound):
    c = "cha2body.cmp::ANM_cha2mag1"
    return write_run(tmp_path, [{"chunk": c, "checks": ["controllers"],
                                 "worst_keyed_rotation": {"d": d, "bound": bound, "chunk": c,
                                                          "track": 5, "time": 18000, "passed": 72}}])


def card(doc, label):
    return next(c for c in doc.find_all("div", cls="card") if c.find("div", cls="cl").text() == label)


# ---- 8.1: a deviation far over its bound

def test_a_deviation_far_over_its_bound_reads_as_a_multiple_not_a_giant_percentage(tmp_path):
    doc = page(drift_run(tmp_path, 1.6425045, 1e-5))
    sub = card(doc, "worst keyed rotation d").find("div", cls="cs").text()
    assert sub == "1.6e5× its bound"
    assert "1.6e5× its bound" in doc.by_id("rotation").text()
    assert not re.search(r"\d{4,}%", doc.find("main").text())


@pytest.mark.parametrize("d, text", [(4e-6, "33% of its bound"), (2.4e-5, "200% of its bound"),
                                     (5e-4, "42× its bound"), (1.2e-2, "1.0e3× its bound")])
def test_a_deviation_near_its_bound_reads_as_a_percentage_or_a_small_multiple(tmp_path, d, text):
    doc = page(drift_run(tmp_path, d, 1.2e-5))
    assert card(doc, "worst keyed rotation d").find("div", cls="cs").text() == text


# ---- 8.2: SHA-256 on one line

def test_a_sha256_is_one_monospace_line_with_the_full_value_in_its_title_and_text(tmp_path):
    doc = page(small_run(tmp_path))
    cells = doc.by_id("run").find_all("td", cls="sha")
    assert [td.attrs["title"] for td in cells] == [SHA_IMAGE, SHA_DATA]
    for td, sha in zip(cells, (SHA_IMAGE, SHA_DATA)):
        assert "mono" in td.classes
        assert td.find("span", cls="shav").text() == sha
    rules = {m.group(1).strip(): m.group(2) for m in re.finditer(r"([^{}]+)\{([^}]*)\}", asset("report.css"))}
    assert "white-space:nowrap" in rules[".sha"] and "break-all" not in rules[".sha"]
    assert "text-overflow:ellipsis" in rules[".sha .shav"]     # truncated on screen, whole in the title


# ---- 8.3: the command a user can re-run

def command_row(doc):
    row = next(r for r in doc.by_id("run").find("table", cls="kv").find_all("tr")
               if r.find("th").text() == "command")
    return row.find("code").text(), row.find("button", cls="copy").attrs["data-copy"]


def test_the_run_table_shows_the_command_the_harness_recorded(tmp_path):
    """reports shows the run's own "rerun" (params.json, built by harness/commands.py) as it is;
    it never builds a command, so a run that recorded none shows none."""
    cmd = ("make bulk N=20 SEED=4 PROFILE=nightly FLOAT=hw JOBS=2 "
           "IMAGE=/work/main/standin/build/mutants/scratch_alpha_offset.elf OUT='/tmp/a dir/run20'")
    run = write_run(tmp_path / "a", [{"chunk": "a.cmp::ANM_a"}], params={"rerun": cmd})
    code, copy = command_row(page(run))
    assert code == copy == cmd
    bare = write_run(tmp_path / "b", [{"chunk": "a.cmp::ANM_a"}], params={"n": 7, "seed": 9})
    rows = [r.find("th").text() for r in page(bare).by_id("run").find("table", cls="kv").find_all("tr")]
    assert "command" not in rows


# ---- 8.4: the rows show time, d and ulp in full

def test_a_row_shows_the_full_time_the_ulp_and_d_in_their_own_columns(tmp_path):
    c = "cbu00.cmp::ANM_cbu3nut2"
    m = mismatch(c, "controllers", "rotation[0][1]", "0x3e000000", "0x3f000000", track=2,
                 time=0xFFFFFFF0, object=7, ulp=8388608, deviation=123456.789, tolerance=1e-5)
    doc = page(write_run(tmp_path, [{"chunk": c, "mismatches": [m]}]))
    head = [s.text() for s in doc.find("div", cls="mhead").find_all("span")]
    assert head == ["#", "check", "chunk", "object · track · step", "time", "field",
                    "reference → game", "ulp", "d", "likely cause"]
    row = doc.by_id("m0").find("summary")
    cell = {s.attrs["class"].split()[0]: s.text() for s in row.find_all("span")}
    assert cell["mt"] == "t=4294967280 (frame 16777215 + 240/256)"
    assert cell["mu"] == "8388608" and cell["md"] == "1.235e+05"
    assert cell["mw"] == "object 7 · track 2"
    css = asset("report.css")
    rule = re.search(r"details\.mm > summary span\.mt[^{]*\{([^}]*)\}", css).group(1)
    assert "overflow:visible" in rule and "white-space:normal" in rule


# ---- 8.6: object names next to indices

@pytest.mark.skipif(not SYNTH.exists(), reason="no synthetic corpus: run `make corpus`")
def test_object_indices_carry_their_names_as_the_harness_recorded_them(tmp_path):
    from corpus import open_corpus
    from harness.compare import draw
    c = "town01.cmp::ANM_sr1fla1_a"
    ch = open_corpus(data=str(SYNTH)).chunk(c)
    names = dict(ch.names)
    obj = next(k for k, v in names.items() if v.startswith("OBJ_"))
    m = mismatch(c, "fobj", "pos.x", "0x3f800000", "0x3f800001", object=obj, step=1, time=256)
    recorded = draw.of_chunk(None, ch, [m])
    assert recorded == {"names": {str(obj): names[obj]}}      # only the objects mismatches name
    doc = page(write_run(tmp_path, [{"chunk": c, "mismatches": [m], "draw": recorded}]))
    want = f"object {obj} ({names[obj]})"
    d = doc.by_id("m0")
    assert d.find("span", cls="mw").text() == f"{want} · step 1"
    assert f"{want} · step 1 · t=256" in d.find("table", cls="kv").text()


def test_a_record_without_names_shows_the_object_index_alone(tmp_path):
    c = "town01.cmp::ANM_sr1fla1_a"
    m = mismatch(c, "fobj", "pos.x", "0x3f800000", "0x3f800001", object=3, step=1, time=256)
    doc = page(write_run(tmp_path, [{"chunk": c, "mismatches": [m]}]))
    assert doc.by_id("m0").find("span", cls="mw").text() == "object 3 · step 1"


def test_an_object_name_is_escaped_text():
    """A name from the archive is data: HTML-escaped, its control characters shown as escapes."""
    from reports.describe import view
    from reports.detail import mismatch_html
    m = mismatch("a.cmp::ANM_a", "fobj", "pos.x", "0x3f800000", "0x3f800001", object=3)
    html = mismatch_html(view(0, m, "rounding", names={3: "<img src=x>\x1b[2J"}))
    d = parse(html).by_id("m0")
    assert d.find("img") is None and "\x1b" not in html
    assert d.find("span", cls="mw").text() == "object 3 (<img src=x>\\x1b[2J)"


# ---- 8.7: the page's size

def mutant_like_run(root, n_chunks=20, per_chunk=170):
    """The shape of a run of a mutant that breaks transparency: 20 chunks of 170 controller
    mismatches (each with its value-over-time series), 200 rotation samples per chunk."""
    chunks = []
    for i in range(n_chunks):
        c = f"xd{i:03d}.cmp::ANM_xd{i:03d}001"
        times = list(range(0, 2304, 27))
        ms = [mismatch(c, "controllers", "transparency", "0x3f800000", f"0x{0x7fbadbad + k:08x}",
                       object=5 + k % 9, track=k % 12, time=1 + 64 * k, ulp=1077599149 + k,
                       repro=(".venv/bin/python -m harness replay --case " + c + " --check "
                              f"controllers --track {k % 12} --times {1 + 64 * k} --seed 4 --profile "
                              "nightly --float-model hw --image standin/build/mutants/scratch_alpha_offset.elf"),
                       context={"keys": None, "pose_time": 1 + 64 * k},
                       series={"label": "transparency", "t": times, "ref": [1.0] * len(times),
                               "game_t": times[:30], "game": [float("1e38")] * 30})
              for k in range(per_chunk)]
        chunks.append({"chunk": c, "checks": ["controllers", "playback", "multistep"],
                       "rotation_deviation": [[k % 12, 1e-6 * (1 + (k * 7 + i) % 13) / 13]
                                              for k in range(200)],
                       "mismatches": ms})
    return write_run(root, chunks)


def test_a_mutant_runs_report_stays_small(tmp_path):
    """3,400 mismatches in 20 chunks: 3.1 MB when every view was embedded as
    JSON with a titled circle per drift sample, 0.7 MB now (page 1 static, every mismatch's HTML
    gzip-compressed, the samples under the bound one path of dots)."""
    path = reports.render(mutant_like_run(tmp_path))
    size = path.stat().st_size
    assert size < 800_000, f"report.html is {size:,} bytes"
    doc = parse(path.read_text())
    assert len(doc.by_id("mlist").find_all("details", cls="mm")) == 100
