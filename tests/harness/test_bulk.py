"""make bulk in-process on the hand-built corpus: run directory, counters, resume, report (issue 7 §4)."""
import json
import os

from harness.runners import bulk, edge_chunks, morph_pseudo
from harness.options import Options

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
    n = 2 + len(morph_pseudo.ids()) + len(edge_chunks.ids())
    assert s["complete"] and s["chunks_done"] == n and s["mismatches"] == 0 and s["errors"] == 0
    for counter in ("cases", "keyed rotations", "single-value rotations", "multistep checks", "steps",
                    "object matrices", "morph states", "note steps", "notes delivered", "F_Obj poses"):
        assert s["counters"].get(counter, 0) > 0, counter
    assert s["worst_keyed_rotation"]["d"] <= s["worst_keyed_rotation"]["bound"]
    assert f"[{n}/{n}] mismatches 0 errors 0" in out.err and "counters:" in out.out and "quirk coverage:" in out.out
    chunk = json.load(open(os.path.join(run, "chunks", "00000.json")))
    assert chunk["chunk"] == "mini.cmp::ANM_loop" and chunk["error"] is None and chunk["rotation_deviation"]


def test_an_identical_incomplete_run_is_resumed_without_redoing_finished_chunks(tmp_path, capsys, monkeypatch):
    real = bulk._check_one
    calls = []

    def once_then_stop(task):
        if calls:
            raise KeyboardInterrupt
        calls.append(task[1])
        return real(task)
    monkeypatch.setattr(bulk, "_check_one", once_then_stop)
    assert bulk.run_bulk(opts_for(tmp_path), ["test"]) == 130
    run = os.path.realpath(tmp_path / "latest")
    first = os.stat(os.path.join(run, "chunks", "00000.json")).st_mtime_ns
    monkeypatch.setattr(bulk, "_check_one", lambda task: (calls.append(task[1]), real(task))[1])
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
    assert s["mismatches"] > 0 and s["mismatches_by_check"].get("notes", 0) > 0
    assert "report: " in out and os.path.isfile(os.path.join(run, "report.html"))


def test_bulk_shrink_attaches_a_minimal_replayable_input(tmp_path, capsys, monkeypatch):
    """issue 8: `--shrink` attaches `shrunk` (fewest plan steps) with a replay command."""
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
    # a plan that cannot lose a step stays unshrunk (None); the 12-step one shrinks to 2 steps
    done = [s for s in shrunk if s]
    assert done and all(len(s["plan"]) == 2 < s["original_length"] for s in done), shrunk
    assert done[0]["repro"].startswith(".venv/bin/python -m harness replay --case mini.cmp::ANM_")
