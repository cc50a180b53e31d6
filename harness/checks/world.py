"""World check: every drawn object's world matrix and alpha as ccModel::Draw receives them after
ccAnm::Draw, at every playback step of the profile's speeds (anim-objects.md §3.6 level 2, §4.2).

The game plays the chunk on the table SetAnm built (works on the entries' objects, F_Obj records
on their entries) and draws after every step; the reference composes parent ⊗ local down the
parent chain in EE arithmetic (reference.objects.world_series) from its own local matrices and
localtp words. Bit-exact where every local matrix of the chain is exact in the reference; a
chain with a keyed rotation (a double-precision local, checks.md §3), and every chain under a
profile without exact local matrices (first contact), is compared within the bound of
docs/tolerances.md "World matrices", never below one ulp of the expected word.
"""
import numpy as np

from ground.fields import Field
from harness.checks import Check, QueryKind
from harness.checks import objects as objects_check
from harness.compare import tolerance
from harness.checks.playback import plan
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.driver.objects import Draws
from reference import objects as ref, serve

WORLD_KIND = "drawn entries"
# the w column (words 3, 7, 11, 15) and the alpha are exact under every profile
W_COLUMN = (3, 7, 11, 15)
ANM_MATRIX = objects_check.ANM_MATRIX      # the anm at (10, -5, 0.5): a non-trivial root


def applies(case):
    """A chunk with frames whose records pose an object (0x0102 or F_Obj): its drawn objects move."""
    anim = case.anim
    return anim.frames >= 1 and bool(anim.tracks or anim.fobjs)


def run(case):
    ctx, tally, prof = case.ctx, case.tally, case.prof
    anim = case.anim
    exact_local = getattr(prof, "exact_local", True)
    speeds = list(plan(anim, prof, case.rng, case.speed))
    if not speeds:
        return
    # the index and the table are built once (the objects check's, when it ran on the chunk);
    # every playback starts from the state SetAnm left, restored (under a profile's reload: built
    # afresh and required equal)
    ob, sc, want_index, want, got_index, got, kept = objects_check.built(case)
    if not objects_check.table_agrees(want_index, want, got_index, got):
        tally.fail(record(ctx, "world", "object table", "the reference's", "differs", floats=False,
                          context={"why": "SetAnm's table differs from the reference's: the objects "
                                          "check names how; the world matrices are not compared"}))
        return
    # the reference's side of every playback at once (its steps are rows of one batch)
    wants = expected_playbacks(anim, want_index, want, speeds, exact_local)
    played = objects_check.shared_playbacks(case)
    fresh = True                # the table as built() left it, no playback on it yet
    for k, (speed, n) in enumerate(speeds):
        tally.count(f"world playbacks at {speed}")
        if (speed, n) in played:
            got_forward, got_calls = played.pop((speed, n))
        else:
            if not fresh:
                ob.restore(kept)
                if case.game.reload:
                    ob = objects_check.build(case)[0]
                    ob.same_as(kept)
            fresh = False
            got_forward, got_calls = game_series(ob, speed, n)
        if not compare_series(ctx, tally, speed, wants[k], got_forward, got_calls):
            return
        if k == 0:
            for i in range(len(want_index)):
                mark(tally, WORLD_KIND, i)


def keyed_bounds(anim, table):
    """{identity: δ} of the objects a keyed-rotation record poses (checks.md §3's per-element bound)."""
    position = ref.positions(anim.anime)
    return {table.entries[position[t.record.index]].identity: float(tolerance.formula(len(t.record.rot.keys)))
            for t in anim.tracks if t.keyed_rotation}


def chain(table, ident):
    out, seen = [], set()
    while ident in table.hung and ident not in seen:
        out.append(ident)
        seen.add(ident)
        ident = table.hung[ident]
    return out


