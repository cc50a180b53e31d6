"""eediff's pytest options: which executable, which archive, how much, which float model.

A pytest plugin declared as an entry point in pyproject.toml, so the options are known however
pytest finds its rootdir. pytest takes the rootdir from the path-like words on its command line
before it reads any conftest.py, so `pytest --image /disc/SLUS_202.67 --data /disc/DATA.BIN`
with files outside the checkout would otherwise never load the options and stop with
"unrecognized arguments: --image". The root conftest.py also lists this module in
`pytest_plugins`, for runs with plugin autoloading disabled.

The same options drive every differential test, so a reviewer can point the suite at the real
SLUS_202.67 and DATA.BIN (or a disc image) without touching any test. Every option also reads an
environment variable (EEDIFF_IMAGE, EEDIFF_DATA, EEDIFF_DISC, EEDIFF_CHUNKS, EEDIFF_SEED,
EEDIFF_PROFILE, EEDIFF_FLOAT), used when the option is not given. The options, their defaults and
their variables are rows of the harness's option table (harness/option_table.py).
"""
import os

from ground import vocabulary
from harness import option_table
from harness.option_table import DEFAULT_DATA, DEFAULT_IMAGE, ROOT
from harness.runners.bulk.worker import settle_collector

MARKERS = (
    "slow: long-running test, deselected unless --slow is given",
    "controllers: differential controller checks (object records)",
    "materials: differential material (texture offset) checks",
    "playback: differential playback checks (_AnimateForward)",
    "notes: differential note checks (_AnimateForward + NoteProcess)",
    "morph: differential ccMorpher::Modify checks",
    "fobj: differential F_Obj pose checks",
    "objects: differential anm-object checks (MakeAnimeIndex, SetAnm, Draw, DeleteAnmIndex)",
    "world: differential world-matrix checks (ccAnm::Draw down the parent chain)",
    "needs_cross: needs the gcc-mipsel-linux-gnu cross compiler",
)


def pytest_addoption(parser):
    """The option table's rows that pytest takes (harness/option_table.py), each environment
    variable standing for its option when the option is not given."""
    g = parser.getgroup("eediff")
    for flag, keywords in option_table.pytest_options(os.environ):
        g.addoption(flag, **keywords)


CHECK_WORDS = vocabulary.CHECKS            # the words of the developer loop: each check's own name


def keyword_of(args):
    """The -k expression on a command line (-k EXPR, -kEXPR, --keyword=EXPR, --keyword EXPR), or None."""
    for i, a in enumerate(args):
        if a in ("-k", "--keyword") and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--keyword="):
            return a.split("=", 1)[1]
        if a.startswith("-k") and len(a) > 2 and not a.startswith("--"):
            return a[2:]
    return None


def pytest_load_initial_conftests(early_config, parser, args):
    """The developer loop runs on every core: `pytest -k notes` (or any check word) with no -n
    of its own gets `-n auto` from pytest-xdist, so every applicable chunk is checked in the time
    a developer waits (the note loop on two cores: tests/differential/conftest.py).

    DECISION: only a -k that is exactly one check word, only when xdist is loaded and not already
    told how many workers (-n, --numprocesses, --dist, -p no:xdist), and never inside a worker."""
    if os.environ.get("PYTEST_XDIST_WORKER") or (keyword_of(args) or "").strip() not in CHECK_WORDS:
        return
    # DECISION: the loop stops after MAXFAIL failing tests unless told otherwise (--maxfail=0:
    # all of them; -x, --maxfail=N): against a broken build it printed 433 failures in 2,921 lines
    if not any(a in ("-x", "--exitfirst", "--maxfail") or a.startswith("--maxfail=") for a in args):
        args.append(f"--maxfail={MAXFAIL}")
    if (os.cpu_count() or 1) < 2 or not early_config.pluginmanager.hasplugin("xdist"):
        return
    if any(a in ("-n", "--numprocesses", "--dist") or a.startswith(("-n", "--numprocesses=", "--dist="))
           for a in args):
        return
    args[:0] = ["-n", "auto"]


MAXFAIL = 10


def pytest_runtest_logreport(report):
    """No "[gw1] linux -- Python ..." line above each failure: which xdist worker ran a test says
    nothing about the chunk (pytest prints it for a report that carries the worker's node)."""
    if report.failed and hasattr(report, "node"):
        del report.node


