"""`make bulk MODEL='CMD ARGS'` (docs/truth.md §5): the nightly with a program speaking the model
protocol in place of the built-in reference.

The built-in reference served over the protocol gives the in-process run's records chunk by chunk
(mismatches, errors, ledger, counters and quirks: all but timings and what is measured from the
answer's own form); a deliberately wrong model fails the run with mismatches whose
`one --model` repros show the same mismatch, shrunk through the model to a `replay --model` that
fails as they did; the cases built by code are asked too; a model that misbehaves is an error record naming the
chunk and the query, never a green run; a model that cannot start is refused before the run.
"""
import json
import os
import shlex
import subprocess
import sys

import pytest

from harness.__main__ import main
from harness.options import Options
from harness.runners.bulk import command as bulk
from harness.runners.cases import edge_chunks, morph_pseudo
from harness.runners.truth_runs.volumes import ASIDE

from .models import BAD_MODEL, CHUNKS, MISBEHAVIOURS, NOTES_MODEL, ROOT, SERVE


def run_dir(tmp_path, name, chunks=CHUNKS, **kw):
    opts = Options(seed=4, profile="nightly", jobs=1, chunk_ids=list(chunks), out=str(tmp_path / name),
                   runs=str(tmp_path / "runs"), **kw)
    status = bulk.run_bulk(opts)
    records = {}
    for f in sorted(os.listdir(tmp_path / name / "chunks")):
        r = json.load(open(tmp_path / name / "chunks" / f, encoding="utf-8"))
        records[r["chunk"]] = r
    summary = json.load(open(tmp_path / name / "summary.json", encoding="utf-8"))
    return status, records, summary


def mismatch_keys(r):
    return sorted((m["check"], m["field"], m.get("object"), m.get("track"), m.get("time"), m.get("step"),
                   json.dumps(m.get("expected")), json.dumps(m.get("got"))) for m in r["mismatches"])


# what a record measures from the expected side's own form: the reference's double products in
# process, the model's f32 words in a model run (docs/truth.md §5), and the model's seconds
MEASURED_FROM_THE_ANSWER = ("rotation_deviation", "worst_keyed_rotation", "model_seconds")


def test_the_reference_served_over_the_protocol_gives_the_in_process_records(tmp_path, capsys):
    s_in, inproc, _ = run_dir(tmp_path, "inproc")
    s_model, served, summary = run_dir(tmp_path, "served", model=SERVE)
    out = capsys.readouterr().out
    assert s_in == s_model == 0, out
    assert set(served) == set(CHUNKS) and set(inproc) >= set(CHUNKS)
    aside = ASIDE + MEASURED_FROM_THE_ANSWER
    for c in CHUNKS:
        assert all(p == n for p, n in served[c]["ledger"].values()), c
        assert mismatch_keys(served[c]) == mismatch_keys(inproc[c]) == [], c
        assert served[c]["error"] is None and inproc[c]["error"] is None
        # the same record: the ledger, the checks, and what the checks count of what they compared
        # (the steps' kinds, the restarts, the loads, the coverage quirks), check by check
        assert ({k: v for k, v in served[c].items() if k not in aside}
                == {k: v for k, v in inproc[c].items() if k not in aside}), c
    assert any(served[c]["quirks"] for c in CHUNKS)
    assert any(k.startswith("objects pattern: ") for c in CHUNKS for k in served[c]["counters"])
    assert summary["status"] == "pass" and summary["model"] == SERVE
    assert f"model: {SERVE} in place of the built-in reference" in out