def keyed_chains(table, keyed):
    """on(obj): whether chain(table, obj) holds an object of `keyed`, each chain walked once: a
    chain that ends (no cycle) leaves the answer of every object on it for the chains that join it."""
    memo = {}

    def on(ident):
        path, seen, found = [], set(), False
        while ident in table.hung and ident not in seen:
            if ident in memo:
                found = memo[ident]
                break
            path.append(ident)
            seen.add(ident)
            ident = table.hung[ident]
        else:
            if ident in seen:                       # a cycle: the answer is this chain's alone
                return any(x in keyed for x in path)
        for x in reversed(path):
            found = found or x in keyed
            memo[x] = found
        return memo[path[0]] if path else found

    return on


def game_series(ob, speed, n):
    """The game's [time, ended] after every step and the ccModel::Draw calls of the Draw after it
    (a driver Draws: per step the identities, and every call's world and alpha words)."""
    ob.start_playback(speed)
    return ob.play(speed, n)


def expected(anim, index, table, speed, n, exact_local=True) -> dict:
    """The reference's side of one playback: forward, the order of ccModel::Draw's calls, their
    (n, 16) world words and (n,) alpha words, and per call its bound (None: exact)."""
    return expected_playbacks(anim, index, table, [(speed, n)], exact_local)[0]


def expected_playbacks(anim, index, table, playbacks, exact_local=True) -> list:
    """`expected` of each playback [(speed, n)], computed as one batch: the playbacks' steps are
    the rows of one series (every row is composed on its own, so a row's words are those of its
    playback alone), split back per playback."""
    runs, posed, L, A, keyed = ref.pose_blocks(anim, index, table, playbacks)
    N = sum(n for _, n in playbacks)
    # a step that poses every object as an earlier one did (a loop come round, a held pose, the
    # same time at another speed) draws the same words and bounds: each distinct row is composed
    # once and spread back to its steps
    first, inv = distinct_rows([L.reshape(N, -1), A] if posed else [], N)
    # each object's words at the distinct rows, one contiguous (U, 16) / (U,) array per object
    L = np.ascontiguousarray(L[first].transpose(1, 0, 2))
    A = np.ascontiguousarray(A[first].T)
    locals_ = {ident: L[c] for c, ident in enumerate(posed)}
    tps = {ident: A[c] for c, ident in enumerate(posed)}
    U = len(first)
    want = ref.world_series(table, locals_, tps, ANM_MATRIX, objects_check.ANM_TP, U, anim.float_model,
                            anim.kernels, anim.ops)
    worlds = {obj: W for obj, W, _ in want}
    delta = keyed_bounds(anim, table)
    on_keyed = keyed_chains(table, keyed)
    loose = [obj for obj, _, _ in want if not exact_local or on_keyed(obj)]
    found = chain_bounds(table, loose, worlds, locals_, delta, U, anim.kernels)
    order = [obj for obj, _, _ in want]
    k = len(order)
    # [distinct row, call, word]: the calls' words, alphas and bounds (0 for an exact call)
    Wu = np.stack([W for _, W, _ in want], axis=1) if k else np.zeros((U, 0, 16), dtype=np.uint32)
    Au = np.stack([A for _, _, A in want], axis=1) if k else np.zeros((U, 0), dtype=np.uint32)
    # (no call within a bound: no bounds, as compare_series then reads none)
    Bu = np.zeros((U, k, 16)) if found else None
    for q, obj in enumerate(order):
        if obj in found:
            Bu[:, q] = found[obj]
    out, base = [], 0
    for fws, (_, n) in zip(runs, playbacks):
        rows = inv[base:base + n]
        W, A, B = Wu[rows], Au[rows], Bu[rows] if found else None
        out.append({"forward": [[fw.time, int(bool(fw.ended))] for fw in fws], "pose_at": [fw.pose_at for fw in fws],
                    "order": order, "world": [W[:, q] for q in range(k)], "alpha": [A[:, q] for q in range(k)],
                    "bounds": [B[:, q] if obj in found else None for q, obj in enumerate(order)],
                    "stacked": (W, A, B)})
        base += n
    return out


