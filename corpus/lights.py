"""The direct light controller record 0x0605 (formats.md §4.7), decoded from the chunk's raw
light records, and the light kinds SetAnmCtrlWork does not evaluate (docs/lights.md).

direct_lights(anime, where=None) -> tuple of DirectLight, file order

The parser keeps every light record raw (corpus.records.OtherRecord); this module reads the
direct light's channels from it. DECISION: the payload is u32 object, u32 flags, then the present
channels packed in flag-field order, as the 0x0102 record (the spec's [INF]); a record that does
not decode so is a malformed chunk (CorpusError naming the offset), the mismatch that would settle
the inferred rule "direct light fields" on a real disc.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Tuple

from ground.vocabulary import DISTANT_LIGHTS, OMNI_LIGHTS, SPOT_LIGHTS

from .anime import _controllers
from .errors import CorpusError
from .records import Controller

KIND_DIRECT_LIGHT = 0x0605
# (name, shift of the 3-bit field, width): formats.md §4.7; the widths of colour and of the
# scalar channels are the spec's [INF]
DIRECT_FIELDS = (("position", 0, 3), ("rotation", 3, 3), ("colour", 6, 3), ("intensity", 9, 1),
                 ("beam_start", 12, 1), ("beam_end", 15, 1), ("radius1", 18, 1), ("radius2", 21, 1))
# the light record kinds SetAnmCtrlWork does not evaluate, by the name a ledger gives them
NOT_EVALUATED = {0x0603: DISTANT_LIGHTS, 0x0607: SPOT_LIGHTS, 0x0609: OMNI_LIGHTS}


@dataclass(frozen=True)
class DirectLight:
    """A 0x0605 direct light controller record: eight channels in flag-field order."""
    index: int            # position among the chunk's 0x0605 records, file order
    object: int           # the light object (LGT_)
    flags: int
    position: Controller
    rotation: Controller  # degrees, as evaluated (docs/lights.md)
    colour: Controller
    intensity: Controller
    beam_start: Controller
    beam_end: Controller
    radius1: Controller
    radius2: Controller
    frame: int
    offset: int

    @property
    def channels(self) -> Tuple[Controller, ...]:
        return tuple(getattr(self, name) for name, _, _ in DIRECT_FIELDS)


def direct_lights(anime, where=None) -> Tuple[DirectLight, ...]:
    """The chunk's 0x0605 records, decoded (CorpusError naming `where` and the record's offset)."""
    out = []
    for rec in anime.others:
        if rec.kind != KIND_DIRECT_LIGHT:
            continue
        out.append(_decode(rec, len(out), where))
    return tuple(out)


def _decode(rec, index, where) -> DirectLight:
    def fail(msg, off=None, kind=KIND_DIRECT_LIGHT):
        raise CorpusError(msg, member=where, offset=off, kind=kind)

    n = len(rec.words)
    if n < 2:
        fail(f"direct light record of size {n} (want >= 2: object, flags)", rec.offset)
    b = struct.pack(f"<{n}I", *rec.words)
    chans, r = _controllers(b, 8, 4 * n, rec.words[1], tuple((s, w) for _, s, w in DIRECT_FIELDS),
                            fail, rec.offset, KIND_DIRECT_LIGHT)
    if r != 4 * n:
        fail(f"direct light record has {(4 * n - r) // 4} words after its controllers", rec.offset)
    return DirectLight(index, rec.words[0], rec.words[1], *chans, rec.frame, rec.offset)


def not_evaluated(anime) -> dict:
    """{ledger name: count} of the chunk's light records SetAnmCtrlWork does not evaluate."""
    out = {}
    for rec in anime.others:
        name = NOT_EVALUATED.get(rec.kind)
        if name:
            out[name] = out.get(name, 0) + 1
    return out
