"""Playback (animation-semantics.md §8, §10): _AnimateForward's time rule and the notes a step hands on."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

M32 = 0xFFFFFFFF


def last_u32(frames: int) -> int:
    """§8.1 step 2: last = (N − 1)·256 with u32 wrap (0xFFFFFF00 when N = 0, §8.2)."""
    return ((frames - 1) * 256) & M32


@dataclass(frozen=True)
class Forward:
    """What one _AnimateForward(step) does (§8.1).

    time     the stored time afterwards (frameNow·256 + frameCnt; 0 after a loop reset)
    pose_at  the time the works are evaluated at, or None when eff = 0 (nothing evaluated)
    ended    the return value (True = 1)
    read     (old frame, new frame) when the frame changed and DecodeFrameChunk ran, else None
    looped   True when a looping animation reset to 0 on this step
    eff      the effective step the works were advanced by
    """
    time: int
    pose_at: Optional[int]
    ended: bool
    read: Optional[Tuple[int, int]]
    looped: bool
    eff: int

    @property
    def ret(self) -> int:
        return 1 if self.ended else 0


def forward(time: int, step: int, frames: int, loops: bool) -> Forward:
    """§8.1 _AnimateForward from stored time `time` by `step` ticks (both u32)."""
    time &= M32
    step &= M32
    last = last_u32(frames)
    new = (time + step) & M32
    eff = step
    ended = False
    if new > last:
        eff = (step - (new - last)) & M32
        new = last
        ended = True
    pose_at = new if eff != 0 else None
    read = None
    looped = False
    if (new >> 8) != (time >> 8):
        read = (time >> 8, new >> 8)
        ended = False
        # DECISION: the frame test is unsigned like the rest of the time arithmetic; with N = 0,
        # N − 1 wraps to 0xFFFFFFFF and is never reached (no disc file has N = 0, §8.2).
        if (new >> 8) >= ((frames - 1) & M32):
            if loops:
                new = 0
                looped = True
            else:
                ended = True
    return Forward(time=new, pose_at=pose_at, ended=ended, read=read, looped=looped, eff=eff)


@dataclass(frozen=True)
class PassedNote:
    """A note as DecodeF_Note builds it (§10): the record's fields plus the ccAnmNote time field."""
    frame: int
    object: int
    event: int
    param: int
    time: int
    record: object = None


def passed_notes(notes: Sequence, time: int, step: int, frames: int) -> List[PassedNote]:
    """§10.4 reference rule: the notes of frames old+1 … new in delivery (reversed file) order."""
    time &= M32
    last = last_u32(frames)
    new = min((time + step) & M32, last)
    old = time >> 8
    nf = new >> 8
    if nf <= old:
        return []
    out = []
    for n in reversed(notes):
        if old < n.frame <= nf:
            out.append(PassedNote(frame=n.frame, object=n.object, event=n.event, param=n.param,
                                  time=old if n.frame == old + 1 else n.frame, record=n))
    return out
