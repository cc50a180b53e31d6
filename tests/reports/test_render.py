"""The HTML report of a hand-built run (interfaces.md §4 records): details a reviewer needs."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import reports
from reports.load import ReportError
from tests.reports.fake_run import SHA_DATA, SHA_IMAGE, mismatch, small_run, write_run
from tests.reports.htmltree import embedded, parse

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    run = small_run(tmp_path_factory.mktemp("runs"))
    path = reports.render(run)
    return run, path, parse(path.read_text(encoding="utf-8"))


def strip_cells(detail, row):
    """The 32 bit cells of the expected (row 0) or got (row 1) strip of a detail section."""
    strip = detail.find("div", cls="strip")
    rows = strip.find_all("div", cls="srow")
    return rows[row].find_all("span", cls="b")


def test_render_writes_report_junit_and_summary(rendered):
    run, path, _ = rendered
    assert path == run / "report.html"
    assert (run / "junit.xml").is_file() and (run / "summary.json").is_file()


def test_page_is_self_contained_nothing_fetched(rendered):
    """Inline CSS/JS/SVG, readable offline."""
    html = rendered[1].read_text()
    assert not re.search(r'<(script|link|img|iframe)[^>]+(src|href)=["\']?(https?:|//)', html)
    assert "@import" not in html and "url(" not in html
    doc = rendered[2]
    assert doc.find("script", type="application/json", id="eediff-data") is not None


def test_summary_shows_run_parameters_and_identity(rendered):
    doc = rendered[2]
    run_text = doc.by_id("run").text()
    for s in ("seed", "4", "profile", "quick", "float model", "hw", SHA_IMAGE, SHA_DATA,
              "standin/standin.elf", "no-corpus/DATA.BIN", "7.3 MiB"):
        assert s in run_text
    verdict = doc.find("span", cls="verdict")
    assert verdict.text() == "FAIL"


def test_counts_per_check_and_pass_fail_per_chunk(rendered):
    doc = rendered[2]
    rows = {r.find_all("td")[0].text(): [td.text() for td in r.find_all("td")]
            for r in doc.by_id("checks").find("table").find_all("tr")[1:]}
    assert rows["controllers"][1:] == ["2", "1", "2", "FAIL"]
    assert rows["multistep"][1:] == ["2", "0", "0", "pass"]
    cells = doc.by_id("checks").find("div", cls="cells").children
    assert [sorted(c.classes - {"cell"})[0] for c in cells] == ["ok", "bad", "bad", "bad"]


def test_failing_chunk_table_links_to_the_first_mismatch(rendered):
    table = rendered[2].by_id("chunktable")
    links = {a.text(): a.attrs["href"] for a in table.find_all("a")}
    assert links == {"cha2body.cmp::ANM_cha2mag1": "#m0", "ekx1.cmp::ANM_ekx1atc0": "#m2",
                     "ctu1body.cmp::ANM_ctu1atc0": "#m3"}
    assert "sortable" in table.classes and rendered[2].by_id("chunkfilter") is not None
    reruns = [b.attrs["data-copy"] for b in table.find_all("button", cls="copy")]
    assert reruns == []           # no record here carries its repro, and reports builds none


def test_one_ulp_position_mismatch_shows_bits_hex_decimal_and_the_differing_bit(rendered):
    """A mismatch detail: expected and got as raw bits (hex, decimal), the differing bits
    highlighted, the ulp distance, context and the repro (style.md risu)."""
    d = rendered[2].by_id("m0")
    text = d.text()
    for s in ("cha2body.cmp::ANM_cha2mag1", "controllers", "object OBJ_cha2body", "track 3",
              "t=1234 (frame 4 + 210/256)", "position.x", "0x3f800000", "0x3f800001",
              "1065353216", "1065353217", "1.0", "ulp distance", "rounding", "fraction 0"):
        assert s in text, s
    exp, got = strip_cells(d, 0), strip_cells(d, 1)
    assert len(exp) == len(got) == 32
    assert "".join(c.text() for c in exp) == f"{0x3f800000:032b}"
    assert "".join(c.text() for c in got) == f"{0x3f800001:032b}"
    marked = [i for i, c in enumerate(got) if "d" in c.classes]
    assert marked == [31]                                # bit 0 is the last cell
    assert [sorted(c.classes & {"s", "e", "f"}) for c in exp[:2]] == [["s"], ["e"]]
    code = d.find("div", cls="repro").find("code").text()
    assert code == "make one CASE='cha2body.cmp::ANM_cha2mag1' SEED=4 CHECK=controllers"
    assert d.find("button", cls="copy").attrs["data-copy"] == code
    assert "passed4" in d.find("dl", cls="ctx").text() and d.find("table", cls="keys") is not None


def test_series_plot_draws_reference_line_and_game_points(rendered):
    svg = rendered[2].by_id("m0").find("svg")
    assert svg is not None and svg.find("polyline", cls="ref") is not None
    game = svg.find_all("circle", cls="game")
    assert len(game) == 1 and "1.0000001" in game[0].text()


def test_keyed_rotation_mismatch_shows_deviation_and_tolerance(rendered):
    d = rendered[2].by_id("m1")
    assert "deviation d = 2.4e-05, tolerance 1.72e-05" in d.text()
    assert "drift" in d.find("span", cls="cause").text()


def test_shrunk_reproduction_comes_first_then_the_original(rendered):
    d = rendered[2].by_id("m2")
    det = d.find("div", cls="det")
    first = [c for c in det.children if not isinstance(c, str)][0]
    assert "shrunk" in first.classes
    assert "[700,329]" in first.text() and "steps: 13 originally" in first.text()
    repros = [c.find("code").text() for c in d.find_all("div", cls="repro")]
    assert repros[0].endswith("STEPS=700,329") and repros[1].endswith("CHECK=playback")
    # a frame counter is an integer: read as frames, no float, no ulp
    assert "frame 4 + 5/256" in d.text() and "ulp distance" not in d.text()


def test_note_order_mismatch_lists_both_note_lists(rendered):
    d = rendered[2].by_id("m3")
    rows = d.find("table", cls="list").find_all("tr")[1:]
    assert [[td.text() for td in r.find_all("td")] for r in rows] == [
        ["0", "{event 0x2, param 2, time 4, object 7}", "{event 0x8005, param 1, time 4, object 7}"],
        ["1", "{event 0x8005, param 1, time 4, object 7}", "{event 0x2, param 2, time 4, object 7}"]]
    heads = [th.text() for th in d.find("table", cls="list").find_all("th")]
    assert heads == ["#", "reference (2)", "game (2)"]
    assert all("dr" in r.classes for r in rows)
    assert d.find("span", cls="cause").text() == "note order"


def test_causes_table_groups_by_check_and_documents_the_rules(rendered):
    sec = rendered[2].by_id("causes")
    causes = {a.text() for a in sec.find_all("a", cls="causelink")}
    assert causes == {"rounding", "drift", "playback control", "note order"}
    assert len(sec.find("details", cls="rules").find_all("li")) >= 8


def test_rotation_drift_plot_has_bound_line_and_the_point_over_it(rendered):
    sec = rendered[2].by_id("rotation")
    assert "d = 2.4e-05" in sec.text()
    svg = sec.find("svg")
    assert svg.find("polyline", cls="bound") is not None
    over = svg.find_all("circle", cls="over")
    assert len(over) == 2                  # the 2.4e-5 sample at 72 keys, and its mismatch
    under = svg.find("path", cls="pts")                   # the other samples, under the line
    assert under.attrs["d"].count("M") == 4 and "4 samples under the bound" in under.text()


def test_quirk_coverage_lists_counts_and_flags_zero(rendered):
    sec = rendered[2].by_id("coverage")
    rows = {r.find_all("td")[0].text(): (r.find_all("td")[1].text(), r.classes)
            for r in sec.find("table").find_all("tr")[1:]}
    assert rows["keys back in time"][0] == "1" and rows["restarts"][0] == "3"
    assert rows["frames with several notes"][0] == "4"


def test_summary_json_fields(rendered):
    s = json.loads((rendered[0] / "summary.json").read_text())
    assert (s["chunks_total"], s["chunks_done"], s["chunks_failed"], s["mismatches"],
            s["errors"]) == (4, 4, 3, 4, 0)
    assert s["counters"]["controllers.cases"] == 70
    assert s["counters"]["controllers.worst_d"] == 3e-6            # maxima are not summed
    assert s["checks"]["notes"] == {"chunks": 2, "chunks_failed": 1, "mismatches": 1}
    assert s["causes"] == {"rounding": 1, "drift": 1, "playback control": 1, "note order": 1}
    assert s["worst_keyed_rotation"]["d"] == 2.4e-5 and s["worst_keyed_rotation"]["track"] == 5
    assert s["rotation_over_bound"] == 1 and s["complete"] is True


def test_the_report_recomputes_the_summary_keeping_only_the_harness_wall_time(tmp_path):
    """summary.json is reports.summary.summarize over the records, whoever writes it: of the
    harness's summary the report keeps the two facts the records do not hold (the wall time,
    an interruption), and recounts the rest."""
    run = small_run(tmp_path)
    (run / "summary.json").write_text(json.dumps({"run_id": "x", "seconds": 12.5,
                                                  "mismatches": 99, "extra": 1}))
    reports.render(run)
    s = json.loads((run / "summary.json").read_text())
    assert s["seconds"] == 12.5 and s["mismatches"] == 4 and "extra" not in s
    assert s["run_id"] == "20261130T010000Z-abc123" and s["interrupted"] is False
    assert s["chunks_failed"] == 3 and "checks" in s


def test_a_clean_run_reports_what_it_proved(tmp_path):
    """A green night shows counters and quirk coverage."""
    c = "town01.cmp::ANM_sr1fla1_a"
    run = write_run(tmp_path, [{"chunk": c, "timing": {"controllers": 0.1, "playback": 0.2},
                                "counters": {"cases": 40, "keyed rotations": 10, "steps": 60},
                                "quirks": {"keys back in time": 2, "shared-frame keys": 0},
                                "worst_keyed_rotation": {"d": 4e-6, "bound": 1.2e-5,
                                                         "chunk": c, "track": 1, "time": 700,
                                                         "check": "controllers"}}])
    doc = parse(reports.render(run).read_text())
    assert doc.find("span", cls="verdict").text() == "PASS"
    cov = doc.by_id("coverage")
    rows = {r.find_all("td")[0].text(): r for r in cov.find("table").find_all("tr")[1:]}
    assert rows["keys back in time"].find_all("td")[1].text() == "2"
    assert "warn" in rows["shared-frame keys"].classes          # recorded but never exercised
    assert "keyed rotations" in cov.text() and "40" in cov.text()
    rot = doc.by_id("rotation")
    assert "d = 4e-06" in rot.text() and rot.find("svg") is not None     # passed 20 from the bound
    assert "No mismatches" in doc.by_id("mismatches").text()
    assert "Every chunk passed" in doc.by_id("chunks").text()


def test_harness_error_chunk_is_a_failure(tmp_path):
    c = "eex1.cmp::ANM_eex1dmg0"
    run = write_run(tmp_path, [{"chunk": c, "timing": {"fobj": 0.1},
                                "error": {"type": "MemoryFault", "message": "pc 0x1234: load 0x0",
                                          "check": "fobj"}}])
    doc = parse(reports.render(run).read_text())
    assert doc.find("span", cls="verdict").text() == "FAIL"
    assert "MemoryFault: pc 0x1234: load 0x0" in doc.by_id("chunktable").text()
    assert "err" in doc.by_id("checks").find("div", cls="cells").children[0].classes


def test_a_mismatch_without_its_repro_shows_none_for_reports_builds_no_command(tmp_path):
    c = "xp_flag.cmp::ANM_xpflnut0"
    m = mismatch(c, "morph", "vertex[3].y", 5, 6)
    del m["repro"]
    run = write_run(tmp_path, [{"chunk": c, "mismatches": [m]}])
    doc = parse(reports.render(run).read_text())
    assert doc.by_id("m0") is not None and doc.by_id("m0").find("div", cls="repro") is None


def test_a_mismatch_repro_that_is_not_a_string_is_named_on_one_line(tmp_path):
    c = "xp_flag.cmp::ANM_xpflnut0"
    run = write_run(tmp_path, [{"chunk": c, "mismatches": [mismatch(c, "morph", "vertex[3].y", 5, 6, repro=7)]}])
    with pytest.raises(ReportError) as exc:
        reports.render(run)
    assert str(exc.value) == (f"{run}/chunks/00000.json: mismatches[0].repro of chunk {c} must be a "
                              "str, found int 7")


def test_a_draw_that_is_not_an_object_is_named_and_any_object_is_accepted(tmp_path):
    c = "xp_flag.cmp::ANM_xpflnut0"
    run = write_run(tmp_path / "a", [{"chunk": c, "draw": {"speeds": [256, 700], "anything": {"x": 1}}}])
    reports.render(run)
    run = write_run(tmp_path / "b", [{"chunk": c, "draw": [256]}])
    with pytest.raises(ReportError) as exc:
        reports.render(run)
    assert str(exc.value) == f"{run}/chunks/00000.json: member 'draw' of chunk {c} must be a dict, found list [256]"


def test_bad_chunk_file_names_the_file_and_offset(tmp_path):
    run = small_run(tmp_path)
    (run / "chunks" / "00002.json").write_text('{"chunk": "a", "mismatches": [}')
    with pytest.raises(ReportError, match=r"00002\.json: invalid JSON at line 1 column 31"):
        reports.render(run)
    (run / "chunks" / "00002.json").write_text('{"chunk": "a", "mismatches": [{"field": "x"}]}')
    with pytest.raises(ReportError, match=r"00002\.json: mismatches\[0\] of chunk a has no 'check'"):
        reports.render(run)


def test_command_line_renders_and_reports_errors(tmp_path):
    run = small_run(tmp_path)
    py = sys.executable
    ok = subprocess.run([py, "-m", "reports", "render", str(run)], cwd=ROOT,
                        capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.strip() == str(run / "report.html")
    bad = subprocess.run([py, "-m", "reports", "render", str(tmp_path / "nope")], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not a run directory" in bad.stderr


def test_hostile_names_and_values_cannot_break_the_page(tmp_path):
    """Chunk ids, fields and contexts are data: escaped in the static HTML and in the embedded,
    compressed HTML of every page; the data element holds numbers and base64 only."""
    c = 'x</script><script>alert(1)</script>.cmp::ANM_"q\'<!--'
    m = mismatch(c, "controllers", "<b>position.x</b>", "0x3f800000", "0x3f800001",
                 context={"note": "</script><!-- <script>", "nan": float("nan")})
    m["object"] = "<img src=x onerror=alert(1)>"
    page = reports.render(write_run(tmp_path, [{"chunk": c, "mismatches": [m]}]))
    html = page.read_text()
    doc = parse(html)
    scripts = doc.find_all("script")
    assert len(scripts) == 3                      # error hook, data, main script
    assert doc.find("img") is None and doc.by_id("m0").find("b") is None
    data, items = embedded(doc)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", data["pages"])
    assert items[0][0] == c and "<b>position.x</b>" in items[0][3]
    again = parse(items[0][4])                    # the HTML the script shows for page 1 and others
    assert again.find("img") is None and again.by_id("m0").find("b") is None
    assert again.by_id("m0").text() == doc.by_id("m0").text()
    assert c in doc.by_id("m0").text()


def test_an_unfinished_run_says_so(tmp_path):
    a, b = "a.cmp::ANM_a", "b.cmp::ANM_b"
    run = write_run(tmp_path, [{"chunk": a}], params={"chunks": [a, b]})
    doc = parse(reports.render(run).read_text())
    assert doc.find("span", cls="verdict").text() == "INCOMPLETE"
    assert "1 of 2 selected chunks have no result" in doc.find("ul", cls="problems").text()
    assert json.loads((run / "summary.json").read_text())["complete"] is False


def test_rerender_recomputes_the_fields_reports_owns(tmp_path):
    run = small_run(tmp_path)
    reports.render(run)
    s = json.loads((run / "summary.json").read_text())
    s["causes"] = {"stale": 99}
    (run / "summary.json").write_text(json.dumps(s))
    reports.render(run)
    assert json.loads((run / "summary.json").read_text())["causes"]["rounding"] == 1


def test_list_rows_summarise_sizes_or_the_first_difference(rendered):
    row = rendered[2].by_id("m3").find("span", cls="mv").text()
    assert row == ("[0] {event 0x2, param 2, time 4, object 7} → "
                   "[0] {event 0x8005, param 1, time 4, object 7}")      # labelled, as the console shows notes


def test_morph_state_weights_get_bit_strips_per_differing_member(tmp_path):
    """checks.md §4.1 step 6: got = [(target, weight bits)]; a differing weight shows its bits."""
    c = "xp_flag.cmp::ANM_xpflnut0"
    m = mismatch(c, "playback", "morph state", [[22, "0x3f000000"], [23, "0x3e800000"]],
                 [[22, "0x3f000000"], [23, "0x3e800002"]], object=145, step=4, time=1024)
    d = parse(reports.render(write_run(tmp_path, [{"chunk": c, "mismatches": [m]}])).read_text()).by_id("m0")
    rows = d.find("table", cls="list").find_all("tr")[1:]
    assert ["dr" in r.classes for r in rows] == [False, True]
    strip = d.find("div", cls="strip")
    assert "[1][1] game" in strip.text() and "1 bit(s): fraction 1" in strip.text()
    vals = [t for t in d.find_all("table", cls="vals") if "list" not in t.classes][0]
    ulp_row = [r for r in vals.find_all("tr") if r.find("th").text() == "ulp distance"][0]
    assert ulp_row.find("td").text() == "2"


def test_render_into_another_directory_leaves_the_run_untouched(tmp_path):
    run = small_run(tmp_path / "runs")
    before = sorted(p.name for p in run.iterdir())
    out = tmp_path / "out"
    assert reports.render(run, out) == out / "report.html"
    assert sorted(p.name for p in out.iterdir()) == ["junit.xml", "report.html", "summary.json"]
    assert sorted(p.name for p in run.iterdir()) == before


def test_a_mismatch_without_a_recorded_drawing_has_no_plot_and_needs_no_corpus(rendered):
    """The run's corpus path does not exist (fake_run): the report renders from the records alone."""
    assert rendered[2].by_id("m1").find("svg") is None       # no series recorded, no draw
    assert "not drawn" not in rendered[2].by_id("mismatches").text()


