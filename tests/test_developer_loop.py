"""The developer loop covers every applicable chunk by default: `pytest -k notes` collects a note
test for every chunk with notes (not a sample of 3), each check marker every chunk with its
records, and a -k that names one check word runs on every core. Against a broken build it stops
after a few failing chunks and says how to see them all, with no xdist worker line above a failure."""
import os
import re
import subprocess
import sys

import eediff_pytest
from eediff_pytest import MAXFAIL, ROOT
from tests.harness import archives


def collected(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EEDIFF_", "PYTEST_"))}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "--collect-only",
                        "-q", *args], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return [line for line in r.stdout.splitlines() if "::" in line]


def test_the_note_word_collects_every_note_chunk():
    from harness.options import Options
    from harness.runners.bulk import selection
    pool = selection.pool(Options().open_corpus(), selection.kinds_for(["notes"]))
    ids = [t for t in collected("-k", "notes") if "test_chunks.py::test_notes[" in t]
    assert len(ids) == len(pool) > 3
    assert {t.split("[", 1)[1][:-1] for t in ids} == set(pool)


def test_every_check_marker_takes_every_chunk_with_its_records():
    from tests.differential.conftest import DEFAULT_CHUNKS
    assert DEFAULT_CHUNKS == {"quick": None, "nightly": None}
    ids = [t for t in collected("-k", "fobj", "tests/differential") if "test_chunks.py::test_fobj[" in t]
    from harness.options import Options
    from harness.runners.bulk import selection
    assert len(ids) == len(selection.pool(Options().open_corpus(), selection.kinds_for(["fobj"])))


class FakeConfig:
    class pluginmanager:
        @staticmethod
        def hasplugin(name):
            return name == "xdist"


def load(args, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    args = list(args)
    eediff_pytest.pytest_load_initial_conftests(FakeConfig, None, args)
    return args


def test_a_check_word_runs_on_every_core_unless_told_otherwise(monkeypatch):
    assert load(["-k", "notes"], monkeypatch) == ["-n", "auto", "-k", "notes", "--maxfail=10"]
    assert load(["-kplayback", "tests"], monkeypatch)[:2] == ["-n", "auto"]
    assert load(["-k", "notes", "-n", "0"], monkeypatch) == ["-k", "notes", "-n", "0", "--maxfail=10"]
    assert load(["-k", "notes", "--maxfail=0"], monkeypatch) == ["-n", "auto", "-k", "notes", "--maxfail=0"]
    assert load(["-k", "notes", "-x"], monkeypatch) == ["-n", "auto", "-k", "notes", "-x"]
    assert load(["-k", "notes and not suite"], monkeypatch) == ["-k", "notes and not suite"]
    assert load(["tests/test_x.py"], monkeypatch) == ["tests/test_x.py"]


def loop(tmp_path, chunks, workers, *extra):
    elf = archives.return_at_once_elf(str(tmp_path / "silent.elf"), symbol="NoteProcess__5ccAnmFv")
    return subprocess.run([sys.executable, "-m", "pytest", "-k", "notes", "--image", elf, "--chunks", str(chunks),
                           "-n", str(workers), "-p", "no:cacheprovider", *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, env=developer_env())


def developer_env():
    """The environment of a developer's shell: none of the variables of this suite's own xdist
    worker (the plugin leaves a run inside a worker alone)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}


def test_against_a_broken_build_the_loop_stops_after_a_few_failures_and_says_how_to_see_all(tmp_path):
    # in one process the stop is exact (with xdist's workers, the tests they were handed still run:
    # the README says so)
    r = loop(tmp_path, 40, 0)
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-3000:]
    failed = re.findall(r"^FAILED ", r.stdout, re.M)
    assert len(failed) == MAXFAIL, r.stdout[-3000:]
    assert "--maxfail=0 runs and shows every one" in r.stdout
    assert len(r.stdout.splitlines()) < 40 * MAXFAIL


def test_the_loop_on_workers_prints_no_worker_platform_lines(tmp_path):
    r = loop(tmp_path, 6, 2, "--maxfail=0")
    assert r.returncode == 1 and re.search(r"^FAILED ", r.stdout, re.M), r.stdout[-3000:] + r.stderr[-3000:]
    assert not re.search(r"^\[gw\d+\] .* -- Python", r.stdout, re.M), r.stdout[:3000]
