"""ccMorpher::Modify's integer blend (animation-semantics.md §9.2): rescale, weight lanes, blend."""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from .eefloat import ops as float_ops

F4096 = 0x45800000
M32 = 0xFFFFFFFF


def s16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def weight_lanes(w: int, o) -> Tuple[int, int, int]:
    """§9.2 step 2: the three s16 lanes of a weight (w × F4096, w is fs), with the sign fill."""
    x = o.f_to_int(o.f_mul(w, F4096))
    v = x | (0xFFFFFFFF00000000 if w & 0x80000000 else 0)
    t = (v | (v << 16) | (v << 32)) & 0xFFFFFFFFFFFFFFFF
    return s16(t), s16(t >> 16), s16(t >> 32)


def rescale(positions: Sequence[Sequence[int]], target_scale: int, base_scale: int, o):
    """§9.2 step 1: a target at another vertexScale, s16(f_to_int(ratio × f_from_int(c)))."""
    if o.f_cmp(target_scale, base_scale) == 0:
        return [tuple(s16(c) for c in p) for p in positions]
    ratio = o.f_div(target_scale, base_scale)
    f_mul, f_from_int, f_to_int = o.f_mul, o.f_from_int, o.f_to_int
    memo = {}

    def one(c):
        c = s16(c)
        r = memo.get(c)
        if r is None:
            r = memo[c] = s16(f_to_int(f_mul(ratio, f_from_int(c & M32))))   # fs = ratio
        return r

    return [tuple(one(c) for c in p) for p in positions]


def morph(base: Sequence[Sequence[int]], base_scale_bits: int, targets, float_model: str = "hw"
          ) -> List[Tuple[int, int, int]]:
    """§9.2: blend the base s16 triples with targets [(positions, scale bits, weight bits), ...]."""
    o = float_ops(float_model)
    n = len(base)
    b = np.array([[s16(c) for c in p] for p in base], dtype=np.int64).reshape(n, 3)
    acc = np.zeros((n, 3), dtype=np.int64)
    for i, (positions, scale, weight) in enumerate(targets):
        # DECISION: a target shorter than the base is undefined in the game (§9.2); refuse it.
        if len(positions) < n:
            raise ValueError(f"morph target {i} has {len(positions)} vertices, fewer than the "
                             f"base's {n} (animation-semantics.md §9.2 leaves this undefined)")
        t = np.array(rescale(positions[:n], scale, base_scale_bits, o), dtype=np.int64).reshape(n, 3)
        lanes = np.array(weight_lanes(weight, o), dtype=np.int64)
        diff = ((t - b + 0x8000) & 0xFFFF) - 0x8000               # psubh: the difference wraps
        acc = acc + diff * lanes                                  # pmaddh: s32 products
        acc = ((acc + 0x80000000) & M32) - 0x80000000             # the sum wraps as s32
    shifted = acc >> 12                                           # psraw: arithmetic
    shifted = ((shifted + 0x8000) & 0xFFFF) - 0x8000              # the pack keeps 16 bits
    out = np.clip(shifted + b, -32768, 32767)                     # paddsh: saturating
    return [tuple(int(c) for c in row) for row in out]
