"""Bulk checks the chunks predicted to cost most first: by the newest earlier run's
measured time when there is one, else by W x the four speeds' playback steps from the header."""
import json
import os
import struct

from harness.runners.bulk import schedule


def chunk(frames, words):
    return b"\0" * 12 + struct.pack("<II", frames, words) + b"\0" * (4 + 4 * words)


CHUNKS = {"a": chunk(10, 100), "b": chunk(80, 100), "c": chunk(10, 900), "synthetic::morph:1": b""}
TODO = [(i, cid, "run", None) for i, cid in enumerate(CHUNKS)]


def test_without_timings_the_header_proxy_orders_longest_first():
    got = [t[1] for t in schedule.order(TODO, CHUNKS.__getitem__, {})]
    assert got == ["c", "b", "a", "synthetic::morph:1"]
    assert schedule.header_cost(CHUNKS["b"]) > schedule.header_cost(CHUNKS["a"])


def test_the_last_runs_measured_times_win_over_the_proxy(tmp_path):
    old = tmp_path / "runs" / "older"
    new = tmp_path / "runs" / "newer"
    for d, t in ((old, {"a": 1.0}), (new, {"a": 9.0, "synthetic::morph:1": 5.0, "c": 0.5})):
        d.mkdir(parents=True)
        schedule.write_timings(str(d), t)
    os.utime(old / schedule.TIMINGS, (1, 1))
    current = tmp_path / "runs" / "current"
    current.mkdir()
    timings = schedule.last_timings(str(tmp_path / "runs"), str(current))
    assert timings == {"a": 9.0, "synthetic::morph:1": 5.0, "c": 0.5}, "the newest run's"
    got = [t[1] for t in schedule.order(TODO, CHUNKS.__getitem__, timings)]
    # b has no time of its own: its proxy scaled by the timed chunks' median seconds per unit
    assert got == ["b", "a", "synthetic::morph:1", "c"]


def test_a_bulk_run_writes_its_timings_and_the_next_run_reads_them(tmp_path):
    from harness.runners.bulk.run import RunDir
    params = {"seed": 4, "profile": "quick", "float_model": "hw", "n": 2, "chunks": ["x", "y"],
              "image": {"sha256": "x"}, "data": {"sha256": "y"}}
    rd = RunDir.create(params, runs=str(tmp_path))
    for i, (cid, s) in enumerate((("x", 0.25), ("y", 3.5))):
        rd.write_chunk({"chunk": cid, "index": i, "seconds": s, "counters": {}, "quirks": {},
                        "mismatches": [], "error": None})
    rd.summarize(4.0)
    with open(os.path.join(rd.path, schedule.TIMINGS)) as f:
        assert json.load(f) == {"x": 0.25, "y": 3.5}
    assert schedule.last_timings(str(tmp_path), str(tmp_path / "another")) == {"x": 0.25, "y": 3.5}
