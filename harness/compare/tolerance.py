"""The playback 3x3 tolerance, element by element (tolerances.md §1).

Element (r, c) of the game's R·S passes when |game - reference| <= max(formula, ulp(reference)),
the formula being checks.md §3's (ROT_TOLERANCE + ROT_PER_KEY·keys)·max(1, |s|) and ulp(x) the
spacing of f32 at |x|. Everything is vectorised: the per-entry path passes one entry as arrays.
"""
import numpy as np

F32_FRACTION_BITS = 23


def f32_ulp(x):
    """The spacing of f32 at |x| (x a double or array of doubles): 2^(e - 24) where |x| = m·2^e,
    1/2 <= m < 1, so 2^-23 at 1.0 and 2^-12 at 2634. Computed from the double, never from a rounded
    float, so a value just below a power of two gets that binade's (the smaller) spacing."""
    _, e = np.frexp(np.abs(np.asarray(x, dtype=np.float64)))
    return np.ldexp(1.0, e - (F32_FRACTION_BITS + 1))


def element_bounds(formula, want):
    """The bound of every element: max(formula, one ulp of the reference element).

    formula: the checks.md §3 bound of each entry (shape S); want: the reference elements in
    double (shape S + (9,)). DECISION: one ulp of the element, not a few: the game's element is
    one float multiply R·s of two exact floats, whose exact product a double holds (24 + 24
    bits), so its only error is that multiply's rounding, under 1 ulp even truncating (tolerances.md
    §2). A game word 2 ulps off is therefore always more than 1 ulp from the exact value: caught."""
    want = np.asarray(want, dtype=np.float64)
    return np.maximum(np.asarray(formula, dtype=np.float64)[..., None], f32_ulp(want))


def deviations(got, want):
    """|got - want| per element (doubles); NaN never passes (it becomes inf)."""
    d = np.abs(np.asarray(got, dtype=np.float64) - want)
    d[np.isnan(d)] = np.inf
    return d


def worst(d, bound):
    """Per entry (the last axis is the 9 elements): (index of the element furthest over its own
    bound, by d / bound; the first among equals), its d, its bound, and whether every element passes.
    With one bound for all nine (the formula binding everywhere) that is the largest d, as before."""
    ratio = np.divide(d, bound, out=np.full_like(d, np.inf), where=bound > 0)
    w = np.argmax(ratio, axis=-1)
    dw = np.take_along_axis(d, w[..., None], axis=-1)[..., 0]
    bw = np.take_along_axis(bound, w[..., None], axis=-1)[..., 0]
    ok = (d <= bound).all(axis=-1)
    return w, dw, bw, ok
