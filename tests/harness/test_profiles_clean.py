"""Every profile the README documents is clean on the stand-in (docs/tolerances.md §4).

The stand-in follows the spec, so nightly (FLOAT=hw and trunc), quick and first-contact give no
mismatch on any chunk of the synthetic corpus: a mismatch here is a harness defect by construction.
In CI each profile runs over a sample (the chunks of the single-value rotations beyond ±180° that
once failed first contact, and a seeded draw); with --slow over every chunk.
"""
import random

import pytest

from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options
from harness.profiles import profile
from harness.runners.cases.chunk import check_chunk

PROFILES = [("nightly", "hw"), ("nightly", "trunc"), ("quick", "hw"), ("first-contact", "trunc")]
# single-value rotations beyond ±180°: elements of order 10³ (animation-semantics.md §3.3)
LARGE_ELEMENTS = ["e011.cmp::ANM_e011002", "dun015.cmp::ANM_dun015025", "ev013.cmp::ANM_ev013006"]
DRAWN = 3


def sample(corpus, seed=4):
    ids = corpus.chunk_ids()
    drawn = random.Random(f"{seed}:profiles-clean").sample(ids, DRAWN)
    return LARGE_ELEMENTS + [c for c in drawn if c not in LARGE_ELEMENTS]


def run_profile(name, float_model, ids):
    """Check every chunk of ids under the profile; the mismatches and errors found, and the chunks
    on which the playback compared object matrices."""
    opts = Options(float_model=float_model)
    corpus = opts.open_corpus()
    game = Game(DEFAULT_IMAGE, float_model)
    prof = profile(name)
    bad, played = [], []
    for cid in ids:
        res = check_chunk(game, corpus.chunk(cid), opts.context(cid), prof)
        if res["error"] or res["mismatches"] or res["counters"].get("failures") or not res["checks"]:
            first = res["mismatches"][0] if res["mismatches"] else res["error"] or "no check ran"
            bad.append(f"{cid}: {res['counters'].get('failures', 0)} mismatches, first {first}")
        if res["counters"].get("object matrices"):
            played.append(cid)
    return bad, played


@pytest.mark.parametrize("name,float_model", PROFILES)
def test_each_profile_is_clean_on_a_sample_of_the_stand_in(name, float_model):
    corpus = Options().open_corpus()
    ids = sample(corpus)
    bad, played = run_profile(name, float_model, ids)
    assert bad == [], "\n".join(bad)
    assert set(LARGE_ELEMENTS) <= set(played), "the large-element chunks were played and compared"


@pytest.mark.slow
@pytest.mark.parametrize("name,float_model", PROFILES)
def test_each_profile_is_clean_on_every_chunk_of_the_stand_in(name, float_model):
    corpus = Options().open_corpus()
    bad, _ = run_profile(name, float_model, corpus.chunk_ids())
    assert bad == [], f"{len(bad)} chunks fail:\n" + "\n".join(bad[:20])


# -- widening the first-contact sample -----------------------------------------------------------
def test_the_first_contact_sample_is_the_default_of_n_and_a_given_n_widens_it():
    import io
    import os
    import subprocess
    from harness.runners.bulk.staged import apply_profile
    opts = Options(profile="first-contact", n=100)
    note = io.StringIO()
    assert apply_profile(opts, out=note).n == 40 and "n = 40 (was 100)" in note.getvalue()
    assert apply_profile(Options(profile="first-contact", n=4091), n_given=True).n == 4091
    assert apply_profile(Options(profile="first-contact", n=4091), n_given=True).float_model == "trunc"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def given(*args, env=None):
        out = subprocess.run(["make", "-s", "--eval", 'n-given: ; @echo "[$$MK_N_GIVEN]"', "n-given", *args],
                             cwd=root, capture_output=True, text=True, timeout=60,
                             env={**os.environ, **(env or {})})
        return out.stdout.strip()
    assert given() == "[]" and given("N=4091") == "[1]" and given(env={"N": "7"}) == "[1]"
