"""The option table (harness/option_table.py) is the one place a run option is said: every
subcommand's arguments, the pytest options, the make variables and a case's repro follow its rows,
and each entry point's default profile is the one the table states."""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import fields

import pytest

import eediff_pytest
from harness import checks, option_table
from harness.__main__ import options as options_of, parser
from harness.commands import MAKE_VARIABLES, bulk_pairs, rerun_command, rerun_rows
from harness.compare.mismatch import CaseContext
from harness.option_table import DEFAULT_PROFILE, MAKE, PYTEST, PYTHON, ROOT, ROWS, RUN, SUBCOMMANDS
from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, Options

NAMED = {option_table.CHECK_NAMES: checks.names(), option_table.REPLAYABLE: checks.replayable()}


def subparsers():
    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def action_of(sub, row):
    found = [a for a in sub._actions if (row.flag in a.option_strings if not row.positional else a.dest == row.flag)]
    assert len(found) == 1, row.flag
    return found[0]


def argparse_default(row):
    return False if row.action == "store_true" and row.default is None else row.default


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_option_of_the_table_appears_in_the_argparse_of_each_subcommand_that_takes_it_with_the_tables_default(
        command):
    sub = subparsers()[command]
    for row in option_table.rows(command):
        a = action_of(sub, row)
        assert a.default == argparse_default(row), (command, row.flag, a.default)
        assert a.help == row.help and a.type is row.type, (command, row.flag)
        choices = NAMED[row.choices] if isinstance(row.choices, str) else row.choices
        assert (tuple(a.choices) if a.choices is not None else None) == choices, (command, row.flag)
        assert a.required == row.extra.get("required", row.positional), (command, row.flag)
    # and nothing besides: an option added outside the table is an error
    theirs = {s for a in sub._actions if not isinstance(a, argparse._HelpAction)
              for s in (a.option_strings or [a.dest])}
    ours = {r.flag for r in option_table.rows(command)} | {
        "--no-" + r.flag[2:] for r in option_table.rows(command) if r.action == option_table.BOOL}
    assert theirs == ours, (command, theirs ^ ours)


def test_no_two_rows_of_one_flag_share_an_entry_point_and_each_per_names_an_entry_point_of_its_row():
    for i, r in enumerate(ROWS):
        for other in ROWS[i + 1:]:
            assert r.flag != other.flag or not set(r.takes) & set(other.takes), r.flag
        assert set(r.takes) <= set(SUBCOMMANDS) | {PYTEST}, r.flag
        assert set(r.per) <= set(r.takes) | {MAKE, PYTHON}, r.flag
        assert all(t in option_table.MAKE_TARGETS for t in r.make_targets), r.flag
        assert not r.make_targets or r.make, r.flag


def test_the_pytest_plugin_offers_the_tables_pytest_rows_with_their_environment_variables(monkeypatch):
    for r in ROWS:
        if r.env:
            monkeypatch.delenv(r.env, raising=False)
    offered = pytest_options()
    assert set(offered) == {r.flag for r in option_table.rows(PYTEST)}
    for r in option_table.rows(PYTEST):
        assert offered[r.flag].get("default", argparse_default(r)) == argparse_default(r), r.flag
        assert offered[r.flag].get("help") == r.help, r.flag
    monkeypatch.setenv("EEDIFF_SEED", "11")
    monkeypatch.setenv("EEDIFF_PROFILE", "nightly")
    assert pytest_options()["--seed"]["default"] == 11 and pytest_options()["--profile"]["default"] == "nightly"


def pytest_options():
    offered = {}

    class Group:
        def addoption(self, flag, **kw):
            offered[flag] = kw

    class Parser:
        def getgroup(self, _name):
            return Group()

    eediff_pytest.pytest_addoption(Parser())
    return offered


# -- the repro ---------------------------------------------------------------------------------------

# a value other than the default for each option a repro names (a new repro row needs one here)
NOT_DEFAULT = {"seed": 9, "profile": "nightly", "float_model": "trunc", "image": "/x/SLUS_202.67",
               "data": "/x/my DATA.BIN", "disc": "/x/infection.iso", "syms": "/x/main.syms", "overlay": "gcmn",
               "volume": "mut", "confirm": ("ccAnm::Draw", "_AnimateForward"), "reload": True,
               "model": "python3 my_model.py --fast"}
