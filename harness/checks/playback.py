"""Playback check: _AnimateForward's frame counter, return value, object matrices, morph states (checks.md §4)."""
import numpy as np

from ground.fields import Field

from harness import EXPLAINED, HarnessError
from harness.checks import Check, QueryKind, Replay, answered
from harness.checks import objects as objects_check
from harness.compare.bits import f32, f32_array, f32_bits, trans_add
from harness.checks.controllers import NINE, compare_localtp, rotation_of, track_of
from harness.compare.keys import keys_around
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.tally import ROTATION_SAMPLES_KEPT
from harness.compare.tables import entries_by_record
from harness.compare import tolerance
from harness.driver import memory_map as mm
from harness.driver.game import is_model, is_morpher, morph_pairs, morpher_words
from harness.profiles import rng as case_rng
from reference import serve

SPEEDS = (256, 256, 100, 384, 700)   # checks.md §4.2, bulk draw



def applies(case):
    """checks.md §4, §9: a chunk with frames and morphs or loops (the nightly profile: any track)."""
    anim, prof = case.anim, case.prof
    return anim.frames >= 1 and bool(prof.playback_all and (anim.tracks or anim.morphs) or anim.morphs or anim.loops)


def run(case):
    """One playback run per speed (drawn, or the given one), each on a freshly loaded chunk; one
    the world check's plan also has, when it runs after this check, read off its playback of
    SetAnm's table (on_table), played before the chunk is loaded for it."""
    shared = world_plan(case)
    for s, n in plan(case.anim, case.prof, case.rng, case.speed):
        table = on_table(case, s, n) if (s, n) in shared else None
        entries = case.game.load(case.ch.data)
        check_playback(case.game, case.anim, entries, case.ch.names, case.ctx, case.tally, [s] * n, s,
                       case.prof.exact_local, table=table)


def world_plan(case):
    """The world check's playbacks [(speed, steps)] of the case's chunk when it runs after this
    check (its plan, from its own generator), else none."""
    if "world" not in case.later:
        return []
    return plan(case.anim, case.prof, case_rng(case.ctx.seed, case.ch.id, "world"), case.speed)


def _loaded(game, ch, anim, prof, rng, speed=None):
    """(speed, steps, the chunk's entries loaded afresh for it) of each of the chunk's playbacks."""
    entries = game.load(ch.data)
    for k, (s, n) in enumerate(plan(anim, prof, rng, speed)):
        if k:
            entries = game.load(ch.data)
        yield s, n, entries


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


def check_playback(game, anim, entries, names, ctx, tally, steps, speed=None, exact_local=True, table=None):
    """Play `steps` (a list of step sizes) from time 0 and compare after every step (checks.md §4.1):
    the game's words of the playback's query (played) against the reference's answer to it
    (reference/serve.py's, in process, in arrays), by the comparison a model's answer gets too
    (compare). A step the game cannot finish is the check's error once the steps before it are
    counted, unless a step before it already differed (the comparison stops there). `table`: the
    playback of the steps on SetAnm's table (on_table), or None."""
    q, ref, stopped = played(game, anim, entries, names, steps, speed, exact_local, table)
    a = serve.playback(anim, q, ref=ref, products=True)
    complete = answered(compare, q, a, ctx, tally, anim)
    if stopped is not None and len(q["game"]["forward"]) == first_difference(q["game"]["forward"], a["forward"]):
        raise stopped                        # the game stopped before any step differed
    return complete


def queries(game, ch, anim, prof, r):
    """The check's queries (docs/truth.md §3, kind "playback"): one per drawn speed, each on a
    freshly loaded chunk."""
    return [query(game, ch, anim, entries, s, n, prof.exact_local) for s, n, entries in _loaded(game, ch, anim, prof, r)]


def query(game, ch, anim, entries, speed, n, exact_local):
    """One playback of n steps of `speed` from time 0 on the loaded chunk's entries, its words as
    JSON values (a truth file's, a model's request): a game that stops is the query's error."""
    q, _, stopped = played(game, anim, entries, ch.names, [speed] * n, speed, exact_local)
    if stopped is not None:
        raise stopped
    g = q["game"]
    g["matrix"], g["localtp"] = g["matrix"].tolist(), g["localtp"].tolist()
    g["morph"] = [[[[int(t), int(w)] for t, w in pairs] for pairs in row] for row in g["morph"]]
    q["bound"] = {k: v.tolist() for k, v in q["bound"].items()}
    return q


