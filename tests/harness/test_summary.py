"""summary.json is one function of a run's params.json and chunk records (reports.summary.summarize):
a bulk, a merge of its shards and the report write the same file; a maximum counter is the largest
over the chunks; a mismatch's repro is one string in bulk's closing block, in `one` and in the
report."""
import json
import os
import re

import reports
from reports.records import ChunkRecord, Mismatch, Summary
from reports.summary import complete
from harness.runners.bulk import command as bulk
from harness.runners.bulk.merge import merge_runs
from harness.runners.bulk.run import RunDir

from . import archives
from .test_bulk import opts_for
from .test_run_verdict import bulk as bulk_cli, harness as harness_cli

# what two checks of one selection may differ in: which run it is, and the clock
IDENTITY_AND_CLOCK = {"run_id", "params", "seconds", "chunks_per_minute", "chunk_seconds", "seconds_by_check",
                      "cpu_seconds", "cpu_seconds_per_chunk", "machine_cpu_seconds"}


def summary(run):
    return json.loads((run / "summary.json").read_text())


def test_bulk_merge_and_report_write_the_same_summary(tmp_path, monkeypatch):
    """summary.json as a bulk and a merge write it (their report not rendered yet), as a render
    rewrites it, and as the report computes it, are one; the merged run's equals the unsplit
    run's but for which run it is and the clock."""
    monkeypatch.setattr(bulk, "render_report", lambda path, headline=False: None)    # bulk's and merge's own file
    pool, merged = tmp_path / "pool", tmp_path / "merged"
    assert bulk.run_bulk(opts_for(tmp_path, out=str(pool)), ["test"]) == 0
    for k in (1, 2):
        assert bulk.run_bulk(opts_for(tmp_path, shard=(k, 2), out=str(tmp_path / f"s{k}")), ["test"]) == 0
    assert merge_runs([str(tmp_path / "s2"), str(tmp_path / "s1")], str(merged), ["test"]) == 0
    # a merge reads each shard's records through their types and writes them again: the same bytes
    shard_files = {p.name: p.read_bytes() for k in (1, 2) for p in (tmp_path / f"s{k}" / "chunks").glob("*.json")}
    assert shard_files == {p.name: p.read_bytes() for p in (merged / "chunks").glob("*.json")}
    for run in (pool, merged):
        by_harness = summary(run)
        reports.render(run)
        assert summary(run) == by_harness and complete(reports.load_run(run)) == by_harness, run
    a, b = summary(pool), summary(merged)
    assert a["chunks_done"] > 2 and a["counters"] and a["status"] == "pass"
    assert {k: v for k, v in a.items() if k not in IDENTITY_AND_CLOCK} == \
           {k: v for k, v in b.items() if k not in IDENTITY_AND_CLOCK}
    assert set(a) == set(Summary.__annotations__)                   # the fields reports.records declares
    for rec in (json.loads(p.read_text()) for p in sorted((pool / "chunks").glob("*.json"))):
        assert set(rec) <= set(ChunkRecord.__annotations__), sorted(set(rec) - set(ChunkRecord.__annotations__))
    assert b["params"]["rerun"] == f"make merge RUNS='{tmp_path / 's1'} {tmp_path / 's2'}' OUT={merged}"   # shard order


