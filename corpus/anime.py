"""Anime chunk 0x0700: parse into typed records (formats.md §4) and build the exact inverse.

parse_anime(chunk_bytes, ext=None, where="member::ANM_x") -> corpus.records.Anime
build_anime(anime_or_None, **fields) -> bytes (the chunk from its 0x0700 header)

Convenience constructors for hand-made chunks (tests, the synthetic generator):
    one(1.0, 2.0, 3.0)                 a kind-1 controller (numbers become f32 bits, Bits(...) stay raw)
    keyed((0, 1.0, 2.0, 3.0), (10, ...)) a kind-2 controller: (frame, values...) per key
    obj_track(obj, pos=..., rot=..., scale=..., alpha=...)  a 0x0102 record (None = absent channel)
    material_track(mat, u=..., v=...), morph(frame, mph, [(mdl, w), ...]), note(frame, event, param, obj),
    fobj(frame, obj, pos, rot, scale, alpha, flags), other(frame, kind, words)
    build_anime(object=5, frames=10, loops=True, tracks=[...], notes=[...])
"""
from __future__ import annotations

import gc
import struct
from typing import Optional

from .errors import CorpusError
from .records import (ABSENT1, ABSENT3, END_LOOP, END_PLAY_ONCE, FRAME_LIGHT_KINDS, KIND_F_AMBIENT,
                      KIND_F_CAMERA, KIND_F_MORPHER, KIND_F_NOTE, KIND_F_OBJ, KIND_MATERIAL,
                      KIND_OBJECT, KIND_TOP, LIGHT_KINDS, Anime, Controller, FObj, MaterialTrack,
                      MorphRecord, Note, OtherRecord, Track)

KIND_ANIME = 0x0700
TAG = 0xCCCC
MAX_EXT_HOPS = 64

# Sub-record kinds an Anime chunk may hold besides the typed ones: the light controllers (under
# Top 0) and the frame kinds of formats.md §2.2. DECISION: any other kind (0x0005, 0x0802, 0x0803,
# a setup kind, garbage) is "unknown" and rejected, since the game's DecodeFrameChunk has no case
# for it and the disc has none.
OTHER_KINDS = frozenset((KIND_F_AMBIENT, KIND_F_CAMERA, 0x0201, 0x1801, 0x2201)
                        + LIGHT_KINDS + FRAME_LIGHT_KINDS)
KNOWN_KINDS = OTHER_KINDS | {KIND_TOP, KIND_OBJECT, KIND_MATERIAL, KIND_F_MORPHER, KIND_F_NOTE,
                             KIND_F_OBJ}

_HDR = struct.Struct("<5I")
_II = struct.Struct("<II")
_I = struct.Struct("<I")
_III = struct.Struct("<III")

# (shift, width) of the four channels of a 0x0102 record (formats.md §4.5)
OBJECT_CHANNELS = ((0, 3), (3, 3), (6, 3), (9, 1))
MATERIAL_CHANNELS = ((0, 1), (3, 1))


def resolve(ext, obj):
    """Follow an ExtObj chain (formats.md §3.7): at most 64 hops, stop at a self-map or a non-key."""
    if not ext:
        return obj
    for _ in range(MAX_EXT_HOPS):
        t = ext.get(obj)
        if t is None or t == obj:
            return obj
        obj = t
    return obj


# ----------------------------------------------------------------------------------------- parse

def parse_anime(chunk_bytes, ext=None, where=None) -> Anime:
    """Parse one Anime chunk (bytes from its 0x0700 header). Raises CorpusError naming `where`,
    the chunk offset and the sub-record kind on anything malformed."""
    # The records are acyclic tuples: pausing the cycle collector while they are made keeps a big
    # chunk from triggering full collections over everything the caller already holds.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _parse(bytes(chunk_bytes), ext, where)
    finally:
        if paused:
            gc.enable()