def played(game, anim, entries, names, steps, speed, exact_local, table=None):
    """The playback query of `steps` (docs/truth.md §3) with the game's words (play), the
    reference's Playback of the steps, and the exception that stopped the game or None: every
    step's frame counter and return value, the posed tracks' coord words (12 of +0x40, NINE_AND_T,
    and the localtp, as arrays) at each step that evaluates a pose ("read"), the morphers' states
    from frame 1 ("morph_read"); the records without an instance or a morpher. `speed` (default:
    the first step) sets the playback up.

    DECISION: a model's query plays n steps of one speed; an in-process replay of other step
    sizes (a shrunk repro) carries them as `step_sizes`, which the comparison plays.

    `table`: the steps' playback on SetAnm's table (on_table: its entries, forward, posed and
    morphers' words), whose words are the game's when its entries are the loaded ones (objects
    and controller kinds alike, so the same tracks are posed and the same entries are morphers); else, and
    without `table`, the steps are played on the loaded entries."""
    speed = speed if speed is not None else (steps[0] if steps else 256)
    ref = anim.playback(steps)
    if table is not None and list(steps) == [speed] * len(steps) \
            and [(e.object, e.kind) for e in entries] == [(e.object, e.kind) for e in table[0]]:
        _, posed, morphers, unposed, got, words, models = table
        stopped = None
        coords, got_states = read_steps(ref, got, words, posed, morphers, models)
    else:
        pb, posed, morphers, unposed = _started(game, anim, entries, names, speed)
        got, coords, got_states, stopped = play(game, pb, posed, morphers, ref, steps)
    read, morph_read = sorted(coords), sorted(got_states)
    nt = len(posed)
    mats = np.stack([coords[i][0] for i in read])[:, :, NINE_AND_T] if read else np.zeros((0, nt, 12), np.uint32)
    tps = np.stack([coords[i][1] for i in read]) if read else np.zeros((0, nt), np.uint32)
    tolerant = [j for j, (tr, _) in enumerate(posed) if tr.keyed_rotation or not exact_local]
    have = {obj for obj, _ in morphers}
    q = {"kind": "playback", "speed": speed, "steps": len(steps),
         "tracks": [tr.record.index for tr, _ in posed],
         "rotation": [rotation_of(tr) for tr, _ in posed],
         # the tracks whose 3x3 is compared within checks.md §3's bound: the keyed
         # rotations, and every track under a profile without exact_local
         "tolerance": tolerant,
         "bound": playback_bound(ref, [tr for tr, _ in posed], tolerant, len(read)),
         "morphers": [obj for obj, _ in morphers], "read": read, "morph_read": morph_read,
         "ledger": [["tracks", tr.record.index, 1] for tr, _ in posed],
         "game": {"forward": [[int(t), int(r)] for t, r in got], "matrix": mats, "localtp": tps,
                  "morph": [[pairs for _, pairs in got_states[i]] for i in morph_read],      # [(target, weight)]
                  "unposed": unposed, "morphers_without_instance": sorted(set(anim.morphs) - have)}}
    if list(steps) != [speed] * len(steps):
        q["step_sizes"] = [int(s) for s in steps]
    return q, ref, stopped


def playback_bound(ref, tracks, tolerant, n):
    """The bound of checks.md §3 for the tolerance tracks (positions `tolerant` of `tracks`) at the
    n read steps, from the chunk's own records at each pose time (the values the in-process check
    bounds with): `passed` (n, nk), passed(T) of a keyed rotation and 0 otherwise, and `scale`
    (n, nk), the f32 word of max(|s_x|, |s_y|, |s_z|) (all the formula reads of the scale: one
    word, not three). The tracks are evaluated together (Playback.tracks, which the answer reuses)."""
    if not tolerant or not n:
        return {"passed": np.zeros((n, 0), dtype=np.int64), "scale": np.zeros((n, 0), dtype=np.uint32)}
    tb = ref.tracks(tracks)
    passed = np.where(tb.keyed[None, tolerant], tb.passed[:n][:, tolerant], 0)
    words = tb.chan[:n][:, tolerant, 3:6] & 0x7FFFFFFF                 # |s| of each axis, as EE words
    big = np.argmax(f32_array(words), axis=2)[..., None]
    return {"passed": passed, "scale": np.take_along_axis(words, big, axis=2)[..., 0]}


