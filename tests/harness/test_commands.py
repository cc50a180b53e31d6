"""Every command the harness prints or records is built by harness/commands.py, from one option ->
make-variable table; reports only shows the commands the run recorded."""
import os
import re
from types import SimpleNamespace

from harness import commands
from harness.commands import (FLAG, MAKE_VARIABLES, make_form, merge_command, module_form, one_command,
                              replay_command, rerun_command, resume_command)
from harness.compare.mismatch import CaseContext
from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, ROOT


def run_opts(**kw):
    base = dict(image=DEFAULT_IMAGE, data=None, disc=None, jobs=2, chunk_ids=None, cluster=None,
                allow_bad_members=False, image_from_disc=False)
    return SimpleNamespace(**dict(base, **kw))


def pairs(params, **kw):
    from harness.runners.bulk.failfast import DEFAULT_K
    return commands.bulk_pairs(params, run_opts(**kw), DEFAULT_IMAGE, DEFAULT_DATA, DEFAULT_K)


PARAMS = {"n": 7, "seed": 9, "profile": "quick", "float_model": "trunc", "checks": ["notes"]}


def test_every_make_variable_of_the_table_is_one_the_makefile_takes():
    text = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
    for opt, var in MAKE_VARIABLES.items():
        assert re.search(rf"^{var}\s*\?=|\b{var}\b.*:=|\$\$MK_{var}\b|\$\(value {var}\)", text, re.M), (opt, var)


def test_a_run_is_re_run_through_make_with_each_value_one_shell_word():
    p = dict(PARAMS, shard={"k": 2, "m": 4})
    assert rerun_command(pairs(p, data="/data/my DATA.BIN")) == (
        "make bulk N=7 SEED=9 PROFILE=quick FLOAT=trunc JOBS=2 CHECK=notes DATA='/data/my DATA.BIN' SHARD=2/4")
    assert rerun_command(pairs(PARAMS, disc="/d/infection.iso", image="/tmp/x/SLUS_202.67", image_from_disc=True),
                         out="/tmp/a dir/run") == ("make bulk N=7 SEED=9 PROFILE=quick FLOAT=trunc JOBS=2 "
                                                   "CHECK=notes DISC=/d/infection.iso OUT='/tmp/a dir/run'")
    assert rerun_command(pairs(PARAMS, allow_bad_members=True)).endswith(" ALLOW_BAD_MEMBERS=1")


def test_an_option_make_cannot_pass_gives_the_module_form():
    assert rerun_command(pairs(PARAMS, chunk_ids=["a.cmp::ANM_a;b"])) == (
        ".venv/bin/python -m harness bulk --n 7 --seed 9 --profile quick --float-model trunc --jobs 2 "
        "--check notes --chunks 'a.cmp::ANM_a;b'")
    assert rerun_command(pairs(PARAMS, shrink=False)).endswith(" --check notes --no-shrink")
    assert rerun_command(pairs(PARAMS, fail_fast=3)).endswith(" CHECK=notes FAIL_FAST=3")
    two = dict(PARAMS, checks=["notes", "fobj"])           # make passes one CHECK
    assert rerun_command(pairs(two)).startswith(".venv/bin/python -m harness bulk ")
    assert make_form("bulk", [("--check", "a"), ("--check", "b")]) is None
    assert make_form("bulk", [("--a1", "1")]) is None


def test_a_run_resumes_through_make_only_when_it_was_started_through_make():
    p = pairs(PARAMS)
    assert resume_command("/r/run 1", p, via_make=True) == (
        "make bulk N=7 SEED=9 PROFILE=quick FLOAT=trunc JOBS=2 CHECK=notes OUT='/r/run 1'")
    assert resume_command("/r/run 1", p, via_make=False) == (
        ".venv/bin/python -m harness bulk --resume '/r/run 1' --n 7 --seed 9 --profile quick "
        "--float-model trunc --jobs 2 --check notes")
    assert resume_command("/r/x", pairs(PARAMS, chunk_ids=["a"]), via_make=True).startswith(
        ".venv/bin/python -m harness bulk --resume /r/x ")


def test_a_merged_run_re_runs_as_make_merge():
    assert merge_command(["build/runs/s1", "build/runs/s2"], "build/runs/nightly") == (
        "make merge RUNS='build/runs/s1 build/runs/s2' OUT=build/runs/nightly")


def test_a_case_repro_is_one_and_a_shrunk_input_is_replay_with_the_same_case_options():
    ctx = CaseContext("a b.cmp::ANM_$(x)", 4, "nightly", "trunc", image="/e/SLUS.elf",
                      defaults={"IMAGE": "standin/standin.elf"})
    assert ctx.repro("notes", time=768) == one_command(ctx, "notes", 768) == (
        ".venv/bin/python -m harness one --case 'a b.cmp::ANM_$(x)' --seed 4 --check notes --profile nightly "
        "--float-model trunc --image /e/SLUS.elf --time 768")
    m = {"check": "fobj", "context": {"a1": 1}}
    assert replay_command(ctx, m, "plan", [(256, False), (7443, True)], "fobj") == (
        ".venv/bin/python -m harness replay --case 'a b.cmp::ANM_$(x)' --check fobj --plan 256:0,7443:1 --a1 1 "
        "--seed 4 --profile nightly --float-model trunc --image /e/SLUS.elf")
    # the shrinker passes the check the registry resolves the mismatch's to (multistep: controllers)
    from harness import checks
    assert replay_command(ctx, {"check": "multistep", "track": 3}, "times", [1, 767],
                          checks.resolve("multistep").name).startswith(
        ".venv/bin/python -m harness replay --case 'a b.cmp::ANM_$(x)' --check controllers --track 3 --times 1,767 ")


def test_the_module_form_leaves_out_what_is_not_given_and_writes_a_flag_alone():
    assert module_form("bulk", [("--n", 3), ("--data", None), ("--allow-bad-members", FLAG)]) == (
        ".venv/bin/python -m harness bulk --n 3 --allow-bad-members")


def test_reports_build_no_command():
    """Commands are the harness's: no module of reports quotes shell words or names a harness verb
    in a command it writes (it shows the run's "rerun" and each record's "repro")."""
    here = os.path.join(ROOT, "reports")
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            text = open(os.path.join(here, name), encoding="utf-8").read()
            assert "shell_word" not in text, name
            assert not re.search(r"\"-m\", \"harness\"|\"make (bulk|one|merge)", text), name
