"""harness.shrinking: Zeller's ddmin and integer shrinking on synthetic predicates."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from harness.shrinking import ddmin, shrink_int, shrink_steps


def needs(*required):
    req = set(required)
    return lambda items: req <= set(items)


def test_failure_needing_items_3_and_17_of_200_shrinks_to_exactly_those():
    assert ddmin(list(range(200)), needs(3, 17)) == [3, 17]


def test_ddmin_is_deterministic_same_calls_same_order():
    calls = [[], []]
    for log in calls:
        def pred(items, log=log):
            log.append(tuple(items))
            return {5, 77, 150} <= set(items)
        ddmin(list(range(200)), pred)
    assert calls[0] == calls[1] and calls[0]


def test_ddmin_keeps_order_and_works_on_unhashable_items():
    items = [{"step": i} for i in range(50)]
    got = ddmin(items, lambda xs: [x["step"] for x in xs if x["step"] in (40, 9)] == [9, 40])
    assert got == [{"step": 9}, {"step": 40}]


def test_a_failure_that_needs_nothing_shrinks_to_the_empty_input():
    st_ = {}
    assert ddmin(list(range(30)), lambda xs: True, stats=st_) == [] and st_["tests"] == 1


def test_a_single_item_that_alone_fails_is_kept():
    assert ddmin([7], lambda xs: 7 in xs) == [7]


def test_budget_is_respected_and_the_result_still_fails():
    pred_calls = []
    pred = needs(1, 50, 99, 120, 180)

    def counted(xs):
        pred_calls.append(1)
        return pred(xs)
    stats = {}
    got = ddmin(list(range(200)), counted, max_tests=10, stats=stats)
    assert len(pred_calls) <= 10 and stats["tests"] == len(pred_calls)
    assert pred(got) and not stats["complete"]


def test_a_pair_that_fails_only_together_in_order():
    """Interaction failure: item a before item b (a note delivered before another)."""
    def pred(xs):
        return 12 in xs and 30 in xs and xs.index(12) < xs.index(30)
    assert ddmin(list(range(64)), pred) == [12, 30]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 120), data=st.data())
def test_ddmin_result_is_1_minimal_for_subset_predicates(n, data):
    """Zeller's guarantee: the result fails and removing any single item makes it pass."""
    required = data.draw(st.sets(st.integers(0, n - 1), max_size=min(n, 6)))
    pred = needs(*required)
    got = ddmin(list(range(n)), pred)
    assert pred(got)
    assert sorted(got) == sorted(required)
    for i in range(len(got)):
        assert not pred(got[:i] + got[i + 1:])


def test_ddmin_1_minimal_for_a_non_monotone_predicate():
    """Even when the predicate is not monotone, the result fails and is 1-minimal."""
    r = random.Random("eediff:shrink:nonmono")
    bad = {frozenset(r.sample(range(40), 3)) for _ in range(5)}

    def pred(xs):
        s = set(xs)
        return any(b <= s for b in bad) and len(xs) % 7 != 3
    items = list(range(40))
    if not pred(items):
        items = items[:-1]
    assert pred(items)
    got = ddmin(items, pred)
    assert pred(got)
    assert all(not pred(got[:i] + got[i + 1:]) for i in range(len(got)))


def test_shrink_int_finds_the_earliest_failing_time():
    assert shrink_int(100_000, lambda t: t >= 4_321) == 4_321
    assert shrink_int(100_000, lambda t: t >= 4_321, lo=5_000) == 5_000
    assert shrink_int(7, lambda t: True) == 0


def test_shrink_int_returns_a_failing_value_for_non_monotone_predicates():
    pred = lambda t: t % 10 == 0 and t >= 500   # noqa: E731
    got = shrink_int(10_000, pred)
    assert pred(got) and got <= 10_000


def test_shrink_steps_reduces_a_playback_like_case_to_few_small_steps():
    """A wrong frame counter once a step crosses frame 5 with a skip (> 256 ticks): the 40-step
    speed-100 case shrinks to a couple of steps."""
    def pred(steps):
        t = 0
        for s in steps:
            if s > 256 and (t >> 8) < 5 <= ((t + s) >> 8):
                return True
            t += s
        return False
    steps = [100] * 12 + [700] + [100] * 27
    assert pred(steps)
    got = shrink_steps(steps, pred)
    assert pred(got) and len(got) <= 3
    assert got == [1280]           # one step straight to frame 5, the earliest that fails


@pytest.mark.parametrize("n", [0, 1])
def test_trivial_inputs(n):
    assert ddmin(list(range(n)), lambda xs: len(xs) == n) == list(range(n))
