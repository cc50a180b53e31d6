"""The numbers of checks.md §3's bound on a keyed rotation's 3x3 and the float resolution it never
goes below (docs/tolerances.md §1): said once here for the harness, which applies the bound
(harness/compare/tolerance.py), and the report, which draws it (reports/summary.py, reports/svg.py).
"""
from __future__ import annotations

import numpy as np

ROT_TOLERANCE = 1e-5
ROT_PER_KEY = 1e-7
F32_FRACTION_BITS = 23


def keyed_bound(passed, base: float = ROT_TOLERANCE, per_key: float = ROT_PER_KEY):
    """checks.md §3: base + per_key·keys passed, for an int or a float64 array of keys passed."""
    return base + per_key * passed


def f32_ulp(x):
    """The spacing of f32 at |x| (x a double or array of doubles): 2^(e - 24) where |x| = m·2^e,
    1/2 <= m < 1, so 2^-23 at 1.0 and 2^-12 at 2634. Computed from the double, never from a rounded
    float, so a value just below a power of two gets that binade's (the smaller) spacing."""
    _, e = np.frexp(np.abs(np.asarray(x, dtype=np.float64)))
    return np.ldexp(1.0, e - (F32_FRACTION_BITS + 1))