SYNTH = Path(__file__).resolve().parents[2] / "build" / "synth" / "DATA.BIN"


def drawn(c, ms):
    """The chunk record's `draw` as the harness records it (harness/compare/draw.py)."""
    from corpus import open_corpus
    from harness.compare import draw
    from reference import Animation
    ch = open_corpus(data=str(SYNTH)).chunk(c)
    return draw.of_chunk(Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model="hw"), ch, ms)


def test_a_recorded_reference_channel_is_plotted_with_the_games_values(tmp_path):
    """A record's draw.series: reports draws the reference line as recorded and marks the
    game's values (the mismatches' own `got`) at the mismatching times."""
    c = "a.cmp::ANM_a"
    ms = [mismatch(c, "controllers", "position.x", "0x3f800000", got, track=2, time=t)
          for t, got in ((1000, "0x40000000"), (2000, "0x40400000"))]
    series = [{"check": "controllers", "track": 2, "field": "position.x",
               "t": [0, 1000, 2000, 3000], "ref": [0.5, 1.0, 1.5, 2.0]}]
    run = write_run(tmp_path, [{"chunk": c, "mismatches": ms, "draw": {"series": series}}])
    doc = parse(reports.render(run).read_text())
    svg = doc.by_id("m0").find("svg")
    assert svg is not None and "drawn for the report" in svg.text()
    assert [ci.find("title").text() for ci in svg.find_all("circle", cls="game")] == \
        ["game at t=1000: 2", "game at t=2000: 3"]
    assert len(svg.find("polyline", cls="ref").attrs["points"].split()) == 4
    assert doc.by_id("m1").find("svg") is not None
    assert not json.loads((run / "chunks" / "00000.json").read_text())["mismatches"][0].get("series")


