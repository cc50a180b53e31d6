"""Guess the likely cause of each mismatch, so a report can group hundreds into a few stories.

A heuristic, not a diagnosis. The rules, first match wins (the report lists them too):

1. harness error   the chunk has an `error` (the harness could not finish it) — per chunk only.
2. playback control  field is "frame counter" or "return value" (checks.md §4.1 step 3, §6.2 step 6):
                   the time bookkeeping of _AnimateForward diverged; everything after is moot.
3. note order      field "notes" and got is a permutation of expected (same notes, other order;
                   the `ctu1body ANM_ctu1atc0` reversal, checks.md §10).
4. notes missing/extra  field "notes", got a strict sub- or superset of expected.
5. layout          the got value of this mismatch equals the expected value of another field
                   at the same chunk, check, time and step (a value landed at the wrong offset).
6. drift           a deviation and tolerance are recorded, deviation > tolerance but within
                   DRIFT_FACTOR x tolerance: the keyed-rotation running matrix drifted (checks.md §3).
7. rounding        ulp distance 1 or 2 between expected and got (a float rounding difference,
                   e.g. hw vs trunc or an operation order change).
8. sign            got == expected with the sign bit flipped.
9. single value    the only mismatch of its chunk and check (one field at one time).
10. wrong value    everything else (a genuinely different value, e.g. a wrong formula).
"""
from __future__ import annotations

from collections import defaultdict

from .bits import is_integer_field, parse_u32, ulp_distance

DRIFT_FACTOR = 100.0

CAUSES = ("harness error", "playback control", "note order", "notes missing/extra", "layout",
          "drift", "rounding", "sign", "single value", "wrong value")

RULES = [line.strip() for line in __doc__.split("first match wins (the report lists them too):")[1]
         .strip().splitlines()]


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


def expected_index(group: list[dict]) -> dict:
    """(where, expected value) -> fields expecting that value, for the layout rule."""
    index: dict = defaultdict(set)
    for m in group:
        try:
            index[(_where(m), _scalar(m.get("expected")))].add(m.get("field"))
        except TypeError:                       # unhashable odd value: no layout evidence
            pass
    return index


def classify(m: dict, group: list[dict], index: dict | None = None) -> str:
    """The likely cause of mismatch m; group = all mismatches of the same chunk and check."""
    field = str(m.get("field") or "")
    exp, got = m.get("expected"), m.get("got")
    if field in ("frame counter", "return value"):
        return "playback control"
    if field == "notes" and isinstance(exp, list) and isinstance(got, list):
        e = sorted(map(repr, exp))
        g = sorted(map(repr, got))
        if e == g:
            return "note order"
        if set(g) < set(e) or set(g) > set(e):
            return "notes missing/extra"
    index = index if index is not None else expected_index(group)
    g_val = _scalar(got)
    if g_val != _scalar(exp):
        fields = index.get((_where(m), g_val), ())
        if any(f != m.get("field") for f in fields):
            return "layout"
    dev, tol = m.get("deviation"), m.get("tolerance")
    if isinstance(dev, (int, float)) and isinstance(tol, (int, float)) and tol > 0:
        if tol < dev <= DRIFT_FACTOR * tol:
            return "drift"
    ulp = ulp_of(m)
    if ulp is not None and 1 <= ulp <= 2:
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
