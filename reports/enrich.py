"""Value-over-time plots for mismatches that carry no `series`: the reference's channel over the
animation, drawn from the run's corpus with `reference`, with the game's values at the
mismatching times (interfaces.md §2, §3).

Controller, material and playback object-matrix mismatches (checks.md §2.1, §2.2, §4.1) have
a channel over time: position/translation, scale, transparency, rotation or R·S elements,
U/V and the u/v offsets. The series is derived by reports, never written back to the chunk
files, and labelled as such.
Anything that stops it (no corpus at the recorded path, a chunk the corpus or the reference
refuses) becomes a note in the report, never an error: the report itself does not need it.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from .bits import is_hex_pattern, parse_u32, u2f

NAME_CHUNKS = 200               # failing chunks whose object names are read from the corpus
POINTS = 160                    # reference samples over [0, end]
PER_GROUP = 20                  # mismatches of one chunk x track x field given the plot
MAX_CHUNKS = 40                 # chunks whose animation is parsed (~0.3 s each); run order

_FIELD = re.compile(r"^(position|scale|translation)\.([xyz])$|^transparency$"
                    r"|^(?:rotation|matrix)\[(\d)\]\[(\d)\]$|^[UVuv]$")


def _channel(field: str):
    """A function pose-or-uv -> float for a plotted field, or None."""
    m = _FIELD.match(field or "")
    if not m:
        return None
    if m.group(1):
        i = "xyz".index(m.group(2))
        attr = "scale" if m.group(1) == "scale" else "pos"      # translation = the position
        return lambda p: u2f(getattr(p, attr)[i])
    if field == "transparency":
        return lambda p: u2f(p.alpha)
    if m.group(3) is not None:
        r, c = int(m.group(3)), int(m.group(4))
        if field.startswith("matrix"):                          # playback: R·S (checks.md §3)
            return lambda p: float(p.rot_matrix[r][c]) * u2f(p.scale[c])
        return lambda p: float(p.rot_matrix[r][c])
    return None                                  # U, V, u, v: see _material_value


def _game_value(m: dict):
    v = m.get("got")
    bits = parse_u32(v)
    if bits is None:
        return None
    return u2f(bits) if is_hex_pattern(v) and m.get("field") not in ("u", "v") else float(bits)


def _times(last: int, extra) -> list[int]:
    end = max([last, 1] + [t for t in extra if isinstance(t, int)])
    grid = {round(end * i / (POINTS - 1)) for i in range(POINTS)}
    return sorted(grid | {t for t in extra if isinstance(t, int)})


def _open(params: dict):
    from corpus import open_corpus
    data = (params.get("data") or {}).get("path")
    disc = (params.get("disc") or {}).get("path") if isinstance(params.get("disc"), dict) else params.get("disc")
    if not data and not disc:
        raise LookupError("the run records no corpus path")
    if data and not Path(data).exists():
        raise LookupError(f"no corpus at {data}")
    try:
        return open_corpus(data=data, disc=disc)
    except Exception:
        image = (params.get("image") or {}).get("path")
        return open_corpus(data=data, disc=disc, image=image)


def add_series(run) -> list[str]:
    """Attach a derived `series` to plottable mismatches; return notes for the report."""
    groups: dict = defaultdict(list)
    for ch, m in run.mismatches:
        if m.get("series") or m["check"] not in ("controllers", "materials", "playback"):
            continue
        if isinstance(m.get("track"), int) and isinstance(m.get("time"), int) and \
                _FIELD.match(str(m.get("field") or "")):
            groups[(ch["chunk"], m["check"], m["track"], m["field"])].append(m)
    if not groups:
        return []
    from reference import Animation
    try:
        corpus = _open(run.params)
    except Exception as exc:                     # noqa: BLE001 - any reason is only a note
        return [f"value-over-time plots not drawn: {type(exc).__name__}: {exc}"]
    notes, anims = [], {}
    model = run.params.get("float_model") or "hw"
    order = {ch["chunk"]: i for i, ch in enumerate(run.chunks)}
    chunks = sorted({k[0] for k in groups}, key=order.get)
    if len(chunks) > MAX_CHUNKS:
        notes.append(f"value-over-time plots drawn for the first {MAX_CHUNKS} of {len(chunks)} "
                     "chunks with plottable mismatches (the others: rerun their repro)")
        keep = set(chunks[:MAX_CHUNKS])
        groups = {k: v for k, v in groups.items() if k[0] in keep}
    for (chunk, check, track, field), ms in sorted(groups.items(),
                                                   key=lambda kv: (order[kv[0][0]], kv[0][1:3])):
        try:
            if chunk not in anims:
                ch = corpus.chunk(chunk)
                anims[chunk] = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=model)
            a = anims[chunk]
            times = _times(a.last, [m["time"] for m in ms])
            if check in ("controllers", "playback"):
                tr = next(t for t in a.tracks if t.index == track)
                value = _channel(field)
                ref = [value(a.pose(tr, min(t, a.last))) for t in times]
            else:
                mt = next(x for x in a.materials if x.index == track)
                ref = [_material_value(a, mt, field, min(t, a.last), ms[0]) for t in times]
        except Exception as exc:                 # noqa: BLE001
            notes.append(f"no plot for {chunk} {check} track {track} {field}: "
                         f"{type(exc).__name__}: {exc}")
            continue
        game = [(m["time"], _game_value(m)) for m in ms if _game_value(m) is not None]
        series = {"label": field, "t": times, "ref": ref, "derived": True,
                  "game_t": [t for t, _ in game], "game": [v for _, v in game]}
        for m in ms[:PER_GROUP]:
            m["series"] = series
    return notes


def _material_value(a, mt, field, T, m):
    if field in ("U", "V"):
        return u2f(a.uv(mt, T)["UV".index(field)])
    crop = (m.get("context") or {}).get("crop") or [0, 0]
    return float(a.material_offsets(mt, T, crop[0], crop[1])["uv".index(field)])


def object_names(run) -> tuple[dict, list[str]]:
    """{chunk id: {object index: name}} from the run's corpus for chunks whose mismatches name
    an object by index, and notes; without the corpus (or a chunk it refuses) the index alone
    is shown. The names are data: the report escapes them (reports.detail.e)."""
    wanted = []
    for ch in run.chunks:
        if any(isinstance(m.get("object"), int) for m in ch["mismatches"]):
            wanted.append(ch["chunk"])
    if not wanted:
        return {}, []
    try:
        corpus = _open(run.params)
    except Exception as exc:                     # noqa: BLE001 - any reason is only a note
        return {}, [f"object names not shown: {type(exc).__name__}: {exc}"]
    names, notes = {}, []
    # DECISION: names are read for the first NAME_CHUNKS failing chunks (one inflate each);
    # the others show the object index alone.
    if len(wanted) > NAME_CHUNKS:
        notes.append(f"object names shown for the first {NAME_CHUNKS} of {len(wanted)} failing chunks")
    for chunk in wanted[:NAME_CHUNKS]:
        try:
            names[chunk] = {int(k): str(v) for k, v in dict(corpus.chunk(chunk).names).items()}
        except Exception as exc:                 # noqa: BLE001
            notes.append(f"no object names for {chunk}: {type(exc).__name__}: {exc}")
    return names, notes