@pytest.mark.skipif(not SYNTH.exists(), reason="no synthetic corpus: run `make corpus`")
def test_controller_mismatch_gets_a_reference_plot_from_the_harness(tmp_path):
    """A record without `series`: the harness records the reference channel (interfaces.md §3
    pose) in the record's draw, and reports plots it with the game's values at the mismatching
    times."""
    from corpus import open_corpus
    from reference import Animation
    c = "town01.cmp::ANM_sr1fla1_a"
    ch = open_corpus(data=str(SYNTH)).chunk(c)
    a = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model="hw")
    tr = a.tracks[1]
    want = a.pose(tr, 1000).pos[0]
    ms = [mismatch(c, "controllers", "position.x", f"0x{want:08x}", "0x00000000",
                   track=tr.index, time=t) for t in (1000, 2000)]
    run = write_run(tmp_path, [{"chunk": c, "mismatches": ms, "draw": drawn(c, ms)}])
    doc = parse(reports.render(run).read_text())
    svg = doc.by_id("m0").find("svg")
    assert svg is not None and "drawn for the report" in svg.text()
    assert len(svg.find_all("circle", cls="game")) == 2
    assert svg.find("polyline", cls="ref") is not None
    from reports import build_views, load_run
    from reports.causes import classify_run
    from reports.draw import add_series
    loaded = load_run(run)
    add_series(loaded)
    s = build_views(loaded, classify_run(loaded.chunks))[0]["series"]
    from reports.bits import u2f
    assert s["ref"][s["t"].index(1000)] == float(f"{u2f(want):.6g}")