def distinct_rows(arrays, n):
    """(first, inverse) over the n rows of `arrays` (uint32, n rows each) taken together: the
    position of one row of each distinct content, and for every row the index of its content in
    `first` (rows[first][inverse] == rows). No arrays: every row is the same one."""
    if not arrays:
        return np.zeros(min(n, 1), dtype=np.intp), np.zeros(n, dtype=np.intp)
    cols = [np.ascontiguousarray(a, dtype=np.uint32).reshape(n, -1) for a in arrays]
    # rows grouped by a 64-bit hash of their words (lane k weighed by (2k + 1)·c, wrapping
    # arithmetic; the lanes of an array of an even width are its words two by two, of an odd one
    # its words one by one, numbered on across the arrays), the grouping then checked word for
    # word; a collision (rows of one hash that differ) groups by the words themselves
    keys = np.zeros(n, dtype=np.uint64)
    lane = 0
    with np.errstate(over="ignore"):
        for c in cols:
            lanes = c.view(np.uint64) if c.shape[1] % 2 == 0 else c.astype(np.uint64)
            weights = (2 * np.arange(lane, lane + lanes.shape[1], dtype=np.uint64) + 1) \
                * np.uint64(0x9E3779B97F4A7C15)
            keys += (lanes * weights).sum(axis=1, dtype=np.uint64)
            lane += lanes.shape[1]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.reshape(n)
    back = first[inverse]
    if not all(np.array_equal(c[back], c) for c in cols):
        M = np.concatenate(cols + [np.zeros((n, 1), dtype=np.uint32)] * (sum(c.shape[1] for c in cols) % 2),
                           axis=1)
        _, first, inverse = np.unique(M.view(np.dtype((np.void, 4 * M.shape[1]))).reshape(n),
                                      return_index=True, return_inverse=True)
        inverse = inverse.reshape(n)
    return first, inverse


def compare_series(ctx, tally, speed, want, got_forward, got_calls) -> bool:
    """Compare one playback's Draws (the reference's `expected`, or a model's answer in its form)
    with the game's (a driver Draws, or per step [(identity, world, alpha)]): the frame counter,
    the calls' order, then per call the alpha exactly and the world words exactly or within the
    call's bound."""
    n = len(got_forward)
    for j, (w, g) in enumerate(zip(want["forward"], got_forward)):
        if list(w) != list(g):
            tally.fail(record(ctx, "world", "frame counter", list(w), list(g), step=j, floats=False,
                              context={"speed": speed}))
            return False
    order = [tuple(x) for x in want["order"]]
    tally.count("world steps", n)
    tally.count("world matrices", n * len(order))
    got = got_calls if isinstance(got_calls, Draws) else draws_of(got_calls)
    agreed = None               # a step's call list that is the very list found equal (Objects.play
    for j, calls in enumerate(got.identities):  # gives a Draw calling as the one before its list)
        if calls is agreed:
            continue
        if len(calls) != len(order) or [tuple(c) for c in calls] != order:
            tally.fail(record(ctx, "world", "ccModel::Draw calls", objects_check.plain(order),
                              objects_check.plain(list(calls)), step=j, floats=False,
                              context={"speed": speed}))
            return False
        agreed = calls
    k = len(order)
    if not k:
        return True
    at = want["pose_at"]
    # [step, call, word]: every step has the reference's k calls, in its order (checked above);
    # `expected` gives them so ("stacked": words, alphas, bounds), a model's answer per call
    W, A, B = want.get("stacked") or (
        np.stack([np.asarray(x, dtype=np.uint32).reshape(n, 16) for x in want["world"]], axis=1),
        np.stack([np.asarray(x, dtype=np.uint32).reshape(n) for x in want["alpha"]], axis=1), None)
    G, GA = got.world.reshape(n, k, 16), got.alpha.reshape(n, k)
    bad_alpha = (GA != A).any(axis=0).tolist()
    bad_world = (G != W).any(axis=2).any(axis=0).tolist()
    loose = [q for q in range(k) if want["bounds"][q] is not None]
    if loose:
        tally.count("world matrices within the bound", n * len(loose))
    if k > len(loose):
        tally.count("world matrices compared exactly", n * (k - len(loose)))
    # the calls within a bound whose words differ, all at once: their first word beyond the bound
    within = [q for q in loose if bad_world[q]]
    calls = slice(None) if within == list(range(k)) else within       # (every call: no copy)
    beyond = dict(zip(within, outside_bounds(W[:, calls], G[:, calls], B[:, calls] if B is not None else np.stack(
        [np.asarray(want["bounds"][q], dtype=np.float64).reshape(n, 16) for q in within], axis=1)))) \
        if within else {}
    for q, obj in enumerate(order):
        if bad_alpha[q]:
            j = int(np.nonzero(GA[:, q] != A[:, q])[0][0])
            fail(ctx, tally, obj, "alpha", int(A[j, q]), int(GA[j, q]), j, speed, at[j])
        if not bad_world[q]:
            continue
        if q in beyond:
            if beyond[q] is not None:
                j, w, dev, tol = beyond[q]
                fail(ctx, tally, obj, Field("world", (w,)), int(W[j, q, w]), int(G[j, q, w]), j, speed, at[j],
                     deviation=dev, tolerance=tol)
            continue
        j = int(np.nonzero((G[:, q] != W[:, q]).any(axis=1))[0][0])
        for w in np.nonzero(G[j, q] != W[j, q])[0][:4]:
            fail(ctx, tally, obj, Field("world", (int(w),)), int(W[j, q, w]), int(G[j, q, w]), j, speed, at[j])
    return True


