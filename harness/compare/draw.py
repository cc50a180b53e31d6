"""What the report draws of a chunk's mismatches, recorded while the harness holds the chunk:
the chunk record's `draw` (interfaces.md §4), so that reports renders a run without its archive
or the reference model.

* `names`: {object index: name} of the objects the chunk's mismatches name by index (the names
  are data: reports escapes them);
* `series`: for controller, material and playback object-matrix mismatches that carry no
  `series` of their own (checks.md §2.1, §2.2, §4.1), the reference's channel over the animation
  (position/translation, scale, transparency, rotation or R·S elements, U/V and the u/v offsets),
  one entry per check x track x field: `check`, `track`, `field`, `t` (ticks) and `ref` (the
  reference's value at each); the game's values are the mismatches' own `got`;
* `notes`: why a channel was not drawn (a chunk the reference model refuses at a time);
* `unplotted`: true when the chunk has plottable mismatches but its worker had spent its plots;
* `objects`: for a chunk with objects or world mismatches, the reference's object tree: one row
  per index entry, {`entry`, `object`, `name`, `holds` (its identity: a clump node, a made object,
  a chunk's instance), `kind`, `flags`, `parent` (the identity it hangs under, or null)}.

A chunk with nothing to draw (every passing chunk) has no `draw`.
"""
from __future__ import annotations

import math

from ground.fields import BadField, Field
from reports import DETAIL_PER_GROUP
from reports.bits import u2f      # the display reading of a word, as the report's game values

POINTS = 160                    # reference samples over [0, end]
# DECISION: a plot is drawn for the groups holding one of the first DETAILS mismatches of each
# check of the chunk: the report gives full details (and so plots) to those alone, and the record
# of a chunk a mutant breaks everywhere stays small.
DETAILS = DETAIL_PER_GROUP
PLOTTED = ("controllers", "materials", "playback")

def _plotted(field):
    """The Field of a field the report plots over time (an axis of position, scale or translation,
    the transparency, an element of a rotation or matrix 3x3, U, V, u, v), else None."""
    try:
        f = Field.parse(field)
    except BadField:
        return None
    if f.name in ("position", "scale", "translation"):
        return f if not f.index and f.axis_index is not None else None
    if f.name in ("rotation", "matrix"):
        return f if f.member is None and len(f.index) == 2 and max(f.index) < 3 else None
    return f if f.name in ("transparency", "U", "V", "u", "v") and f == Field(f.name) else None


def plottable(m: dict) -> bool:
    """A mismatch whose channel the report plots over time and that brings no series itself."""
    return (not m.get("series") and m.get("check") in PLOTTED and isinstance(m.get("track"), int)
            and isinstance(m.get("time"), int) and _plotted(m.get("field")) is not None)


def _channel(field: str):
    """A function pose -> float for a plotted object field, or None (U, V, u, v: _material_value)."""
    f = _plotted(field)
    if f is None:
        return None
    if f.name in ("position", "scale", "translation"):
        i = f.axis_index
        attr = "scale" if f.name == "scale" else "pos"          # translation = the position
        return lambda p: u2f(getattr(p, attr)[i])
    if f.name == "transparency":
        return lambda p: u2f(p.alpha)
    if f.index:
        r, c = f.index
        if f.name == "matrix":                                  # playback: R·S (checks.md §3)
            return lambda p: float(p.rot_matrix[r][c]) * u2f(p.scale[c])
        return lambda p: float(p.rot_matrix[r][c])
    return None


def _material_value(anim, mt, field, T, m):
    if field in ("U", "V"):
        return u2f(anim.uv(mt, T)["UV".index(field)])
    crop = (m.get("context") or {}).get("crop") or [0, 0]
    return float(anim.material_offsets(mt, T, crop[0], crop[1])["uv".index(field)])


def times(last: int, extra) -> list[int]:
    """POINTS ticks over [0, end] and the mismatches' own times."""
    end = max([last, 1] + [t for t in extra if isinstance(t, int)])
    grid = {round(end * i / (POINTS - 1)) for i in range(POINTS)}
    return sorted(grid | {t for t in extra if isinstance(t, int)})