@pytest.mark.skipif(not SYNTH.exists(), reason="no synthetic corpus: run `make corpus`")
def test_playback_matrix_mismatch_gets_a_reference_plot(tmp_path):
    """checks.md §4.1: the 3x3 of the object matrix is R·S; its element over time is plotted."""
    c = "town01.cmp::ANM_sr1fla1_a"
    ms = [mismatch(c, "playback", "matrix[0][1]", "0x3f000000", "0x3f000100", track=1, time=t,
                   step=k, deviation=1e-3, tolerance=1e-5) for k, t in enumerate((256, 512, 768))]
    ms.append(mismatch(c, "playback", "translation.y", "0x3f000000", "0x3f000001", track=1,
                       time=512, step=1))
    run = write_run(tmp_path, [{"chunk": c, "mismatches": ms, "draw": drawn(c, ms)}])
    doc = parse(reports.render(run).read_text())
    for n, game_points in ((0, 3), (3, 1)):
        svg = doc.by_id(f"m{n}").find("svg")
        assert svg is not None and len(svg.find_all("circle", cls="game")) == game_points


def test_headline_names_what_was_compared(tmp_path):
    c = "town01.cmp::ANM_sr1fla1_a"
    run = write_run(tmp_path, [{"chunk": c, "counters": {"cases": 16, "steps": 96,
                                                        "object matrices": 768, "failures": 0}}])
    doc = parse(reports.render(run).read_text())
    assert doc.find("p", cls="headline").text() == "1 chunk, 0 mismatches in 0 chunks, 0 harness errors"
    assert doc.find("p", cls="proof").text() == "Compared: 16 cases · 96 steps · 768 object matrices."


