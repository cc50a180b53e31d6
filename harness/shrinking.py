"""Shrinking: a failing input cut down to a smallest one that still fails.

Two halves. The generic delta debugging (ddmin, shrink_int, shrink_steps) and, on top of it,
shrink_mismatch: a harness mismatch replayed through its check's replay (checks.replay) until its step
list, note plan or times are minimal, attached to the record as `shrunk` with its repro.

Generic over the predicate, in the spirit of C-Reduce's "interestingness test" and
Hypothesis's shrinker (style.md): the caller supplies `still_fails(candidate) -> bool`
that replays a reduced case; these functions only decide which candidates to try.

* ddmin(items, still_fails): Zeller & Hildebrandt's ddmin ("Simplifying and Isolating
  Failure-Inducing Input", TSE 2002). Returns a 1-minimal subsequence (order kept): removing
  any single remaining item makes the failure go away. Deterministic: no randomness, the
  candidates are tried in a fixed order, and results are cached per subset.
* shrink_int(value, still_fails, lo=...): the smallest integer in [lo, value] that still
  fails, by bisection (e.g. the earliest time), verified against the predicate.
* shrink_steps(steps, still_fails): fewest steps (ddmin, then merging neighbours and the
  lead-up into one step), then each step toward its smallest failing size.

Every function returns an input that was observed to fail (or the original input when
nothing smaller fails); it never returns an untested candidate.
"""
from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from harness import checks
from harness.commands import replay_command

T = TypeVar("T")

DEFAULT_MAX_TESTS = 2000


class _Budget:
    """Counts predicate calls, stopping the search when max_tests is reached."""

    def __init__(self, max_tests: int):
        self.max_tests = max_tests
        self.tests = 0

    @property
    def spent(self) -> bool:
        return self.tests >= self.max_tests


def _split(indices: list[int], n: int) -> list[list[int]]:
    """n contiguous parts of nearly equal size (the first ones one longer)."""
    size, extra = divmod(len(indices), n)
    parts, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        parts.append(indices[start:end])
        start = end
    return [p for p in parts if p]


def ddmin(items: Sequence[T], still_fails: Callable[[list[T]], bool], *,
          max_tests: int = DEFAULT_MAX_TESTS, stats: dict | None = None) -> list[T]:
    """A 1-minimal subsequence of items for which still_fails holds.

    The full sequence is assumed to fail (it is not re-tested). When max_tests predicate
    calls are spent, the smallest failing subsequence found so far is returned. If `stats`
    is a dict, it receives {"tests": calls made, "complete": whether 1-minimality was reached}.
    """
    items = list(items)
    budget = _Budget(max_tests)
    cache: dict[tuple[int, ...], bool] = {tuple(range(len(items))): True}

    def test(indices: list[int]) -> bool:
        key = tuple(indices)
        if key not in cache:
            if budget.spent:
                return False
            budget.tests += 1
            cache[key] = bool(still_fails([items[i] for i in indices]))
        return cache[key]

    current = list(range(len(items)))
    complete = False
    # DECISION: try the empty input first (ddmin proper never does): a failure that needs no
    # items at all is the most useful thing a reviewer can learn, and it costs one call.
    if not current or test([]):
        current, complete = [], True
    elif len(current) == 1:
        complete = True
    n = 2
    while not complete and not budget.spent:
        parts = _split(current, min(n, len(current)))
        reduced = None
        for part in parts:                                  # reduce to a subset
            if test(part):
                reduced, n = part, 2
                break
        if reduced is None and len(parts) > 2:              # reduce to a complement
            for part in parts:
                drop = set(part)
                rest = [i for i in current if i not in drop]
                if test(rest):
                    reduced, n = rest, max(n - 1, 2)
                    break
        if budget.spent and reduced is None:
            break                                           # out of budget: not proven minimal
        if reduced is not None:
            current = reduced
            complete = len(current) == 1                    # [] was tested first
        elif n >= len(current):
            complete = True                                 # 1-minimal
        else:
            n = min(len(current), 2 * n)
    if stats is not None:
        stats.update(tests=budget.tests, complete=complete)
    return [items[i] for i in current]


def shrink_int(value: int, still_fails: Callable[[int], bool], *, lo: int = 0,
               max_tests: int = 64, stats: dict | None = None) -> int:
    """The smallest v in [lo, value] found failing by bisection; value itself is assumed to fail.

    Bisection is exact when failing is monotone in v (fails for every v >= some threshold,
    e.g. "the value is wrong from time t on"); otherwise it still returns a failing v, just
    not necessarily the smallest.
    """
    if value <= lo:
        return value
    budget = _Budget(max_tests)
    best, low = value, None                                 # low: largest value known to pass
    budget.tests += 1
    if still_fails(lo):
        best = lo
    else:
        low = lo
    while low is not None and best - low > 1 and not budget.spent:
        mid = (low + best) // 2
        budget.tests += 1
        if still_fails(mid):
            best = mid
        else:
            low = mid
    if stats is not None:
        stats.update(tests=budget.tests)
    return best


def _merge(steps: list[int], test) -> list[int]:
    """Collapse a prefix, or two neighbours, into one step while the case still fails.

    Every state the checks compare is a function of the times reached (animation-semantics.md
    §7), and merging steps keeps every later time, so a failure usually survives it; ddmin
    alone can only delete steps and would keep the many small ones that lead up to the
    failing time.
    """
    changed = True
    while changed and len(steps) > 1:
        changed = False
        for k in range(len(steps), 1, -1):                 # the biggest prefix first
            cand = [sum(steps[:k])] + steps[k:]
            if test(cand):
                steps, changed = cand, True
                break
        if changed:
            continue
        for i in range(len(steps) - 1):
            cand = steps[:i] + [steps[i] + steps[i + 1]] + steps[i + 2:]
            if test(cand):
                steps, changed = cand, True
                break
    return steps


