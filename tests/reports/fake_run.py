"""Hand-built run directories in the format of interfaces.md §4, for the reports tests."""
from __future__ import annotations

import json
import os
from pathlib import Path

SHA_IMAGE = "a3" * 32
SHA_DATA = "5e" * 32


def mismatch(chunk, check, field, expected, got, **kw) -> dict:
    """A mismatch record with every interfaces.md §4 member (defaults null)."""
    m = {"chunk": chunk, "check": check, "object": None, "track": None, "time": None,
         "step": None, "field": field, "expected": expected, "got": got, "ulp": None,
         "deviation": None, "tolerance": None, "seed": 4,
         "repro": f"make one CASE='{chunk}' SEED=4 CHECK={check}", "context": {}}
    m.update(kw)
    return m


def write_run(root: Path, chunks: list[dict], *, params: dict | None = None,
              summary: dict | None = None, run_id="20261130T010000Z-abc123") -> Path:
    """Write params.json and chunks/<index>.json (atomically, as the harness does)."""
    run = Path(root) / run_id
    (run / "chunks").mkdir(parents=True, exist_ok=True)
    p = {"run_id": run_id, "started": "2026-11-30T01:00:00+00:00",
         "argv": ["python", "-m", "harness", "bulk", "--n", str(len(chunks))], "seed": 4,
         "profile": "quick", "float_model": "hw", "n": len(chunks), "jobs": 2,
         "image": {"path": "standin/standin.elf", "size": 123456, "sha256": SHA_IMAGE},
         # a corpus path that does not exist: reports renders from the records alone
         "data": {"path": str(Path(root) / "no-corpus" / "DATA.BIN"), "size": 7654321,
                  "sha256": SHA_DATA},
         "chunks": [c["chunk"] for c in chunks]}
    p.update(params or {})
    (run / "params.json").write_text(json.dumps(p))
    for i, c in enumerate(chunks):
        rec = {"chunk": c["chunk"], "index": i, "seconds": 0.5, "counters": {}, "quirks": {},
               "mismatches": [], "error": None}
        rec.update(c)
        tmp = run / "chunks" / f"{i:05d}.json.tmp"
        tmp.write_text(json.dumps(rec))
        os.replace(tmp, run / "chunks" / f"{i:05d}.json")
    if summary is not None:
        (run / "summary.json").write_text(json.dumps(summary))
    return run


def small_run(root: Path) -> Path:
    """Four chunks: one clean, one with a 1-ulp position error and a keyed-rotation drift,
    one with a playback frame-counter mismatch (shrunk), one with reversed notes."""
    a, b, c, d = ("town01.cmp::ANM_sr1fla1_a", "cha2body.cmp::ANM_cha2mag1",
                  "ekx1.cmp::ANM_ekx1atc0", "ctu1body.cmp::ANM_ctu1atc0")
    chunks = [
        {"chunk": a, "checks": ["controllers", "multistep", "playback"],
         "counters": {"controllers.cases": 40, "controllers.keyed_rotations": 12,
                      "playback.steps": 60, "controllers.worst_d": 3e-6},
         "quirks": {"loop_resets": 2, "shared_frame_keys": 1, "keys_back_in_time": 0},
         "rotation_deviation": [[0, 1e-6], [3, 2.5e-6], [10, 3e-6]]},
        {"chunk": b, "checks": ["controllers", "multistep"],
         "counters": {"controllers.cases": 30, "controllers.keyed_rotations": 20},
         "quirks": {"keys_back_in_time": 1},
         "rotation_deviation": [[70, 1.3e-5], [72, 2.4e-5]],
         "mismatches": [
             mismatch(b, "controllers", "position.x", "0x3f800000", "0x3f800001",
                      object="OBJ_cha2body", track=3, time=1234, ulp=1,
                      context={"keys": {"keys": [
                                   {"i": 3, "frame": 4, "value": ["0x3f000000"]},
                                   {"i": 4, "frame": 5, "value": ["0x3f800000"]},
                                   {"i": 5, "frame": 9, "value": ["0x40000000"]}],
                                   "count": 12},
                               "pose_time": 1234, "passed": 4},
                      series={"label": "position.x", "t": [0, 256, 512, 768, 1024, 1280],
                              "ref": [0.0, 0.25, 0.5, 0.75, 1.0, 1.0],
                              "game_t": [1234], "game": [1.0000001]}),
             mismatch(b, "controllers", "rotation[1][2]", "0x3e4ccccd", "0x3e4cd0a0",
                      object="OBJ_cha2body", track=5, time=18000, deviation=2.4e-5,
                      tolerance=1.72e-5, context={"passed": 72}),
         ]},
        {"chunk": c, "checks": ["playback", "notes"],
         "counters": {"playback.steps": 14, "notes.steps": 120},
         "quirks": {"restarts": 3, "ends": 2},
         "mismatches": [
             mismatch(c, "playback", "frame counter", "0x00000405", "0x00000500", step=13,
                      time=1029, context={"steps": [100] * 13, "speed": 100},
                      shrunk={"steps": [700, 329], "repro":
                              f"make one CASE='{c}' SEED=4 CHECK=playback STEPS=700,329",
                              "tests": 41}),
         ]},
        {"chunk": d, "checks": ["notes"],
         "counters": {"notes.steps": 120, "notes.delivered": 40},
         "quirks": {"several_notes_per_frame": 4},
         "mismatches": [
             mismatch(d, "notes", "notes", [[2, 2, 4, 7], [32773, 1, 4, 7]],
                      [[32773, 1, 4, 7], [2, 2, 4, 7]], step=5, time=1280),
         ]},
    ]
    return write_run(root, chunks)
