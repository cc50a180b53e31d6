"""The quirk classes one Anime chunk carries: the census's quirk counters (corpus-stats.md §3-§7,
corpus/stats.py and corpus/quirks.py) asked of a single chunk, so a sample can be drawn to meet
every class the archive holds.

quirk_classes(anime) -> frozenset of class names (CLASSES lists them all, in a fixed order)
quirks_by_chunk(corpus) -> {chunk id: frozenset}, cached beside the corpus index
"""
from __future__ import annotations

import json
import os
import struct
import tempfile
from collections import Counter

from .quirks import held_rotation_keys
from .lights import KIND_DIRECT_LIGHT
from .records import END_LOOP

# Every class, in the order a summary lists them. Each is one counter of the census (or of the
# quirk census) asked of one chunk: "does this chunk carry at least one?".
CLASSES = (
    "keys_back_in_time", "keys_back_to_0", "keys_sharing_a_frame", "keys_past_end",
    "late_first_key", "zero_exponent_values", "negative_zero_values", "rotation_keys_beyond_180",
    "single_rotations_beyond_180", "keyed_rotation_70_keys", "held_rotation_keys", "scales_above_1",
    "alpha_outside_0_1", "several_records_one_object", "extobj_records", "material_records",
    "uv_wrapping", "loops", "notes_at_last_frame", "notes_at_frame0", "frames_with_several_notes",
    "frames_with_three_notes", "notes_in_loops", "morph_weights_8_up", "morph_weights_above_1",
    "f_morpher_frame0", "fobj_records", "zero_fobj_positions", "fobj_scale_not_1",
    "fobj_alpha_outside_0_1", "n_1", "n_2_3", "n_100_up", "direct_light_records",
)
# DECISION: the cache of the per-chunk classes lives beside the corpus index, under the index's
# own stem, and names this version: a change of the rules here rebuilds it, not the index.
CACHE_VERSION = 2


def _f(w):
    return struct.unpack("<f", struct.pack("<I", w & 0xFFFFFFFF))[0]


def _zero_exp(w):
    return (w >> 23) & 0xFF == 0


def _words(c):
    return list(c.value) + [w for _, ws in c.keys for w in ws]


def _controller(c, N, out):
    for w in _words(c):
        if _zero_exp(w) and w & 0x7FFFFF:
            out.add("zero_exponent_values")
        elif w == 0x80000000:
            out.add("negative_zero_values")
    if c.kind != 2:
        return
    fr = [f for f, _ in c.keys]
    if any(b < a for a, b in zip(fr, fr[1:])):
        out.add("keys_back_in_time")
        if any(b == 0 and a > 0 for a, b in zip(fr, fr[1:])):
            out.add("keys_back_to_0")
    if any(b == a for a, b in zip(fr, fr[1:])):
        out.add("keys_sharing_a_frame")
    if fr and max(fr) > N - 1:
        out.add("keys_past_end")
    if fr and fr[0] > 0:
        out.add("late_first_key")


def quirk_classes(a) -> frozenset:
    """The classes of CLASSES that parsed Anime chunk `a` carries (rules of corpus/stats.py)."""
    out = set()
    N = a.frames
    if a.loops:
        out.add("loops")
    out.update(name for name, hit in (("n_1", N == 1), ("n_2_3", 2 <= N <= 3), ("n_100_up", N >= 100))
               if hit)
    per_object = Counter(t.object for t in a.tracks)
    if any(v > 1 for v in per_object.values()):
        out.add("several_records_one_object")
    for t in a.tracks:
        for c in (t.pos, t.rot, t.scale, t.alpha):
            _controller(c, N, out)
        if t.object != t.target:
            out.add("extobj_records")
        if t.rot.kind == 2:
            if any(abs(_f(w)) > 180 for w in _words(t.rot)):
                out.add("rotation_keys_beyond_180")
            if len(t.rot.keys) >= 70:
                out.add("keyed_rotation_70_keys")
            if held_rotation_keys(t.rot):
                out.add("held_rotation_keys")
        elif t.rot.kind == 1 and any(abs(_f(w)) > 180 for w in t.rot.value):
            out.add("single_rotations_beyond_180")
        if t.scale.kind and any(not _zero_exp(w) and abs(_f(w)) > 1 for w in _words(t.scale)):
            out.add("scales_above_1")
        if t.alpha.kind and any(not _zero_exp(w) and not 0.0 <= _f(w) <= 1.0 for w in _words(t.alpha)):
            out.add("alpha_outside_0_1")
    for m in a.materials:
        out.add("material_records")
        for c in (m.u, m.v):
            _controller(c, N, out)
            if any(not _zero_exp(w) and abs(_f(w)) >= 8.0 for w in _words(c)):
                out.add("uv_wrapping")
    per_frame = Counter(n.frame for n in a.notes)
    for n in a.notes:
        if n.frame == N - 1:
            out.add("notes_at_last_frame")
        if n.frame == 0:
            out.add("notes_at_frame0")
    if a.notes and a.end == END_LOOP:
        out.add("notes_in_loops")
    if any(v > 1 for v in per_frame.values()):
        out.add("frames_with_several_notes")
    if any(v > 2 for v in per_frame.values()):
        out.add("frames_with_three_notes")
    for mr in a.morphs:
        if mr.frame == 0:
            out.add("f_morpher_frame0")
        for _, w in mr.pairs:
            x = _f(w)
            if not 0 <= x < 8:
                out.add("morph_weights_8_up")
            elif x > 1:
                out.add("morph_weights_above_1")
    for o in a.fobjs:
        out.add("fobj_records")
        if all(_zero_exp(w) for w in o.pos):
            out.add("zero_fobj_positions")
        sc = [0.0 if _zero_exp(w) else _f(w) for w in o.scale]
        if any(x != 1.0 for x in sc):
            out.add("fobj_scale_not_1")
        if not _zero_exp(o.alpha) and not 0.0 <= _f(o.alpha) <= 1.0:
            out.add("fobj_alpha_outside_0_1")
    if any(o.kind == KIND_DIRECT_LIGHT for o in a.others):
        out.add("direct_light_records")
    return frozenset(out)


_MEMO = {}


def quirks_by_chunk(corpus) -> dict:
    """{chunk id: its quirk classes} for every chunk of `corpus` whose bytes parse (a chunk that
    does not parse has none: the checks report it). Computed once per archive and kept in a JSON
    file beside the corpus index (corpus.side_path), so a 4,091-chunk archive is parsed once."""
    key = id(corpus)
    if key in _MEMO and _MEMO[key][0] is corpus:
        return _MEMO[key][1]
    path = corpus.side_path(f".quirks{CACHE_VERSION}.json") if hasattr(corpus, "side_path") else None
    table = _read(path, corpus)
    if table is None:
        table = {}
        from .errors import CorpusError
        for cid in corpus.chunk_ids():
            try:
                table[cid] = quirk_classes(corpus.chunk(cid).anime)
            except CorpusError:
                table[cid] = frozenset()
        _write(path, table)
    _MEMO[key] = (corpus, table)
    return table


def _read(path, corpus):
    if not path or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return None
    ids = corpus.chunk_ids()
    if not isinstance(raw, dict) or raw.get("chunks") != len(ids) or not isinstance(raw.get("quirks"), dict):
        return None
    q = raw["quirks"]
    if set(q) != set(ids):
        return None
    return {cid: frozenset(c for c in q[cid] if c in CLASSES) for cid in ids}


def _write(path, table):
    if not path:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({"chunks": len(table), "quirks": {c: sorted(v) for c, v in table.items()}}, f)
        os.replace(tmp, path)
    except OSError:
        pass
