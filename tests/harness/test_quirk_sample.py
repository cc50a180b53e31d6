"""A bulk of N chunks smaller than its pool draws its sample so that every quirk class the pool holds
(corpus/chunk_quirks.py: the census's quirk counters) is met by at least one chosen chunk when N
allows; the rest is drawn as before, deterministically per seed. The run's summary lists the
classes met and those missed."""
import pytest

from corpus.chunk_quirks import quirks_by_chunk
from harness.options import Options
from harness.runners.bulk import selection


@pytest.fixture(scope="module")
def corpus():
    return Options(seed=4, n=40).open_corpus()


@pytest.fixture(scope="module")
def pool(corpus):
    return selection.pool(corpus)


@pytest.mark.parametrize("seed", [4, 1, 2, 3])
def test_a_quick_40_chunk_sample_meets_every_class_the_corpus_holds(corpus, pool, seed):
    ids, met, missed = selection.quirk_sample(corpus, pool, 40, seed)
    table = quirks_by_chunk(corpus)
    held = {c for cid in pool for c in table[cid]}
    assert len(ids) == 40 and len(set(ids)) == 40 and ids == [c for c in pool if c in set(ids)]
    assert missed == [] and set(met) == held
    # the 36 chunks of the disc with two object records for one object (corpus-stats.md §3 rows
    # 0x0102; the duplicate-instance mutant is caught only there) are 1 % of the corpus
    assert any("several_records_one_object" in table[cid] for cid in ids)


def test_the_plain_draw_of_the_same_seed_misses_the_rare_classes(corpus, pool):
    """What the stratified sample adds: seed 4's plain 40-chunk draw meets neither F_Obj's zero
    position (one chunk of the corpus) nor an object with two records."""
    table = quirks_by_chunk(corpus)
    plain = selection.sample(pool, 40, 4)
    met = {c for cid in plain for c in table[cid]}
    assert "zero_fobj_positions" not in met and "several_records_one_object" not in met


def test_the_sample_is_deterministic_per_seed_and_otherwise_drawn_as_before(corpus, pool):
    a = selection.quirk_sample(corpus, pool, 40, 4)
    assert a == selection.quirk_sample(corpus, pool, 40, 4)
    assert a[0] != selection.quirk_sample(corpus, pool, 40, 5)[0]
    # the classes take a few chunks; the rest is the plain draw's
    plain = selection.sample(pool, 40, 4)
    assert len(set(a[0]) & set(plain)) >= 40 - len(a[1])


def test_a_sample_too_small_for_every_class_lists_those_it_missed(corpus, pool):
    ids, met, missed = selection.quirk_sample(corpus, pool, 3, 4)
    assert len(ids) == 3 and missed and set(met).isdisjoint(missed)
    table = quirks_by_chunk(corpus)
    assert set(met) == {c for cid in ids for c in table[cid]}
    # the rarest classes come first (the rarest of the bundled corpus is in one or two chunks)
    counts = {c: sum(1 for cid in pool if c in table[cid]) for c in met + missed}
    rarest = sorted(counts, key=lambda c: counts[c])[:3]
    assert counts[rarest[0]] <= 2 and set(rarest) <= set(met), {c: counts[c] for c in rarest}


def test_the_whole_pool_is_not_a_sample(corpus, pool):
    assert selection.quirk_sample(corpus, pool, len(pool), 4) == (pool, None, None)
    assert selection.quirk_sample(corpus, pool, 0, 4) == (pool, None, None)