COORD_WORDS = [mm.COORD_MATRIX + 4 * k for k in range(16)] + [mm.COORD_LOCALTP]   # a posed coord's, as read
COMPARED_WORDS = [mm.COORD_MATRIX + 4 * k for k in NINE + [12, 13, 14]] + [mm.COORD_LOCALTP]  # of them, the compared


def play(game, pb, posed, morphers, ref, steps):
    """The game's side of a playback (checks.md §4.1): every step of `steps` in one batch of
    machine calls (Game.play), the posed tracks' coord words and the morphers' words gathered after
    each; of them, the coord words after each step that evaluates a pose (ref, the reference's
    Playback, says which: a step that moves no time evaluates nothing) and, from frame 1, the
    morphers' states. Returns ([(time, return value)] per step that ran, {step: ((ntracks, 16)
    matrices, (ntracks,) localtp)}, {step: [(object, pairs)]}, the exception that stopped the game
    or None). The check and a truth file's query read the game through it alike.

    DECISION: every morpher's count word and all MORPH_PAIRS_READ pairs are gathered after every
    step (a fixed region, as a morph state reads at most that many whatever the count), and the
    pairs of the count taken afterwards."""
    coord_addrs = [c + off for _, c in posed for off in COORD_WORDS]
    morph_addrs = [a for _, addr in morphers for a in morpher_words(addr)]
    forwards, words, stopped = game.play(steps, coord_addrs + morph_addrs)
    coords, states = read_steps(ref, forwards, words, posed, morphers, pb.models)
    return forwards, coords, states, stopped