def draws_of(steps) -> Draws:
    """A driver Draws from per-step [(identity, 16 world words, alpha)] (a model's or a truth
    file's answer)."""
    flat = [c for step in steps for c in step]
    return Draws([[c[0] for c in step] for step in steps],
                 np.array([c[1] for c in flat], dtype=np.uint32).reshape(len(flat), 16),
                 np.array([c[2] for c in flat], dtype=np.uint32).reshape(len(flat)))


def chain_bounds(table, objs, want_worlds, locals_, delta, n, kernels=None):
    """{identity: (n, 16) float64} for each of `objs`: how far the game's world words may lie from
    the reference's on a chain with a keyed rotation (docs/tolerances.md §5): the keyed local's
    3x3 bound of checks.md §3, δ = ROT_TOLERANCE + ROT_PER_KEY·keys per element times its column's
    scale, carried down the chain as |ΔW| = |ΔP|·|L| + |P|·|ΔL| + 8·2^-24·|P|·|L| (math
    orientation). One pass over the chains: an ancestor shared by several objects is done once.
    With the compiled kernels on a host with FMA, and every word finite, the kernels carry the
    bounds down in one call (compiled_chain_bounds); otherwise numpy does, object by object."""
    if kernels is not None and kernels.has_fma:
        found = compiled_chain_bounds(table, objs, want_worlds, locals_, delta, n, kernels)
        if found is not None:
            return found
    def m(words):                       # (n, 16) column-major words -> (n, 4, 4) math, float64
        return np.asarray(words, dtype=np.uint32).view(np.float32).astype(np.float64).reshape(n, 4, 4).swapaxes(1, 2)

    zero = np.zeros((n, 4, 4))          # ΔL of a local with no keyed rotation (only read)
    memo = {ref.ANM: (np.abs(m(np.tile(np.asarray(ANM_MATRIX, dtype=np.uint32), (n, 1)))), zero)}
    eye = np.broadcast_to(np.eye(4), (n, 4, 4))

    def of(x, seen=()):
        if x in memo:
            return memo[x]
        parent = table.hung.get(x)
        L = locals_.get(x)
        L = eye if L is None else np.abs(m(L))
        dL = zero
        if x in delta:
            dL = np.zeros((n, 4, 4))
            scale = np.sqrt((L[:, :3, :3] ** 2).sum(axis=1))            # (n, 3): column norms
            dL[:, :3, :3] = delta[x] * scale[:, None, :]
        if parent is None or parent in seen:
            memo[x] = (L, dL)
            return memo[x]
        P, dP = of(parent, seen + (x,))
        PL = P @ L
        W = np.abs(m(want_worlds[x])) if x in want_worlds else PL
        dW = carried(dP, L, P, dL, x in delta)        # a new array: the rounding term added in place
        if W is PL:
            dW += 8 * 2.0 ** -24 * PL
        else:                                         # (PL is not kept: scaled in place)
            PL *= 8 * 2.0 ** -24
            dW += PL
        memo[x] = (W, dW)
        return memo[x]

    return {x: of(x)[1].swapaxes(1, 2).reshape(n, 16) for x in objs}


