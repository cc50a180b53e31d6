"""Typed records of one Anime chunk (formats.md §4), keeping every value's raw bits.

This is the shared vocabulary of the corpus parser, the synthetic generator, the reference and the
harness. Floats are never decoded here: every float is its raw u32 pattern, so nothing is lost
(denormals, -0, exponent-255 values all survive). Offsets are byte offsets from the start of the
chunk (its 0x0700 header), so an error or a report can point at the exact bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Tuple

END_PLAY_ONCE = 0xFFFFFFFF
END_LOOP = 0xFFFFFFFE

KIND_TOP = 0xFF01
KIND_OBJECT = 0x0102
KIND_MATERIAL = 0x0202
KIND_F_MORPHER = 0x1901
KIND_F_NOTE = 0x0108
KIND_F_OBJ = 0x0101
KIND_F_AMBIENT = 0x0601
KIND_F_CAMERA = 0x0502
LIGHT_KINDS = (0x0603, 0x0605, 0x0607, 0x0609)
FRAME_LIGHT_KINDS = (0x0602, 0x0604, 0x0606, 0x0608)


@dataclass(frozen=True)
class Controller:
    """One channel: kind 0 absent, 1 one value, 2 keyed (formats.md §4.4)."""
    kind: int
    width: int                                        # floats per value (3 or 1)
    value: Tuple[int, ...] = ()                       # kind 1: the raw words
    keys: Tuple[Tuple[int, Tuple[int, ...]], ...] = ()  # kind 2: (frame u32, raw words)

    @property
    def absent(self) -> bool:
        return self.kind == 0


ABSENT3 = Controller(0, 3)
ABSENT1 = Controller(0, 1)


@dataclass(frozen=True)
class Track:
    """A 0x0102 object controller record; each record is its own instance (formats.md §4.5)."""
    index: int            # position among the chunk's 0x0102 records, file order
    object: int           # the record's own object index
    target: int           # the ExtObj-resolved target (== object when not an ExtObj)
    flags: int
    pos: Controller
    rot: Controller       # degrees
    scale: Controller
    alpha: Controller     # transparency, ccCoord::localtp
    frame: int            # the frame of the Top the record follows (0 on the disc)
    offset: int


@dataclass(frozen=True)
class MaterialTrack:
    """A 0x0202 material record: texture offsets U and V (formats.md §4.6)."""
    index: int            # position among the chunk's 0x0202 records
    material: int
    flags: int
    u: Controller
    v: Controller
    frame: int
    offset: int


@dataclass(frozen=True)
class MorphRecord:
    """A 0x1901 F_Morpher record (formats.md §4.8)."""
    frame: int
    morpher: int
    pairs: Tuple[Tuple[int, int], ...]   # (target model object, weight bits)
    offset: int
    pad: int = 0                         # the high 16 bits of the count word (padding), kept for round trips


@dataclass(frozen=True)
class Note:
    """A 0x0108 F_Note record; it belongs to the frame of the Top it follows."""
    frame: int
    object: int
    event: int
    param: int
    offset: int


@dataclass(frozen=True)
class FObj:
    """A 0x0101 F_Obj record: 13 raw words (formats.md §4.8)."""
    frame: int
    object: int
    words: Tuple[int, ...]               # all 13 payload words, raw

    offset: int

    @property
    def pos(self) -> Tuple[int, int, int]:
        return tuple(self.words[2:5])

    @property
    def rot(self) -> Tuple[int, int, int]:
        return tuple(self.words[5:8])

    @property
    def scale(self) -> Tuple[int, int, int]:
        return tuple(self.words[8:11])

    @property
    def alpha(self) -> int:
        return self.words[11]

    @property
    def flags(self) -> int:
        return self.words[12]


@dataclass(frozen=True)
class OtherRecord:
    """Any other sub-record (lights, cameras, ambient): kept raw, counted, never evaluated."""
    frame: int
    kind: int
    words: Tuple[int, ...]
    offset: int


@dataclass(frozen=True)
class Anime:
    """One parsed Anime chunk (formats.md §4.9)."""
    object: int                           # the ANM_ object index
    frames: int                           # N
    words: int                            # W
    end: int                              # END_PLAY_ONCE or END_LOOP (or another value >= 0xFFFFFF00)
    tops: Tuple[Tuple[int, int], ...]     # (frame, offset) of every Top, the end Top included
    tracks: Tuple[Track, ...]
    materials: Tuple[MaterialTrack, ...]
    morphs: Tuple[MorphRecord, ...]
    notes: Tuple[Note, ...]
    fobjs: Tuple[FObj, ...]
    others: Tuple[OtherRecord, ...]
    counts: Dict[int, int] = field(default_factory=dict)   # sub-record kind -> count, Tops included

    @property
    def loops(self) -> bool:
        return self.end == END_LOOP