def _parse(b, ext, where) -> Anime:

    def fail(msg, off=None, kind=KIND_ANIME):
        raise CorpusError(msg, member=where, offset=off, kind=kind)

    if len(b) < 20:
        fail(f"Anime chunk of {len(b)} bytes is shorter than its 20-byte header", 0)
    typ, size, obj, frames, words = _HDR.unpack_from(b, 0)
    if typ & 0xFFFF != KIND_ANIME:
        fail(f"not an Anime chunk (type 0x{typ:08X})", 0, typ & 0xFFFF)
    if typ >> 16 != TAG:
        fail(f"bad chunk tag 0x{typ >> 16:04X} (want 0xCCCC)", 0)
    # DECISION: the chunk size must hold the 3 header words and the W data words (the disc has
    # size == 3 + W); extra declared words are tolerated, since the game reads W, not the size.
    if 3 + words > size:
        fail(f"W = {words} data words do not fit the chunk size of {size} words", 16)
    end_all = 20 + 4 * words
    if end_all > len(b):
        fail(f"W = {words} data words run past the {len(b)} bytes given", 16)

    tracks, materials, morphs, notes, fobjs, others, tops = [], [], [], [], [], [], []
    counts = {}
    frame = 0
    end = None
    p = 20
    while p < end_all:
        if p + 8 > end_all:
            fail("overrun: a sub-record header runs past the chunk's W words", p)
        t, n = _II.unpack_from(b, p)
        kind = t & 0xFFFF
        if t >> 16 != TAG:
            fail(f"bad sub-record tag 0x{t >> 16:04X} (type 0x{t:08X})", p, kind)
        q = p + 8 + 4 * n
        if q > end_all:
            fail(f"overrun: a sub-record of {n} words runs past the chunk's W words "
                 f"(ends at 0x{q:X}, data ends at 0x{end_all:X})", p, kind)
        if end is not None:   # DECISION: the game's reader stops at the end Top; data after it is an error
            fail("a sub-record follows the end Top", p, kind)
        if kind not in KNOWN_KINDS:
            fail("unknown sub-record kind", p, kind)
        counts[kind] = counts.get(kind, 0) + 1
        a = p + 8
        if kind == KIND_TOP:
            if n != 1:
                fail(f"Top of size {n} (want 1)", p, kind)
            v = _I.unpack_from(b, a)[0]
            tops.append((v, p))
            if v >= 0xFFFFFF00:
                end = v
            else:
                frame = v
        elif kind == KIND_OBJECT:
            if n < 2:
                fail(f"object record of size {n} (want >= 2)", p, kind)
            o, flags = _II.unpack_from(b, a)
            chans, r = _controllers(b, a + 8, q, flags, OBJECT_CHANNELS, fail, p, kind)
            if r != q:   # DECISION: the controllers must fill the record exactly (no slack words)
                fail(f"object record has {(q - r) // 4} words after its controllers", p, kind)
            tracks.append(Track(len(tracks), o, resolve(ext, o), flags, chans[0], chans[1],
                                chans[2], chans[3], frame, p))
        elif kind == KIND_MATERIAL:
            if n < 2:
                fail(f"material record of size {n} (want >= 2)", p, kind)
            m, flags = _II.unpack_from(b, a)
            chans, r = _controllers(b, a + 8, q, flags, MATERIAL_CHANNELS, fail, p, kind)
            if r != q:
                fail(f"material record has {(q - r) // 4} words after its controllers", p, kind)
            materials.append(MaterialTrack(len(materials), m, flags, chans[0], chans[1], frame, p))
        elif kind == KIND_F_MORPHER:
            if n < 2:
                fail(f"F_Morpher of size {n} (want >= 2)", p, kind)
            mph, cw = _II.unpack_from(b, a)
            count = cw & 0xFFFF
            if n != 2 + 2 * count:
                fail(f"F_Morpher of size {n} with {count} pairs (want {2 + 2 * count})", p, kind)
            pairs = tuple(_II.iter_unpack(b[a + 8:q]))
            morphs.append(MorphRecord(frame, mph, pairs, p, cw >> 16))
        elif kind == KIND_F_NOTE:
            if n != 3:
                fail(f"F_Note of size {n} (want 3)", p, kind)
            o, ev, prm = _III.unpack_from(b, a)
            notes.append(Note(frame, o, ev, prm, p))
        elif kind == KIND_F_OBJ:
            if n != 13:
                fail(f"F_Obj of size {n} (want 13)", p, kind)
            w = struct.unpack_from("<13I", b, a)
            fobjs.append(FObj(frame, w[0], w, p))
        else:
            others.append(OtherRecord(frame, kind, struct.unpack_from(f"<{n}I", b, a), p))
        p = q
    if end is None:
        fail("no end Top (0xFFFFFFFF or 0xFFFFFFFE) before the end of the data", end_all, KIND_TOP)
    return Anime(obj, frames, words, end, tuple(tops), tuple(tracks), tuple(materials),
                 tuple(morphs), tuple(notes), tuple(fobjs), tuple(others), counts)