def shrink_steps(steps: Sequence[int], still_fails: Callable[[list[int]], bool], *,
                 lo: int = 0, max_tests: int = DEFAULT_MAX_TESTS,
                 stats: dict | None = None) -> list[int]:
    """Fewest steps, then each remaining step shrunk toward lo, left to right.

    For playback and note cases (checks.md §4, §6): ddmin deletes steps, merging collapses
    the lead-up into one step, ddmin runs again, and each step is bisected toward lo. The
    result is a short list of step sizes that still reproduces the mismatch.
    """
    count = [0]

    def test(cand: list[int]) -> bool:
        if count[0] >= max_tests:
            return False
        count[0] += 1
        return bool(still_fails(list(cand)))

    inner: dict = {}
    current = ddmin(list(steps), still_fails, max_tests=max_tests, stats=inner)
    count[0] += inner["tests"]
    merged = _merge(current, test)
    if merged != current:
        inner = {}
        current = ddmin(merged, still_fails, max_tests=max(1, max_tests - count[0]), stats=inner)
        count[0] += inner["tests"]
    for i in range(len(current)):
        if count[0] >= max_tests:
            break
        sub: dict = {}
        head, tail = current[:i], current[i + 1:]
        current[i] = shrink_int(current[i], lambda v: still_fails(head + [v] + tail),
                                lo=lo, max_tests=min(64, max_tests - count[0]), stats=sub)
        count[0] += sub.get("tests", 0)
    if stats is not None:
        stats.update(tests=count[0], complete=inner.get("complete", False))
    return current


# -- a harness mismatch, shrunk by replaying its check --------------------------------------


def same_failure(tally, m):
    return any(x["check"] == m["check"] and x["field"] == m["field"] for x in tally.mismatches)


def coalesce(steps):
    """Candidate step lists of at most 3 steps that reach the same times as the failing step.

    DECISION: besides delta debugging (which only deletes steps), try jumping straight to the time
    before the failing step: [t_before], then the failing step itself, since every compared state
    is a function of the time reached and the frames read.
    """
    if len(steps) <= 1:
        return []
    pre, last = sum(steps[:-1]), steps[-1]
    out = [[pre + last], [pre, last]]
    if len(steps) > 2:
        out.append([sum(steps[:-2]), steps[-2], last])
    return out


def _any_input(_check, _items):
    """The built-in reference's replay runs any input."""
    return True


SHRINK_REPLAYS = 20      # replays one shrink may spend (bulk and `one` alike)


def shrink_first_of_each_check(game, ch, ctx, res, replay=None):
    """Shrink the first mismatch of each check in res["mismatches"] (in place: its "shrunk"); a
    shrink that fails is named in res["notes"]. replay: as shrink_mismatch's."""
    seen = set()
    for m in res["mismatches"]:
        if m["check"] in seen:
            continue
        seen.add(m["check"])
        try:
            m["shrunk"] = shrink_mismatch(game, ch, ctx, m, replay=replay)
        except Exception as exc:
            m["shrunk"] = None
            res.setdefault("notes", []).append(f"shrinking {m['check']} failed: {type(exc).__name__}: {exc}")


def shrink_mismatch(game, ch, ctx, m, max_replays=SHRINK_REPLAYS, replay=None):
    """Return the `shrunk` dict for mismatch m, or None when its check has no replay (checks.Replay)
    or m carries no input to replay. replay(check, game, ch, ctx, items, **args) -> Tally runs one
    candidate: checks.replay (the built-in reference) unless given (a model run's); a replay with
    an `accepts(check, items)` method is never given a candidate it refuses (not a failure)."""
    how = checks.resolve(m["check"]).replay if m["check"] in checks.names() else None
    found = how.input(m) if how is not None else None
    if found is None:
        return None
    (items, args), key = found, how.key
    replay = replay or checks.replay
    accepts = getattr(replay, "accepts", _any_input)
    run = lambda items: replay(m["check"], game, ch, ctx, items, **args)
    budget = [max_replays]
    errors = []

    def still_fails(candidate):
        if budget[0] <= 0 or not candidate or not accepts(m["check"], list(candidate)):
            return False
        budget[0] -= 1
        try:
            return same_failure(run(list(candidate)), m)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            return False

    best = items
    if key == "steps":
        for cand in coalesce(items):
            if len(cand) < len(best) and still_fails(cand):
                best = cand
                break
    # fewest steps, then the smallest step sizes (shrink_steps) / fewest items (ddmin)
    shrinker = shrink_steps if key == "steps" else ddmin
    if len(best) > 1 or key == "steps":
        try:
            best = list(shrinker(list(best), still_fails, max_tests=max_replays))
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
    if errors:
        import sys
        print(f"shrinking {m['chunk']} {m['check']}: {errors[0]}", file=sys.stderr)
    if best == items and key != "times":
        # DECISION: nothing could be dropped (a plan already minimal, or the budget spent): the
        # replay of the whole input is the repro, given only when that replay fails as m did
        budget[0] += 1
        if not still_fails(items):
            return None
    best = [list(x) if isinstance(x, tuple) else x for x in best]
    return {key: best, "repro": replay_command(ctx, m, key, best, checks.resolve(m["check"]).name), "original_length": len(items),
            "tests": max_replays - budget[0]}

