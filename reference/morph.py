"""ccMorpher::Modify's integer blend (animation-semantics.md §9.2): rescale, weight lanes, blend.

The blend runs over arrays (one row per vertex); the float steps of the rescale (f_from_int,
f_mul, f_to_int) run once per distinct coordinate, like the game's result for equal inputs.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from .eefloat import ops as float_ops

F4096 = 0x45800000
M32 = 0xFFFFFFFF


def s16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def s16_array(x) -> np.ndarray:
    """s16 of every element (an int64 array of the same shape)."""
    a = np.asarray(x, dtype=np.int64) & 0xFFFF
    return a - ((a & 0x8000) << 1)


def weight_lanes(w: int, o) -> Tuple[int, int, int]:
    """§9.2 step 2: the three s16 lanes of a weight (w × F4096, w is fs), with the sign fill."""
    x = o.f_to_int(o.f_mul(w, F4096))
    v = x | (0xFFFFFFFF00000000 if w & 0x80000000 else 0)
    t = (v | (v << 16) | (v << 32)) & 0xFFFFFFFFFFFFFFFF
    return s16(t), s16(t >> 16), s16(t >> 32)


def rescale_array(positions, target_scale: int, base_scale: int, o) -> np.ndarray:
    """§9.2 step 1 over an (n, 3) array: a target at another vertexScale,
    s16(f_to_int(ratio × f_from_int(c))), each distinct coordinate computed once."""
    c = s16_array(positions)
    if o.f_cmp(target_scale, base_scale) == 0:
        return c
    ratio = o.f_div(target_scale, base_scale)
    f_mul, f_from_int, f_to_int = o.f_mul, o.f_from_int, o.f_to_int
    values, where = np.unique(c, return_inverse=True)
    scaled = np.array([f_to_int(f_mul(ratio, f_from_int(v & M32))) for v in values.tolist()],   # fs = ratio
                      dtype=np.int64)
    return s16_array(scaled)[where].reshape(c.shape)


def rescale(positions: Sequence[Sequence[int]], target_scale: int, base_scale: int, o):
    """§9.2 step 1 as triples (rescale_array of the positions)."""
    a = rescale_array(np.asarray(positions, dtype=np.int64).reshape(-1, 3), target_scale, base_scale, o)
    return list(map(tuple, a.tolist()))


def morph(base: Sequence[Sequence[int]], base_scale_bits: int, targets, float_model: str = "hw"
          ) -> List[Tuple[int, int, int]]:
    """§9.2: blend the base s16 triples with targets [(positions, scale bits, weight bits), ...]."""
    o = float_ops(float_model)
    n = len(base)
    b = s16_array(np.asarray(base, dtype=np.int64).reshape(n, 3))
    acc = np.zeros((n, 3), dtype=np.int64)
    for i, (positions, scale, weight) in enumerate(targets):
        # DECISION: a target shorter than the base is undefined in the game (§9.2); refuse it.
        if len(positions) < n:
            raise ValueError(f"morph target {i} has {len(positions)} vertices, fewer than the "
                             f"base's {n} (animation-semantics.md §9.2 leaves this undefined)")
        t = rescale_array(np.asarray(positions[:n], dtype=np.int64).reshape(n, 3), scale, base_scale_bits, o)
        lanes = np.array(weight_lanes(weight, o), dtype=np.int64)
        diff = ((t - b + 0x8000) & 0xFFFF) - 0x8000               # psubh: the difference wraps
        acc = acc + diff * lanes                                  # pmaddh: s32 products
        acc = ((acc + 0x80000000) & M32) - 0x80000000             # the sum wraps as s32
    shifted = acc >> 12                                           # psraw: arithmetic
    shifted = ((shifted + 0x8000) & 0xFFFF) - 0x8000              # the pack keeps 16 bits
    out = np.clip(shifted + b, -32768, 32767)                     # paddsh: saturating
    return list(map(tuple, out.tolist()))
