"""A run directory (interfaces.md §4) counts the selection and nothing else: a resume checks the
selected chunks without a record and names a record of no selected chunk (never "[4/3]" or a
negative ETA); `merge` reads its input shards and never writes them; one bulk at a time writes a
run directory; a params.json that does not parse is a one-line error."""
import json
import os
import shutil

import pytest

from tests.harness import archives
from tests.harness.test_run_verdict import bulk, harness, summary


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A finished passing run of the three small chunks (controllers), and its archive."""
    tmp = tmp_path_factory.mktemp("rundir")
    data = archives.small_archive(str(tmp / "DATA.BIN"))
    r = bulk(tmp, tmp / "run", "--data", data, "--check", "controllers", "--n", "100000")
    assert r.returncode == 0, r.stdout + r.stderr
    assert summary(tmp / "run")["archive_chunks"]["done"] == 3
    return tmp, data


def copy_run(small, tmp_path):
    shutil.copytree(small[0] / "run", tmp_path / "run")
    return tmp_path / "run"


def test_a_resume_checks_the_lost_chunk_and_names_the_stray_records(small, tmp_path):
    run = copy_run(small, tmp_path)
    chunks = run / "chunks"
    (chunks / "00007.json").write_text((chunks / "00000.json").read_text())          # a copy: index 0 inside
    (chunks / "00009.json").write_text(json.dumps(dict(json.loads((chunks / "00001.json").read_text()),
                                                       index=9)))                      # beyond the selection
    (chunks / "00002.json").unlink()
    r = bulk(tmp_path, run, "--data", small[1], "--check", "controllers", "--n", "100000")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "5 already done of 6, 1 to check" in r.stderr and "[3/3]" in r.stderr, r.stderr
    assert "[4/3]" not in r.stderr and "ETA -" not in r.stderr
    assert "chunks/00007.json" in r.stderr and "chunks/00009.json" in r.stderr
    s = summary(run)
    assert s["archive_chunks"]["done"] == 3 and s["complete"] and s["status"] == "pass"
    assert (chunks / "00002.json").exists()


def test_merge_never_writes_an_input_shard(small, tmp_path):
    data = small[1]
    for k in (1, 2):
        r = bulk(tmp_path, tmp_path / f"s{k}", "--data", data, "--check", "controllers", "--n", "100000",
                 "--shard", f"{k}/2")
        assert r.returncode == 0, r.stdout + r.stderr
    torn = next((tmp_path / "s1" / "chunks").glob("*.json"))
    torn.write_text('{"chunk": "eq0')                       # a record torn by a machine crash
    before = {p: p.read_bytes() for s in ("s1", "s2") for p in (tmp_path / s).rglob("*") if p.is_file()}
    r = harness(tmp_path, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m"))
    assert r.returncode == 2 and "incomplete" in r.stderr, r.stdout + r.stderr
    after = {p: p.read_bytes() for s in ("s1", "s2") for p in (tmp_path / s).rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.parametrize("where", ["read-only directory", "under a regular file"])
def test_merge_out_where_nothing_can_be_written_is_a_one_line_error(small, tmp_path, where):
    data = small[1]
    for k in (1, 2):
        assert bulk(tmp_path, tmp_path / f"s{k}", "--data", data, "--check", "controllers", "--n", "100000",
                    "--shard", f"{k}/2").returncode == 0
    ro = tmp_path / "ro"
    if where == "under a regular file":
        ro.write_text("a file, not a directory")
    else:
        ro.mkdir()
        ro.chmod(0o555)
    try:
        if ro.is_dir() and os.access(ro, os.W_OK):
            pytest.skip("running as a user who may write a read-only directory (root)")
        r = harness(tmp_path, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(ro / "m"))
    finally:
        if ro.is_dir():
            ro.chmod(0o755)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    line, = r.stderr.strip().splitlines()
    assert line.startswith("harness: cannot write") and str(ro) in line


def test_a_second_bulk_on_a_run_directory_in_use_is_refused(small, tmp_path):
    from harness.runners.run import RunDir
    run = copy_run(small, tmp_path)
    (run / "chunks" / "00001.json").unlink()
    with RunDir(run).lock():
        r = bulk(tmp_path, run, "--data", small[1], "--check", "controllers", "--n", "100000")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "harness: " in r.stderr and "another bulk" in r.stderr and str(run) in r.stderr
    assert not (run / "chunks" / "00001.json").exists()
    r = bulk(tmp_path, run, "--data", small[1], "--check", "controllers", "--n", "100000")
    assert r.returncode == 0 and (run / "chunks" / "00001.json").exists()


@pytest.mark.parametrize("text,field", [("{not json", "invalid JSON"), ("[1, 2]", "a JSON object"),
                                        ('{"chunks": "eq077.cmp", "seed": 4}', "'chunks'")])
def test_resume_with_a_malformed_params_json_is_a_one_line_error(small, tmp_path, text, field):
    run = copy_run(small, tmp_path)
    (run / "params.json").write_text(text)
    r = harness(tmp_path, "bulk", "--resume", str(run), "--data", small[1], "--check", "controllers",
                "--n", "100000", "--jobs", "1")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    line, = r.stderr.strip().splitlines()
    assert "params.json" in line and field in line
