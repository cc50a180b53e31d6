"""Value-over-time plots and object names as the harness recorded them: each chunk record's
`draw` (interfaces.md §4, harness/compare/draw.py), read from the run directory alone, never
from the archive or the reference model.

A plot is the reference's channel (`draw.series`: check, track, field, t, ref) with the game's
values at the mismatching times, which are the mismatches' own `got`. It is attached as the
`series` of the first PER_GROUP mismatches of its chunk x check x track x field that carry none
of their own, labelled as drawn beside the check.
"""
from __future__ import annotations

from .bits import is_hex_pattern, parse_u32, u2f

PER_GROUP = 20                  # mismatches of one chunk x track x field given the plot


def _game_value(m: dict):
    v = m.get("got")
    bits = parse_u32(v)
    if bits is None:
        return None
    return u2f(bits) if is_hex_pattern(v) and m.get("field") not in ("u", "v") else float(bits)


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _draw(ch: dict) -> dict:
    d = ch.get("draw")
    return d if isinstance(d, dict) else {}


def add_series(run) -> list[str]:
    """Attach each recorded reference channel to its mismatches; return notes for the report."""
    notes, unplotted = [], 0
    for ch in run.chunks:
        d = _draw(ch)
        unplotted += bool(d.get("unplotted"))
        notes.extend(f"{ch['chunk']}: {n}" for n in _list(d.get("notes")) if isinstance(n, str))
        for s in _list(d.get("series")):
            if not isinstance(s, dict):
                continue
            key = (s.get("check"), s.get("track"), s.get("field"))
            ms = [m for m in ch["mismatches"] if not m.get("series")
                  and (m["check"], m.get("track"), m.get("field")) == key and isinstance(m.get("time"), int)]
            game = [(m["time"], _game_value(m)) for m in ms if _game_value(m) is not None]
            series = {"label": s.get("field"), "t": s.get("t") or [], "ref": s.get("ref") or [],
                      "derived": True, "game_t": [t for t, _ in game], "game": [v for _, v in game]}
            for m in ms[:PER_GROUP]:
                m["series"] = series
    if unplotted:
        notes.insert(0, f"value-over-time plots not recorded for {unplotted} chunks with plottable "
                        "mismatches (the harness draws them for the first chunks of each worker; "
                        "the others: rerun their repro)")
    return notes


def object_names(run) -> dict:
    """{chunk id: {object index: name}} as the records name the objects their mismatches name.
    The names are data: the report escapes them (reports.detail.e)."""
    out = {}
    for ch in run.chunks:
        names = _draw(ch).get("names")
        if isinstance(names, dict):
            out[ch["chunk"]] = {i: str(v) for k, v in names.items() if (i := _index(k)) is not None}
    return out


def _index(key):
    """An object index written as a JSON key ("5"), or None."""
    try:
        return int(key, 10) if isinstance(key, str) else None
    except ValueError:
        return None


def object_trees(run) -> dict:
    """{chunk id: the rows of its object tree} as the harness recorded them (draw.objects)."""
    out = {}
    for ch in run.chunks:
        rows = [r for r in _list(_draw(ch).get("objects")) if isinstance(r, dict)]
        if rows:
            out[ch["chunk"]] = rows
    return out