def _controllers(b, p, q, flags, channels, fail, rec, kind):
    out = []
    for shift, width in channels:
        ck = (flags >> shift) & 7
        if ck == 0:
            out.append(ABSENT3 if width == 3 else ABSENT1)
        elif ck == 1:
            e = p + 4 * width
            if e > q:
                fail(f"one-value controller (bit {shift}) runs past the record", rec, kind)
            out.append(Controller(1, width, struct.unpack_from(f"<{width}I", b, p)))
            p = e
        elif ck == 2:
            if p + 4 > q:
                fail(f"keyed controller (bit {shift}) has no key count inside the record", rec, kind)
            n = _I.unpack_from(b, p)[0]
            if n == 0:
                fail(f"keyed controller (bit {shift}) with 0 keys", rec, kind)
            e = p + 4 + n * (4 + 4 * width)
            if e > q:
                fail(f"keyed controller (bit {shift}) of {n} keys runs past the record", rec, kind)
            keys = tuple((k[0], k[1:]) for k in struct.iter_unpack(f"<{1 + width}I", b[p + 4:e]))
            out.append(Controller(2, width, (), keys))
            p = e
        else:
            fail(f"controller kind {ck} (bits {shift}-{shift + 2} of flags 0x{flags:X}) "
                 f"is not 0, 1 or 2", rec, kind)
    return out, p


# ----------------------------------------------------------------------------------------- build

class Bits(int):
    """A raw u32 pattern passed to one()/keyed()/fobj() unchanged (a plain number becomes f32)."""


def f32(x) -> int:
    """u32 bits of x: Bits and the like stay raw, other numbers are rounded to f32."""
    if isinstance(x, Bits):
        return int(x) & 0xFFFFFFFF
    return struct.unpack("<I", struct.pack("<f", x))[0]


def one(*values) -> Controller:
    """A kind-1 controller of len(values) floats (f32 of each number, Bits kept raw)."""
    if len(values) == 1 and isinstance(values[0], (tuple, list)):
        values = tuple(values[0])
    return Controller(1, len(values), tuple(f32(v) for v in values))


def keyed(*keys) -> Controller:
    """A kind-2 controller: each key is (frame, v0[, v1, v2]) or (frame, (v0, v1, v2))."""
    out = []
    for k in keys:
        frame, rest = k[0], k[1:]
        if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
            rest = tuple(rest[0])
        out.append((int(frame) & 0xFFFFFFFF, tuple(f32(v) for v in rest)))
    width = len(out[0][1]) if out else 1
    return Controller(2, width, (), tuple(out))


def _chan(c, width):
    if c is None:
        return ABSENT3 if width == 3 else ABSENT1
    if isinstance(c, Controller):
        return c
    if isinstance(c, (int, float)):
        return one(c)
    return one(*c)


def obj_track(object, pos=None, rot=None, scale=None, alpha=None, *, target=None, flags=0,
              frame=0) -> Track:
    """A 0x0102 record; each channel is None (absent), a Controller, or numbers (one value)."""
    chans = [_chan(pos, 3), _chan(rot, 3), _chan(scale, 3), _chan(alpha, 1)]
    return Track(0, object, object if target is None else target,
                 _flags(flags, chans, OBJECT_CHANNELS), *chans, frame, 0)


def material_track(material, u=None, v=None, *, flags=0, frame=0) -> MaterialTrack:
    """A 0x0202 record; U and V are None (absent), a Controller, or a number (one value)."""
    chans = [_chan(u, 1), _chan(v, 1)]
    return MaterialTrack(0, material, _flags(flags, chans, MATERIAL_CHANNELS), *chans, frame, 0)


def morph(frame, morpher, pairs, pad=0) -> MorphRecord:
    """A 0x1901 record; pairs are (target model, weight) with weight a number or Bits."""
    return MorphRecord(frame, morpher, tuple((t, f32(w)) for t, w in pairs), 0, pad)


def note(frame, event, param, object) -> Note:
    return Note(frame, object, event, param, 0)


def fobj(frame, object, pos=(0, 0, 0), rot=(0, 0, 0), scale=(1, 1, 1), alpha=1.0, flags=0,
         unused=0) -> FObj:
    """A 0x0101 record from numbers (f32) or Bits."""
    w = (object, unused, *(f32(v) for v in pos), *(f32(v) for v in rot),
         *(f32(v) for v in scale), f32(alpha), flags)
    return FObj(frame, object, w, 0)


def other(frame, kind, words=()) -> OtherRecord:
    return OtherRecord(frame, kind, tuple(words), 0)


def _flags(flags, chans, channels):
    mask = 0
    val = 0
    for (shift, _), c in zip(channels, chans):
        mask |= 7 << shift
        val |= (c.kind & 7) << shift
    return (flags & ~mask & 0xFFFFFFFF) | val


def _ctrl_words(c: Controller, out: list):
    if c.kind == 1:
        out.extend(c.value)
    elif c.kind == 2:
        out.append(len(c.keys))
        for frame, vals in c.keys:
            out.append(frame)
            out.extend(vals)


