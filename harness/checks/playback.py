"""Playback check: _AnimateForward's frame counter, return value, object matrices, morph states (checks.md §4)."""
import numpy as np

from ground.fields import Field

from harness.checks import Check, Replay
from harness.compare.bits import f32, f32_array, f32_bits, trans_add
from harness.checks.controllers import NINE, compare_localtp
from harness.compare.keys import keys_around
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.steps import planned
from harness.compare.tally import ROTATION_SAMPLES_KEPT
from harness.compare.tables import entries_by_record
from harness.compare import tolerance
from harness.driver import memory_map as mm

SPEEDS = (256, 256, 100, 384, 700)   # checks.md §4.2, bulk draw



def applies(case):
    """checks.md §4, §9: a chunk with frames and morphs or loops (the nightly profile: any track)."""
    anim, prof = case.anim, case.prof
    return anim.frames >= 1 and bool(prof.playback_all and (anim.tracks or anim.morphs) or anim.morphs or anim.loops)


def run(case):
    """One playback run per speed (drawn, or the given one), each on a freshly loaded chunk."""
    game, ch, anim, ctx, tally, prof, rng, speed = (case.game, case.ch, case.anim, case.ctx, case.tally,
                                                    case.prof, case.rng, case.speed)
    entries = game.load(ch.data)
    for k, (s, n) in enumerate(plan(anim, prof, rng, speed)):
        if k:
            entries = game.load(ch.data)
        count_plan(s, n, tally)
        check_playback(game, anim, entries, ch.names, ctx, tally, [s] * n, s, prof.exact_local)


def count_plan(speed, n, tally):
    """One playback of n steps at `speed` (the speeds' coverage)."""
    tally.count(f"playback steps at {speed}", n)
    tally.count(f"playbacks at {speed}")


def plan(anim, prof, rng, speed=None):
    """[(speed, steps)] of the chunk's playbacks: the given speed, else the profile's drawn ones
    (checks.md §4.2), each with its step count."""
    speeds = [speed] if speed else draw_speeds(rng, prof.playback_speeds)
    return [(s, bulk_steps(anim, s, prof.playback_max_steps)) for s in speeds]


def draw_speeds(rng, count):
    """The first speed drawn from SPEEDS (checks.md §4.2); further ones distinct from those drawn.

    DECISION: the quick profile plays two speeds so that a chunk sees both a dividing and a
    non-dividing step (a step past the end is only exercised when the speed does not divide last).
    """
    speeds = [rng.choice(SPEEDS)]
    while len(speeds) < count:
        speeds.append(rng.choice([s for s in sorted(set(SPEEDS)) if s not in speeds]))
    return speeds


