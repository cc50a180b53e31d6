"""Guess the likely cause of each mismatch, so a report can group hundreds into a few stories.

A heuristic, not a diagnosis. RULES lists the rules in order; the first that matches wins.
The report prints the same list, so a reviewer knows what each label means.
"""
from __future__ import annotations

from collections import defaultdict

from .bits import is_integer_field, parse_u32, ulp_distance

# DECISION: the causes are named, their thresholds are not given: "drift" is a deviation up to
# 10x its tolerance (the drift seen on the disc stays within 2x of the bound; further out is
# a wrong rotation, not drift), "rounding" is 1 or 2 ulp.
DRIFT_FACTOR = 10.0
ROUNDING_ULPS = 2

# (cause, when it is chosen), in the order the rules are tried.
RULES = [
    ("harness error", "the chunk has an error: the harness could not finish it (chunk rows and "
     "JUnit only; it is not a mismatch record)."),
    ("playback control", 'field "frame counter" or "return value" (checks.md §4.1 step 3, §6.2 '
     "step 6): the time bookkeeping of _AnimateForward diverged; everything after it is moot."),
    ("note order", "a list value (notes, morph state) whose got is a permutation of expected: the "
     "same items in another order (the reversed delivery of ctu1body ANM_ctu1atc0, checks.md §10)."),
    ("missing/extra items", "a list value whose got is a strict subset or superset of expected "
     "(a note or morph target not delivered, or delivered twice)."),
    ("layout", "got equals the value another field expects at the same chunk, check, object, "
     "time and step: a value landed at the wrong offset."),
    ("stale value", "got equals what the same field and object expected at an earlier time or "
     "step: the game lags behind (a record applied a frame late, a missed update)."),
    ("ahead", "got equals what the same field and object expect at a later time or step."),
    ("drift", f"a deviation above its tolerance but within {DRIFT_FACTOR:g}x of it: the "
     "keyed-rotation running matrix drifted beyond the checks.md §3 formula."),
    ("rounding", "1 or 2 ulp between expected and got: a float rounding difference (hw vs trunc, "
     "an operation order, a reciprocal)."),
    ("sign", "got is expected with the sign bit flipped."),
    ("single value", "the only mismatch of its chunk and check (one field at one time)."),
    ("wrong value", "everything else: a genuinely different value, e.g. a wrong formula."),
]
CAUSES = tuple(name for name, _ in RULES)


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


def _scalar(v):
    """The u32 pattern for comparisons across fields, else the hashable value."""
    u = parse_u32(v)
    return u if u is not None else _hashable(v)


def ulp_of(m: dict) -> int | None:
    """The record's ulp, or the distance computed from expected/got when both are u32 patterns."""
    if isinstance(m.get("ulp"), int):
        return m["ulp"]
    if is_integer_field(m.get("field")):
        return None
    a, b = parse_u32(m.get("expected")), parse_u32(m.get("got"))
    if a is None or b is None or not (isinstance(m.get("expected"), str)
                                      and isinstance(m.get("got"), str)):
        return None
    return ulp_distance(a, b)


def _where(m: dict) -> tuple:
    return (m.get("time"), m.get("step"), m.get("track"), m.get("object"))


def _order(m: dict):
    """Where a mismatch lies in time: (step, time), None parts last."""
    return (m.get("step") if m.get("step") is not None else -1,
            m.get("time") if m.get("time") is not None else -1)


def expected_index(group: list[dict]) -> dict:
    """Lookups for the layout and timing rules:
    (where, expected value) -> fields expecting it; and
    ("when", field, object, track, expected value) -> the (step, time) points expecting it."""
    index: dict = defaultdict(set)
    for m in group:
        try:
            ev = _scalar(m.get("expected"))
            index[(_where(m), ev)].add(m.get("field"))
            index[("when", m.get("field"), m.get("object"), m.get("track"), ev)].add(_order(m))
        except TypeError:                       # unhashable odd value: no evidence
            pass
    return index


def _lag(m: dict, g_val, exp, index: dict) -> str | None:
    """ "stale value" / "ahead" when got is this field's expected value at another time."""
    if g_val == _scalar(exp):
        return None
    points = index.get(("when", m.get("field"), m.get("object"), m.get("track"), g_val), ())
    here = _order(m)
    if any(p < here for p in points):
        return "stale value"
    if any(p > here for p in points):
        return "ahead"
    return None


def classify(m: dict, group: list[dict], index: dict | None = None) -> str:
    """The likely cause of mismatch m; group = all mismatches of the same chunk and check."""
    field = str(m.get("field") or "")
    exp, got = m.get("expected"), m.get("got")
    if field in ("frame counter", "return value"):
        return "playback control"
    if isinstance(exp, list) and isinstance(got, list):
        e = sorted(map(repr, exp))
        g = sorted(map(repr, got))
        if e == g:
            return "note order"
        if set(g) < set(e) or set(g) > set(e):
            return "missing/extra items"
    index = index if index is not None else expected_index(group)
    g_val = _scalar(got)
    if g_val != _scalar(exp):
        fields = index.get((_where(m), g_val), ())
        if any(f != m.get("field") for f in fields):
            return "layout"
    timing = _lag(m, g_val, exp, index)
    if timing:
        return timing
    dev, tol = m.get("deviation"), m.get("tolerance")
    if isinstance(dev, (int, float)) and isinstance(tol, (int, float)) and tol > 0:
        if tol < dev <= DRIFT_FACTOR * tol:
            return "drift"
    ulp = ulp_of(m)
    if ulp is not None and 1 <= ulp <= ROUNDING_ULPS:
        return "rounding"
    a, b = parse_u32(exp), parse_u32(got)
    if a is not None and b is not None and a ^ b == 0x80000000:
        return "sign"
    if len(group) == 1:
        return "single value"
    return "wrong value"


def classify_run(chunks: list[dict]) -> dict[int, str]:
    """id(mismatch) -> cause for every mismatch of the run's chunk records."""
    out = {}
    for ch in chunks:
        groups = defaultdict(list)
        for m in ch["mismatches"]:
            groups[m.get("check")].append(m)
        for group in groups.values():
            index = expected_index(group)
            for m in group:
                out[id(m)] = classify(m, group, index)
    return out
