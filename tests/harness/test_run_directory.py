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
    assert "6 already done of 7, 1 to check" in r.stderr and "[3/3]" in r.stderr, r.stderr
    assert "[4/3]" not in r.stderr and "ETA -" not in r.stderr
    assert "chunks/00007.json" in r.stderr and "chunks/00009.json" in r.stderr
    s = summary(run)
    assert s["archive_chunks"]["done"] == 3 and s["complete"] and s["status"] == "pass"
    assert (chunks / "00002.json").exists()


def test_a_resume_whose_interim_summary_is_malformed_is_a_one_line_error_naming_the_member(small, tmp_path):
    """The harness reads its own summary.json as it reads a report's (reports.records.Summary): the
    wall time a resume carries on from is a number, or the resume is refused naming it."""
    run = copy_run(small, tmp_path)
    s = summary(run)
    s["seconds"] = "ten"
    (run / "summary.json").write_text(json.dumps(s))
    (run / "chunks" / "00002.json").unlink()
    r = bulk(tmp_path, run, "--data", small[1], "--check", "controllers", "--n", "100000", "--resume", str(run))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stdout + r.stderr
    line, = r.stderr.strip().splitlines()[-1:]
    assert "summary.json" in line and "'seconds'" in line and "ten" in line, r.stderr


def test_merge_refuses_a_shard_whose_summary_is_malformed_naming_it(small, tmp_path):
    for k in (1, 2):
        r = bulk(tmp_path, tmp_path / f"s{k}", "--data", small[1], "--check", "controllers", "--n", "100000",
                 "--shard", f"{k}/2")
        assert r.returncode == 0, r.stdout + r.stderr
    s = summary(tmp_path / "s2")
    s["seconds"] = [1]
    (tmp_path / "s2" / "summary.json").write_text(json.dumps(s))
    r = harness(tmp_path, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert "s2/summary.json" in r.stderr and "'seconds'" in r.stderr, r.stderr
    assert not (tmp_path / "m" / "summary.json").exists()


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
    from harness.runners.bulk.run import RunDir
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


def resume(tmp_path, run, small, *args):
    return bulk(tmp_path, run, "--data", small[1], "--check", "controllers", "--n", "100000", *args)


@pytest.mark.parametrize("field,value,named", [
    ("model", "python3 my_model.py", "model: run python3 my_model.py, now None"),
    ("syms", {"path": "/x/v.elf.syms", "size": 1, "sha256": "ab" * 32}, "sidecar sha256: run abab"),
    ("overlay", "gcmn.prg", "overlay: run gcmn.prg, now None"),
    ("lockstep", True, "engine lockstep: run True, now None"),
])
def test_a_run_resumed_without_its_model_sidecar_overlay_or_engine_is_refused_naming_it(small, tmp_path, field,
                                                                                         value, named):
    run = copy_run(small, tmp_path)
    p = json.loads((run / "params.json").read_text())
    (run / "params.json").write_text(json.dumps(dict(p, **{field: value})))
    (run / "summary.json").unlink()
    r = resume(tmp_path, run, small)
    assert r.returncode == 2 and named in r.stderr and "--force" in r.stderr, r.stderr
    r = resume(tmp_path, run, small, "--force")
    assert r.returncode == 0 and "despite: " + named.split(":")[0] in r.stderr, r.stderr


def test_a_run_resumed_with_another_sidecar_is_refused(small, tmp_path):
    run = copy_run(small, tmp_path)
    (run / "summary.json").unlink()
    side = tmp_path / "other.syms"
    side.write_text(open(os.path.join(os.path.dirname(archives.__file__), "..", "..", "standin", "standin-stripped.elf.syms")).read())
    r = resume(tmp_path, run, small, "--syms", str(side))
    assert r.returncode == 2 and "sidecar sha256: run None, now " in r.stderr, r.stderr


def test_every_identity_parameter_changes_the_automatic_resume_key():
    from harness.runners.bulk.run import RESUME_PARAMS, params_key
    base = {"seed": 4, "profile": "quick", "float_model": "hw", "n": 100, "chunks": ["a"], "code": "c"}
    variants = {"seed": {"seed": 5}, "profile": {"profile": "nightly"}, "float model": {"float_model": "soft"},
                "checks": {"checks": ["notes"]}, "n": {"n": 7}, "executable sha256": {"image": {"sha256": "1"}},
                "data sha256": {"data": {"sha256": "2"}}, "disc sha256": {"disc": {"sha256": "3"}},
                "code version": {"code": "d"}, "chunks": {"chunks": ["b"]},
                "shard": {"shard": {"k": 1, "m": 2, "indices": [0]}}, "model": {"model": "m"},
                "sidecar sha256": {"syms": {"sha256": "4"}}, "overlay": {"overlay": "gcmn.prg"},
                "overlay sha256": {"overlay_prg": {"sha256": "5"}}, "engine lockstep": {"lockstep": True},
                "corpus image sha256": {"corpus_image": {"sha256": "6"}}, "volume": {"volume": "mut"}}
    assert set(variants) == set(RESUME_PARAMS)
    for name, change in variants.items():
        assert params_key(dict(base, **change)) != params_key(base), name


def test_merge_refuses_a_model_shard_with_an_in_process_one(small, tmp_path):
    for k in (1, 2):
        r = bulk(tmp_path, tmp_path / f"s{k}", "--data", small[1], "--check", "controllers", "--n", "100000",
                 "--shard", f"{k}/2")
        assert r.returncode == 0, r.stdout + r.stderr
    p = json.loads((tmp_path / "s2" / "params.json").read_text())
    (tmp_path / "s2" / "params.json").write_text(json.dumps(dict(p, model="python3 my_model.py")))
    r = harness(tmp_path, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m"))
    assert r.returncode == 2 and "model: run None, now python3 my_model.py" in r.stderr, r.stdout + r.stderr
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("command", ["bulk", "merge"])
def test_out_on_a_non_empty_directory_that_is_no_run_directory_is_refused_untouched(small, tmp_path, command):
    out = tmp_path / "photos"
    out.mkdir()
    (out / "summary.json").write_text("mine")
    (out / "chunks").mkdir()
    (out / "chunks" / "00000.json").write_text("mine too")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    if command == "bulk":
        r = bulk(tmp_path, out, "--data", small[1], "--check", "controllers", "--n", "100000")
    else:
        r = harness(tmp_path, "merge", str(small[0] / "run"), "--out", str(out))
    assert r.returncode == 2 and f"{out}: not empty and not a run directory" in r.stderr, r.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
