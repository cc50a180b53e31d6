"""A run directory's completeness is the selection's, recomputed on every render (interfaces.md
§4): a selected chunk without a record makes the run incomplete whatever summary.json said, and a
record of no selected chunk is named and left out of every count. A record the report cannot read
(an index that is not a number, a key word that is not a u32) is a one-line error naming the file,
the field and the value."""
import json
import subprocess
import sys

import pytest

import reports
from reports import ReportError
from tests.reports.fake_run import small_run


def rendered(run):
    reports.render(run, plots=False)
    return json.loads((run / "summary.json").read_text()), (run / "report.html").read_text()


def passing_run(tmp_path):
    """small_run's clean chunk three times over: a run that passes, with the harness's summary."""
    run = small_run(tmp_path)
    clean = json.loads((run / "chunks" / "00000.json").read_text())
    for p in (run / "chunks").glob("*.json"):
        p.unlink()
    params = json.loads((run / "params.json").read_text())
    params["chunks"] = [f"{clean['chunk']}#{i}" for i in range(3)]
    (run / "params.json").write_text(json.dumps(params))
    for i, cid in enumerate(params["chunks"]):
        (run / "chunks" / f"{i:05d}.json").write_text(json.dumps(dict(clean, chunk=cid, index=i)))
    s, _ = rendered(run)
    assert s["status"] == "pass" and s["complete"] and s["chunks_done"] == 3
    return run


def test_a_lost_record_makes_the_run_incomplete_though_summary_json_said_complete(tmp_path):
    run = passing_run(tmp_path)
    (run / "chunks" / "00001.json").unlink()
    s, page = rendered(run)
    assert s["complete"] is False and s["chunks_done"] == 2 and s["status"] == "incomplete"
    assert "INCOMPLETE" in page and ">PASS<" not in page
    assert "1 of 3 selected chunks have no result" in page


def test_a_stray_record_is_named_and_counted_nowhere(tmp_path):
    run = passing_run(tmp_path)
    rec = (run / "chunks" / "00001.json").read_text()
    (run / "chunks" / "00003.json").write_text(rec)                         # a copy, index 1 inside
    (run / "chunks" / "00007.json").write_text(rec.replace('"index": 1', '"index": 7'))  # beyond the selection
    s, page = rendered(run)
    assert s["chunks_done"] == 3 and s["chunks_total"] == 3 and s["status"] == "pass"
    assert "chunks/00003.json" in page and "chunks/00007.json" in page and "ignored" in page


def test_a_lost_record_and_a_stray_one_do_not_cancel_out(tmp_path):
    run = passing_run(tmp_path)
    (run / "chunks" / "00004.json").write_text((run / "chunks" / "00002.json").read_text()
                                                .replace('"index": 2', '"index": 4'))
    (run / "chunks" / "00002.json").unlink()
    s, _ = rendered(run)
    assert s["complete"] is False and s["chunks_done"] == 2 and s["status"] == "incomplete"


def test_an_index_that_is_not_a_number_is_a_one_line_error(tmp_path):
    run = small_run(tmp_path)
    p = run / "chunks" / "00001.json"
    p.write_text(json.dumps(dict(json.loads(p.read_text()), index="1")))
    with pytest.raises(ReportError) as e:
        reports.render(run, plots=False)
    assert "00001.json" in str(e.value) and "'index'" in str(e.value) and "'1'" in str(e.value)


def test_a_key_word_that_is_not_hex_is_a_one_line_error(tmp_path):
    run = small_run(tmp_path)
    p = run / "chunks" / "00001.json"
    r = json.loads(p.read_text())
    r["mismatches"][0]["context"]["keys"]["keys"][0]["value"] = ["0xZZ"]
    p.write_text(json.dumps(r))
    out = subprocess.run([sys.executable, "-m", "reports", "render", str(run)], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    line, = out.stderr.strip().splitlines()
    assert "00001.json" in line and "context.keys.keys[0].value" in line and "'0xZZ'" in line
