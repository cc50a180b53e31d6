"""Edge chunks beyond the disc: small Anime chunks, built by code, at every wrap and saturation
boundary the spec documents, which the disc (and so the synthetic archive) never reaches.

  texture-wrap      U and V whose U*4096 leaves s16 (animation-semantics.md §6: the s16 wrap),
                    and past the conversion's saturation (ee-float f_to_int), one-value and keyed
  rotation-wrap     rotation keys past +-180 degrees, at the quantisation wrap (TO_S16 * 180 =
                    32768 -> -32768) and past the f_to_int saturation (§3.1); one-value
                    rotations beyond +-180 (the sine defect, §3.3, §3.7)
  back-in-time      a key back in time (and one back to frame 0) on every channel kind: position,
                    rotation, scale, transparency, texture U and V (§2.4, §3.6)
  zero-exponent     one-value positions of zero-exponent words (§2.5, §4 step 3: raw in the
                    scratch area, +0 in the matrix), zero-exponent keys, and F_Obj positions of
                    zero-exponent, -0 and +0 words (the zero-position rule of §11)
  direct-light      direct lights alone (no object record; formats.md §4.7, docs/lights.md): every
                    channel keyed with keys back in time, back to frame 0, sharing a frame, late
                    and past the end, and a radius 2 whose square overflows; one-value
                    zero-exponent and -0 words with a radius 2 whose square underflows; a light
                    with every channel absent
  morph-rescale     Modify cases whose target rescale leaves s16 or saturates (§9.2 step 1); no
                    Anime chunk, the blends themselves (morph_rescale_cases)

edge_chunk(name) -> EdgeChunk (id, data, names, ext); NAMES lists the Anime ones. Every value is
fixed here: nothing is drawn, nothing is stored as a binary.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Dict

from ..anime import Bits, _ctrl_words, build_anime, fobj, keyed, material_track, obj_track, one, other
from ..names import SYNTHETIC, is_synthetic  # noqa: F401 - chunk ids: every chunk built by code

PREFIX = SYNTHETIC + "edge/"
NAMES = ("texture-wrap", "rotation-wrap", "back-in-time", "zero-exponent", "direct-light")
MORPH_NAME = "morph-rescale"


@dataclass
class EdgeChunk:
    """One edge chunk: its bytes from the 0x0700 header, its object names, no ExtObj table."""
    name: str
    data: bytes
    names: Dict[int, str]
    ext: Dict[int, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return PREFIX + self.name


def _names(stem, objects, materials=0, extra=()):
    out = {0: f"ANM_edge_{stem}"}
    for i in range(objects):
        out[1 + i] = f"OBJ_edge_{stem}{i}"
    for i in range(materials):
        out[1 + objects + i] = f"MAT_edge_{stem}{i}"
    for i, nm in enumerate(extra):
        out[1 + objects + materials + i] = nm
    return out


# U, V pairs around every boundary of s16(f_to_int(U * 4096)): 8.0 -> 32768 wraps to -32768,
# -8.0 -> -32768 fits, one tick either side, 16.0 -> 65536 wraps to 0, and values whose product
# f_to_int saturates (0x7FFFFFFF -> -1, 0x80000000 -> 0), up to the largest finite words.
TEXTURE_PAIRS = ((8.0, -8.0), (7.99987793, -8.00024414), (8.00024414, -7.99987793),
                 (15.9997559, 16.0), (-16.0, -15.9997559), (524288.0, -524288.0), (1e6, -1e6),
                 (Bits(0x7F7FFFFF), Bits(0xFF7FFFFF)), (12.5, -12.5))


def texture_wrap() -> EdgeChunk:
    N = 33
    pairs = [material_track(1 + k, u=one(u), v=one(v)) for k, (u, v) in enumerate(TEXTURE_PAIRS)]
    m = len(pairs)
    sweeps = [material_track(1 + m, u=keyed((0, -20.0), (N - 1, 20.0)), v=keyed((0, 0.0), (N - 1, 1e6))),
              material_track(2 + m, u=keyed((0, 7.0), (8, 9.0), (16, -9.0), (N - 1, 17.0)),
                             v=keyed((0, -16.5), (N - 1, 16.5)))]
    data = build_anime(object=0, frames=N, loops=False, materials=pairs + sweeps)
    return EdgeChunk("texture-wrap", data, _names("tex", 0, m + 2))


def rotation_wrap() -> EdgeChunk:
    N = 29
    wrap = keyed((0, (0.0, 0.0, 0.0)), (4, (179.99, -179.99, 90.0)), (8, (180.0, -180.0, 180.0)),
                 (12, (190.0, -190.0, 360.0)), (16, (359.99, 540.0, -720.0)), (20, (-181.0, 181.0, 1e4)),
                 (24, (1e8, -1e8, 3.0e9)), (28, (0.0, 0.0, 0.0)))
    hop = keyed((0, (179.99, 0.0, -179.99)), (6, (180.0, 0.0, -180.0)), (6, (-180.0, 0.0, 180.0)),
                (14, (-179.99, 10.0, 179.99)), (N - 1, (200.0, -200.0, 0.0)))
    tracks = [obj_track(1, pos=(0.0, 1.0, 2.0), rot=wrap),
              obj_track(2, rot=hop, scale=(2.0, 0.5, 3.0)),
              obj_track(3, rot=(200.0, -200.0, 180.0)),
              obj_track(4, rot=(180.0, -180.0, 359.5)),
              obj_track(5, rot=(720.0, -540.0, 1e8))]
    data = build_anime(object=0, frames=N, loops=True, tracks=tracks)
    return EdgeChunk("rotation-wrap", data, _names("rot", 5))


def back_in_time() -> EdgeChunk:
    N = 24
    tracks = [
        obj_track(1, pos=keyed((0, (0.0, 1.0, 2.0)), (10, (5.0, -3.0, 7.0)), (4, (9.0, 9.0, -9.0)),
                               (20, (1.0, 1.0, 1.0)))),
        obj_track(2, rot=keyed((0, (0.0, 0.0, 0.0)), (12, (30.0, -45.0, 60.0)), (3, (-10.0, 20.0, 5.0)),
                               (18, (0.0, 90.0, 0.0)))),
        obj_track(3, scale=keyed((0, (1.0, 1.0, 1.0)), (8, (2.0, 3.0, 0.5)), (0, (0.25, 4.0, 1.5)))),
        obj_track(4, alpha=keyed((0, 0.0), (16, 1.0), (6, 0.5), (22, 0.75))),
        obj_track(5, pos=keyed((2, (1.0, 2.0, 3.0)), (15, (-1.0, -2.0, -3.0)), (0, (4.0, 4.0, 4.0))),
                  rot=keyed((0, (10.0, 0.0, 0.0)), (9, (10.0, 80.0, 0.0)), (0, (0.0, 0.0, 45.0))),
                  scale=keyed((0, (1.0, 1.0, 1.0)), (20, (1.5, 1.5, 1.5)), (5, (0.5, 0.5, 0.5))),
                  alpha=keyed((0, 1.0), (11, 0.2), (0, 0.9))),
    ]
    mats = [material_track(6, u=keyed((0, 0.0), (12, 2.5), (4, -1.25), (N - 1, 0.5)),
                           v=keyed((0, 1.0), (9, -3.0), (0, 6.0)))]
    data = build_anime(object=0, frames=N, loops=False, tracks=tracks, materials=mats)
    return EdgeChunk("back-in-time", data, _names("back", 5, 1))


ZERO_EXP = (0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000, 0x80000000)


def zero_exponent() -> EdgeChunk:
    N = 8
    z = [Bits(w) for w in ZERO_EXP]
    tracks = [
        obj_track(1, pos=one(z[0], z[1], z[2])),
        obj_track(2, pos=one(z[3], z[4], z[5]), rot=(10.0, 20.0, 30.0), scale=(2.0, 1.0, 0.5)),
        obj_track(3, pos=one(z[5], 1.0, z[0]), rot=(0.0, 45.0, 0.0), alpha=one(z[2])),
        obj_track(4, pos=keyed((0, (z[0], z[1], 0.0)), (3, (z[2], z[5], 1.0)), (N - 1, (z[4], z[3], z[0]))),
                  scale=one(z[0], 1.0, 1.0)),
    ]
    body = 5          # driven by F_Obj alone (corpus-stats.md §7)
    poses = [(z[0], z[1], z[2]), (Bits(0x80000000), Bits(0x80000000), Bits(0)), (0.0, 0.0, 0.0),
             (1.0, z[0], 0.0), (z[3], z[4], z[5]), (0.0, 0.0, 7.75), (Bits(0), Bits(0), Bits(0))]
    fobjs = [fobj(1 + i, body, pos=p, rot=(0.0, 15.0 * i, -15.0), alpha=0.5, flags=i & 1)
             for i, p in enumerate(poses[:N - 1])]
    data = build_anime(object=0, frames=N, loops=True, tracks=tracks, fobjs=fobjs)
    return EdgeChunk("zero-exponent", data, _names("zero", 5))


def _light(obj, channels):
    """A 0x0605 record: object, flags, then the present channels in field order (docs/lights.md)."""
    from ..lights import DIRECT_FIELDS
    flags, words = 0, []
    for (_, shift, _), c in zip(DIRECT_FIELDS, channels):
        if c is not None:
            flags |= c.kind << shift
            _ctrl_words(c, words)
    return other(0, 0x0605, (obj, flags, *words))


def direct_light() -> EdgeChunk:
    N = 12
    z = [Bits(w) for w in ZERO_EXP]
    keyed_all = [keyed((0, (0.0, 1.0, 2.0)), (10, (500.0, -3.0, 7.0)), (4, (9.0, 9.0, -9.0)), (11, (1.0, 1.0, 1.0))),
                 keyed((0, (10.0, 0.0, 0.0)), (9, (190.0, 80.0, -720.0)), (0, (0.0, 0.0, 45.0))),
                 keyed((3, (1.0, 0.5, 0.0)), (9, (0.0, 1.0, 0.25))),
                 keyed((0, 0.2), (20, 1.5)),
                 keyed((0, 0.0), (5, 100.0), (5, 150.0), (11, 200.0)),
                 keyed((0, Bits(0x80000000)), (7, 2500.0)),
                 keyed((0, z[0]), (6, z[2]), (11, 600.0)),
                 keyed((0, 800.0), (8, 2e19), (11, -3e19))]
    raw = [one(z[0], z[1], Bits(0x80000000)), None, one(z[3], 1.0, z[4]), one(z[5]), None, None,
           one(498.0), one(z[2])]
    lights = [_light(1, keyed_all), _light(2, raw), _light(3, [None] * 8)]
    data = build_anime(object=0, frames=N, loops=False, others=lights)
    return EdgeChunk("direct-light", data, _names("lgt", 0, 0, ("LGT_edge_lgt0", "LGT_edge_lgt1", "LGT_edge_lgt2")))


BUILDERS = {"direct-light": direct_light, "texture-wrap": texture_wrap, "rotation-wrap": rotation_wrap, "back-in-time": back_in_time,
            "zero-exponent": zero_exponent}


def edge_chunk(name) -> EdgeChunk:
    """The edge chunk `name` (one of NAMES); an unknown name is a ValueError naming it."""
    try:
        return BUILDERS[name]()
    except KeyError:
        raise ValueError(f"unknown edge chunk {PREFIX + name!r} (known: {', '.join(NAMES)})") from None


def _f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def morph_rescale_cases():
    """(label, base s16 triples, base scale bits, [(target triples, scale bits, weight bits)]) of
    Modify blends whose rescale s16(f_to_int(ratio * c)) leaves s16: ratio 2 and 4 across
    +-32768, a negative ratio turning -32768 into 32768, and ratios large enough that f_to_int
    saturates (0x7FFFFFFF -> -1, 0x80000000 -> 0)."""
    one_, half = _f32(1.0), _f32(0.5)
    ramp = [(16383, -16384, 16384), (20000, -20000, 0), (-16385, 16385, 32767), (1, -1, -32768)]
    quarter = [(8191, 8192, -8192), (-8193, 10000, -10000), (0, 4096, -4097), (32767, -32768, 1)]
    flip = [(-32768, 32767, 0), (-1, 1, -32767), (100, -100, 32766), (-32768, -32768, -32768)]
    big = [(3000, -3000, 1), (-1, 0, 32767), (2147, -2148, 5), (-32768, 32767, 2)]
    return [
        ("ratio 2", ramp, one_, [(ramp[::-1], _f32(2.0), one_)]),
        ("ratio 4", quarter, _f32(0.25), [(quarter, one_, one_), (quarter[::-1], _f32(0.25), half)]),
        ("ratio -1", flip, one_, [(flip, _f32(-1.0), one_), (flip[::-1], _f32(-2.0), half)]),
        ("ratio 1e6", big, one_, [(big, _f32(1e6), half), (big[::-1], _f32(-1e6), half)]),
        ("ratio 65536.5", big, _f32(2.0), [(big[::-1], _f32(131073.0), one_)]),
    ]