GIVEN = ("chunk", "check", "time")         # the case itself, and what the caller names


def test_every_option_one_takes_is_in_a_repro_or_says_why_not():
    for r in option_table.rows("one"):
        assert bool(r.repro) != bool(r.not_repro), r.flag
    for r in option_table.case_rows():
        assert "replay" in r.takes or r.name in ("time",), r.flag
        assert r.name in GIVEN or r.name in {f.name for f in fields(Options)}, r.flag


def test_a_repro_command_names_every_option_that_differs_from_its_default():
    names = [r.name for r in option_table.case_rows() if r.name not in GIVEN]
    assert set(names) == set(NOT_DEFAULT), set(names) ^ set(NOT_DEFAULT)
    opts = Options(**NOT_DEFAULT)
    line = opts.context("a b.cmp::ANM_$(x)").repro("notes", 768)
    words = shlex.split(line)
    assert words[:4] == [".venv/bin/python", "-m", "harness", "one"]
    for r in option_table.case_rows():
        assert r.flag in words, (r.flag, line)
    # the repro, parsed by `one` itself, is the same case: every option the same value
    a = parser().parse_args(words[3:])
    again = options_of(a, model=a.model)          # as `one` makes them (harness/__main__.py cmd_one)
    assert (a.case, a.check, a.time) == ("a b.cmp::ANM_$(x)", "notes", 768)
    for name in names:
        assert getattr(again, name) == getattr(opts, name), name


def test_a_repro_at_the_defaults_names_the_case_seed_profile_and_float_model_alone():
    line = Options().context("a.cmp::ANM_a").repro()
    assert line == ".venv/bin/python -m harness one --case a.cmp::ANM_a --seed 4 --profile quick --float-model hw"


def test_a_case_option_outside_the_table_is_refused():
    with pytest.raises(TypeError, match="no case option speed"):
        CaseContext("a.cmp::ANM_a", 4, speed=256)


def test_a_runs_rerun_names_every_option_of_bulk_that_differs_from_its_default_or_its_row_says_why_not():
    opts = Options(**NOT_DEFAULT, n=7, jobs=2, checks=["notes"], chunk_ids=["a.cmp::ANM_a"], cluster="local:2",
                   allow_bad_members=True, fail_fast=3, model_timeout=30.0, shrink=False)
    params = {"n": opts.n, "seed": opts.seed, "profile": opts.profile, "float_model": opts.float_model,
              "checks": opts.checks, "shard": {"k": 2, "m": 4}}
    line = rerun_command(bulk_pairs(params, opts, DEFAULT_IMAGE, DEFAULT_DATA, 5))
    words = shlex.split(line)
    assert words[:4] == [".venv/bin/python", "-m", "harness", "bulk"], line
    for r in rerun_rows():
        assert ("--no-shrink" if r.flag == "--shrink" else r.flag) in words, (r.flag, line)
    # the line, parsed by bulk itself, is the same run
    a = parser().parse_args(words[3:])
    again = options_of(a, model=a.model)
    for name in NOT_DEFAULT:
        assert getattr(again, name) == getattr(opts, name), name
    assert (a.n, a.jobs, a.check, a.chunks, a.shard, a.cluster, a.allow_bad_members, a.fail_fast, a.model_timeout,
            a.shrink) == (7, 2, ["notes"], "a.cmp::ANM_a", "2/4", "local:2", True, 3, 30.0, False)


# -- the make variables ------------------------------------------------------------------------------

def makefile():
    return open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()


def make(*words):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MK_", "MAKE"))}
    return subprocess.run(["make", *words], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)


def make_rows():
    return [r for r in ROWS if r.make]


def test_the_make_variable_table_is_the_option_tables_make_column():
    assert MAKE_VARIABLES == {r.flag: r.make for r in make_rows() if not r.positional}


