"""Print a mismatch for a person: both values as bits and numbers, the differing bits, the repro."""
import json

from corpus.names import printable

from harness.compare.bits import f32
from corpus.note_text import notes_text
from reports.describe import answered_by, shrank


def _int(v):
    return int(v, 16) if isinstance(v, str) and v.startswith("0x") else v


def value_line(label, v, floats):
    v = _int(v)
    if isinstance(v, int) and floats:
        return f"  {label:9s} 0x{v:08x}  {f32(v)!r}"
    if isinstance(v, int):
        return f"  {label:9s} {v} (0x{v & 0xFFFFFFFF:x})"
    return f"  {label:9s} {notes_text(v) or json.dumps(v)}"


def format_mismatch(m):
    where = [f"{m['check']}", m["chunk"]]
    for k in ("object", "track", "time", "step"):
        if m.get(k) is not None:
            where.append(f"{k} {m[k]}")
    lines = [" | ".join(where) + f" | {m['field']}"]
    floats = m.get("ulp") is not None or m.get("deviation") is not None
    # DECISION: "reference" (our model) and "game" (the executable), never expected/got: a
    # reverse engineer checking the model against the game reads "expected" as the game.
    lines.append(value_line(answered_by(m), m["expected"], floats))
    lines.append(value_line("game", m["got"], floats))
    e, g = _int(m["expected"]), _int(m["got"])
    if isinstance(e, int) and isinstance(g, int):
        lines.append(f"  {'xor':9s} 0x{(e ^ g) & 0xFFFFFFFF:08x}" + (f"  ulp {m['ulp']}" if m.get("ulp") is not None else ""))
    if m.get("deviation") is not None:
        lines.append(f"  deviation {m['deviation']:.3g} > tolerance {m['tolerance']:.3g}")
    if m.get("inferred"):
        lines.append(f"  {m['inferred']}: a question about the spec (README.md, \"Your own disc\")")
    ctx = m.get("context") or {}
    if ctx:
        text = json.dumps(ctx)
        lines.append("  context   " + (text if len(text) < 400 else text[:400] + " ..."))
    if m.get("shrunk"):
        lines.append(("  shrunk    " if shrank(m["shrunk"]) else "  replay    (nothing could be dropped) ")
                     + json.dumps(m["shrunk"]))
    lines.append("  repro     " + m["repro"])
    return "\n".join(printable(line) for line in lines)   # a name's own line breaks stay escaped


def one_line(m, limit=100):
    """'notes | a.cmp::ANM_x | step 3 | notes: reference …, game …': a mismatch on one line."""
    def short(v):
        v = _int(v)
        text = f"0x{v:08x}" if isinstance(v, int) else (notes_text(v) or json.dumps(v))
        return text if len(text) <= limit else text[:limit] + " ..."
    where = [m["check"], m["chunk"]] + [f"{k} {m[k]}" for k in ("object", "track", "time", "step")
                                        if m.get(k) is not None]
    ulp = f" ({m['ulp']} ulp)" if m.get("ulp") is not None else ""
    return printable(f"{' | '.join(map(str, where))} | {m['field']}: {answered_by(m)} {short(m['expected'])}, "
                     f"game {short(m['got'])}{ulp}")
