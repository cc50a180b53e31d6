"""A pose: an object record's channels at one time, as raw words (animation-semantics.md §4)."""
from dataclasses import dataclass


@dataclass(slots=True, repr=False, eq=False)
class Pose:
    """An object record's channels at one time (animation-semantics.md §4 step 1).

    pos, scale: 3 raw words; alpha: 1 raw word. rot: the 9 scratch-order words (interfaces.md §3)
    for a single-value or absent rotation, None for a keyed one. rot16: the 16-word EE matrix when
    exact. rot_matrix: the float64 3x3 in math rows, always. passed: passed(T) of §3.6 (0 unless
    keyed). time: the evaluated time, min(T, last). rot_kind: the rotation controller's kind.
    """
    time: int
    pos: tuple
    scale: tuple
    alpha: int
    rot: object
    rot16: object
    rot_keyed: bool
    rot_matrix: object
    passed: int
    rot_kind: int

    def __repr__(self):
        return (f"Pose(time={self.time}, pos={[hex(x) for x in self.pos]}, "
                f"scale={[hex(x) for x in self.scale]}, alpha={self.alpha:#x}, "
                f"rot={'keyed' if self.rot_keyed else [hex(x) for x in self.rot]}, passed={self.passed})")
