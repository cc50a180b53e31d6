"""Chunk records are written atomically and made durable in batches: one sync per
SYNC_EVERY records and one before the summary; a record torn by a machine crash is found on
resume, removed, and its chunk checked again."""
import os

from harness.runners.bulk import run as run_mod
from harness.runners.bulk.run import RunDir

PARAMS = {"seed": 4, "profile": "quick", "float_model": "hw", "n": 3, "chunks": ["a", "b", "c"],
          "image": {"sha256": "x"}, "data": {"sha256": "y"}}


def rec(i):
    return {"chunk": "abc"[i], "index": i, "seconds": 1.0, "counters": {"cases": 1}, "quirks": {},
            "mismatches": [], "error": None}


def test_records_are_synced_once_per_batch_and_before_the_summary(tmp_path, monkeypatch):
    syncs, fsyncs = [], []
    real_syncfs = run_mod._syncfs
    monkeypatch.setattr(run_mod, "_syncfs", lambda d: (syncs.append(d), real_syncfs(d))[1])
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd))[1])
    monkeypatch.setattr(run_mod, "SYNC_EVERY", 2)
    monkeypatch.setattr(run_mod, "_unsynced", [])
    rd = RunDir.create(PARAMS, runs=str(tmp_path))
    fsyncs.clear()
    rd.write_chunk(rec(0))
    assert not syncs and not fsyncs, "one record: no sync yet"
    rd.write_chunk(rec(1))
    assert syncs == [rd.chunks_dir], "the batch of two is synced at once"
    rd.write_chunk(rec(2))
    s = rd.summarize(1.0)
    assert s["complete"] and len(syncs) == 2, "the summary's records are synced before it"


def test_a_sync_that_fails_is_one_clear_error_naming_the_directory(tmp_path, monkeypatch):
    import ctypes
    import errno
    import pytest
    from harness.runners.bulk.run import RunDirError
    rd = RunDir.create(PARAMS, runs=str(tmp_path))
    rd.write_chunk(rec(0))

    class Libc:
        def syncfs(self, fd):
            ctypes.set_errno(errno.EIO)
            return -1
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: Libc())
    with pytest.raises(RunDirError) as e:
        rd.summarize(1.0)
    assert str(e.value) == f"cannot write {rd.chunks_dir}: Input/output error"


def test_a_torn_record_is_checked_again_on_resume(tmp_path):
    rd = RunDir.create(PARAMS, runs=str(tmp_path))
    for i in range(3):
        rd.write_chunk(rec(i))
    with open(rd.chunk_path(1), "w") as f:          # what a crash before the sync may leave
        f.write('{"chunk": "b", "ind')
    open(rd.chunk_path(2), "w").close()             # or an empty file
    assert rd.done_indices() == {0}
    assert sorted(os.listdir(rd.chunks_dir)) == ["00000.json"], "the torn records are gone"
