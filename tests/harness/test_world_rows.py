"""The world check composes each distinct step once (harness/checks/world.py distinct_rows): the
steps that pose every object alike share one row of words and bounds, spread back to each."""
import numpy as np
import pytest

from harness.checks.world import distinct_rows


def test_equal_steps_share_a_row_and_every_step_gets_its_own_words_back():
    L = np.array([[1, 2], [5, 6], [1, 2], [1, 2], [5, 7]], dtype=np.uint32)
    tp = np.array([9, 9, 9, 8, 9], dtype=np.uint32)
    first, inv = distinct_rows([L, tp], 5)
    assert len(first) == 4                               # step 3 differs from step 0 in its localtp
    assert (L[first][inv] == L).all() and (tp[first][inv] == tp).all()
    assert inv[0] == inv[2] and len({inv[0], inv[1], inv[3], inv[4]}) == 4


def test_rows_of_one_hash_that_differ_are_told_apart_by_their_words():
    # the hash weighs lane k (words 2k, 2k + 1) by (2k + 1)·c: lanes (3, 0) and (0, 1) both hash to 3c
    M = np.array([[3, 0, 0, 0], [0, 0, 1, 0], [3, 0, 0, 0]], dtype=np.uint32)
    first, inv = distinct_rows([M], 3)
    assert len(first) == 2 and (M[first][inv] == M).all()


def test_no_posed_object_is_one_row_for_every_step():
    first, inv = distinct_rows([], 4)
    assert list(first) == [0] and list(inv) == [0, 0, 0, 0]


def within_tolerance_words(W, G, bound):
    """docs/tolerances.md "World matrices" word by word: |game − reference| ≤ max(bound, one ulp
    of the expected word), the w column exact; per call its first word outside, or None."""
    import math
    out = []
    n, m, _ = W.shape
    for q in range(m):
        found = None
        for j in range(n):
            for w in range(16):
                e, g = (float(np.asarray(x[j, q, w], dtype=np.uint32).view(np.float32)) for x in (W, G))
                ulp = abs(float(np.nextafter(np.float32(e), np.float32(np.inf))) - e)
                tol = 0.0 if w in (3, 7, 11, 15) else float(np.maximum(bound[j, q, w], ulp))
                if W[j, q, w] != G[j, q, w] and not abs(e - g) <= tol:
                    found = (j, w, abs(e - g), tol)
                    break
            if found:
                break
        out.append(found if found is None or not math.isnan(found[2]) else (found[0], found[1], "nan", found[3]))
    return out


def test_a_word_is_outside_when_beyond_both_its_bound_and_one_ulp_and_the_w_column_is_exact():
    from harness.checks.world import outside_bounds
    rng = np.random.default_rng(7)
    n, m = 6, 5
    W = rng.normal(size=(n, m, 16)).astype(np.float32).view(np.uint32)
    W[0, 0, :] = np.float32(0.0).view(np.uint32)                  # zeros: +0 against -0
    W[1, 1, 3] = np.float32(np.nan).view(np.uint32)
    G = (W.astype(np.int64) + rng.integers(-3, 4, size=W.shape)).astype(np.uint32)
    G[0, 0, :] = 0x80000000
    G[:, 4] = W[:, 4]                                             # a call drawn exactly
    G[:, 3] = W[:, 3] + np.uint32(1)                              # one ulp off (the w column exact)
    G[:, 3, [3, 7, 11, 15]] = W[:, 3, [3, 7, 11, 15]]
    ulp = np.abs(np.nextafter(W.view(np.float32), np.float32(np.inf)).astype(np.float64)
                 - W.view(np.float32).astype(np.float64))
    bound = ulp * rng.integers(0, 4, size=W.shape)               # 0 to 3 ulps
    got = outside_bounds(W, G, bound)
    want = within_tolerance_words(W, G, bound)
    assert [g if g is None or not np.isnan(g[2]) else (g[0], g[1], "nan", g[3]) for g in got] == want
    assert any(x is None for x in want) and any(x is not None for x in want)


def test_a_bound_carried_down_skips_only_products_of_zeros_with_finite_factors():
    """chain_bounds' |ΔP|·|L| + |P|·|ΔL| (world.carried) leaves out a product with an all-zero
    factor only where the other factor is finite: the words equal the two products summed,
    also where an infinite or NaN factor makes a zero product NaN."""
    from harness.checks.world import carried
    rng = np.random.default_rng(3)
    n = 5
    full = np.abs(rng.normal(size=(n, 4, 4)))
    zero = np.zeros((n, 4, 4))
    bad = full.copy()
    bad[1, 2, 3], bad[3, 0, 0] = np.inf, np.nan
    for dP in (zero, full):
        for L in (full, bad):
            for P in (full, bad):
                for dL, keyed in ((zero, False), (full, True), (zero, True)):
                    with np.errstate(invalid="ignore"):
                        want = dP @ L + P @ dL
                        got = carried(dP, L, P, dL, keyed)
                    assert np.array_equal(want.view(np.uint64), got.view(np.uint64))