def compiled_chain_bounds(table, objs, want_worlds, locals_, delta, n, kernels):
    """chain_bounds through kernels.chain_bounds, or None where numpy must do it: a word that is
    not a finite float, a δ that is not a finite number ≥ 0, or a bound that came out not finite.

    DECISION: the kernel forms each product as numpy's matmul does on a host with FMA (the first
    product, then fused multiply-adds in k order) and each sum in numpy's order: on finite values
    its words are numpy's (tests/harness/test_world_rows.py compares them on random chains); an
    infinity or a NaN, whose propagation numpy's vector code orders its own way, is left to numpy."""
    # the objects in the order `of` finishes them, each with its parent's place in that list (-1:
    # a root, -2: the anm); `at`, like of's memo, the place of an object's last one (an object
    # hung on itself is done twice: first as a root, then under that root)
    walked, parents, at = [], [], {}

    def walk(x, seen=()):
        if x in at:
            return
        parent = table.hung.get(x)
        if parent is None or parent in seen:
            up = -1
        elif parent == ref.ANM:
            up = -2
        else:
            walk(parent, seen + (x,))
            up = at[parent]
        at[x] = len(walked)
        walked.append(x)
        parents.append(up)

    for x in objs:
        walk(x)
    locs = [locals_.get(x) for x in walked]
    worlds = [want_worlds.get(x) for x in walked]
    deltas = [delta.get(x) for x in walked]
    if not all(d is None or (np.isfinite(d) and d >= 0) for d in deltas):
        return None
    carried_down = kernels.chain_bounds(n, parents, locs, worlds, deltas, ANM_MATRIX)
    if carried_down is None:            # a word or a bound not finite
        return None
    dW = carried_down[1]
    return {x: dW[at[x]].swapaxes(1, 2).reshape(n, 16) for x in objs}


def carried(dP, L, P, dL, keyed):
    """|ΔP|·|L| + |P|·|ΔL| of chain_bounds. Every factor is an absolute value, so a product
    with an all-zero factor is +0 wherever the other factor is finite, and adding +0 leaves the
    other term as it is: such a product (ΔP on a chain with no keyed rotation above, ΔL of a
    local that is not keyed) is not formed. The words equal those of the two products summed."""
    parts = []
    if dP.any() or not np.isfinite(L).all():
        parts.append(dP @ L)
    if keyed or not np.isfinite(P).all():
        parts.append(P @ dL)
    if not parts:
        return np.zeros(L.shape)
    return parts[0] + parts[1] if len(parts) == 2 else parts[0]