def test_keys_around_the_time_are_a_table_with_the_segment_marked(rendered):
    """The keys or segment around that time. t=1234 lies in frames 4..5."""
    d = rendered[2].by_id("m0")
    table = d.find("table", cls="keys")
    rows = [[td.text() for td in r.find_all("td")] + [r.classes] for r in table.find_all("tr")[1:]]
    assert [r[:4] for r in rows] == [["3", "4", "1024", "0x3f000000 (0.5)"],
                                     ["4", "5", "1280", "0x3f800000 (1)"],
                                     ["5", "9", "2304", "0x40000000 (2)"]]
    assert [("seg" in r[4]) for r in rows] == [True, True, False]
    assert "keys around t=1234 (3 of 12 keys" in d.text()


def test_an_integers_differing_bits_are_bits_not_fraction():
    """A u16 offset or frame counter has no fraction field."""
    from reports.describe import scalar_view
    sv = scalar_view(5, 7, "texture offset u")
    assert sv["desc"] == "1 bit(s): bits 1" and not sv["float"]
    assert scalar_view("0x3f800000", "0x3f800002", "pose")["desc"] == "1 bit(s): fraction 1"


def test_the_page_assets_ship_as_package_data():
    """The CSS and script inlined into every report are files in reports/assets/ that an
    installed package carries (pyproject.toml package-data)."""
    import fnmatch
    import tomllib
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["reports"]
    assets = sorted(p.relative_to(ROOT / "reports").as_posix() for p in (ROOT / "reports" / "assets").iterdir())
    assert assets == ["assets/error_hook.js", "assets/report.css", "assets/report.js"]
    assert all(any(fnmatch.fnmatch(a, pat) for pat in patterns) for a in assets)


def test_the_page_inlines_its_assets(rendered):
    from reports.html import asset
    html = rendered[1].read_text()
    for name in ("error_hook.js", "report.css", "report.js"):
        assert asset(name).strip() and asset(name) in html
    assert "<link" not in html and "<script src" not in html


def test_page_one_is_the_same_html_the_script_shows(rendered):
    """One renderer: the static first page and the embedded pages hold the same HTML."""
    doc = rendered[2]
    _, items = embedded(doc)
    static = rendered[1].read_text().split('<div id="mlist">', 1)[1]
    assert static.startswith("".join(h for *_, h in items[:100]) + "</div>")


def test_the_report_names_the_volume_of_the_run(tmp_path):
    run = write_run(tmp_path, [{"chunk": "a.ccs::ANM_a"}],
                    params={"volume": "mut", "volume_name": "Mutation", "volume_from": "executable"})
    doc = parse(reports.render(run).read_text(encoding="utf-8"))
    assert "volumeMUT (Mutation; from executable)started" not in doc.by_id("run").text()
    assert "volumeMUT (Mutation; from executable)seed" in doc.by_id("run").text()