def test_a_call_is_on_a_keyed_chain_when_any_object_up_its_parent_chain_is_keyed():
    """keyed_chains(table, keyed)(obj) answers as walking chain(table, obj) afresh does, over
    parent graphs with shared ancestors, cycles and objects hung on themselves, asked in any order
    (the answers it keeps from one chain serve the next)."""
    from types import SimpleNamespace
    from harness.checks.world import chain, keyed_chains
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(1, 12))
        objs = [("made", i) for i in range(n)]
        hung = {o: (("anm",) if rng.random() < 0.2 else objs[int(rng.integers(0, n))])
                for o in objs if rng.random() < 0.85}
        keyed = {o for o in objs if rng.random() < 0.25}
        table = SimpleNamespace(hung=hung)
        on = keyed_chains(table, keyed)
        for o in [objs[int(i)] for i in rng.permutation(n)] * 2:
            assert on(o) == any(x in keyed for x in chain(table, o))


def _random_chains(rng):
    """A random parent graph over up to 12 made objects (shared ancestors, cycles, objects hung
    on themselves, on the anm or on nothing) with words for chain_bounds: local and world words of
    any finite value (subnormals, extreme exponents) or, now and then, an infinity or a NaN."""
    from reference import objects as ref
    m, n = int(rng.integers(1, 13)), int(rng.integers(1, 40))
    ids = [("made", j) for j in range(m)]
    hung = {x: (ids[int(rng.integers(0, m))] if rng.random() < 0.7 else ref.ANM) for x in ids if rng.random() < 0.9}

    def words():
        w = rng.integers(0, 1 << 32, (n, 16), dtype=np.uint64).astype(np.uint32)
        w[(w & np.uint32(0x7F800000)) == 0x7F800000] ^= np.uint32(0x00800000)     # finite
        if rng.random() < 0.7:                              # near 1, as poses are
            w = (w & np.uint32(0x807FFFFF)) | (rng.integers(110, 135, (n, 16), dtype=np.uint64).astype(np.uint32) << 23)
        if rng.random() < 0.2:
            w[rng.random((n, 16)) < 0.3] = 0
        if rng.random() < 0.05:                             # an infinity or a NaN: numpy's case
            w[int(rng.integers(0, n)), int(rng.integers(0, 16))] = (0x7F800000, 0x7FC00001)[int(rng.integers(0, 2))]
        return w
    locals_ = {x: words() for x in ids if rng.random() < 0.85}
    worlds = {x: words() for x in ids if rng.random() < 0.6}
    delta = {x: float(rng.random()) * 10.0 ** int(rng.integers(-8, 0)) for x in ids if rng.random() < 0.5}
    objs = [x for x in ids if rng.random() < 0.7]
    return ref.Table([], [], [], {}, hung=hung), objs, worlds, locals_, delta, n


def test_chain_bounds_through_the_compiled_kernels_are_numpys_words_on_random_chains():
    """chain_bounds carried down by the compiled kernels (one call, on a host with FMA) gives the
    bound words numpy's object-by-object carrying gives, to the bit, on 3,000 random parent graphs;
    an infinite or NaN word leaves the carrying to numpy (compiled_chain_bounds answers None)."""
    from harness.checks.world import chain_bounds, compiled_chain_bounds
    from reference import kernels as K
    kern = K.native()
    assert kern is not None, "the compiled kernels did not build"
    if not kern.has_fma:
        pytest.skip("no fused multiply-add on this host: chain_bounds keeps numpy's carrying")
    rng = np.random.default_rng(39)
    compiled = 0
    for _ in range(3000):
        table, objs, worlds, locals_, delta, n = _random_chains(rng)
        with np.errstate(invalid="ignore", over="ignore"):
            want = chain_bounds(table, objs, worlds, locals_, delta, n)
        got = compiled_chain_bounds(table, objs, worlds, locals_, delta, n, kern)
        if got is None:
            continue
        compiled += 1
        assert list(got) == list(want)
        for x in want:
            assert np.array_equal(want[x].view(np.uint64), got[x].view(np.uint64)), x
    assert compiled > 1500


def test_chain_bounds_leave_an_infinite_word_to_numpy():
    """A local word that is no finite float (an EE number of exponent 255), under the anm or on
    a root, leaves the carrying to numpy: compiled_chain_bounds answers None."""
    from harness.checks.world import compiled_chain_bounds
    from reference import kernels as K
    from reference import objects as ref
    kern = K.native()
    assert kern is not None, "the compiled kernels did not build"
    if not kern.has_fma:
        pytest.skip("no fused multiply-add on this host: chain_bounds keeps numpy's carrying")
    x = ("made", 0)
    table = ref.Table([], [], [], {}, hung={x: ref.ANM})
    local = np.full((2, 16), 0x3F800000, dtype=np.uint32)
    assert compiled_chain_bounds(table, [x], {}, {x: local}, {x: 0.01}, 2, kern) is not None
    local[1, 5] = 0x7F800000
    assert compiled_chain_bounds(table, [x], {}, {x: local}, {x: 0.01}, 2, kern) is None
    root = ref.Table([], [], [], {}, hung={})                   # an object hung on nothing
    assert compiled_chain_bounds(root, [x], {}, {x: local}, {x: 0.01}, 2, kern) is None
