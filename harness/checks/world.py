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

from corpus.records import FObj
from harness.checks import Check
from harness.checks import objects as objects_check
from harness.checks.controllers import ROT_PER_KEY, ROT_TOLERANCE
from harness.checks.playback import plan
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from reference import objects as ref

WORLD_KIND = "drawn entries"
# the w column (words 3, 7, 11, 15) and the alpha are exact under every profile
W_COLUMN = (3, 7, 11, 15)
ANM_MATRIX = (0x3F800000, 0, 0, 0, 0, 0x3F800000, 0, 0, 0, 0, 0x3F800000, 0, 0x41200000, 0xC0A00000,
              0x3F000000, 0x3F800000)   # DECISION: the anm at (10, -5, 0.5): a non-trivial root


def applies(case):
    """A chunk with frames whose records pose an object (0x0102 or F_Obj): its drawn objects move."""
    anim = case.anim
    return anim.frames >= 1 and bool(anim.tracks or anim.fobjs)


def run(case):
    ctx, tally, prof = case.ctx, case.tally, case.prof
    anim = case.anim
    exact_local = getattr(prof, "exact_local", True)
    for k, (speed, n) in enumerate(plan(anim, prof, case.rng, case.speed)):
        ob, sc, want_index, want, got_index, got = objects_check.build(case, anm_matrix=ANM_MATRIX)
        if [(e.identity, e.kind, e.flags) for e in want.entries] != [tuple(g[:3]) for g in got.entries] \
                or want.parents != got.parents or got_index.parents != [e.parent for e in want_index]:
            tally.fail(record(ctx, "world", "object table", "the reference's", "differs", floats=False,
                              context={"why": "SetAnm's table differs from the reference's: the objects "
                                              "check names how; the world matrices are not compared"}))
            return
        tally.count(f"world playbacks at {speed}")
        if not check_speed(ob, anim, want_index, want, speed, n, ctx, tally, exact_local):
            return
        if k == 0:
            for i in range(len(want_index)):
                mark(tally, WORLD_KIND, i)


def pose_series(anim, index, table, speed, n):
    """(per step: Forward; {identity: (n, 16) local words}; {identity: (n,) localtp words};
    identities whose local comes from a keyed rotation): what the reference's works and F_Obj
    records leave in each entry's object after every step. A work writes its object's local
    matrix and localtp at every step that evaluates (pose_at), holding them otherwise; an F_Obj
    record read by a step's DecodeFrameChunk, which runs after the works, writes its pose, which
    holds until the object's work next evaluates."""
    fws, time = [], 0
    for _ in range(n):
        fw = anim.forward(time, speed)
        fws.append(fw)
        time = fw.time
    position = _positions(anim.anime)
    held = [fw.pose_at for fw in fws]
    for j in range(1, n):
        if held[j] is None:
            held[j] = held[j - 1]
    posed = np.array([h is not None for h in held])
    T = np.array([h or 0 for h in held], dtype=np.uint32)
    ident16 = np.asarray(ref.IDENTITY16, dtype=np.uint32)
    locals_, tps, keyed, worked = {}, {}, set(), set()
    for tr in anim.tracks:
        ident = table.entries[position[tr.record.index]].identity
        if ident[0] not in ("node", "made"):
            continue
        worked.add(ident)
        L = anim.local_matrices(tr, T)
        if L.ndim == 3:                                     # keyed rotation: double, math orientation
            keyed.add(ident)
            L = L.swapaxes(1, 2).reshape(n, 16).astype(np.float32).view(np.uint32)
        A = np.where(posed, np.asarray(anim.poses(tr, T).alpha, dtype=np.uint32), np.uint32(ref.ONE))
        locals_[ident] = np.where(posed[:, None], L, ident16[None, :]).astype(np.uint32)
        tps[ident] = A.astype(np.uint32)
    first = {}
    for i, e in enumerate(index):
        first.setdefault(e.object, i)
    time = 0
    for j, fw in enumerate(fws):
        recs = anim.records_read(time, speed) if fw.read is not None else ()
        for r in recs:
            if not isinstance(r, FObj) or r.object not in first:
                continue
            e = table.entries[first[r.object]]
            if e.kind == ref.K_EFF or e.identity[0] not in ("node", "made"):
                continue
            L = locals_.setdefault(e.identity, np.tile(ident16, (n, 1)))
            A = tps.setdefault(e.identity, np.full(n, ref.ONE, dtype=np.uint32))
            upto = n if e.identity not in worked else next(
                (q for q in range(j + 1, n) if fws[q].pose_at is not None), n)
            L[j:upto] = np.asarray(anim.fobj_local_matrix(r), dtype=np.uint32)
            A[j:upto] = anim.fobj_localtp(r)
        time = fw.time
    return fws, locals_, tps, keyed


def _positions(anime):
    """{0x0102 record index: its own index entry's position}."""
    out, pos, k, seen = {}, 0, 0, set()
    for obj, adds in ref.index_objects(anime):
        if adds:
            out[k] = pos
            k += 1
            seen.add(obj)
            pos += 1
        elif obj not in seen:
            seen.add(obj)
            pos += 1
    return out


def keyed_bounds(anim, table):
    """{identity: δ} of the objects a keyed-rotation record poses (checks.md §3's per-element bound)."""
    position = _positions(anim.anime)
    return {table.entries[position[t.record.index]].identity: ROT_TOLERANCE + ROT_PER_KEY * len(t.record.rot.keys)
            for t in anim.tracks if t.keyed_rotation}


def chain(table, ident):
    out = []
    while ident in table.hung and ident not in out:
        out.append(ident)
        ident = table.hung[ident]
    return out