def read_steps(ref, forwards, words, posed, morphers, models):
    """Of the words gathered after each step that ran (a row per step: every posed track's
    COORD_WORDS, then every morpher's morpher_words), the coord words after each step that
    evaluates a pose and, from frame 1, the morphers' states: ({step: ((ntracks, 16) matrices,
    (ntracks,) localtp)}, {step: [(object, pairs)]})."""
    n, nc = len(forwards), len(posed) * len(COORD_WORDS)
    mats = words[:, :nc].reshape(n, len(posed), len(COORD_WORDS))
    morph_words = words[:, nc:].reshape(n, len(morphers), (words.shape[1] - nc) // max(len(morphers), 1))
    coords, states = {}, {}
    for i in range(n):
        pose_at = ref.forwards[i].pose_at
        if pose_at is None:
            continue
        coords[i] = mats[i, :, :16], mats[i, :, 16]
        if (pose_at >> 8) >= 1 and morphers:
            states[i] = [(obj, morph_pairs(w, models)) for (obj, _), w in zip(morphers, morph_words[i].tolist())]
    return coords, states


def on_table(case, speed, n):
    """The playback of n steps of `speed` on SetAnm's table (objects.table_playback, which the world
    check then compares as its own playback) with the posed tracks' COORD_WORDS and the morphers'
    morpher_words gathered after each step: (the table's entries, posed [(track, None)],
    [(object, morpher)], the unposed records, [(time, return value)] per step, the words (n,
    ntracks * 17 + the morphers'), {model address: object}); None, nothing played, when it cannot
    stand for the playback on the loaded entries: a posed track whose entry gets no work on
    SetAnm's table or shares its object with another, an entry the loaded playback gives a
    morpher that holds no object of its own on SetAnm's table, a first step that evaluates no
    pose, or a game that stops on it (the playback on the loaded entries then compares, and the
    world check plays it again and meets the stop itself).

    DECISION: _AnimateForward poses an object record's instance from its record and the time
    alone, so a posed track's words on the ccObj SetAnm's entry holds are those of the coord
    Game.playback gives it (measured equal, every word of every step, on the 169 such chunks of
    the 200-chunk nightly sample at its four speeds); their comparison is the same. A fresh coord
    is zeros where a ccObj is the identity: the compared words (COMPARED_WORDS) of the posed
    objects are zeroed before their works are made, so a word the game leaves unwritten reads as
    it does on the loaded entries (the world's Draw sees none of it: the first step, which
    evaluates, writes every posed object's pose before it draws).

    DECISION: a morph record writes its morpher's state into the object its entry holds, which on
    SetAnm's table is the morpher object's zeroed instance block (as Game.playback's ccMorpher is
    a zeroed block), naming its targets by the objects their entries hold: an entry Game.playback
    gives a ccModel (is_model) names its object by the address its entry holds on the table as it
    does by the ccModel's (measured equal, every morph state of every step, with every coord word
    and frame counter, on the 25 morph chunks of the 200-chunk nightly sample at its four speeds)."""
    anim, names = case.anim, case.ch.names
    if anim.playback([speed] * n).forwards[0].pose_at is None:
        return None
    posed = {}
    morpher = morpher_words(0)              # the offsets of a ccMorpher's words a morph state reads

    def gathered(entries, works):
        paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
        posed["tracks"] = [tr for tr in anim.tracks if tr.record.index in paired]
        posed["unposed"] = [t.record.index for t in anim.tracks if t.record.index not in paired]
        posed["morphers"] = [e for e in entries if is_morpher(e, names)]
        positions = [paired[tr.record.index].position for tr in posed["tracks"]]
        return (positions, [(e.position, morpher) for e in posed["morphers"]]) if set(positions) <= works else None
    try:
        got = objects_check.table_playback(case, speed, n, COORD_WORDS, gathered, COMPARED_WORDS)
    except EXPLAINED:
        return None
    if got is None:
        return None
    entries, objects, forwards, words = got
    models = {objects[e.position]: e.object for e in entries if is_model(e, names)}
    return (entries, [(tr, None) for tr in posed["tracks"]], [(e.object, objects[e.position]) for e in posed["morphers"]],
            posed["unposed"], [tuple(f) for f in forwards], words, models)


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
    [(track, coord)] of every track paired with a table entry, [(object, morpher)]); the records
    without an instance or a morpher recorded."""
    speed = speed if speed is not None else (steps[0] if steps else 256)
    pb, posed, morphers, unposed = _started(game, anim, entries, names, speed)
    uninstanced(ctx, tally, anim, unposed, sorted(set(anim.morphs) - {obj for obj, _ in morphers}))
    tally.count("playbacks")
    return pb, posed, morphers


def _started(game, anim, entries, names, speed):
    """The chunk set up for playback at `speed`: (the game's Playback, [(track, coord)] of every
    track paired with a table entry, [(object, morpher)], the record indices of the tracks without)."""
    pb = game.playback(entries, names, speed)
    paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
    posed = [(tr, pb.coords[paired[tr.record.index].position]) for tr in anim.tracks
             if tr.record.index in paired]
    morphers = [(entries[pos].object, addr) for pos, addr in pb.morphers.items()]
    return pb, posed, morphers, [t.record.index for t in anim.tracks if t.record.index not in paired]


def uninstanced(ctx, tally, anim, unposed, morpherless):
    """The object records the game compiled no instance for (their indices) and the morpher objects
    without a ccMorpher instance: each a mismatch of its own, never dropped.

    DECISION: a truth file may name a record or a morpher object the chunk's parse does not have;
    its mismatch is still recorded, its `why` then without what the parse would add."""
    for idx in unposed:
        tr = track_of(anim, idx)
        obj = tr.record.object if tr is not None else None
        what = f"object record {idx} (object {obj}, kind 0x0102)" if tr is not None else f"object record {idx}"
        tally.fail(record(ctx, "playback", "instance", "compiled", "none", object=obj, track=idx, floats=False,
                          context={"why": f"{what} has no table entry with a kind-0x0102 ctrl, "
                                          f"so no instance is posed"}))
    for obj in morpherless:
        recs = anim.morphs.get(obj)
        what = (f"{len(recs)} F_Morpher record(s) (kind 0x1901, the first at frame {recs[0].frame}) name"
                if recs else "F_Morpher records name")
        tally.fail(record(ctx, "playback", "morpher instance", "ccMorpher", "none", object=obj, floats=False,
                          context={"why": f"{what} morpher object {obj}, which has no table entry with an "
                                          f"MPH_ name, so its morph state is never read"}))


def first_difference(got, want):
    """The index of the first step whose [frame counter, return value] differs, else len(got)."""
    return next((i for i, (g, w) in enumerate(zip(got, want)) if g != w and list(g) != list(w)), len(got))


def forward_mismatches(ctx, tally, check, got, want, step, time, where):
    """The frame counter and the return value of one _AnimateForward (got) against the expected
    side's (want: [time, return value]); True when either differs (each difference recorded)."""
    bad = False
    for field, e, g in (("frame counter", want[0], got[0]), ("return value", want[1], got[1])):
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


