"""make test runs a chunk's differential tests on one worker (`--dist loadgroup`), and each takes its
check's part of one run of every check the session runs on the chunk: the same verdict as the
check run alone, in less time. A chunk that fails anywhere gives no parts: each of its tests runs
its check alone, so its record (first error, dropped mismatches, repro) is its own."""
import os
import subprocess
import sys

import pytest

from eediff_pytest import ROOT, chunk_scope, pytest_xdist_make_scheduler
from tests.differential.conftest import SharedRuns


class Item:
    def __init__(self, chunk, check):
        self.callspec = type("Spec", (), {"params": {"chunk_id": chunk}})()
        self.check = check

    def iter_markers(self):
        return [getattr(pytest.mark, self.check).mark]


def test_make_test_runs_a_chunks_tests_as_one_work_unit_and_each_keeps_its_id():
    with open(os.path.join(ROOT, "Makefile")) as f:
        recipe = f.read().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "-m pytest" in recipe and "--dist loadgroup" in recipe and "--no-loadscope-reorder" in recipe, recipe
    test = "tests/differential/test_chunks.py::test_"
    units = [chunk_scope(f"{test}{k}[{c}]") for c, k in (("a.cmp::ANM_x@y", "playback"), ("b.cmp::ANM_z", "world"),
                                                        ("a.cmp::ANM_x@y", "world"))]
    assert units[0] == units[2] != units[1] and None not in units
    assert chunk_scope("tests/differential/test_suites.py::test_notes_suite") is None
    assert chunk_scope("tests/harness/test_bulk.py::test_x[a.cmp::ANM_x@y]") is None
    config = type("Config", (), {"getvalue": lambda self, name: {"dist": "loadgroup", "tx": ["2*popen"]}.get(name),
                                 "getoption": lambda self, name: None, "option": None})()
    scheduler = pytest_xdist_make_scheduler(config, None)
    assert scheduler._split_scope(f"{test}world[a.cmp::ANM_x@y]") == units[0]
    assert scheduler._split_scope("tests/test_lint.py::test_lint@g") == "g"      # xdist's own groups as before
    assert scheduler._split_scope("tests/test_lint.py::test_lint") == "tests/test_lint.py::test_lint"


def shared_record(checks, **extra):
    return {"error": None, "mismatches": [], "dropped_mismatches": 0, "checks": list(checks),
            "counters": {"a": 1, "b": 2}, "counters_by_check": {c: {f"{c} cases": 3} for c in checks}, **extra}


def runs_of(checks_of_chunk, record):
    """A SharedRuns over tests of chunk "x" and a run() that notes every `only` it is given."""
    calls = []

    def run(only):
        calls.append(list(only))
        return record(only)
    return SharedRuns([Item("x", c) for c in checks_of_chunk]), run, calls


def test_the_per_chunk_tests_keep_their_early_place_in_the_collection_before_the_long_ones():
    import eediff_pytest

    class Config:
        def getoption(self, name):
            return True                    # --slow: nothing deselected
    named = ["tests/corpus/test_synth.py", "tests/differential/test_chunks.py", "tests/differential/test_suites.py",
             "tests/harness/test_bulk.py", "tests/test_lint.py"]
    items = [type("I", (), {"path": os.path.join(ROOT, p)})() for p in named]
    eediff_pytest.pytest_collection_modifyitems(Config(), items)
    assert [os.path.relpath(str(i.path), ROOT) for i in items] == named


def test_a_clean_chunk_is_run_once_for_all_its_checks_and_each_test_takes_its_own_counters():
    shared, run, calls = runs_of(["playback", "world"], shared_record)
    got = [shared.record(c, "x", run) for c in ("playback", "world")]
    assert calls == [["playback", "world"]]
    assert [g["counters"] for g in got] == [{"playback cases": 3}, {"world cases": 3}]
    assert [g["checks"] for g in got] == [["playback"], ["world"]]
    assert shared.kept == {}                 # the record is let go after its last test


def test_a_chunk_that_fails_anywhere_runs_each_check_alone():
    def record(only):
        return shared_record(only, mismatches=[{"check": "world"}] if "world" in only else [])
    shared, run, calls = runs_of(["playback", "world"], record)
    got = [shared.record(c, "x", run) for c in ("playback", "world")]
    assert calls == [["playback", "world"], ["playback"], ["world"]]
    assert got[1]["mismatches"] == [{"check": "world"}] and got[0]["mismatches"] == []


def test_an_error_or_a_dropped_mismatch_or_a_check_that_did_not_run_gives_no_part():
    for extra in ({"error": {"type": "X", "check": "world"}}, {"dropped_mismatches": 1}):
        shared, run, calls = runs_of(["playback", "world"], lambda only: shared_record(only, **extra))
        shared.record("playback", "x", run)
        assert calls == [["playback", "world"], ["playback"]]
    shared, run, calls = runs_of(["playback", "world"], lambda only: shared_record(["playback"]))
    shared.record("world", "x", run)
    assert calls == [["playback", "world"], ["world"]]


def test_a_chunk_with_one_test_runs_it_alone():
    shared, run, calls = runs_of(["playback"], shared_record)
    shared.record("playback", "x", run)
    assert calls == [["playback"]]


# two members whose chunks carry four to six checks each (42 tests of 10 chunks)
CHUNKS = "cbu3body or xp_flag"


def verdicts(*extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EEDIFF_", "PYTEST_"))}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "-k", CHUNKS,
                        "tests/differential/test_chunks.py", *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    lines = [l for l in r.stdout.splitlines() if l.startswith(("PASSED ", "FAILED ", "ERROR "))]
    return r.returncode, sorted(l.split(" - ")[0] for l in lines)


# DECISION: slow (two pytest runs of 42 tests, minutes on two busy cores): the rule above is what
# make test relies on, and every make test runs the grouped form on every chunk.
@pytest.mark.slow
def test_grouped_and_shared_the_differential_tests_give_the_verdicts_of_each_check_run_alone():
    alone, grouped = verdicts("-n", "0"), verdicts("-n", "2", "--dist", "loadgroup")
    assert alone[0] == 0 and alone[1], alone
    assert grouped == alone