def groups(mismatches) -> dict:
    """{(check, track, field): [mismatch, ...]} of the plottable mismatches, in record order, for
    the groups holding one of the first DETAILS mismatches of their check."""
    out, seen, shown = {}, {}, set()
    for m in mismatches:
        check = m.get("check")
        seen[check] = seen.get(check, 0) + 1
        if not plottable(m):
            continue
        key = (check, m["track"], m["field"])
        out.setdefault(key, []).append(m)
        if seen[check] <= DETAILS:
            shown.add(key)
    return {k: v for k, v in out.items() if k in shown}


def series(anim, mismatches) -> tuple[list[dict], list[str]]:
    """The reference channel of each plotted group, and a note for each the model refused."""
    drawn, notes = [], []
    for (check, track, field), ms in groups(mismatches).items():
        try:
            ts = times(anim.last, [m["time"] for m in ms])
            if check in ("controllers", "playback"):
                tr = _indexed(anim.tracks, track, "track")
                value = _channel(field)
                ref = [value(anim.pose(tr, min(t, anim.last))) for t in ts]
            else:
                mt = _indexed(anim.materials, track, "material")
                ref = [_material_value(anim, mt, field, min(t, anim.last), ms[0]) for t in ts]
        except Exception as exc:                 # noqa: BLE001 - any reason is only a note
            notes.append(f"no plot for {check} track {track} {field}: {type(exc).__name__}: {exc}")
            continue
        if not all(math.isfinite(x) for x in ref):
            # a word of exponent 255 read as IEEE: no plot can show it (nor JSON hold it)
            notes.append(f"no plot for {check} track {track} {field}: the reference's channel "
                         "is not finite in the IEEE reading")
            continue
        # DECISION: the line keeps 9 significant digits (a float32's round trip; the report
        # shows 6), which keeps a plotted chunk's record about a third smaller.
        drawn.append({"check": check, "track": track, "field": field, "t": ts,
                      "ref": [float(f"{x:.9g}") for x in ref]})
    return drawn, notes


def _indexed(items, index, what):
    for x in items:
        if x.index == index:
            return x
    raise LookupError(f"the model has no {what} {index}")


def names(ch, mismatches) -> dict:
    """{object index (a JSON key string): name} of the objects the mismatches name by index."""
    wanted = sorted({m["object"] for m in mismatches
                     if isinstance(m.get("object"), int) and not isinstance(m.get("object"), bool)})
    if not wanted:
        return {}
    known = dict(getattr(ch, "names", None) or {})
    return {str(k): str(known[k]) for k in wanted if k in known}


def of_chunk(anim, ch, mismatches, plots: bool = True) -> dict | None:
    """The chunk record's `draw`, or None when the chunk has nothing the report draws."""
    if not mismatches:
        return None
    out = {}
    named = names(ch, mismatches)
    if named:
        out["names"] = named
    if plots:
        drawn, notes = series(anim, mismatches)
        if drawn:
            out["series"] = drawn
        if notes:
            out["notes"] = notes
    elif groups(mismatches):
        out["unplotted"] = True          # the worker's plot budget was spent (worker.PLOTTED_CHUNKS)
    if any(m.get("check") in ("objects", "world") for m in mismatches):
        tree = object_tree(anim, ch)
        if tree:
            out["objects"] = tree
    return out or None


def object_tree(anim, ch) -> list:
    """The reference's object table of the chunk as the report draws it (module docstring)."""
    from corpus.objects import Scene, scene
    from reference import objects as ref
    try:
        f = getattr(ch, "file", None)
        sc = scene(f) if f is not None else Scene()
        anime = getattr(anim, "anime", anim)
        index = ref.make_anime_index(anime, sc)
        table = ref.set_anm(index, sc)
    except Exception:                   # the report draws what it can; the check names the error
        return []
    names = getattr(ch, "names", None) or {}
    return [{"entry": i, "object": e.object, "name": names.get(e.object, ""), "holds": list(t.identity),
             "kind": t.kind, "flags": t.flags, "parent": list(p) if p is not None else None}
            for i, (e, t, p) in enumerate(zip(index, table.entries, table.parents))]
