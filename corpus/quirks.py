"""The documented quirks the disc's census (corpus-stats.md) does not count, counted over an archive:
late first keys, rotations held after a turn, transparencies outside [0, 1], wrapping texture
scrolls, F_Obj scales, and the light records' forms (animation-semantics.md §2.2, §3.4, §4, §6,
§11; formats.md §4.7).

quirk_census(corpus) -> dict; every figure is a count of records or controllers.
"""
from __future__ import annotations

import struct
from collections import Counter

# the direct light's 3-bit channel fields and their widths (formats.md §4.7)
DIRECT_FIELDS = (("position", 0, 3), ("rotation", 3, 3), ("colour", 6, 3), ("intensity", 9, 1),
                 ("beam_start", 12, 1), ("beam_end", 15, 1), ("radius1", 18, 1), ("radius2", 21, 1))
LIGHT_KINDS = {0x0603: "distant", 0x0605: "direct", 0x0607: "spot", 0x0609: "omni"}


def _f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def _values(c):
    return list(c.value) + [w for _, ws in c.keys for w in ws]


def _is_zero(w):
    return (w >> 23) & 0xFF == 0


def held_rotation_keys(c) -> int:
    """Keys of a keyed rotation that repeat the key before them on a later frame, right after a
    turn into it: a step with no axis whose pose is the running matrix the turn reached (§3.4, §3.6)."""
    if c.kind != 2:
        return 0
    k = c.keys
    return sum(1 for i in range(2, len(k))
               if k[i][1] == k[i - 1][1] != k[i - 2][1] and k[i][0] > k[i - 1][0] > k[i - 2][0])


def quirk_census(corpus) -> dict:
    late = Counter()
    s = Counter()
    direct = Counter()
    for cid in corpus.chunk_ids():
        a = corpus.chunk(cid).anime
        for t in a.tracks:
            for ch in ("pos", "rot", "scale", "alpha"):
                c = getattr(t, ch)
                if c.kind == 2 and c.keys[0][0] > 0:
                    late[ch] += 1
            s["held_rotation_keys"] += held_rotation_keys(t.rot)
            if t.alpha.kind:
                s["alpha_outside_0_1"] += sum(1 for w in _values(t.alpha)
                                              if not _is_zero(w) and not 0.0 <= _f(w) <= 1.0)
        for m in a.materials:
            for ch in ("u", "v"):
                c = getattr(m, ch)
                if c.kind == 2 and c.keys[0][0] > 0:
                    late[f"material_{ch}"] += 1
                s["uv_wrapping"] += sum(1 for w in _values(c) if not _is_zero(w) and abs(_f(w)) >= 8.0)
        for o in a.fobjs:
            sc = [0.0 if _is_zero(w) else _f(w) for w in o.scale]
            s["fobj_scale_not_1"] += any(x != 1.0 for x in sc)
            s["fobj_scale_negative"] += any(x < 0 for x in sc)
            s["fobj_scale_unequal"] += len(set(sc)) > 1
            s["fobj_alpha_outside_0_1"] += not _is_zero(o.alpha) and not 0.0 <= _f(o.alpha) <= 1.0
        for o in a.others:
            if o.kind == 0x0605 and len(o.words) >= 2:
                for name, sh, _ in DIRECT_FIELDS:
                    direct[f"{name}:{(o.words[1] >> sh) & 7}"] += 1
            if o.kind in LIGHT_KINDS and len(o.words) >= 2:
                kinds = {(o.words[1] >> sh) & 7 for sh in range(0, 24, 3)}
                s[f"{LIGHT_KINDS[o.kind]}_with_keyed_channel"] += 2 in kinds
            elif o.kind == 0x0502:
                s["f_camera"] += 1
            elif o.kind == 0x0601:
                s["f_ambient"] += 1
    return {"late_first_key": dict(sorted(late.items())), **dict(sorted(s.items())),
            "direct_light_channels": dict(sorted(direct.items()))}
