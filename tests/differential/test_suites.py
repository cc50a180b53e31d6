"""The suites of checks.md §9 on their named cases (§10), with the thresholds listed there."""
import pytest

from harness.runners.cases import suite_runs
from harness.runners.cases.suites import unmet
from tests.differential.failure import mismatch_failure


def require(tally, suite):
    problems = unmet(dict(tally.counters), suite)
    if problems:
        raise mismatch_failure(f"{suite} suite ({'; '.join(problems)})", tally.mismatches,
                               len(tally.mismatches) + tally.dropped, f"pytest -k {suite}", dict(tally.counters))


@pytest.mark.controllers
@pytest.mark.materials
def test_controllers_suite(opts, corpus, game):
    """checks.md §9 controllers: no failures; cases > 50, material cases > 10, keyed and
    single-value rotations > 10 each."""
    require(suite_runs.controllers_suite(game, corpus, opts), "controllers")


@pytest.mark.playback
def test_playback_suite(opts, corpus, game):
    """checks.md §9 playback: steps = 220; loops >= 2; ends > 5; matrices > 500; morph states > 100."""
    require(suite_runs.playback_suite(game, corpus, opts), "playback")


@pytest.mark.notes
def test_notes_suite(opts, corpus, game):
    """checks.md §9 notes: 1,080 steps; notes > 100; several > 10; loops > 5; ends > 20; restarts > 20."""
    require(suite_runs.notes_suite(game, corpus, opts), "notes")


@pytest.mark.morph
def test_morph_real_suite(opts, corpus, game):
    """checks.md §9 morph (real): exact, more than 2 cases."""
    require(suite_runs.morph_real_suite(game, corpus, opts), "morph")


@pytest.mark.morph
def test_morph_synthetic_edge_and_generator_a(opts, game):
    """checks.md §5.2: the fixed edge cases and Generator A (with -0 and -1/8192 weights), exact."""
    t = suite_runs.morph_synthetic_suite(game, opts, b_count=40)
    require(t, "morph")


@pytest.mark.morph
@pytest.mark.slow
def test_morph_synthetic_generator_b_all(opts, game):
    """checks.md §5.2 Generator B: all 300 morphers, exact."""
    require(suite_runs.morph_synthetic_suite(game, opts, b_count=300), "morph")


@pytest.mark.fobj
def test_fobj_suite(opts, corpus, game):
    """checks.md §9 fobj: no failures on the F_Obj role case, with poses compared."""
    require(suite_runs.fobj_suite(game, corpus, opts), "fobj")
