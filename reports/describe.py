"""The display model of one mismatch: what a reviewer sees, derived once from the raw record.

reports.detail renders every mismatch's HTML from its view (the row and the detail); the
page's script only shows, hides and pages through that HTML.
"""
from __future__ import annotations

import json

from corpus.note_text import is_note_list, note_text, notes_text

from .bits import (bit_ranges, diff_mask, float_text, frame_text, is_hex_pattern,
                   is_integer_field, parse_u32, u2f, ulp_distance)
from .causes import ulp_of

MAX_ROWS = 64            # list elements shown per value
MAX_STRIPS = 4           # bit strips shown for a list's differing elements
MAX_CONTEXT_CHARS = 1500 # per context entry
MAX_SERIES = 240         # reference points per plot
MAX_GAME_POINTS = 200


def time_text(t) -> str:
    """Ticks as "t=1234 (frame 4 + 210/256)" (animation-semantics.md: 256 ticks per frame)."""
    if not isinstance(t, int):
        return ""
    return f"t={t} (frame {t >> 8} + {t & 255}/256)"


def object_text(obj, names=None) -> str:
    """An object as its index with its name when the corpus gives one: "object 5 (OBJ_a)"."""
    name = (names or {}).get(obj) if isinstance(obj, int) else None
    return f"object {obj} ({name})" if name else f"object {obj}"


def place_text(m: dict, names=None) -> str:
    """Object, track and step of a mismatch (its time is time_text)."""
    parts = []
    if m.get("object") is not None:
        parts.append(object_text(m["object"], names))
    if m.get("track") is not None:
        parts.append(f"track {m['track']}")
    if m.get("step") is not None:
        parts.append(f"step {m['step']}")
    return " · ".join(parts)


def where_text(m: dict, names=None) -> str:
    return " · ".join(x for x in (place_text(m, names), time_text(m.get("time"))) if x)


def value_text(v) -> str:
    """A value as the console shows it: a note list as {event 0x8005, param 1, time 33, object 39}."""
    if isinstance(v, (list, dict)):
        return notes_text(v) or json.dumps(v, separators=(",", ":"))
    return "null" if v is None else str(v)


def short(v, limit=60) -> str:
    s = value_text(v)
    return s if len(s) <= limit else s[:limit - 1] + "…"


def brief(exp, got) -> tuple[str, str]:
    """Expected and got for the one-line row: lists as their sizes, or their first difference."""
    if isinstance(exp, list) and isinstance(got, list):
        notes = (is_note_list(exp) or not exp) and (is_note_list(got) or not got)
        item = (lambda x: note_text(x)) if notes else (lambda x: short(x, 60))
        noun = "note" if notes else "item"
        if len(exp) != len(got):
            return (f"{len(exp)} {noun}{'' if len(exp) == 1 else 's'}" + (f": {item(exp[0])}…" if exp else ""),
                    f"{len(got)} {noun}{'' if len(got) == 1 else 's'}" + (f": {item(got[0])}…" if got else ""))
        for i, (a, b) in enumerate(zip(exp, got)):
            if a != b:
                return f"[{i}] {item(a)}", f"[{i}] {item(b)}"
    return short(exp, 60), short(got, 60)


def answered_by(m: dict) -> str:
    """Whose answer a mismatch holds against the game's: "reference" (the built-in one) or, in a
    run with a model in its place (bulk --model), "model"."""
    return m.get("answered_by") or "reference"


def one_line(m: dict) -> str:
    """A mismatch in one line, e.g. for JUnit and terminals."""
    ulp = ulp_of(m)
    tail = f" ({ulp} ulp)" if ulp else ""
    if isinstance(m.get("deviation"), (int, float)):
        tail = f" (d={m['deviation']:.3g} > {m.get('tolerance')})"
    where = where_text(m)
    return (f"{m['check']} {m.get('chunk')}{' ' + where if where else ''} {m.get('field')}: "
            f"{answered_by(m)} {short(m.get('expected'))} game {short(m.get('got'))}{tail}")


def scalar_view(exp, got, field=None) -> dict | None:
    """Both values as raw bits when they are u32 patterns: hex, decimal, reading, differing bits."""
    a, b = parse_u32(exp), parse_u32(got)
    if a is None or b is None:
        return None
    floaty = (is_hex_pattern(exp) or is_hex_pattern(got)) and not is_integer_field(field)
    mask = diff_mask(a, b)

    def side(bits):
        signed = bits - (1 << 32) if bits >> 31 else bits
        if floaty:
            read = float_text(bits)
        elif field == "frame counter":
            read = frame_text(bits)
        else:
            read = str(signed)
        return {"hex": f"0x{bits:08x}", "dec": str(bits), "read": read}
    return {"e": side(a), "g": side(b), "eb": a, "gb": b, "mask": mask, "desc": bit_ranges(mask, floaty),
            "ulp": ulp_distance(a, b) if floaty else None, "float": floaty}