def check_speed(ob, anim, index, table, speed, n, ctx, tally, exact_local) -> bool:
    fws, locals_, tps, keyed = pose_series(anim, index, table, speed, n)
    delta = keyed_bounds(anim, table)
    ob.start_playback(speed)
    got_calls = []
    for j in range(n):
        t, ended = ob.forward(speed)
        fw = fws[j]
        if (t, int(ended)) != (fw.time, int(bool(fw.ended))):
            tally.fail(record(ctx, "world", "frame counter", [fw.time, int(bool(fw.ended))], [t, int(ended)],
                              step=j, floats=False, context={"speed": speed}))
            return False
        got_calls.append(ob.draw_world())
    want = ref.world_series(table, locals_, tps, ANM_MATRIX, objects_check.ANM_TP, n, anim.float_model,
                            anim.kernels, anim.ops)
    want_order = [obj for obj, _, _ in want]
    worlds = {obj: W for obj, W, _ in want}
    tally.count("world steps", n)
    tally.count("world matrices", n * len(want))
    for j, calls in enumerate(got_calls):
        if [c.identity for c in calls] != want_order:
            tally.fail(record(ctx, "world", "ccModel::Draw calls", objects_check.plain(want_order),
                              objects_check.plain([c.identity for c in calls]), step=j, floats=False,
                              context={"speed": speed}))
            return False
    for q, (obj, W, A) in enumerate(want):
        G = np.array([calls[q].world for calls in got_calls], dtype=np.uint32).reshape(n, 16)
        GA = np.array([calls[q].alpha for calls in got_calls], dtype=np.uint32)
        loose = (not exact_local) or any(x in keyed for x in chain(table, obj))
        bad = np.nonzero((GA != A))[0]
        for j in bad[:1]:
            fail(ctx, tally, obj, "alpha", int(A[j]), int(GA[j]), j, speed, fws[j])
        if loose:
            tally.count("world matrices within the bound", n)
            bound = chain_bound(table, obj, worlds, locals_, delta, n)
            compare_within(ctx, tally, obj, W, G, bound, speed, fws)
            continue
        tally.count("world matrices compared exactly", n)
        rows = np.nonzero((G != W).any(axis=1))[0]
        for j in rows[:1]:
            for w in np.nonzero(G[j] != W[j])[0][:4]:
                fail(ctx, tally, obj, f"world[{w}]", int(W[j, w]), int(G[j, w]), int(j), speed, fws[j])
    return True


def chain_bound(table, obj, want_worlds, locals_, delta, n):
    """(n, 16) float64: how far the game's world words may lie from the reference's on a chain with
    a keyed rotation (docs/tolerances.md "World matrices"): the keyed local's 3x3 bound of
    checks.md §3, δ = ROT_TOLERANCE + ROT_PER_KEY·keys per element times its column's scale,
    carried down the chain as |ΔW| = |ΔP|·|L| + |P|·|ΔL| + 8·2^-24·|P|·|L| (math orientation)."""
    def m(words):                       # (n, 16) column-major words -> (n, 4, 4) math, float64
        return np.asarray(words, dtype=np.uint32).view(np.float32).astype(np.float64).reshape(n, 4, 4).swapaxes(1, 2)

    memo = {ref.ANM: (np.abs(m(np.tile(np.asarray(ANM_MATRIX, dtype=np.uint32), (n, 1)))), np.zeros((n, 4, 4)))}

    def of(x, seen=()):
        if x in memo:
            return memo[x]
        parent = table.hung.get(x)
        L = locals_.get(x)
        L = np.tile(np.eye(4), (n, 1, 1)) if L is None else np.abs(m(L))
        dL = np.zeros((n, 4, 4))
        if x in delta:
            scale = np.sqrt((L[:, :3, :3] ** 2).sum(axis=1))            # (n, 3): column norms
            dL[:, :3, :3] = delta[x] * scale[:, None, :]
        if parent is None or parent in seen:
            memo[x] = (L, dL)
            return memo[x]
        P, dP = of(parent, seen + (x,))
        W = np.abs(m(want_worlds[x])) if x in want_worlds else P @ L
        memo[x] = (W, dP @ L + P @ dL + 8 * 2.0 ** -24 * (P @ L))
        return memo[x]

    return of(obj)[1].swapaxes(1, 2).reshape(n, 16)


def compare_within(ctx, tally, obj, W, G, bound, speed, fws):
    """docs/tolerances.md "World matrices": |game − reference| ≤ the chain's bound, never below one
    ulp of the expected word; the w column exact."""
    e, g = W.view(np.float32).astype(np.float64), G.view(np.float32).astype(np.float64)
    ulp1 = np.abs(np.nextafter(W.view(np.float32), np.float32(np.inf)).astype(np.float64) - e)
    tol = np.maximum(bound, ulp1)
    tol[:, list(W_COLUMN)] = 0.0
    bad = (W != G) & ~(np.abs(e - g) <= tol)
    for j, w in zip(*np.nonzero(bad)):
        fail(ctx, tally, obj, f"world[{w}]", int(W[j, w]), int(G[j, w]), int(j), speed, fws[j],
             deviation=float(abs(e[j, w] - g[j, w])), tolerance=float(tol[j, w]))
        return


def fail(ctx, tally, obj, field, e, g, j, speed, fw, **kw):
    tally.fail(record(ctx, "world", field, e, g, step=j, time=fw.pose_at,
                      context={"speed": speed, "identity": objects_check.plain(obj)}, **kw))


CHECK = Check("world", order=7, kinds=("object", "fobj"), applies=applies, run=run)