def test_a_wrong_model_fails_the_run_and_each_repro_shows_its_mismatch_with_the_model(tmp_path, capsys):
    status, records, summary = run_dir(tmp_path, "wrong", checks=["notes"], model=NOTES_MODEL + " --wrong")
    out = capsys.readouterr().out
    assert status == 1 and summary["status"] == "mismatches"
    failing = [r for r in records.values() if r["mismatches"]]
    assert failing
    m = failing[0]["mismatches"][0]
    assert m["check"] == "notes"
    # the expected side is the model's answer, and every view says so, never "reference"
    assert {x.get("answered_by") for r in failing for x in r["mismatches"]} == {"model"}
    first = [x for x in out.splitlines() if x.strip().startswith("first: notes")]
    assert first and all(": model " in x and ": reference " not in x for x in first), out
    page = open(tmp_path / "wrong" / "report.html", encoding="utf-8").read()
    assert "model → game" in page and "reference → game" not in page          # the list's heading
    assert "<th>model" in page and "<th>reference" not in page                # each value table
    words = shlex.split(m["repro"])
    assert words[:4] == [".venv/bin/python", "-m", "harness", "one"] and "--model" in words
    assert words[words.index("--model") + 1] == NOTES_MODEL + " --wrong"
    done = subprocess.run([sys.executable] + words[1:], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"| {m['check']}" in done.stdout and f"time {m['time']}" in done.stdout
    assert "\n  model " in done.stdout and "\n  reference " not in done.stdout, done.stdout


def run_repro(command):
    words = shlex.split(command)
    assert words[:3] == [".venv/bin/python", "-m", "harness"] and "--model" in words
    return subprocess.run([sys.executable] + words[1:], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_a_wrong_models_mismatches_are_shrunk_through_the_model_to_a_replay_that_fails_alike(tmp_path, capsys):
    # notes: a plan of one step; controllers: one time (the model is wrong from time 2048 on)
    late = f"{BAD_MODEL} late"
    for check, model, key in (("notes", NOTES_MODEL + " --wrong", "plan"), ("controllers", late, "times")):
        status, records, _ = run_dir(tmp_path, check, checks=[check], model=model)
        assert status == 1
        m = next(r for r in records.values() if r["mismatches"])["mismatches"][0]
        shrunk = m["shrunk"]
        assert len(shrunk[key]) == 1 <= shrunk["original_length"], shrunk
        if check == "controllers":
            assert shrunk["times"][0] >= 2048
        assert shlex.split(shrunk["repro"])[3] == "replay"
        done = run_repro(shrunk["repro"])
        assert done.returncode == 1, done.stdout + done.stderr
        assert f"| {m['field']}" in done.stdout and "replay" in done.stdout
    capsys.readouterr()


def test_a_playback_is_shrunk_to_steps_of_one_speed_the_protocol_can_ask(tmp_path, capsys):
    from harness.runners.cases.model_chunk import ModelReplay
    assert ModelReplay.accepts("playback", [3000]) and ModelReplay.accepts("playback", [256, 256])
    assert not ModelReplay.accepts("playback", [256, 100]) and ModelReplay.accepts("notes", [(256, 0), (5, 1)])
    status = main(["replay", "--case", CHUNKS[0], "--check", "playback", "--steps", "256,100", "--model", SERVE])
    assert status == 2 and "plays n steps of one speed" in capsys.readouterr().err


# "order" holds the first chunk's answer until the second request: a live run, which asks one
# chunk at a time, sees it as a hang (the "hang" case)
@pytest.mark.parametrize("mode, says", [(m, s) for m, s in MISBEHAVIOURS if m != "order"])
def test_a_model_that_misbehaves_is_an_error_naming_the_chunk_and_query_never_a_green_run(
        tmp_path, capsys, mode, says):
    status, records, summary = run_dir(tmp_path, mode, chunks=CHUNKS[:1], model=f"{BAD_MODEL} {mode}",
                                       model_timeout=3.0)
    capsys.readouterr()
    assert status == 1 and summary["status"] != "pass"
    err = records[CHUNKS[0]]["error"]
    assert err["type"] == "ModelError" and f"model error: chunk {CHUNKS[0]}" in err["message"]
    assert says in err["message"], err["message"]


def test_a_model_that_cannot_start_is_refused_before_the_run(tmp_path, capsys):
    status = main(["bulk", "--n", "2", "--out", str(tmp_path / "r"), "--model", "no-such-model-program --serve"])
    err = capsys.readouterr().err
    assert status == 2 and "--model no-such-model-program --serve: no program no-such-model-program" in err
    assert not os.path.exists(tmp_path / "r")


def test_a_model_run_asks_the_cases_built_by_code_too(tmp_path, capsys):
    # the edge chunks beyond the disc are Anime chunks like any other; the synthetic Modify blends
    # are modify queries: served, they give the in-process records
    ids = bulk.synthetic_ids()
    assert any(edge_chunks.is_edge(c) for c in ids) and any(morph_pseudo.is_pseudo(c) for c in ids)
    s_in, inproc, _ = run_dir(tmp_path, "inproc", chunks=ids)
    s_model, served, _ = run_dir(tmp_path, "served", chunks=ids, model=SERVE)
    capsys.readouterr()
    assert s_in == s_model == 0 and set(served) == set(inproc) == set(ids)
    for c in ids:
        assert served[c]["error"] is None and mismatch_keys(served[c]) == mismatch_keys(inproc[c]) == [], c
        assert served[c].get("ledger") == inproc[c].get("ledger") and set(served[c]["checks"]) == set(inproc[c]["checks"]), c
        assert served[c]["counters"].get("morph vertices") == inproc[c]["counters"].get("morph vertices"), c


def test_a_wrong_blend_of_a_case_built_by_code_is_caught_and_its_repro_shows_it(tmp_path, capsys):
    wrong = f"{BAD_MODEL} vertex"
    status, records, _ = run_dir(tmp_path, "vertex", chunks=["synthetic::morph/weights"], model=wrong)
    capsys.readouterr()
    m = records["synthetic::morph/weights"]["mismatches"][0]
    assert status == 1 and m["check"] == "morph" and m["field"] == "vertex[0].x"
    done = run_repro(m["repro"])
    assert done.returncode == 1 and "| vertex[0].x" in done.stdout, done.stdout + done.stderr


def test_a_wrong_model_shows_the_same_mismatches_live_as_against_a_truth_file(tmp_path, capsys):
    import io
    from harness.runners.truth_runs import truth_export
    from harness.runners.truth_runs.check_truth import check_truth
    wrong = NOTES_MODEL + " --wrong"
    path = str(tmp_path / "truth.jsonl")
    truth_export.export(Options(seed=4, profile="nightly", chunk_ids=list(CHUNKS), checks=["notes"]), path,
                        progress=None)
    status, _ = check_truth(path, model_cmd=wrong, json_out=str(tmp_path / "m.jsonl"), out=io.StringIO())
    from_file = [json.loads(x) for x in open(tmp_path / "m.jsonl", encoding="utf-8")]
    live_status, records, _ = run_dir(tmp_path, "live", checks=["notes"], model=wrong)
    capsys.readouterr()
    live = [m for c in CHUNKS for m in records[c]["mismatches"]]
    assert status == live_status == 1 and from_file
    assert mismatch_keys({"mismatches": live}) == mismatch_keys({"mismatches": from_file})


def test_the_game_against_itself_is_checked_in_a_model_run_as_in_process(tmp_path, capsys):
    # the running matrix (checks.md §2.1) needs no model: an executable that poses a held key's own
    # matrix fails a model run as it fails the in-process one, record for record
    from tests.harness.mutant_elfs import mutant_elf
    elf, chunks = mutant_elf("rot_per_key_matrix"), ["xd003.cmp::ANM_xd003001", "xd069.cmp::ANM_xd069000"]
    s_in, inproc, _ = run_dir(tmp_path, "inproc", chunks=chunks, image=elf, checks=["controllers"])
    s_model, served, _ = run_dir(tmp_path, "served", chunks=chunks, image=elf, checks=["controllers"], model=SERVE)
    capsys.readouterr()
    assert s_in == s_model == 1
    for c in chunks:
        assert mismatch_keys(served[c]) == mismatch_keys(inproc[c]) != []
        assert {m["field"] for m in served[c]["mismatches"]} == {"running matrix"}
        assert served[c]["counters"]["running-matrix holds"] == inproc[c]["counters"]["running-matrix holds"]


# mutants the playback steps catch, each on a chunk it fails: a return value; the exact matrices;
# the keyed 3x3s within the bound, the translations and the localtp
STEP_MUTANTS = [("play_once_returns_0", "xd016.cmp::ANM_xd016000"), ("swap_scale_operands", "b007.cmp::ANM_b007006"),
                ("euler_interp", "cha2body.cmp::ANM_cha2mag1")]


@pytest.mark.parametrize("name,chunk", STEP_MUTANTS, ids=[m for m, _ in STEP_MUTANTS])
def test_a_mutant_the_steps_catch_fails_a_model_run_record_for_record_as_in_process(tmp_path, capsys, name, chunk):
    # one comparison (harness/checks/playback.py): a model's mismatches carry every field and the
    # context of the in-process ones (the pose time, the keys around it, the step sizes, the time
    # before), all but the deviation a 3x3 within the bound measures from the answer's own form
    from tests.harness.mutant_elfs import mutant_elf
    elf = mutant_elf(name)
    s_in, inproc, _ = run_dir(tmp_path, "inproc", chunks=[chunk], image=elf, checks=["playback"], shrink=False)
    s_model, served, _ = run_dir(tmp_path, "served", chunks=[chunk], image=elf, checks=["playback"], model=SERVE,
                                  shrink=False)
    capsys.readouterr()
    assert s_in == s_model == 1
    same = lambda r: [{k: v for k, v in m.items() if k not in ("repro", "answered_by", "deviation")}
                      for m in r["mismatches"]]
    assert same(served[chunk]) == same(inproc[chunk]) != []
    # the rest of the record the same, but the reference plots a model run has not (docs/truth.md §5)
    aside = ASIDE + MEASURED_FROM_THE_ANSWER + ("mismatches", "draw")
    assert ({k: v for k, v in served[chunk].items() if k not in aside}
            == {k: v for k, v in inproc[chunk].items() if k not in aside})


def test_a_model_run_whose_queries_leave_out_a_record_is_not_green(tmp_path, capsys, monkeypatch):
    # the ledger of a model run comes from its queries: one that covers no F_Note record fails the
    # nightly with a named cause, as the in-process ledger does
    from harness.checks import notes
    real = notes.query

    def covering_nothing(*args):
        q = real(*args)
        q["ledger"] = []
        return q
    monkeypatch.setattr(notes, "query", covering_nothing)
    status, _, summary = run_dir(tmp_path, "left", chunks=CHUNKS, checks=["notes"], model=SERVE)
    capsys.readouterr()
    assert status == 1 and summary["status"] == "left out" and summary["mismatches"] == 0
    assert any(why.startswith("F_Note records: compared 0 of") for why in summary["left_out"]), summary["left_out"]


def test_a_models_answers_never_set_the_coverage_a_run_counts(tmp_path, capsys):
    """A model that answers every blend saturated is wrong everywhere; the saturations the run counts
    as met (quirk morph_saturation) are still the game's, as in process."""
    case = "synthetic::morph/weights"
    _, inproc, _ = run_dir(tmp_path, "inproc", chunks=[case])
    status, records, _ = run_dir(tmp_path, "saturate", chunks=[case], model=f"{BAD_MODEL} saturate")
    capsys.readouterr()
    assert status == 1 and records[case]["mismatches"]
    assert records[case]["quirks"].get("morph_saturation", 0) == inproc[case]["quirks"].get("morph_saturation", 0)


def test_a_child_a_model_forked_is_ended_with_the_run_in_every_worker(tmp_path):
    """JOBS=2: each pool worker's model forks a child holding its stdout; none outlives the run
    (a pool worker ends without atexit, so its models are ended by multiprocessing's finalizers)."""
    from .test_truth import children_left
    pidfile = str(tmp_path / "children")
    done = subprocess.run([sys.executable, "-m", "harness", "bulk", "--chunks", ",".join(CHUNKS[:2]), "--jobs", "2",
                           "--out", str(tmp_path / "run"), "--model", f"{BAD_MODEL} fork {shlex.quote(pidfile)}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not children_left(pidfile), "a model's child outlived the run"