def _payload(kind, rec):
    """(kind, payload words) of one typed record."""
    if kind == KIND_TOP:
        return [rec]
    if kind == KIND_OBJECT:
        w = [rec.object, rec.flags]
        for c in (rec.pos, rec.rot, rec.scale, rec.alpha):
            _ctrl_words(c, w)
        return w
    if kind == KIND_MATERIAL:
        w = [rec.material, rec.flags]
        _ctrl_words(rec.u, w)
        _ctrl_words(rec.v, w)
        return w
    if kind == KIND_F_MORPHER:
        w = [rec.morpher, ((rec.pad & 0xFFFF) << 16) | len(rec.pairs)]
        for t, wt in rec.pairs:
            w += [t, wt]
        return w
    if kind == KIND_F_NOTE:
        return [rec.object, rec.event, rec.param]
    if kind == KIND_F_OBJ:
        return list(rec.words)
    return list(rec.words)


# canonical order of records inside one frame (formats.md §4.2)
_CONTROLLER_ORDER = 0
_FRAME_ORDER = {KIND_F_MORPHER: 1, KIND_F_NOTE: 2, KIND_F_OBJ: 3, KIND_F_AMBIENT: 4, KIND_F_CAMERA: 5}


def build_anime(anime: Optional[Anime] = None, *, object=None, frames=None, end=None, loops=None,
                tracks=(), materials=(), morphs=(), notes=(), fobjs=(), others=(), tops=None,
                order=None) -> bytes:
    """Write an Anime chunk: the exact inverse of parse_anime.

    Given a parsed Anime, records are written in their file order (by offset), so
    build_anime(parse_anime(b)) == b for every well-formed chunk. Given keyword fields (or an
    Anime whose record offsets are not all distinct and non-zero), records are written in the
    disc's canonical order: Top 0, the controller records (0x0102, 0x0202, lights), frame 0's
    other records; then for each frame its Top and its 0x1901, 0x0108, 0x0101, 0x0601, 0x0502 and
    other records; then the end Top. `tops` lists the Top frames to write (default 0 .. N-1);
    a record whose frame has no Top is a ValueError. W and the chunk size are computed.
    `order="file"` or `order="canonical"` forces one of the two.
    """
    if anime is not None:
        object = anime.object if object is None else object
        frames = anime.frames if frames is None else frames
        end = anime.end if end is None else end
        tracks = anime.tracks or tracks
        materials = anime.materials or materials
        morphs = anime.morphs or morphs
        notes = anime.notes or notes
        fobjs = anime.fobjs or fobjs
        others = anime.others or others
        if tops is None:
            tops = [f for f, _ in anime.tops if f < 0xFFFFFF00]
    if object is None or frames is None:
        raise ValueError("build_anime needs object= and frames= (or an Anime)")
    if end is None:
        end = END_LOOP if loops else END_PLAY_ONCE
    if tops is None:
        tops = list(range(frames))

    items = ([(KIND_OBJECT, r) for r in tracks] + [(KIND_MATERIAL, r) for r in materials]
             + [(KIND_F_MORPHER, r) for r in morphs] + [(KIND_F_NOTE, r) for r in notes]
             + [(KIND_F_OBJ, r) for r in fobjs] + [(r.kind, r) for r in others])
    if order is None and anime is not None:
        offs = [r.offset for _, r in items] + [o for _, o in anime.tops]
        order = "file" if all(o > 0 for o in offs) and len(set(offs)) == len(offs) else "canonical"
    seq = []   # (kind, record-or-top-value)
    if order == "file":
        if anime is None:
            raise ValueError("order='file' needs a parsed Anime")
        alls = [(o, KIND_TOP, f) for f, o in anime.tops] + [(r.offset, k, r) for k, r in items]
        alls.sort(key=lambda x: x[0])
        seq = [(k, r) for _, k, r in alls]
    else:
        groups = {}
        for k, r in items:
            rank = _FRAME_ORDER.get(k, 6) if k not in (KIND_OBJECT, KIND_MATERIAL) + LIGHT_KINDS \
                else _CONTROLLER_ORDER
            groups.setdefault(r.frame, []).append((rank, k, r))
        missing = set(groups) - set(tops)
        if missing:
            raise ValueError(f"records at frames {sorted(missing)} have no Top")
        for f in tops:
            seq.append((KIND_TOP, f))
            g = groups.pop(f, [])
            g.sort(key=lambda x: x[0])   # stable: keeps the given order within a kind
            seq.extend((k, r) for _, k, r in g)
        seq.append((KIND_TOP, end))
    body = []
    for k, r in seq:
        w = _payload(k, r)
        body.append((TAG << 16) | k)
        body.append(len(w))
        body.extend(w)
    words = len(body)
    head = [(TAG << 16) | KIND_ANIME, 3 + words, object, frames, words]
    return struct.pack(f"<{5 + words}I", *[x & 0xFFFFFFFF for x in head + body])