def failing_run(tmp_path):
    """A run directory of hand-written records: mismatches (one shrunk, some past the cap), an
    error, a malformed chunk, and counters that are maxima."""
    ids = [f"m{i}.cmp::ANM_x" for i in range(4)]
    rd = RunDir.create_at(str(tmp_path / "run"), {"seed": 4, "profile": "quick", "float_model": "hw",
                                                  "n": 4, "chunks": ids, "run_id": "run"})
    mism = {"check": "notes", "field": "notes", "time": 3, "expected": "0x1", "got": "0x2", "seed": 4,
            "repro": "r0", "shrunk": {"plan": [[3, 0]], "repro": "shrunk r0"}}
    rd.write_chunk({"chunk": ids[0], "index": 0, "seconds": 1.0, "checks": ["notes"], "mismatches": [mism],
                    "dropped_mismatches": 5, "counters": {"note steps": 4, "max notes per step": 3,
                                                          "notes.worst_gap": 7},
                    "counters_by_check": {"notes": {"note steps": 4, "max notes per step": 3}},
                    "quirks": {"frame0_notes": 1}, "error": None})
    rd.write_chunk({"chunk": ids[1], "index": 1, "seconds": 1.0, "checks": ["notes"], "mismatches": [],
                    "counters": {"note steps": 6, "max notes per step": 2, "notes.worst_gap": 9},
                    "counters_by_check": {"notes": {"note steps": 6, "max notes per step": 2}},
                    "quirks": {"frame0_notes": 2}, "error": None})
    rd.write_chunk({"chunk": ids[2], "index": 2, "seconds": 1.0, "checks": [], "mismatches": [],
                    "error": {"type": "MemoryFault", "message": "pc 0x1234", "check": "notes"}})
    rd.write_chunk({"chunk": ids[3], "index": 3, "seconds": 1.0, "checks": [], "mismatches": [],
                    "error": {"type": "bad chunk", "message": "malformed", "check": "input", "offset": 8}})
    return tmp_path / "run"


def test_a_failing_run_summarises_the_same_by_the_harness_and_by_the_report(tmp_path):
    run = failing_run(tmp_path)
    s = RunDir(run).summarize(7.5)
    reports.render(run)
    assert summary(run) == s == complete(reports.load_run(run))
    assert (s["chunks_failed"], s["errors"], s["mismatches"], s["mismatches_dropped"]) == (2, 1, 6, 5)
    assert [f["chunk"] for f in s["failing_chunks"]] == ["m0.cmp::ANM_x", "m2.cmp::ANM_x"]
    assert s["failing_chunks"][0]["repro"] == "shrunk r0" and s["bad_members"][0]["member"] == "m3.cmp::ANM_x"
    assert "mismatches_beyond_cap" not in s and "mismatches_by_check" not in s and "chunks" not in s
    assert set(s) == set(Summary.__annotations__)


def test_a_maximum_counter_is_the_largest_over_the_chunks_and_a_count_their_sum(tmp_path):
    s = RunDir(failing_run(tmp_path)).summarize(4.0)
    assert s["counters"] == {"max notes per step": 3, "note steps": 10, "notes.worst_gap": 9}
    assert s["counters_by_check"] == {"notes": {"note steps": 10, "max notes per step": 3}}
    assert s["quirks"] == {"frame0_notes": 3}


def test_a_repro_is_the_same_string_in_bulk_in_one_and_in_the_report(tmp_path):
    """An executable whose ConvLCNum2ALCNum returns at once fails every controller: the first
    mismatch's repro as bulk's closing block prints it, as `one` prints it, as the report shows it."""
    data = archives.small_archive(str(tmp_path / "DATA.BIN"))
    elf = archives.return_at_once_elf(str(tmp_path / "ret.elf"), tables_for=data)
    run = tmp_path / "run"
    r = bulk_cli(tmp_path, run, "--data", data, "--image", elf, "--check", "controllers", "--n", "100000")
    assert r.returncode == 1, r.stdout + r.stderr
    by_bulk = re.search(r"^      repro: (.*)$", r.stdout, re.M).group(1)
    first = summary(run)["failing_chunks"][0]
    o = harness_cli(tmp_path, "one", "--case", first["chunk"], "--check", "controllers", "--data", data,
                    "--image", elf, "--no-shrink", "--show", "1")
    assert o.returncode == 1, o.stdout + o.stderr
    by_one = re.search(r"^  repro     (.*)$", o.stdout, re.M).group(1)
    page = (run / "report.html").read_text()
    from tests.reports.htmltree import parse
    by_report = parse(page).by_id("m0").find("div", cls="repro").find("code").text()
    assert by_bulk == by_one == by_report
    for name in sorted(os.listdir(run / "chunks")):
        for m in json.loads((run / "chunks" / name).read_text())["mismatches"]:
            assert set(m) <= set(Mismatch.__annotations__), sorted(set(m) - set(Mismatch.__annotations__))
    assert by_bulk.startswith(".venv/bin/python -m harness one --case ") and " --check controllers " in by_bulk
    assert os.path.isfile(elf) and elf in by_bulk
