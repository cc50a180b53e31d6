"""The users' animation fixture (docs/spec/fixtures.md §1) written from one chunk's queries: the
game's words, or the built-in reference's answers to the same queries.

    pose MEMBER ANIME OBJECT TARGET TICKS PX PY PZ SX SY SZ ALPHA R00 ... R22
    uv MEMBER ANIME MATERIAL TICKS U V u v
    morph MEMBER ANIME MORPHER FRAME [TARGET:WEIGHT ...]
    blend MEMBER ANIME MORPHER FRAME MMAT HASH
    forward MEMBER ANIME SPEED STEPS T1 ... Tn
    notes MEMBER ANIME TICKS STEP TICKS2 ENDED [EVENT:PARAM ...]

`chunk_rows` gives a chunk's rows, each a Row(kind, reference_only, text). A row is written from
`source` ("game": the query's game words; "reference": the built-in reference's answer). Rows
whose words the game never gives (the spec's reference-only rows) are marked, and the file
writes them under a comment of their own.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

M32 = 0xFFFFFFFF
KINDS = ("pose", "morph", "blend", "forward", "uv", "notes")
# docs/spec/fixtures.md §1.1: the reader's minimum line counts (kind -> (relation, bound)), and
# the notes' own minimum over all lines
MINIMUM = {"pose": (">", 300), "morph": (">", 10), "blend": (">=", 4), "forward": (">", 10), "uv": (">=", 10),
           "notes": (">=", 300)}
MINIMUM_NOTES = 100
FIXED_CROP = (0x1234, 0xFEDC)          # §1.6: the crops of the fixture's u and v

Row = namedtuple("Row", "kind reference_only text")

KIND_COMMENTS = {
    "pose": "# pose MEMBER ANIME OBJECT TARGET TICKS PX PY PZ SX SY SZ ALPHA R00 R01 R02 R10 R11 R12 R20 R21 R22"
            " (float words as 8 hex digits, rotation row-major as %.9g). Keyed rotations: the game's keyed"
            " 3x3 differs from a double reference by up to 1e-5 + 1e-7 per key passed (eediff checks.md section 3),"
            " beyond the reader's 1e-6, so the pose lines of keyed rotations (at the end, after 'reference-only')"
            " carry eediff's reference double rounded to f32 for R00..R22 (fixtures.md section 1.2, option 1);"
            " their other fields are the source's. Every other pose line's rotation is the game's own words.",
    "uv": "# uv MEMBER ANIME MATERIAL TICKS U V u v (u v for the fixed crops 0x1234, 0xfedc)",
    "morph": "# morph MEMBER ANIME MORPHER FRAME TARGET:WEIGHT... (weight words as 8 hex digits)",
    "blend": "# blend MEMBER ANIME MORPHER FRAME MMAT HASH (FNV-1a-64 of the blended s16 positions)",
    "forward": "# forward MEMBER ANIME SPEED STEPS T1..Tn (hex; 80000000 set where a step returned 1)",
    "notes": "# notes MEMBER ANIME TICKS STEP TICKS2 ENDED EVENT:PARAM... (hex, in delivery order)",
}


def fnv1a64(vertices) -> str:
    """§1.4: FNV-1a-64 of the x, y, z of each vertex as little-endian s16, 16 lower-case hex digits."""
    h = 0xcbf29ce484222325
    for v in vertices:
        for x in v:
            w = int(x) & 0xFFFF
            for b in (w & 0xFF, w >> 8):
                h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def _b8(w) -> str:
    return f"{int(w) & M32:08x}"


def _hex(w) -> str:
    return f"{int(w) & M32:x}"


def _f32(w) -> str:
    return "%.9g" % float(np.array([int(w) & M32], dtype=np.uint32).view(np.float32)[0])


def _rows9(rot9):
    """Row-major R00..R22 of a rotation given as 9 c-major words (word 3c + r is element (r, c))."""
    return [_f32(rot9[3 * c + r]) for r in range(3) for c in range(3)]


def _words(v):
    return np.asarray(v).astype(np.int64).tolist()


def _forward_same(g, r):
    """How many leading steps the game's and the reference's (time, return value) agree on."""
    n = 0
    for a, b in zip(g, r):
        if [int(x) & M32 for x in a] != [int(x) & M32 for x in b]:
            break
        n += 1
    return n


def chunk_rows(chunk_id, anim, queries, reference, source="game"):
    """The fixture rows of one chunk. anim: the chunk's reference parse (the track order, the
    materials' offset rule and the playback's frames); queries: the chunk's truth queries (with
    `game`); reference: the built-in reference's answers to them, in order; source: which side's
    words the rows carry."""
    if source not in ("game", "reference"):
        raise ValueError(f"source {source!r}: game or reference")
    member, _, anime = chunk_id.partition("::")
    head = f"{member} {anime}"
    # §1.2: the reader evaluates the first track of an (OBJECT, TARGET) pair
    first_track = {}
    for tr in anim.tracks:
        first_track.setdefault((tr.record.object, tr.record.target), tr.record.index)
    out = []
    for q, ref in zip(queries, reference):
        g = q.get("game") or {}
        if g.get("compiled") is False:
            continue
        words = g if source == "game" else ref
        kind = q["kind"]
        if kind == "controller":
            out += _pose(head, anim, q, words, ref, first_track)
        elif kind == "material":
            out += _uv(head, anim, q, words)
        elif kind == "playback":
            out += _playback(head, anim, q, words, g, ref)
        elif kind == "modify":
            out.append(Row("blend", False, f"blend {head} {q['morpher']} {q['frame']} {q['mmat']} "
                                           f"{fnv1a64(_words(words['vertices']))}"))
        elif kind == "notes":
            out += _notes(head, q, words, g, ref)
    return out


def _pose(head, anim, q, words, ref, first_track):
    tr = anim.tracks[q["track"]].record
    if first_track.get((tr.object, tr.target)) != tr.index:
        return []       # DECISION: the reader would evaluate another track of this pair
    keyed = q["rotation"] == "keyed"
    pos, scale, alpha = _words(words["pos"]), _words(words["scale"]), _words(words["alpha"])
    rot = _words(ref["rot"] if keyed else words["rot"])
    out = []
    for k, t in enumerate(q["times"]):
        fields = [tr.object, tr.target, int(t)] + [_b8(w) for w in pos[k] + scale[k] + [alpha[k]]] + _rows9(rot[k])
        out.append(Row("pose", keyed, f"pose {head} " + " ".join(map(str, fields))))
    return out


def _uv(head, anim, q, words):
    """§1.6: U and V are the side's words; u and v follow from them by the reference's rule for the
    fixed crops (game-checked for eediff's own crops, not observed for these)."""
    from reference.animation import texture_offset
    out = []
    U, V = _words(words["U"]), _words(words["V"])
    for k, t in enumerate(q["times"]):
        u = texture_offset(U[k] & M32, FIXED_CROP[0], anim.ops)
        v = texture_offset(V[k] & M32, FIXED_CROP[1], anim.ops)
        out.append(Row("uv", False, f"uv {head} {q['material']} {int(t)} {_b8(U[k])} {_b8(V[k])} {u:04x} {v:04x}"))
    return out


def _playback(head, anim, q, words, g, ref):
    """§1.5 and §1.3: the forward line up to the first step where the game and the reference
    disagree, and one morph line per (morpher, frame) read before it."""
    n = _forward_same(g["forward"], ref["forward"])
    fw = [[int(x) & M32 for x in p] for p in words["forward"][:n]]
    out = [Row("forward", False, f"forward {head} {q['speed']} {n} "
                                 + " ".join(_hex(t | (r << 31)) for t, r in fw))] if n else []
    forwards = anim.playback([int(q["speed"])] * int(q["steps"])).forwards
    seen = set()
    looped = False
    morph_at = dict(zip(q["morph_read"], words["morph"]))
    for i, f in enumerate(forwards[:n]):
        if i in morph_at and not looped:
            frame = f.pose_at >> 8
            for obj, pairs in zip(q["morphers"], morph_at[i]):
                if (obj, frame) in seen:
                    continue
                seen.add((obj, frame))
                tail = " ".join(f"{int(t)}:{_b8(w)}" for t, w in pairs)
                out.append(Row("morph", False, f"morph {head} {obj} {frame} {tail}"))
        # DECISION: morph lines stop at the first loop: after it the game's morphers keep the
        # previous pass's state (animation-semantics.md §9.1), which a state at a frame cannot say
        looped = looped or f.looped
    return out


def _notes(head, q, words, g, ref):
    """§1.7: one line per step up to the first step where the game and the reference disagree."""
    out = []
    time = 0
    for i, (s, restart) in enumerate(q["plan"]):
        same = ([int(x) & M32 for x in g["forward"][i]] == [int(x) & M32 for x in ref["forward"][i]]
                and [[int(x) & M32 for x in n] for n in g["notes"][i]]
                == [[int(x) & M32 for x in n] for n in ref["notes"][i]])
        if not same:
            break
        t2, ended = (int(x) & M32 for x in words["forward"][i])
        tail = " ".join(f"{_hex(n[0])}:{_hex(n[1])}" for n in words["notes"][i])
        out.append(Row("notes", False, f"notes {head} {_hex(time)} {_hex(s)} {_hex(t2)} {ended} {tail}"))
        time = 0 if ended and restart else t2
    return out


def counts(rows):
    """(lines per kind, notes in all) of rows."""
    per = dict.fromkeys(KINDS, 0)
    notes = 0
    for r in rows:
        per[r.kind] += 1
        if r.kind == "notes":
            notes += len(r.text.split()) - 7
    return per, notes


class Agreement:
    """How far the rows of one side agree with the same rows written from the other: per kind, the
    rows both sides write identically and those they write differently, with the first few that
    differ. The reference-only rows are compared too (their rotation is the reference's on both
    sides, their other words each side's) and counted apart."""
    SHOWN = 5

    def __init__(self):
        self.same = dict.fromkeys(KINDS, 0)
        self.differ = 0
        self.reference_only = 0
        self.first_differences = []

    def add(self, other):
        for k in KINDS:
            self.same[k] += other.same[k]
        self.differ += other.differ
        self.reference_only += other.reference_only
        self.first_differences += other.first_differences[:self.SHOWN - len(self.first_differences)]

    def text(self):
        same = sum(self.same.values())
        return (f"{same:,} of {same + self.differ:,} identical ("
                + ", ".join(f"{k} {self.same[k]:,}" for k in KINDS)
                + f"), {self.differ:,} differ; {self.reference_only:,} of them reference-only rows")


def agreement(rows, other) -> Agreement:
    """Agreement of one chunk's rows with the other side's rows of the same queries, in order."""
    a = Agreement()
    if len(rows) != len(other):
        a.differ = max(len(rows), len(other))
        a.first_differences.append(f"{rows[0].text.split()[1:3] if rows else ''}: {len(rows)} rows, the other "
                                   f"side {len(other)}")
        return a
    for r, o in zip(rows, other):
        a.reference_only += r.reference_only
        if r.text == o.text:
            a.same[r.kind] += 1
        else:
            a.differ += 1
            if len(a.first_differences) < Agreement.SHOWN:
                a.first_differences.append(f"{r.text[:160]} | {o.text[:160]}")
    return a


def short_of_minimum(per, notes):
    """The reader's minimum counts (§1.1) the counts miss, as text; empty when all are met."""
    short = [f"{k} {per[k]} (needs {rel} {bound})" for k, (rel, bound) in MINIMUM.items()
             if not (per[k] > bound if rel == ">" else per[k] >= bound)]
    if notes < MINIMUM_NOTES:
        short.append(f"notes in all {notes} (needs >= {MINIMUM_NOTES})")
    return short
