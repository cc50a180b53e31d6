"""Fixtures of the corpus tests: the --small archive (made once per session) and the full one
(build/synth reused when its manifest carries the current generator hash, else made once under
build/cache with a lock, so two xdist workers do not both generate it)."""
import fcntl
import json
import os

import pytest

from corpus.synth import synthesize
from corpus.synth.writer import generator_hash

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _current(d, seed, small):
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            m = json.load(f)
    except (OSError, ValueError):
        return False
    return (m.get("generator") == generator_hash() and m.get("seed") == seed
            and bool(m.get("small")) == small and os.path.exists(os.path.join(d, "DATA.BIN")))


def _made(d, seed, small):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        if not _current(d, seed, small):
            synthesize(d, seed=seed, small=small)
    return d


@pytest.fixture(scope="session")
def small_dir():
    return _made(os.path.join(ROOT, "build", "cache", f"synth-small-{generator_hash()[:12]}"), 1, True)


@pytest.fixture(scope="session")
def full_dir():
    d = os.path.join(ROOT, "build", "synth")
    if _current(d, 1, False):
        return d
    return _made(os.path.join(ROOT, "build", "cache", f"synth-full-{generator_hash()[:12]}"), 1, False)


@pytest.fixture(scope="session")
def small_corpus(small_dir):
    from corpus import open_corpus
    return open_corpus(data=os.path.join(small_dir, "DATA.BIN"))


@pytest.fixture(scope="session")
def full_corpus(full_dir):
    from corpus import open_corpus
    return open_corpus(data=os.path.join(full_dir, "DATA.BIN"))


@pytest.fixture(scope="session")
def small_manifest(small_dir):
    with open(os.path.join(small_dir, "manifest.json")) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def full_manifest(full_dir):
    with open(os.path.join(full_dir, "manifest.json")) as f:
        return json.load(f)