def compare(q, a, ctx, tally, anim):
    """The game's words of playback query `q` against the answer `a` (checks.md §4.1), in process
    (reference/serve.py's answer, in arrays) and for a truth file or a model alike: step by step
    the frame counter and return value, the first that differs stopping the comparison and
    recorded after the steps before it; at each read step every posed track's matrix (the
    translation and, but for the tolerance tracks, the 3x3 exactly; their 3x3 within checks.md
    §3's bound from the query's `bound`) and localtp, and from frame 1 the morphers' states. The
    compares run over (step, track) arrays; the records of the failing entries only are built,
    with their context from the chunk's parse (the pose time, the keys around it, the step sizes).
    What the check counts (the steps' kinds, the cases, the keyed deviations) comes from the
    parse and the comparison, never from one answer's word alone. False when a step stopped it
    or the game stopped before the last step."""
    g = q["game"]
    steps = q.get("step_sizes") or [q["speed"]] * q["steps"]
    count_plan(q["speed"], len(steps), tally)
    uninstanced(ctx, tally, anim, g.get("unposed") or (), g.get("morphers_without_instance") or ())
    tally.count("playbacks")
    forward, answer = g["forward"], a["forward"]
    stop = first_difference(forward, answer)
    if forward:
        tally.count("steps", min(stop + 1, len(forward)))
    ref = anim.playback(steps)               # the steps as the chunk's parse plays them
    reads = {int(i): k for k, i in enumerate(q["read"])}
    rows = []                                # per read step compared: (its row, step, time before, looped before, T)
    time, looped, pose_times = 0, False, ref.times.tolist()
    for i, (s, want) in enumerate(zip(steps[:stop], ref.forwards)):
        count_step_kind(anim, s, want, tally)
        before, time = time, int(answer[i][0])
        looped_before, looped = looped, looped or want.looped
        if want.pose_at is not None and i in reads:
            rows.append((reads[i], i, before, looped_before, pose_times[ref.row[i]]))
    if stop == len(forward) < len(steps):
        return False                         # the game stopped before any step differed
    of = {t.record.index: t for t in anim.tracks}
    tracks = [of[idx] for idx in q["tracks"]]
    bad_m, bad_a, G, A, GT, AT, tol = _compare_matrices(q, a, [r[0] for r in rows], tracks, ctx, tally,
                                                        [r[4] for r in rows])
    bad = (bad_m | bad_a).any(axis=1)
    mreads = {int(i): m for m, i in enumerate(q["morph_read"])}
    for k, (_, i, before, looped_before, T) in enumerate(rows):
        where = {"step_sizes": steps[:i + 1], "time_before": before} if bad[k] else None
        for j in np.flatnonzero(bad_m[k] | bad_a[k]) if bad[k] else ():
            tr = tracks[j]
            if bad_m[k, j]:
                matrix_mismatches(ctx, tally, tr, T, i, where, G[k, j].tolist(), A[k, j].tolist(), tol.get((k, j)))
            if bad_a[k, j]:
                compare_localtp(int(GT[k, j]), int(AT[k, j]), tr.record, T, ctx, tally, check="playback", step=i)
        if i in mreads:
            m = mreads[i]
            for obj, got, exp in zip(q["morphers"], g["morph"][m], a["morph"][m]):
                tally.count("morph states")
                got, exp = [tuple(p) for p in got], [tuple(p) for p in exp]
                if got != exp:
                    where = where or {"step_sizes": steps[:i + 1], "time_before": before}
                    tally.fail(record(ctx, "playback", "morph state", pairs_json(exp), pairs_json(got),
                                      object=obj, step=i, time=T, floats=False, context=where))
    if stop < len(forward):
        forward_mismatches(ctx, tally, "playback", forward[stop], answer[stop], stop, time,
                           {"step_sizes": list(steps[:stop + 1]), "time_before": time})
        return False
    return True