def test_each_make_variable_of_the_table_is_declared_with_its_make_default_and_listed_by_make_help():
    text = makefile()
    declared = dict(re.findall(r"^([A-Z][A-Z0-9_]*)\s*\?=[ \t]*(.*)$", text, re.M))
    shown = make("-s", "help").stdout
    for r in make_rows():
        want = r.at(MAKE).default
        assert r.make in declared, f"the Makefile does not declare {r.make} ({r.flag})"
        assert declared[r.make] == ("" if want in (None, False) else str(want)), (r.make, declared[r.make], want)
        assert re.search(rf"^\s+{r.make}=", shown, re.M), f"make help does not list {r.make}"
        if want not in (None, False):
            assert re.search(rf"^\s+{r.make}={re.escape(str(want))}\s", shown, re.M), (r.make, want)
    # and every make variable is a row's, but those that feed no harness option
    theirs = set(declared) - {"RUN", "PYTEST_ARGS", "PYTHON3"}
    assert theirs == {r.make for r in make_rows()}, theirs ^ {r.make for r in make_rows()}


@pytest.mark.parametrize("target", sorted(option_table.MAKE_TARGETS))
def test_each_make_target_passes_on_every_variable_the_table_says_it_takes(target):
    """`make -n TARGET VAR=...`: the harness line of the recipe hands each variable of the table
    that names TARGET to its option (a switch as the flag when VAR=1)."""
    rows = [r for r in make_rows() if target in r.make_targets]
    assert rows, target
    if target == "mutants" and shutil.which("mipsel-linux-gnu-gcc") is None:
        # make -n still runs the recursive make that builds the mutants, which needs the compiler
        pytest.skip("no mipsel-linux-gnu-gcc: `make -n mutants` builds the stand-in's mutants first")
    r = make("-n", target, "DATA=/x/DATA.BIN", *[f"{r.make}={'1' if r.action == 'store_true' else 'x'}" for r in rows])
    verb = option_table.MAKE_TARGETS[target]
    line = next((x for x in r.stdout.replace("\\\n", " ").splitlines() if f"-m harness {verb}" in x), None)
    assert line is not None, r.stdout + r.stderr
    for row in rows:
        if row.action == "store_true":
            assert f" {row.flag}" in line, (target, row.make, line)
        elif row.positional:              # quoted, or a list of words split on purpose (RUNS)
            assert re.search(rf'(^| )"?\$MK_{row.make}\b', line), (target, row.make, line)
        else:
            assert re.search(rf'{row.flag} "(\$MK_{row.make}"|\$\{{MK_{row.make}\b)', line), (target, row.make, line)


def test_a_make_variable_no_target_passes_reaches_the_harness_through_its_environment_variable():
    for r in make_rows():
        if not r.make_targets:
            assert r.env and re.search(rf"^export {r.env} := \$\({r.make}\)$", makefile(), re.M), r.make


# -- each entry point's default profile ----------------------------------------------------------------

def test_each_entry_points_default_profile_is_the_tables(monkeypatch):
    assert DEFAULT_PROFILE[MAKE] == "nightly"
    assert {DEFAULT_PROFILE[e] for e in RUN + (PYTEST, PYTHON)} == {"quick"}
    # make: the PROFILE its recipes hand on when none is named
    said = make("-s", "--eval", "options-profile: ; @echo \"$$MK_PROFILE\"", "options-profile")
    assert said.stdout.strip() == DEFAULT_PROFILE[MAKE], said.stdout + said.stderr
    # each subcommand that takes --profile
    required = {"one": ["--case", "c"], "replay": ["--case", "c", "--check", "playback"], "truth": ["--out", "f"],
                "volumes": ["--out", "d"]}
    for command in RUN:
        assert parser().parse_args([command, *required.get(command, [])]).profile == DEFAULT_PROFILE[command]
    # the pytest plugin (no EEDIFF_PROFILE), the Options and a CaseContext of the Python API
    monkeypatch.delenv("EEDIFF_PROFILE", raising=False)
    assert pytest_options()["--profile"]["default"] == DEFAULT_PROFILE[PYTEST]
    assert Options().profile == CaseContext("c", 4).profile == DEFAULT_PROFILE[PYTHON]


def test_the_options_subcommand_prints_the_table():
    out = subprocess.run([sys.executable, "-m", "harness", "options"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("default profile: nightly (make); quick (bulk, one, ")
    assert all(re.search(rf"^{re.escape(r.flag)}\s", out.stdout, re.M) for r in ROWS)