# DECISION: `make test` of the whole suite has a budget of TEST_BUDGET (Makefile) minutes of pytest: CI
# allows the job 30 minutes, of which its set-up (venv, corpus, the stand-in's rebuild) took about
# 2 on a fresh clone (job 30:07, pytest 28:14 at 19c4afd). The Makefile sets EEDIFF_SUITE_BUDGET
# when PYTEST_ARGS is empty; the summary then says how much of it the run took. It never fails a
# run (machines are noisy; speed is judged by `make bench`), but it shows the loop growing.
SUITE_BUDGET_ENV = "EEDIFF_SUITE_BUDGET"
_STARTED = {}


def pytest_sessionstart(session):
    import time
    _STARTED["t"] = time.monotonic()


def budget_line(seconds, budget_minutes):
    """The summary's line: the suite's wall time against its budget, and by how much over."""
    took = f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
    over = seconds - budget_minutes * 60
    verdict = (f"OVER its budget by {int(over) // 60}:{int(over) % 60:02d}" if over > 0
               else f"within its budget of {budget_minutes:g} minutes")
    return f"the suite took {took} of wall time: {verdict} (CI allows the whole job 30 minutes)"


def pytest_terminal_summary(terminalreporter, config):
    """After a developer loop stopped at --maxfail: how to see every failure. After the whole
    suite under `make test`: its wall time against its budget."""
    budget = os.environ.get(SUITE_BUDGET_ENV)
    if budget and "t" in _STARTED and not os.environ.get("PYTEST_XDIST_WORKER"):
        import time
        try:
            minutes = float(budget)
        except ValueError:
            terminalreporter.write_line(f"{SUITE_BUDGET_ENV}={budget!r} is not a number of minutes: no budget line")
        else:
            terminalreporter.write_line(budget_line(time.monotonic() - _STARTED["t"], minutes))
    failed = len(terminalreporter.stats.get("failed", ()))
    limit = config.getoption("maxfail")
    if limit and failed >= limit and "--maxfail" not in " ".join(config.invocation_params.args):
        terminalreporter.write_line(f"stopped after {failed} failing tests (the loop's default --maxfail={MAXFAIL}); "
                                    f"--maxfail=0 runs and shows every one, -v each in full")


def pytest_configure(config):
    # Every test process (each xdist worker too) collects cycles as a bulk worker does: on
    # tests/reference and test_vector_compare in one process, 10,719 collections and 14.8 CPU-s
    # under the default thresholds, 1,082 and 4.8 CPU-s so (of about 290).
    settle_collector()
    # DECISION: the markers live here, not only in pyproject.toml, because a run whose rootdir
    # was taken from paths outside the checkout never reads pyproject.toml.
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    # A named file that is missing or not a regular file is one usage error, not one per test.
    for opt, default in (("--image", DEFAULT_IMAGE), ("--data", DEFAULT_DATA), ("--disc", None)):
        path = config.getoption(opt)
        if path and path != default and not os.path.isfile(path):
            import pytest
            why = "not a regular file (a directory, FIFO or device)" if os.path.exists(path) else "no such file"
            raise pytest.UsageError(f"{opt} {path}: {why}")
    engine = config.getoption("--engine")
    if engine:
        os.environ["EEMU_ENGINE"] = engine


# The check words whose `pytest -k <word>` is collected from tests/differential alone: those no
# test outside it carries (tests/test_check_words.py keeps this true). The other check words also
# name tests of the corpus, the harness and the reports (test_morphing_role, ...), so they collect
# the whole suite.
SHORTCUT_WORDS = ("notes",)
DIFFERENTIAL = os.path.join(ROOT, "tests", "differential")


def shortcut_word(config):
    """The check word that `-k` names, when -k is exactly one word of SHORTCUT_WORDS; else None."""
    word = (config.getoption("keyword") or "").strip()
    return word if word in SHORTCUT_WORDS else None


def pytest_ignore_collect(collection_path, config):
    """`pytest -k notes`, the developer loop: only tests/differential is collected.

    DECISION: that loop used to import and collect the whole suite (13,000 tests, 4-5 s
    in each xdist worker) to select the 945 that carry the word. No test id outside
    tests/differential carries it (tests/test_check_words.py collects the whole suite the plain way
    and fails on one that does), so skipping the other test directories selects exactly the same
    tests. EEDIFF_COLLECT_ALL=1 turns the shortcut off."""
    if os.environ.get("EEDIFF_COLLECT_ALL") == "1" or shortcut_word(config) is None:
        return None
    path = os.path.abspath(str(collection_path))
    tests = os.path.join(ROOT, "tests")
    if not path.startswith(tests + os.sep):
        return None                      # the checkout, tests/ itself, or files elsewhere
    if path == DIFFERENTIAL or path.startswith(DIFFERENTIAL + os.sep):
        return None
    if os.path.basename(path) in ("__init__.py", "conftest.py"):
        return None
    return True


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("slow") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