def _compare_matrices(q, a, ks, tracks, ctx, tally, times):
    """Which (row, track) entries of the read rows `ks` fail the matrix and the localtp compare:
    (bad_m, bad_a, the game's and the answer's 12 words and localtp of those rows, {(row, track):
    matrix_mismatches' `tolerated`} of the failing entries of the tolerance tracks). Counts the cases and
    keeps the keyed deviations (keyed_samples). The expected 3x3 of a tolerance track is the
    answer's `rs` when it gives one (the reference's R·S in double, in process), else its words.
    DECISION: the keyed-rotation statistics so measure the game's 3x3 from the expected side as
    that side gives it (docs/truth.md §5)."""
    n, nt, nr = len(ks), len(tracks), len(q["read"])
    ks = slice(0, n) if ks == list(range(n)) else ks           # the first n rows: views, no copies
    G = np.asarray(q["game"]["matrix"], dtype=np.uint32).reshape(nr, nt, 12)[ks]
    A = np.asarray(a["matrix"], dtype=np.uint32).reshape(nr, nt, 12)[ks]
    GT = np.asarray(q["game"]["localtp"], dtype=np.uint32).reshape(nr, nt)[ks]
    AT = np.asarray(a["localtp"], dtype=np.uint32).reshape(nr, nt)[ks]
    bad_m = np.zeros((n, nt), dtype=bool)
    bad_a = GT != AT
    failing, keyed_dev = {}, [None] * nt
    if n and nt:
        tally.count("object matrices", n * nt)
        cols = np.asarray(q["tolerance"], dtype=np.int64)
        exact = np.ones(nt, dtype=bool)
        exact[cols] = False
        ne = G != A                                                  # (n, nt, 12)
        bad_m = np.where(exact[None, :], ne.any(axis=2), ne[:, :, 9:12].any(axis=2))   # a translation always exact
        if exact.any():
            tally.count("exact local matrices", n * int(exact.sum()))
        if cols.size:
            keyed = np.array([tr.keyed_rotation for tr in tracks], dtype=bool)[cols]
            passed = np.asarray(q["bound"]["passed"], dtype=np.int64).reshape(nr, cols.size)[ks]
            scale = f32_array(np.asarray(q["bound"]["scale"], dtype=np.uint32).reshape(nr, cols.size)[ks])
            want = np.asarray(a["rs"])[ks] if "rs" in a else f32_array(A[:, cols, :9])
            w, d, bound, ok = tolerance.compare(f32_array(G[:, cols, :9]), want, passed, scale[..., None],
                                                keyed[None, :])
            bad_m[:, cols] |= ~ok
            for k, jj in zip(*np.nonzero(bad_m[:, cols])):
                failing[(k, cols[jj])] = (int(w[k, jj]), float(d[k, jj]), float(bound[k, jj]), bool(ok[k, jj]),
                                          f32_bits(float(want[k, jj, w[k, jj]])))
            for jj in np.flatnonzero(keyed):
                keyed_dev[cols[jj]] = (d[:, jj], bound[:, jj], passed[:, jj])
        tally.count("localtp cases", int((~bad_a).sum()))
    keyed_samples(tally, ctx, list(q["tracks"]), keyed_dev, times)
    return bad_m, bad_a, G, A, GT, AT, failing


def pairs_json(pairs):
    """Morph pairs as [target object (int), weight bits ("0x...")] for the report."""
    return [[t, f"0x{w & 0xFFFFFFFF:08x}"] for t, w in pairs]


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


