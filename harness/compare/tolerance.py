"""The 3x3 tolerance of checks.md §3, element by element (tolerances.md §1).

Every place that compares a 3x3 within a tolerance (the controller and playback checks, and a
model's answers against a truth file) takes its bound from `formula` and its verdict from
`compare`: the formula is written here once.

Element (r, c) of the game's R·S passes when |game - reference| <= max(formula, ulp), the formula
being checks.md §3's (ROT_TOLERANCE + ROT_PER_KEY·keys)·max(1, |s|) and ulp the spacing of f32 at
the element; where the rotation is not keyed, the two sides must also agree on the element's sign
and on whether it is zero (tolerances.md §1). Everything is vectorised: the per-entry path passes
one entry as arrays.
"""
import numpy as np

from ground.bounds import f32_ulp, keyed_bound

# the smallest normal f32: the EE flushes a product below it to zero (it has no denormals)
F32_MIN_NORMAL = 2.0 ** -126


def formula(keys, scale=None):
    """checks.md §3's bound of each entry: (ROT_TOLERANCE + ROT_PER_KEY·keys)·max(1, |s_x|, |s_y|,
    |s_z|). keys: keys passed (an int or an array); scale: the entries' scales as floats (shape of
    keys + (3,)), or None for the controller check's bound, which has no scale.

    The keys and the scale are always the game's side's (the chunk's records at the pose time),
    never taken from the answer being judged: a bound the judged side sets is no bound."""
    bound = keyed_bound(np.asarray(keys, dtype=np.float64))
    if scale is None:
        return bound
    return bound * np.maximum(1.0, np.abs(np.asarray(scale, dtype=np.float64)).max(axis=-1))


def rs_elements(rot, scale=None):
    """The reference's R·S elements in double, c-major (word 4c+r's order: R[r][c]·s_c at 3c + r):
    rot the rotations (shape S + (3, 3), R[r][c]), scale their scales as floats (S + (3,)), or
    None for a rotation alone (the controller check's scratch 3x3). Shape S + (9,)."""
    R = np.asarray(rot, dtype=np.float64)
    if scale is not None:
        R = R * np.asarray(scale, dtype=np.float64)[..., None, :]
    return R.swapaxes(-1, -2).reshape(R.shape[:-2] + (9,))


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


def sign_class(x):
    """-1, 0 or +1 per element: 0 for a zero or a magnitude below the smallest normal f32 (which
    the EE's multiply flushes to zero), else the sign."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.abs(x) < F32_MIN_NORMAL, 0, np.sign(x)).astype(np.int8)


def compare(got, want, keys, scale=None, keyed=True):
    """The 3x3 compare of tolerances.md §1: got, the game's nine elements, and want, the
    reference's (doubles, shape S + (9,)); keys and scale as `formula` takes them (shape S and
    S + (3,), or no scale for the controller check's 3x3, a rotation alone); keyed: whether each entry's rotation is keyed (a bool, or an array of shape S).

    Returns worst()'s (w, d, bound, ok). DECISION: where the rotation is not keyed (a single-value
    or absent rotation, compared within the bound only under the first-contact profile), the
    game's element is the one float multiply R·s of the reference's exact R and s (tolerances.md
    §2): it is zero exactly where R·s is (below the smallest normal too), and otherwise has R·s's
    sign. An element that is zero on one side only, or whose sign differs, is therefore wrong
    however small: its bound is 0. A keyed rotation's R is the game's own running product, which
    may leave an element near zero on either side of it, so the bound alone judges it."""
    want = np.asarray(want, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    d = deviations(got, want)
    f = formula(keys, scale)
    # DECISION: the ulp is the smaller of the two elements' (max(f, min(ulp)) = min of the two
    # bounds): where the expected side is the answer being judged, it can narrow its bound but never
    # widen it. A correct game's element lies in the exact product's binade or rounds up to the
    # next power of two, so its ulp is never the smaller: the in-process bound is unchanged.
    bound = np.minimum(element_bounds(f, want), element_bounds(f, got))
    plain = ~np.broadcast_to(np.asarray(keyed, dtype=bool), np.shape(want)[:-1])
    if plain.any():
        differ = sign_class(got) != sign_class(want)
        bound = np.where(plain[..., None] & differ, 0.0, bound)
    return worst(d, bound)


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