def outside_bounds(W, G, bound):
    """docs/tolerances.md "World matrices", for m calls at once ((n, m, 16) expected words, got
    words and bounds): |game − reference| ≤ the chain's bound, never below one ulp of the expected
    word; the w column exact. Per call, its first word outside (step, word, deviation, tolerance),
    or None."""
    e = W.view(np.float32)
    dev = e.astype(np.float64)
    dev -= G.view(np.float32)                     # the game's words widened exactly, as e's
    np.abs(dev, out=dev)
    w_col = np.zeros(16, dtype=bool)
    w_col[list(W_COLUMN)] = True
    # the tolerance is max(bound, one ulp) off the w column, 0 on it: a word within the bound
    # (off the w column) is within it, so the ulp is looked at only for the words beyond
    bad = W != G
    inside = dev <= bound
    inside[..., w_col] = dev[..., w_col] <= 0.0
    bad &= ~inside
    beyond = bad.copy()
    beyond[..., w_col] = False
    if beyond.any():
        near = np.nonzero(beyond)
        e32 = e[near]
        ulp1 = np.abs(np.nextafter(e32, np.float32(np.inf)).astype(np.float64) - e32.astype(np.float64))
        bad[near] = ~(dev[near] <= np.maximum(bound[near], ulp1))
    out = []
    outside = bad.any(axis=(0, 2)).tolist()
    for q in range(W.shape[1]):
        if not outside[q]:
            out.append(None)
            continue
        at = np.argwhere(bad[:, q])
        j, w = int(at[0][0]), int(at[0][1])
        ulp = np.abs(np.nextafter(W[j, q, w:w + 1].view(np.float32), np.float32(np.inf)).astype(np.float64)
                     - np.float64(e[j, q, w]))
        tol = 0.0 if w_col[w] else float(np.maximum(bound[j, q, w], ulp[0]))
        out.append((j, w, float(dev[j, q, w]), tol))
    return out


def fail(ctx, tally, obj, field, e, g, j, speed, pose_at, **kw):
    tally.fail(record(ctx, "world", field, e, g, step=j, time=pose_at,
                      context={"speed": speed, "identity": objects_check.plain(obj)}, **kw))


def queries(game, ch, anim, prof, r):
    """anim-objects.md §3.6 level 2 as queries (docs/truth.md §3, kind "world"): per playback speed
    one query (the scene, the speed, the step count, the anm's matrix and tp) with the game's frame
    counter and ccModel::Draw calls after every step, and, harness-only, each call's bound (None:
    exact) from the check's rule. The index and table are built once and restored before each
    further speed, as the check's run does."""
    from harness.checks import Case
    out = []
    exact_local = getattr(prof, "exact_local", True)
    case = Case(anim, prof, game, ch)
    kept = ob = None
    for speed, n in plan(anim, prof, r):
        if kept is None:
            ob, sc, want_index, want, _, _ = objects_check.build(case)
            kept = ob.keep()
        else:
            ob.restore(kept)
            if game.reload:
                ob = objects_check.build(case)[0]
                ob.same_as(kept)
        forward, draws = game_series(ob, speed, n)
        bounds = expected(anim, want_index, want, speed, n, exact_local)["bounds"]
        out.append({"kind": "world", "scene": sc.to_json(), "speed": speed, "steps": n,
                    "anm_matrix": list(ANM_MATRIX), "anm_tp": objects_check.ANM_TP,
                    "bounds": [None if b is None else [[float(x) for x in row] for row in b] for b in bounds],
                    "ledger": [[WORLD_KIND, i, 1] for i in range(len(want_index))],
                    "game": {"forward": forward, "calls": calls_json(draws)}})
    return out


def calls_json(draws):
    """Per step [[identity, 16 world words, alpha], ...]: the game's Draw calls as JSON values."""
    world, alpha = draws.world.tolist(), draws.alpha.tolist()
    out, k = [], 0
    for step in draws.identities:
        out.append([[list(i), world[k + q], alpha[k + q]] for q, i in enumerate(step)])
        k += len(step)
    return out


def compare(q, a, ctx, tally, _anim):
    """A model's Draws of one playback (`a`) against the game's words of query `q`, as the check
    compares the reference's (compare_series)."""
    want = {"forward": a["forward"], "pose_at": a["pose_at"], "order": [tuple(x) for x in a["order"]],
            "world": a["world"], "alpha": a["alpha"], "bounds": q["bounds"]}
    tally.count(f"world playbacks at {q['speed']}")
    calls = [[(tuple(i), tuple(w), al) for i, w, al in step] for step in q["game"]["calls"]]
    return compare_series(ctx, tally, q["speed"], want, q["game"]["forward"], calls)


CHECK = Check("world", order=7, kinds=("object", "fobj"), applies=applies, run=run, queries=queries,
              query_kinds=(QueryKind("world", compare, serve.world),))
