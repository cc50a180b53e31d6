"""Fixtures of the differential tests: the options of the top-level conftest as harness Options,
the corpus, one Game per worker, and per-chunk parametrisation with readable ids (member::ANM_name)."""
import gc

import pytest

from harness import checks
from harness.runners.bulk import selection
from harness import HarnessError
from harness.options import Options
from harness.profiles import profile
from tests.differential.failure import ChunkFailure

# How many chunks a per-chunk test takes when --chunks is 0 (profile default): the quick profile a
# seeded sample of 3, the nightly every chunk that has the check's records (as the earlier harness).
DEFAULT_CHUNKS = {"quick": None, "nightly": None}


def make_options(config):
    from harness.options import DEFAULT_DATA, DEFAULT_IMAGE
    image, data, disc = (config.getoption(o) for o in ("--image", "--data", "--disc"))
    real = image != DEFAULT_IMAGE and (disc or data != DEFAULT_DATA)   # see harness/__main__.py options()
    if disc and image == DEFAULT_IMAGE:          # a disc run drives the disc's own executable
        from harness.options import disc_executable
        image = disc_executable(disc)
    return Options(image=image, data=data, disc=disc, seed=config.getoption("--seed"),
                   profile=config.getoption("--profile"), float_model=config.getoption("--float-model"),
                   corpus_image=image if real else None)


def _corpus_or_error(config):
    cache = getattr(config, "_eediff_corpus", None)
    if cache is None:
        opts = None
        try:
            opts = make_options(config)
            corpus = opts.open_corpus()
            cache = (opts, corpus, None)
            bad = list(getattr(corpus, "bad", None) or [])
            # A corrupt archive never passes: its bad members' chunks would silently go unchecked.
            if bad and not config.getoption("--allow-bad-members"):
                listed = "; ".join(f"{b.get('member')} at offset 0x{int(b.get('offset') or 0):X}: {b.get('error')}"
                                   for b in bad[:5])
                cache = (opts, None, f"{len(bad)} bad {'member' if len(bad) == 1 else 'members'} in {opts.data or opts.disc} (their chunks "
                                     f"are not checked; --allow-bad-members accepts this): {listed}")
        except HarnessError as exc:
            cache = (opts, None, str(exc))
        config._eediff_corpus = cache
    return cache


def chunks_for(config, check):
    """A seeded sample (seed, check) of the chunks whose records the check needs."""
    opts, corpus, err = _corpus_or_error(config)
    if corpus is None:
        return [pytest.param(None, id="corpus-unavailable", marks=pytest.mark.eediff_error(err))]
    n = config.getoption("--chunks") or DEFAULT_CHUNKS[config.getoption("--profile")]
    pool = selection.pool(corpus, checks.resolve(check).kinds)     # the records the check needs
    return list(pool) if n is None else selection.sample(pool, n, f"{opts.seed}:{check}")


def pytest_generate_tests(metafunc):
    if "chunk_id" in metafunc.fixturenames:
        marker = next((m.name for m in metafunc.definition.iter_markers() if m.name in checks.names()), None)
        if marker is None:
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: a chunk_id test needs a check marker")
        metafunc.parametrize("chunk_id", chunks_for(metafunc.config, marker))


def pytest_configure(config):
    config.addinivalue_line("markers", "eediff_error(msg): the corpus could not be opened")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing chunk reads in a few lines (the mismatches one line each, the repro); with -v the
    full records and the traceback (tests/differential/failure.py)."""
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and call.excinfo is not None and isinstance(call.excinfo.value, ChunkFailure) \
            and item.config.getoption("verbose") <= 0:
        rep.longrepr = call.excinfo.value.short


@pytest.fixture(scope="session")
def opts(request):
    opts, corpus, err = _corpus_or_error(request.config)
    if corpus is None:
        pytest.fail(err, pytrace=False)
    return opts


@pytest.fixture(scope="session")
def corpus(opts):
    return opts.open_corpus()


@pytest.fixture(scope="session")
def game(opts):
    # DECISION: the session's game runs its program compiled from its first instruction
    # (EEMU_COMPILE_AFTER=0 while the machine is built; the engine reads it then, so nothing else of
    # the session sees it). The suite's differential session checks thousands of chunks with this
    # one game, far past the tiering threshold, so the compile was never saved, only put off: on a
    # fresh checkout each xdist worker first ran 20 million instructions in the Python engine. (A
    # developer loop of a few chunks on an image never compiled before waits for its gcc once.)
    # The engine changes no word a check compares (tests/harness/test_lockstep_bulk.py).
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("EEMU_COMPILE_AFTER", "0")
            game = opts.validate_image()
    except HarnessError as exc:
        pytest.fail(str(exc), pytrace=False)
    # The session's collector is settled as a bulk worker's (eediff_pytest); the game and the
    # corpus live as long as the session, so they leave the scans of the older generations too.
    gc.collect()
    gc.freeze()
    return game


@pytest.fixture(scope="session")
def prof(opts):
    return profile(opts.profile)