def list_view(exp, got, field=None) -> dict | None:
    if not isinstance(exp, list) and not isinstance(got, list):
        return None
    e = exp if isinstance(exp, list) else [exp]
    g = got if isinstance(got, list) else [got]
    rows, strips = [], []
    from corpus.note_text import NOTE_FIELDS, is_note_list, note_text
    notes = "note" in str(field or "").lower() and all(is_note_list(v) for v in (e, g) if v)
    text = note_text if notes else value_text
    for i in range(max(len(e), len(g))):
        ev = e[i] if i < len(e) else None
        gv = g[i] if i < len(g) else None
        differs = (i >= len(e)) or (i >= len(g)) or ev != gv
        if i < MAX_ROWS:
            rows.append([i, "–" if i >= len(e) else text(ev),
                         "–" if i >= len(g) else text(gv), differs])
        if differs and i < len(e) and i < len(g):
            # a scalar element, or the differing members of a tuple such as (target, weight)
            pairs = ([(f"[{i}]", ev, gv)] if not isinstance(ev, list) else
                     [(f"[{i}].{NOTE_FIELDS[j]}" if notes else f"[{i}][{j}]", a, b)
                      for j, (a, b) in enumerate(zip(ev, gv)) if a != b]
                     if isinstance(gv, list) and len(ev) == len(gv) else [])
            for label, a, b in pairs:
                sv = scalar_view(a, b, field) if len(strips) < MAX_STRIPS else None
                if sv is not None:
                    sv["label"] = label
                    strips.append(sv)
    return {"rows": rows, "ne": len(e), "ng": len(g), "strips": strips,
            "more": max(len(e), len(g)) - len(rows)}


