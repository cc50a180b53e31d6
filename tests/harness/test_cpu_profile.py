"""`harness bulk --profile-cpu`: the workers' time split into the machine per game function (time
in compiled code apart from the per-call overhead), the chunk set-up, the reference per query kind,
the comparison and bookkeeping, and record writing; every instruction the run counts and every
chunk it checks is in it once."""
import json

from harness.runners.bulk import command as bulk, cpu_profile

from .test_bulk import opts_for
from .test_run_verdict import bulk as bulk_cli


def profiled(tmp_path, monkeypatch, **kw):
    where = tmp_path / "profile"
    where.mkdir()
    monkeypatch.setenv(cpu_profile.ENV, str(where))
    monkeypatch.setattr(bulk, "render_report", lambda path, headline=False: None)
    try:
        assert bulk.run_bulk(opts_for(tmp_path, out=str(tmp_path / "run"), **kw), ["test"]) == 0
    finally:
        cpu_profile.uninstall()
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    return cpu_profile.collect(str(where)), summary


def test_the_profile_holds_every_instruction_and_chunk_of_the_run_once(tmp_path, monkeypatch):
    prof, summary = profiled(tmp_path, monkeypatch, profile="nightly")
    mach = prof["machine"]
    assert sum(r["instructions"] for r in mach.values()) == summary["machine_steps"] > 0
    assert {"ConvLCNum2ALCNum", "InitAnmCtrlWork", "SetAnmCtrlWork", "_AnimateForward"} <= set(mach)
    # the anm-object driver's functions, whose symbols it adds after the Game is made, by name too
    assert {"MakeAnimeIndex", "SetAnm", "ccAnm::Draw", "DeleteAnmIndex"} <= set(mach)
    assert not [name for name in mach if name.startswith("0x")], sorted(mach)
    for name, r in mach.items():
        assert r["calls"] > 0 and 0 <= r["c_seconds"] <= r["seconds"], (name, r)
    calls = prof["calls"]
    assert calls[cpu_profile.COMPARE] == calls[cpu_profile.WRITE] == summary["chunks_done"]
    assert calls[cpu_profile.FRESH] == summary["counters"]["loads fresh"]
    # a restored load and a fresh one both pass through the snapshot section
    assert calls[cpu_profile.RESTORE] == summary["counters"]["loads fresh"] + summary["counters"]["loads restored"]
    assert {"reference: parse", "reference: poses", "reference: forward", "reference: morph (Modify)"} <= set(calls)
    # the anm's objects' reference, each function a query kind of its own (not comparison time)
    assert {f"reference: {name}" for name in cpu_profile.OBJECT_QUERIES} <= set(calls)
    assert all(v >= 0 for v in prof["seconds"].values())


def test_the_table_names_every_part_and_adds_up(tmp_path, monkeypatch):
    prof, _ = profiled(tmp_path, monkeypatch)
    text = cpu_profile.table(prof)
    for part in ("the machine", "per-call overhead", "in compiled code", cpu_profile.FRESH, cpu_profile.RESTORE,
                 "the reference", "poses", cpu_profile.COMPARE, cpu_profile.WRITE):
        assert part in text, part
    total = float(text.splitlines()[-1].split("|")[2])
    assert abs(total - sum(prof["seconds"].values())) < 0.01


def test_bulk_profile_cpu_prints_the_table_and_writes_it(tmp_path):
    out = tmp_path / "profile.json"
    r = bulk_cli(tmp_path, tmp_path / "run", "--n", "2", "--check", "notes", "--profile-cpu", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "CPU profile of the workers" in r.stdout and "| the machine (all game calls) |" in r.stdout
    got = json.loads(out.read_text())
    assert got["machine"]["NoteProcess"]["calls"] > 0
