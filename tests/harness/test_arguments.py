"""Counts are checked before anything runs, in the words of the command typed.

`make bulk N=0` once ran the whole corpus; `JOBS=abc` was a traceback and `JOBS=0` silently 1.
"""
import os
import subprocess
import sys

import pytest

from harness.options import ROOT

PY = sys.executable


def make(*words):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MK_", "MAKE"))}
    return subprocess.run(["make", "-s", *words], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.parametrize("var, value, says", [
    ("N", "0", "N: must be at least 1, not 0"),
    ("N", "-1", "N: must be at least 1, not -1"),
    ("JOBS", "abc", "JOBS: 'abc' is not a whole number (or auto: one per core)"),
    ("JOBS", "0", "JOBS: must be at least 1, not 0"),
    ("JOBS", "-3", "JOBS: must be at least 1, not -3"),
    ("SEED", "four", "SEED: 'four' is not a whole number"),
])
def test_make_bulk_refuses_a_bad_count_naming_the_make_variable(var, value, says):
    r = make("bulk", f"{var}={value}")
    assert r.returncode != 0 and says in r.stderr, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "checking" not in r.stdout
    assert "--n" not in r.stderr and "--jobs" not in r.stderr


def test_the_module_cli_names_its_own_option():
    r = subprocess.run([PY, "-m", "harness", "bulk", "--n", "0"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "EEDIFF_VIA_MAKE"})
    assert r.returncode == 2 and "argument --n: must be at least 1, not 0" in r.stderr, r.stderr


def test_pytest_refuses_a_negative_chunk_count():
    r = subprocess.run([PY, "-m", "pytest", "--chunks", "-1", "-k", "notes", "--collect-only", "-q"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 4 and "--chunks: must be 0 (the profile's default) or more, not -1" in r.stderr, \
        r.stdout + r.stderr


def capped(limit=2 << 30):
    """preexec_fn: cap the address space, so a command that allocates by a count fails there and
    not on the shared machine."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


def test_a_shard_count_beyond_the_selection_is_refused_before_anything_is_allocated(tmp_path):
    """SHARD=1/99999999999 once built a heap of 10^11 shards (gigabytes) before the first chunk."""
    r = subprocess.run([PY, "-m", "harness", "bulk", "--n", "3", "--shard", "1/99999999999", "--out",
                        str(tmp_path / "run"), "--jobs", "1"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, preexec_fn=capped())
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "1/99999999999" in r.stderr and "selection of" in r.stderr, r.stderr


def test_a_worker_count_beyond_what_the_machine_can_run_is_refused():
    most = 4 * (os.cpu_count() or 1)
    r = make("bulk", "JOBS=99999999999")
    assert r.returncode != 0 and f"JOBS: at most {most} (4 per core), not 99999999999" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "checking" not in r.stdout


CASE = "eq077.cmp::ANM_eq077000"


@pytest.mark.parametrize("args, says", [
    (["one", "--speed", "-5"], "argument --speed: must be at least 1, not -5"),
    (["one", "--speed", "0"], "argument --speed: must be at least 1, not 0"),
    (["one", "--speed", "99999999999"], "argument --speed: at most 65535 (a u16 frame speed), not 99999999999"),
    (["replay", "--check", "playback", "--steps", "abc"], "argument --steps: 'abc' is not a whole number"),
    (["replay", "--check", "playback", "--steps", "256,70000"], "argument --steps: at most 65535"),
    (["replay", "--check", "notes", "--plan", "x"], "argument --plan: 'x' is not STEP:RESET"),
    (["replay", "--check", "notes", "--plan", "256:2"], "argument --plan: RESET must be 0 or 1, not 2"),
    (["replay", "--check", "controllers", "--times", "1,abc"], "argument --times: 'abc' is not a whole number"),
    (["replay", "--check", "controllers", "--track", "999"], "track 999: no such object track in"),
])
def test_one_and_replay_values_are_checked_before_anything_runs(args, says):
    extra = ["--no-shrink"] if args[0] == "one" else []
    r = subprocess.run([PY, "-m", "harness", args[0], "--case", CASE, *extra, *args[1:]], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert says in r.stderr.strip().splitlines()[-1], r.stderr


@pytest.mark.parametrize("argv", [["bulk", "--model", "x", "--model-timeout"], ["check-truth", "f.jsonl", "--timeout"]])
@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "abc"])
def test_a_model_timeout_is_a_number_of_seconds_above_0(argv, value, capsys):
    from harness.__main__ import main
    with pytest.raises(SystemExit) as exc:
        main(argv + [value])
    assert exc.value.code == 2 and "seconds" in capsys.readouterr().err