def _thin(xs: list, ys: list, limit: int):
    if len(xs) <= limit:
        return list(xs), list(ys)
    stride = -(-len(xs) // limit)
    return list(xs[::stride]), list(ys[::stride])


def _num(x, digits: int):
    """A plot coordinate, kept short in the embedded JSON: ints stay ints, floats get `digits`
    significant digits (the reference line needs no more; game points keep f32 precision)."""
    x = float(x)
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return float(f"{x:.{digits}g}")


def series_view(s) -> dict | None:
    if not isinstance(s, dict):
        return None
    try:
        t, ref = _thin([_num(x, 9) for x in s.get("t", [])],
                       [_num(y, 6) for y in s.get("ref", [])], MAX_SERIES)
        gt, gv = _thin([_num(x, 9) for x in s.get("game_t", [])],
                       [_num(y, 9) for y in s.get("game", [])], MAX_GAME_POINTS)
    except (TypeError, ValueError, OverflowError):
        return None
    if any(v != v or v in (float("inf"), float("-inf")) for v in ref + gv + t + gt):
        return None                   # NaN/inf cannot be plotted (nor embedded as JSON)
    if not (t and ref) and not (gt and gv):
        return None
    out = {"label": str(s.get("label", "")), "t": t, "ref": ref, "gt": gt, "g": gv}
    if s.get("derived"):
        out["derived"] = True           # the record's draw, not the check, gave the line (reports.draw)
    return out


def key_value_text(value) -> str:
    """A key's raw words with their float reading: "0xc31fafda (-159.687)"."""
    words = value if isinstance(value, list) else [value]
    if words and all(is_hex_pattern(w) for w in words):
        return "  ".join(f"{w} ({u2f(parse_u32(w)):.6g})" for w in words)
    return value_text(value)


def keys_view(ctx, t) -> list:
    """Key tables from context entries shaped like {"keys": [{"i", "frame", "value"}], "count"}
    (the harness's keys around a time), with the segment that contains t marked."""
    out = []
    if not isinstance(ctx, dict):
        return out
    when = ctx.get("pose_time", t)
    for name, val in ctx.items():
        keys = val.get("keys") if isinstance(val, dict) else None
        if not (isinstance(keys, list) and keys and all(isinstance(k, dict) and "frame" in k
                                                         for k in keys)):
            continue
        rows = []
        for k in keys:
            frame = k.get("frame")
            tick = frame * 256 if isinstance(frame, int) else None
            rows.append([k.get("i", ""), frame, tick, key_value_text(k.get("value")), ""])
        if isinstance(when, int):
            before = [r for r in rows if isinstance(r[2], int) and r[2] <= when]
            if before:
                i = rows.index(before[-1])
                rows[i][4] = "seg"
                if i + 1 < len(rows):
                    rows[i + 1][4] = "seg"
        out.append({"name": name, "count": val.get("count"), "t": when, "rows": rows})
    return out


def context_view(ctx) -> list:
    if not isinstance(ctx, dict):
        return [] if ctx is None else [["context", short(ctx, MAX_CONTEXT_CHARS)]]
    return [[str(k), short(v, MAX_CONTEXT_CHARS)] for k, v in ctx.items()]


def shrank(sh) -> bool:
    """Whether a shrunk repro is smaller than the input it came from: a plan or step list from
    which nothing could be dropped is its whole replay, not a shrunk one."""
    if not isinstance(sh, dict) or not isinstance(sh.get("original_length"), int):
        return True
    lengths = [len(v) for k, v in sh.items() if isinstance(v, list) and k not in ("repro", "tests")]
    return not lengths or lengths[0] < sh["original_length"]


def shrunk_view(sh, original: dict) -> dict | None:
    """The minimal input (first non-repro member) next to the original size when known."""
    if not isinstance(sh, dict):
        return None
    items = [[k, short(v, 600), (len(v) if isinstance(v, list) else None)]
             for k, v in sh.items() if k not in ("repro", "tests", "original_length")]
    orig = []
    if isinstance(sh.get("original_length"), int):
        orig.append([items[0][0] if items else "input", sh["original_length"]])
    else:
        for k, _, _ in items:
            ov = (original.get("context") or {}).get(k)
            if isinstance(ov, list):
                orig.append([k, len(ov)])
    return {"items": items, "repro": sh.get("repro"), "tests": sh.get("tests"), "orig": orig, "shrank": shrank(sh)}


def view(n: int, m: dict, cause: str, full: bool = True, names=None) -> dict:
    """The display model of mismatch number n (the report's anchor is "m<n>").

    names: the chunk's object names by index (reports.draw.object_names), shown next to
    the record's object index."""
    v = {"n": n, "chunk": m.get("chunk"), "check": m["check"], "field": m.get("field"),
         "where": where_text(m, names), "place": place_text(m, names),
         "at": time_text(m.get("time")), "cause": cause, "time": m.get("time"), "step": m.get("step"),
         "track": m.get("track"), "object": m.get("object"),
         "es": brief(m.get("expected"), m.get("got"))[0],
         "gs": brief(m.get("expected"), m.get("got"))[1],
         "ulp": ulp_of(m), "repro": m.get("repro"),
         "seed": m.get("seed")}
    if answered_by(m) != "reference":
        v["by"] = answered_by(m)               # whose answer the game is held against (a model run's)
    if m.get("inferred"):
        v["inferred"] = str(m["inferred"])     # harness/compare/inferred.py: the spec's [INF] rule it falls on
    if isinstance(m.get("deviation"), (int, float)):
        v["dev"] = f"{m['deviation']:.4g}"
        v["tol"] = "" if m.get("tolerance") is None else f"{m['tolerance']:.4g}"
    if not full:
        # the one-line row, the repro and where the record lives
        return _compact(v)
    sv = scalar_view(m.get("expected"), m.get("got"), m.get("field"))
    if sv is not None:
        v["sv"] = sv
    else:
        lv = list_view(m.get("expected"), m.get("got"), m.get("field"))
        if lv is not None:
            v["lv"] = lv
        else:
            v["raw"] = [value_text(m.get("expected")), value_text(m.get("got"))]
    keys = keys_view(m.get("context"), m.get("time"))
    if keys:
        v["keys"] = keys
    shown = {k["name"] for k in keys}
    v["ctx"] = [c for c in context_view(m.get("context")) if c[0] not in shown]
    se = series_view(m.get("series"))
    if se:
        v["series"] = se
    sh = shrunk_view(m.get("shrunk"), m)
    if sh:
        v["shrunk"] = sh
    if isinstance(m.get("provenance"), dict):
        v["provenance"] = m["provenance"]
    v["full"] = True
    return _compact(v)


def _compact(v: dict) -> dict:
    """Drop empty members: 10,000 views are embedded in the page."""
    return {k: x for k, x in v.items() if x not in (None, "", [], {})}
