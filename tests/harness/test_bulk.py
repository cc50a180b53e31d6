"""make bulk in-process on the hand-built corpus: run directory, counters, resume, report."""
import json
import os

from harness.runners.bulk import command as bulk, worker

from harness.runners.cases import edge_chunks, morph_pseudo
from harness.options import DEFAULT_IMAGE, Options

from .minicorpus import mini_corpus


def opts_for(tmp_path, **kw):
    kw = dict(dict(seed=4, profile="quick", n=10, jobs=1, runs=str(tmp_path)), **kw)
    o = Options(**kw)
    o._corpus = mini_corpus()
    return o


def test_bulk_writes_a_complete_run_directory_and_a_closing_summary(tmp_path, capsys):
    """interfaces.md §4: params.json, chunks/<index>.json, summary.json with the counters; latest link."""
    rc = bulk.run_bulk(opts_for(tmp_path), ["test"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    run = os.path.realpath(tmp_path / "latest")
    params = json.load(open(os.path.join(run, "params.json")))
    assert params["chunks"] == ["mini.cmp::ANM_loop", "mini.cmp::ANM_once"] + morph_pseudo.ids() + edge_chunks.ids()
    assert params["profile"] == "quick"
    s = json.load(open(os.path.join(run, "summary.json")))
    n = 2 + len(bulk.synthetic_ids())
    assert s["complete"] and s["chunks_done"] == n and s["mismatches"] == 0 and s["errors"] == 0
    for counter in ("cases", "keyed rotations", "single-value rotations", "multistep checks", "steps",
                    "object matrices", "morph states", "note steps", "notes delivered", "F_Obj poses"):
        assert s["counters"].get(counter, 0) > 0, counter
    assert s["worst_keyed_rotation"]["d"] <= s["worst_keyed_rotation"]["bound"]
    synthetic = len(bulk.synthetic_ids())
    assert f"[2/2] + {synthetic}/{synthetic} synthetic mismatches 0 errors 0" in out.err, out.err
    assert f"2 chunks of the archive and {synthetic} synthetic cases" in out.out, out.out
    assert "compared, by check:" in out.out and "quirks exercised:" in out.out
    chunk = json.load(open(os.path.join(run, "chunks", "00000.json")))
    assert chunk["chunk"] == "mini.cmp::ANM_loop" and chunk["error"] is None and chunk["rotation_deviation"]


def test_an_identical_incomplete_run_is_resumed_without_redoing_finished_chunks(tmp_path, capsys, monkeypatch):
    real = worker.check_record
    calls = []

    def once_then_stop(opts, index, cid, *rest):
        if calls:
            raise KeyboardInterrupt
        calls.append(cid)
        return real(opts, index, cid, *rest)
    monkeypatch.setattr(worker, "check_record", once_then_stop)
    assert bulk.run_bulk(opts_for(tmp_path), ["test"]) == 130
    run = os.path.realpath(tmp_path / "latest")
    first = os.stat(os.path.join(run, "chunks", "00000.json")).st_mtime_ns
    monkeypatch.setattr(worker, "check_record", lambda opts, index, cid, *rest: (calls.append(cid), real(opts, index, cid, *rest))[1])
    assert bulk.run_bulk(opts_for(tmp_path), ["test"]) == 0
    assert calls == ["mini.cmp::ANM_loop", "mini.cmp::ANM_once"] + morph_pseudo.ids() + edge_chunks.ids()
    assert os.stat(os.path.join(run, "chunks", "00000.json")).st_mtime_ns == first
    assert os.path.realpath(tmp_path / "latest") == run
    assert "1 already done" in capsys.readouterr().err


def test_a_mismatch_makes_the_exit_status_non_zero_and_the_report_is_rendered(tmp_path, capsys, monkeypatch):
    from harness.driver import game as game_mod
    real = game_mod.Game.note_process
    monkeypatch.setattr(game_mod.Game, "note_process", lambda self: list(reversed(real(self))))
    assert bulk.run_bulk(opts_for(tmp_path), ["test"]) == 1
    out = capsys.readouterr().out
    run = os.path.realpath(tmp_path / "latest")
    s = json.load(open(os.path.join(run, "summary.json")))
    assert s["mismatches"] > 0 and s["checks"]["notes"]["mismatches"] > 0
    assert "report: " in out and os.path.isfile(os.path.join(run, "report.html"))


def test_bulk_shrink_attaches_a_minimal_replayable_input(tmp_path, capsys, monkeypatch):
    """`--shrink` attaches `shrunk` (fewest plan steps) with a replay command."""
    from harness.driver import game as game_mod
    real_fw = game_mod.Game.forward

    def forward(self, dt):                # a game that miscounts any step starting at frame >= 3
        before = self.time()
        t, r = real_fw(self, dt)
        return (t + 1 if before >> 8 >= 3 else t), r
    monkeypatch.setattr(game_mod.Game, "forward", forward)
    assert bulk.run_bulk(opts_for(tmp_path, shrink=True, checks=["notes"], seed=5), ["test"]) == 1
    run = os.path.realpath(tmp_path / "latest")
    shrunk = [m["shrunk"] for name in sorted(os.listdir(os.path.join(run, "chunks")))
              for m in json.load(open(os.path.join(run, "chunks", name)))["mismatches"]
              if m["field"] == "frame counter"]
    # the 12-step plan shrinks to 2 steps; a plan that cannot lose a step gives its whole replay
    # (every failing chunk has a shrunk repro)
    assert shrunk and all(shrunk), shrunk
    done = [s for s in shrunk if len(s["plan"]) < s["original_length"]]
    assert done and all(len(s["plan"]) == 2 for s in done), shrunk
    assert all(len(s["plan"]) == s["original_length"] for s in shrunk if s not in done), shrunk
    assert done[0]["repro"].startswith(".venv/bin/python -m harness replay --case mini.cmp::ANM_")


def test_a_mutant_run_leaves_latest_on_the_last_real_run(tmp_path, capsys):
    """build/runs/latest names the newest run of a real executable: a stand-in mutant's run does not
    move it, so make report and coverage keep acting on the run that matters."""
    from harness.runners.bulk.run import MUTANT_ELFS
    import shutil
    assert bulk.run_bulk(opts_for(tmp_path, n=1, checks=["controllers"]), ["test"]) == 0
    real = os.path.realpath(tmp_path / "latest")
    os.makedirs(MUTANT_ELFS, exist_ok=True)
    mutant = os.path.join(MUTANT_ELFS, "latest-test-copy.elf")
    shutil.copyfile(DEFAULT_IMAGE, mutant)
    try:
        bulk.run_bulk(opts_for(tmp_path, n=1, checks=["controllers"], image=mutant, fresh=True), ["test"])
    finally:
        os.unlink(mutant)
    runs = [d for d in os.listdir(tmp_path) if d != "latest"]
    assert len(runs) == 2 and os.path.realpath(tmp_path / "latest") == real


def test_plots_are_recorded_for_a_workers_first_plotted_chunks_and_names_for_every_failing_one(
        tmp_path, capsys, monkeypatch):
    """A chunk record's draw (harness/compare/draw.py): the reference channels for the first
    PLOTTED_CHUNKS chunks with plottable mismatches of a worker, archive and edge chunks alike;
    a later one says it went unplotted, and every failing chunk names its objects. The mutant
    computes R·S with fs = the scale: playback matrix mismatches under the hw multiplier."""
    from tests.harness.mutant_elfs import built
    from harness.options import ROOT
    mutant = built(os.path.join(ROOT, "standin", "build", "mutants", "swap_scale_operands.elf"))
    monkeypatch.setattr(worker, "PLOTTED_CHUNKS", 1)
    assert bulk.run_bulk(opts_for(tmp_path, checks=["playback"], profile="nightly", float_model="hw",
                                  image=mutant, fresh=True), ["test"]) == 1
    run = next(p for p in tmp_path.iterdir() if p.is_dir() and p.name != "latest")
    recs = [json.load(open(p)) for p in sorted((run / "chunks").iterdir())]
    failing = [r for r in recs if r["mismatches"]]
    assert [r["chunk"] for r in failing] == ["mini.cmp::ANM_loop", "synthetic::edge/back-in-time"]
    assert [sorted(r["draw"]) for r in failing] == [["names", "series"], ["names", "unplotted"]]
    assert all(r.get("draw") is None for r in recs if not r["mismatches"])
    for r in failing:
        assert {str(m["object"]) for m in r["mismatches"]} == set(r["draw"]["names"])
