"""Float and vector controllers: compile keys into segments and evaluate them (animation-semantics.md §2).

A compiled controller keeps the game's segment list (dur_i, delta_i) and, for speed, the prefix
sums of the durations and the running accumulator after each passed segment. The walk of §2.4
passes segment i exactly when cum_(i+1) < T (durations are never negative and t only shrinks
by durations it exceeds), so the number of passed segments is a bisection over the prefix sums
and the accumulator at that point is the same chain of f_add the game performs.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import List, Sequence, Tuple

M32 = 0xFFFFFFFF
ONE = 0x3F800000


class FloatController:
    """A kind-2 float (w = 1) or vector (w = 3) controller, compiled per §2.2."""

    __slots__ = ("width", "base", "segments", "_cum", "_acc", "_ops", "_arrays")

    def __init__(self, keys: Sequence[Tuple[int, Sequence[int]]], width: int, frames: int, ops):
        if not keys:
            raise ValueError("a keyed controller needs at least one key")
        f_add, f_sub = ops.f_add, ops.f_sub
        self._ops = ops
        self._arrays = None
        self.width = width
        zeros = (0,) * width
        f0, v0 = keys[0]
        self.base = tuple(v0)
        t = (f0 * 256) & M32
        segs: List[Tuple[int, Tuple[int, ...]]] = []
        if t != 0:
            segs.append((t, zeros))                              # §2.2 step 2: hold to the first key
        prev = list(v0)
        for f, v in keys[1:]:
            dur = ((f * 256) - t) & M32                          # u32 wrap: a key back in time
            t = (t + dur) & M32
            delta = tuple(f_sub(v[k], prev[k]) for k in range(width))
            prev = [f_add(prev[k], delta[k]) for k in range(width)]   # the running sum
            segs.append((dur, delta))
        segs.append((((frames * 256) - t) & M32, zeros))         # §2.2 step 4: final hold
        self.segments = tuple(segs)
        # Prefix data for the walk of §2.4: only the first S-1 segments can be passed.
        cum, c = [], 0
        acc = [self.base]
        for dur, delta in segs[:-1]:
            c += dur
            cum.append(c)
            prev_acc = acc[-1]
            acc.append(tuple(f_add(prev_acc[k], delta[k]) for k in range(width)))
        self._cum = cum
        self._acc = acc

    @classmethod
    def compiled(cls, keys, width: int, frames: int, ops, kern, model: str) -> "FloatController":
        """The same controller, set up by the compiled kernels (kern.ctrl_compile mirrors __init__
        step for step; tests/reference checks every field bit for bit). It keeps the kernels'
        arrays (_arrays), which the batched evaluation takes as they are."""
        if not keys:
            raise ValueError("a keyed controller needs at least one key")
        dur, delta, cum, acc = kern.ctrl_compile(model, keys, width, frames)
        self = cls.__new__(cls)
        self._ops, self.width = ops, width
        self.base = tuple(keys[0][1])
        self.segments = tuple((d, tuple(dl)) for d, dl in zip(dur.tolist(), delta.tolist()))
        self._cum = cum.tolist()
        self._acc = [tuple(a) for a in acc.tolist()]
        self._arrays = (dur, delta.reshape(-1), cum, acc.reshape(-1))
        return self

    def passed(self, T: int) -> int:
        """How many segments the §2.4 walk passes at time T."""
        return bisect_left(self._cum, T)

    def evaluate(self, T: int) -> Tuple[int, ...]:
        """§2.4: the value bits at time T (the caller clamps T to last)."""
        i = bisect_left(self._cum, T)
        t = T - (self._cum[i - 1] if i else 0)
        dur, delta = self.segments[i]
        o = self._ops
        if dur != 0:
            frac = o.f_div(o.u2f(t), o.u2f(dur))
        else:
            frac = 0
        acc = self._acc[i]
        f_add, f_mul = o.f_add, o.f_mul
        return tuple(f_add(acc[k], f_mul(delta[k], frac)) for k in range(self.width))  # fs = delta


class ConstantController:
    """A kind-1 controller, or an absent one with its default: raw words, no arithmetic (§2.5)."""

    __slots__ = ("value",)

    def __init__(self, value: Sequence[int]):
        self.value = tuple(value)

    def passed(self, _T: int) -> int:
        return 0

    def evaluate(self, _T: int) -> Tuple[int, ...]:
        return self.value


def compile_controller(ctrl, default: Sequence[int], frames: int, ops, kern=None, model=None):
    """A corpus Controller (kind 0, 1 or 2) as an evaluator; absent gives `default`. With the
    compiled kernels (kern, model) a keyed one is set up by them (FloatController.compiled)."""
    if ctrl.kind == 0:
        return ConstantController(default)
    if ctrl.kind == 1:
        return ConstantController(ctrl.value)
    if ctrl.kind == 2 and kern is not None:
        return FloatController.compiled(ctrl.keys, ctrl.width, frames, ops, kern, model)
    if ctrl.kind == 2:
        return FloatController(ctrl.keys, ctrl.width, frames, ops)
    raise ValueError(f"controller kind {ctrl.kind} (only 0, 1 and 2 exist, formats.md §4.4)")