def bulk_steps(anim, speed, cap):
    """min(400, floor(2*N*256/speed) + 3), capped by the profile (checks.md §4.2)."""
    return min(400, cap, (2 * anim.frames * 256) // speed + 3)




def check_playback(game, anim, entries, names, ctx, tally, steps, speed=None, exact_local=True):
    """Play `steps` (a list of step sizes) from time 0 and compare after every step (checks.md §4.1).

    The game plays every step in one batch of machine calls, its coords read into arrays after each
    step that evaluates a pose (play, which a truth file's query reads through too); a step the
    game cannot finish is the check's error once the steps before it are counted, unless a step
    before it already differed (a step by step run stops there); the reference evaluates every
    track at every step's pose time in one call (anim.playback); the exact comparisons are array
    equality over raw u32 words and the keyed deviations are computed over all steps at once. Only
    the failing entries go through compare_matrix / compare_localtp, which build the records."""
    pb, posed, morphers = start_playback(game, anim, entries, names, tally, speed, steps, ctx)
    ref = anim.playback(steps)
    forwards, coords, states, stopped = play(game, pb, posed, morphers, ref, steps)
    mats, alphas, rows = [], [], []          # per evaluated step: (ntracks, 16), (ntracks,), context
    time, looped, stop = 0, False, None
    for i, s in enumerate(steps[:len(forwards)]):
        got = forwards[i]
        want = ref.forwards[i]
        tally.count("steps")
        if got != (want.time, int(bool(want.ended))):
            stop = (i, time, got, want)
            break
        count_step_kind(anim, s, want, tally)
        before, time = time, want.time
        looped_before, looped = looped, looped or want.looped
        if want.pose_at is None:
            continue
        got_m, got_a = coords[i]
        mats.append(got_m)
        alphas.append(got_a)
        rows.append((i, before, looped_before, want.pose_at >> 8, states.get(i)))
    if stopped is not None and stop is None:
        raise stopped                        # the game stopped before any step differed
    n = len(rows)
    bad_m = bad_a = np.zeros((n, 0), dtype=bool)
    keyed = []
    if n and posed:
        G = np.stack(mats)                   # (n, ntracks, 16)
        A = np.stack(alphas)                 # (n, ntracks)
        bad_m, bad_a, keyed = _compare_tracks(ref, posed, G, A, n, exact_local, tally)
    keyed_samples(tally, ctx, [tr.record.index for tr, _ in posed], keyed, ref.times[:n])
    bad_rows = (bad_m.any(axis=1) | bad_a.any(axis=1)) if n and posed else np.zeros(n, dtype=bool)
    for k, (i, before, looped_before, frame, got_w) in enumerate(rows):
        if not bad_rows[k] and got_w is None:
            continue
        T = int(ref.times[k])
        where = {"step_sizes": list(steps[:i + 1]), "time_before": before}
        if bad_rows[k]:
            for j, (tr, coord) in enumerate(posed):
                if bad_m[k, j]:
                    compare_matrix([int(w) for w in G[k, j]], anim, tr, T, ctx, tally, i, where, exact_local,
                                   count=False)
                if bad_a[k, j]:
                    compare_localtp(int(A[k, j]), anim.pose(tr, T).alpha, tr.record, T, ctx, tally,
                                    check="playback", step=i)
        if got_w is not None:
            # after a loop reset a morpher keeps the previous pass's state until read again (§9.1)
            want_w = anim.morph_weights(frame, after_loop=looped_before)
            for obj, got_pairs in got_w:
                tally.count("morph states")
                exp = [tuple(p) for p in want_w.get(obj, ())]
                if got_pairs != exp:
                    tally.fail(record(ctx, "playback", "morph state", pairs_json(exp), pairs_json(got_pairs),
                                      object=obj, step=i, time=T, floats=False, context=where))
    if stop is not None:
        i, time, got, want = stop
        forward_mismatches(ctx, tally, "playback", got, want, i, time,
                           {"step_sizes": list(steps[:i + 1]), "time_before": time})
        return False
    mark_posed(tally, posed)
    return True


def play(game, pb, posed, morphers, ref, steps):
    """The game's side of a playback (checks.md §4.1): every step of `steps` in one batch of
    machine calls (Game.play) and, after each step that evaluates a pose (ref, the reference's
    Playback, says which: a step that moves no time evaluates nothing), the posed tracks' coord
    words and, from frame 1, the morphers' states. Returns ([(time, return value)] per step that
    ran, {step: ((ntracks, 16) matrices, (ntracks,) localtp)}, {step: [(object, pairs)]}, the
    exception that stopped the game or None). The check and a truth file's query read the game
    through it alike."""
    read_coords = game.coord_reader([c for _, c in posed])
    coords, states = {}, {}

    def after(i):
        want = ref.forwards[i]
        if want.pose_at is None:
            return
        coords[i] = read_coords()
        if (want.pose_at >> 8) >= 1 and morphers:
            states[i] = [(obj, game.morph_state(addr, pb.models)) for obj, addr in morphers]

    forwards, stopped = game.play(steps, after)
    return forwards, coords, states, stopped


def mark_posed(tally, posed):
    """The ledger: every posed record's instance was compared at every step of a whole playback."""
    for tr, _ in posed:
        mark(tally, "tracks", tr.record.index)


def keyed_samples(tally, ctx, tracks, keyed, times):
    """Every keyed deviation of the playback into the tally at once, in the per-entry path's order
    (step by step, tracks in order), so the samples and the worst case are the same. tracks: the
    posed tracks' record indices; keyed: per posed track (d, bound, passed) over the read steps,
    or None; times: the read steps' pose times."""
    cols = [j for j, kd in enumerate(keyed) if kd is not None]
    if not cols or not len(times):
        return
    D = np.stack([keyed[j][0] for j in cols], axis=1).ravel()          # (n * len(cols),), step-major
    B = np.stack([keyed[j][1] for j in cols], axis=1).ravel()
    K = np.stack([keyed[j][2] for j in cols], axis=1).ravel()
    tally.rotation_count += D.size
    if D.size > ROTATION_SAMPLES_KEPT:
        # only this playback's ROTATION_SAMPLES_KEPT largest d/bound can be among the chunk's
        # (Tally.rotation_deviation: d/bound descending, the order they came in among equals)
        ratio = np.divide(D, B, out=np.zeros_like(D), where=B != 0)
        top = np.lexsort((np.arange(D.size), -ratio))[:ROTATION_SAMPLES_KEPT]
        top.sort()
        K, D_kept, B_kept = K[top], D[top], B[top]
    else:
        D_kept, B_kept = D, B
    tally.rotation_samples.extend(zip(K.tolist(), D_kept.tolist(), B_kept.tolist()))
    w = int(np.argmax(D))                       # the first largest, as a strict > scan keeps
    k, c = divmod(w, len(cols))
    d = float(D[w])
    if tally.worst_keyed is None or d > tally.worst_keyed["d"]:
        tally.keyed_worst(d, float(B[w]), ctx.chunk, tracks[cols[c]], int(times[k]), "playback")


def start_playback(game, anim, entries, names, tally, speed, steps, ctx=None):
    """The chunk set up for playback at `speed` (default: the first step): (the game's Playback,
    [(track, coord)] of every track paired with a table entry, [(object, morpher)])."""
    speed = speed if speed is not None else (steps[0] if steps else 256)
    pb = game.playback(entries, names, speed)
    paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
    posed = [(tr, pb.coords[paired[tr.record.index].position]) for tr in anim.tracks
             if tr.record.index in paired]
    for tr in anim.tracks:
        if tr.record.index not in paired:
            # a record the game compiled no instance for is a mismatch of its own, never dropped
            tally.fail(record(ctx, "playback", "instance", "compiled", "none", object=tr.record.object,
                              track=tr.record.index, floats=False,
                              context={"why": f"object record {tr.record.index} (object {tr.record.object}, "
                                              f"kind 0x0102) has no table entry with a kind-0x0102 ctrl, "
                                              f"so no instance is posed"}))
    morphers = [(entries[pos].object, addr) for pos, addr in pb.morphers.items()]
    have = {obj for obj, _ in morphers}
    for obj in sorted(set(anim.morphs) - have):
        # an F_Morpher record whose morpher has no ccMorpher instance is a mismatch, never dropped
        recs = anim.morphs[obj]
        tally.fail(record(ctx, "playback", "morpher instance", "ccMorpher", "none", object=obj, floats=False,
                          context={"why": f"{len(recs)} F_Morpher record(s) (kind 0x1901, the first at "
                                          f"frame {recs[0].frame}) name morpher object {obj}, which has no "
                                          f"table entry with an MPH_ name, so its morph state is never read"}))
    tally.count("playbacks")
    return pb, posed, morphers


def forward_mismatches(ctx, tally, check, got, want, step, time, where):
    """The frame counter and the return value of one _AnimateForward against the reference's
    Forward; True when either differs (each difference recorded)."""
    bad = False
    for field, e, g in (("frame counter", want.time, got[0]), ("return value", int(bool(want.ended)), got[1])):
        if e != g:
            bad = True
            tally.fail(record(ctx, check, field, e, g, step=step, time=time, floats=False, context=where))
    return bad


NINE_AND_T = NINE + [12, 13, 14]     # the words an exact local matrix is compared on


def coord_field(j):
    """The field of word NINE_AND_T[j] of a coord's matrix: the 3x3's c-major (matrix[r][c]), then
    the translation."""
    if j >= 9:
        return Field.axis("translation", j - 9)
    c, r = divmod(int(j), 3)
    return Field.element("matrix", r, c)


def _compare_tracks(ref, posed, G, A, n, exact_local, tally):
    """Which (step, track) entries fail the matrix and the localtp compare; per track the keyed
    deviations (d, bound, passed) over the steps, or None. Counts the passing entries' cases.

    Every track at once: the reference evaluates all of them at every pose time in one call
    (Playback.tracks) and the compares run over (step, track) arrays. DECISION: the tolerance
    compare of a non-keyed 3x3 (exact_local off, the first-contact profile) goes track by track."""
    if not exact_local:
        return _compare_tracks_each(ref, posed, G, A, n, exact_local, tally)
    nt = len(posed)
    tb = ref.tracks([tr for tr, _ in posed])
    C = tb.chan[:n]                                                 # (n, nt, 7): pos, scale, alpha
    bad_a = A != C[:, :, 6]
    bad_m = np.zeros((n, nt), dtype=bool)
    keyed = [None] * nt
    tally.count("object matrices", n * nt)
    plain = np.flatnonzero(~tb.keyed)
    if plain.size:
        L = tb.local[:n][:, plain]                                  # (n, np, 16)
        bad_m[:, plain] = (G[:, plain][:, :, NINE_AND_T] != L[:, :, NINE_AND_T]).any(axis=2)
        tally.count("exact local matrices", n * plain.size)
    kc = np.flatnonzero(tb.keyed)
    if kc.size:
        W = G[:, kc]                                                # (n, nk, 16)
        pos = C[:, kc, 0:3]
        want_t = np.where((pos >> 23) & 0xFF == 0, 0, pos).astype(np.uint32)   # trans_add
        bm = (W[:, :, 12:15] != want_t).any(axis=2)
        M = tb.rot[:n][:, kc]                                       # (n, nk, 3, 3)
        keys = tb.passed[:n][:, kc]                                 # (n, nk)
        scale = f32_array(C[:, kc, 3:6])                            # (n, nk, 3)
        _, d, bound, ok = tolerance.compare(f32_array(W[:, :, NINE]), tolerance.rs_elements(M, scale), keys, scale)
        bad_m[:, kc] = bm | ~ok
        for i, j in enumerate(kc):
            keyed[j] = (d[:, i], bound[:, i], keys[:, i])
    tally.count("localtp cases", int((~bad_a).sum()))
    return bad_m, bad_a, keyed


def _compare_tracks_each(ref, posed, G, A, n, exact_local, tally):
    """_compare_tracks one track at a time."""
    nt = len(posed)
    bad_m = np.zeros((n, nt), dtype=bool)
    bad_a = np.zeros((n, nt), dtype=bool)
    keyed = [None] * nt
    for j, (tr, _) in enumerate(posed):
        P = ref.poses(tr)
        W = G[:, j, :]
        bad_a[:, j] = A[:, j] != P.alpha[:n]
        tally.count("object matrices", n)
        if not tr.keyed_rotation:
            L = ref.local_matrices(tr)[:n]
            bad_m[:, j] = (W[:, 12:15] != L[:, 12:15]).any(axis=1)
            if exact_local:
                tally.count("exact local matrices", n)
                bad_m[:, j] |= (W[:, NINE] != L[:, NINE]).any(axis=1)
                continue
            M = np.broadcast_to(P.rot_matrix, (n, 3, 3))
            keys = np.zeros(n, dtype=np.int64)
        else:
            pos = P.pos[:n]
            want_t = np.where((pos >> 23) & 0xFF == 0, 0, pos).astype(np.uint32)   # trans_add
            bad_m[:, j] = (W[:, 12:15] != want_t).any(axis=1)
            M = P.rot_matrix[:n]
            keys = P.passed[:n]
        scale = f32_array(P.scale[:n])                                  # (n, 3)
        _, d, bound, ok = tolerance.compare(f32_array(W[:, NINE]), tolerance.rs_elements(M, scale), keys, scale,
                                            tr.keyed_rotation)
        bad_m[:, j] |= ~ok
        if tr.keyed_rotation:
            keyed[j] = (d, bound, keys)
    tally.count("localtp cases", int((~bad_a).sum()))
    return bad_m, bad_a, keyed


def pairs_json(pairs):
    """Morph pairs as [target object (int), weight bits ("0x...")] for the report."""
    return [[t, f"0x{w & 0xFFFFFFFF:08x}"] for t, w in pairs]


def count_steps(anim, steps, n, tally):
    """count_step_kind of each of the first n of `steps` from time 0: the steps a comparison of the
    game's words with a model's answers compared (harness.truth.check), counted as the check counts
    them. Returns the reference's Forwards of those steps."""
    wants = []
    for _, s, _, _, want in planned(anim, [(s, False) for s in steps[:n]]):   # a playback never restarts
        count_step_kind(anim, s, want, tally)
        wants.append(want)
    return wants


def count_step_kind(anim, s, want, tally):
    if want.ended:
        tally.count("ends")
        tally.quirk("ends")
    if anim.loops and s and want.time == 0 and want.pose_at is not None:
        tally.count("loop resets")
        tally.quirk("loop_resets")
    if s == 0:
        tally.count("zero steps")
    step_quirks(s, tally)


def step_quirks(s, tally):
    """Coverage of step kinds: zero, inside a frame, skipping frames."""
    if s == 0:
        tally.quirk("zero_steps")
    elif s % 256:
        tally.quirk("sub_frame_steps")
    if s > 256:
        tally.quirk("skipped_frames")


def compare_matrix(words, anim, tr, T, ctx, tally, step, where, exact_local, count=True):
    """Coord +0x40: translation exact, 3x3 within the playback tolerance or exact (checks.md §3, §4.1).
    count=False: the case, its exact-matrix count and its keyed deviation were counted already."""
    pose = anim.pose(tr, T)
    rec = tr.record
    if count:
        tally.count("object matrices")
    def fail(field, e, g, **kw):
        tally.fail(record(ctx, "playback", field, e, g, object=rec.object, track=rec.index, time=T,
                          step=step, context=dict(where, keys=keys_around(rec.rot, T)), **kw))
    local = anim.local_matrix(tr, T) if not tr.keyed_rotation else None
    exact = isinstance(local, (list, tuple)) and len(local) == 16 and isinstance(local[0], int)
    for i in range(3):
        # DECISION: sceVu0TransMatrix adds p to +0 (animation-semantics.md §4 step 3.2), so a
        # zero-exponent position word is expected as +0: the reference's EE local matrix when it
        # has one, else the same rule applied here.
        e = local[12 + i] if exact else trans_add(pose.pos[i])
        if words[12 + i] != e:
            fail(coord_field(9 + i), e, words[12 + i])
    if exact_local and exact:
        if count:
            tally.count("exact local matrices")
        for c in range(3):
            for r in range(3):
                if words[4 * c + r] != local[4 * c + r]:
                    fail(coord_field(3 * c + r), local[4 * c + r], words[4 * c + r])
        return
    scale = [f32(w) for w in pose.scale]
    keys = pose.passed if tr.keyed_rotation else 0
    # DECISION: each element within max(formula, 1 ulp of the reference element), never below the
    # float's own resolution (docs/tolerances.md): a rotation element of order 10^3 (a single-value
    # angle beyond +-180 degrees, animation-semantics.md §3.3) has an ulp above the formula.
    want = tolerance.rs_elements(pose.rot_matrix, scale)
    w, d, bound, ok = tolerance.compare(f32_array([words[i] for i in NINE]), want, keys, scale,
                                        tr.keyed_rotation)
    c, r = divmod(int(w), 3)
    d, bound = float(d), float(bound)
    if tr.keyed_rotation and count:
        tally.keyed(d, bound, ctx.chunk, rec.index, T, "playback", keys)
    if not ok:
        fail(coord_field(w), f32_bits(float(want[w])), words[4 * c + r], deviation=d, tolerance=bound)


def replay_steps(case, steps):
    """One playback of explicit step sizes, at the first step's speed (a shrunk repro)."""
    check_playback(case.game, case.anim, case.game.load(case.ch.data), case.ch.names, case.ctx, case.tally,
                   list(steps), steps[0] if steps else 256, True)


def replayed_steps(m):
    c = m.get("context") or {}
    return (list(c["step_sizes"]), {}) if "step_sizes" in c else None


CHECK = Check("playback", order=2, kinds=("morph", "object"), applies=applies, run=run,
              replay=Replay("steps", replayed_steps, replay_steps), traced_call="_AnimateForward")