def compare_matrix(words, anim, tr, T, ctx, tally, step, where, exact_local):
    """Coord +0x40 (its 16 words) against the reference's pose at T, one entry at a time (the
    per-entry compare benchmarks/shortcuts.py measures the check's against): translation exact,
    3x3 within the playback tolerance or exact (checks.md §3, §4.1)."""
    pose = anim.pose(tr, T)
    tally.count("object matrices")
    local = anim.local_matrix(tr, T) if not tr.keyed_rotation else None
    exact = isinstance(local, (list, tuple)) and len(local) == 16 and isinstance(local[0], int)
    # DECISION: sceVu0TransMatrix adds p to +0 (animation-semantics.md §4 step 3.2), so a
    # zero-exponent position word is expected as +0: the reference's EE local matrix when it
    # has one, else the same rule applied here.
    want = [local[i] for i in NINE_AND_T] if exact else [0] * 9 + [trans_add(p) for p in pose.pos]
    got = [words[i] for i in NINE_AND_T]
    if exact_local and exact:
        tally.count("exact local matrices")
        matrix_mismatches(ctx, tally, tr, T, step, where, got, want)
        return
    scale = [f32(w) for w in pose.scale]
    keys = pose.passed if tr.keyed_rotation else 0
    # DECISION: each element within max(formula, 1 ulp of the reference element), never below the
    # float's own resolution (docs/tolerances.md): a rotation element of order 10^3 (a single-value
    # angle beyond +-180 degrees, animation-semantics.md §3.3) has an ulp above the formula.
    rs = tolerance.rs_elements(pose.rot_matrix, scale)
    w, d, bound, ok = tolerance.compare(f32_array(got[:9]), rs, keys, scale, tr.keyed_rotation)
    d, bound = float(d), float(bound)
    if tr.keyed_rotation:
        tally.keyed(d, bound, ctx.chunk, tr.record.index, T, "playback", keys)
    matrix_mismatches(ctx, tally, tr, T, step, where, got, want, (int(w), d, bound, bool(ok), f32_bits(float(rs[w]))))


def matrix_mismatches(ctx, tally, tr, T, step, where, got, want, tolerated=None):
    """The records of one coord's matrix at pose time T (checks.md §3, §4.1): got, want its 12
    words (NINE_AND_T's) of the game and of the expected side. The translation exactly, then the
    3x3 column by column exactly, or, when it is compared within the bound, `tolerated` (w, d,
    bound, ok, the expected word of element w): its worst element when out of the bound."""
    rec = tr.record

    def fail(j, e, g, **kw):
        tally.fail(record(ctx, "playback", coord_field(j), e, g, object=rec.object, track=rec.index, time=T,
                          step=step, context=dict(where, keys=keys_around(rec.rot, T)), **kw))
    for j in (9, 10, 11, *(range(9) if tolerated is None else ())):
        if got[j] != want[j]:
            fail(j, want[j], got[j])
    if tolerated is not None and not tolerated[3]:
        w, d, bound, _, e = tolerated
        fail(w, e, got[w], deviation=d, tolerance=bound)


def replay_steps(case, steps):
    """One playback of explicit step sizes, at the first step's speed (a shrunk repro)."""
    check_playback(case.game, case.anim, case.game.load(case.ch.data), case.ch.names, case.ctx, case.tally,
                   list(steps), steps[0] if steps else 256, True)


def replayed_steps(m):
    c = m.get("context") or {}
    return (list(c["step_sizes"]), {}) if "step_sizes" in c else None


def replay_queries(game, ch, anim, steps, exact_local):
    """The query of a replay's steps (a shrinking candidate's: what a model is asked). A model's
    playback query plays n steps of one speed (docs/truth.md §3): other step lists are a
    HarnessError."""
    if not steps or len(set(steps)) != 1:
        raise HarnessError(f"steps {steps}: a model's playback query plays n steps of one speed (docs/truth.md §3)")
    return [query(game, ch, anim, game.load(ch.data), steps[0], len(steps), exact_local)]


CHECK = Check("playback", order=2, kinds=("morph", "object"), applies=applies, run=run,
              replay=Replay("steps", replayed_steps, replay_steps, queries=replay_queries),
              traced_call="_AnimateForward", queries=queries,
              query_kinds=(QueryKind("playback", compare, serve.playback),))
