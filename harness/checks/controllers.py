"""Controller checks: object records at sampled times and multi-step consistency (checks.md §2.1,
§2.3), and the direct light records SetAnmCtrlWork evaluates into their light (docs/lights.md)."""
import numpy as np

from corpus.quirks import held_rotation_keys
from harness.compare.bits import f32, f32_array, f32_bits, zero_exponent
from harness.compare.ledger import mark
from harness.compare.tally import ROTATION_SAMPLES_KEPT
from harness.driver.game import Scratch
from harness.compare.keys import keys_around, sample_times, track_quirks
from corpus.lights import DIRECT_FIELDS, KIND_DIRECT_LIGHT
from harness.compare.mismatch import record
from harness.compare import tolerance
from harness import HarnessError
from harness.checks import Check, Replay
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm

AXES = "xyz"



def applies(case):
    """checks.md §2.1: a chunk with object controller tracks, or with a direct light (docs/lights.md).
    case.anim: the reference's Animation or the corpus's Anime it models."""
    anime = getattr(case.anim, "anime", case.anim)
    return bool(anime.tracks) or any(o.kind == KIND_DIRECT_LIGHT for o in anime.others)


def run(case):
    entries = case.game.load(case.ch.data)
    check_tracks(case.game, case.anim, entries, case.ctx, case.tally, case.prof, case.rng)
    # the lights draw after every track, so the tracks' draws are those of a chunk without lights
    check_lights(case.game, case.anim, entries, case.ctx, case.tally, case.prof, case.rng)


# the 15 compared words of a direct light, in Animation.light_words' order (mm.LIGHT_WORDS)
LIGHT_FIELDS = ("position.x", "position.y", "position.z", "rotation.x", "rotation.y", "rotation.z",
                "colour.r", "colour.g", "colour.b", "intensity", "beam_start", "beam_end", "radius1",
                "radius2", "radius2_squared")
LIGHT_CHANNEL = [name for name, _, w in DIRECT_FIELDS for _ in range(w)] + ["radius2"]


def light_times(anim, lt, rng, prof):
    """The times a direct light is compared at: the object records' (checks.md §2.1 step 4.3)."""
    return sample_times(lt.record, anim.last, rng, prof.times, prof.max_boundaries)


def check_lights(game, anim, entries, ctx, tally, prof, rng):
    """docs/lights.md: each direct light record, at the controller check's times, word for word:
    a present channel's words equal the reference's, an absent channel's keep the harness's
    poison (SetAnmCtrlWork leaves them as they were)."""
    paired = entries_by_record([lt.record for lt in anim.lights], entries, mm.KIND_DIRECT_LIGHT)
    for lt in anim.lights:
        rec = lt.record
        entry = paired.get(rec.index)
        if entry is None:
            tally.count("no light controller")
            tally.fail(record(ctx, "controllers", "light controller", "compiled", "none", object=rec.object,
                              floats=False, context={"light": rec.index, "why": "no table entry with a "
                                                     "kind-0x0605 ctrl for this direct light record"}))
            continue
        ts = light_times(anim, lt, rng, prof)
        work, light = game.light_work(entry.ctrl)
        compare_light(anim, lt, ts, game.light_times(work, light, ts), ctx, tally)
        mark(tally, "direct light records", rec.index)


def compare_light(anim, lt, ts, words, ctx, tally):
    """The game's light words (n, 15) at times ts against Animation.light_words."""
    rec = lt.record
    tally.count("direct light cases", len(ts))
    for k, t in enumerate(ts):
        want = [mm.POISON if w is None else w for w in anim.light_words(lt, t)]
        for j, (e, g) in enumerate(zip(want, (int(x) for x in words[k]))):
            if e != g:
                tally.fail(light_mismatch(ctx, rec, j, e, g, t, anim.clamp(t)))


def light_mismatch(ctx, rec, j, expected, got, t, T, check="controllers"):
    """One word j of a direct light (LIGHT_FIELDS) that differs, as a mismatch record. DECISION: it
    names no track (a replay of a controllers mismatch replays an object track): the light's
    record index is in its context."""
    channel = getattr(rec, LIGHT_CHANNEL[j])
    return record(ctx, check, f"light.{LIGHT_FIELDS[j]}", expected, got, object=rec.object, time=t,
                  context={"light": rec.index, "offset": f"+0x{mm.LIGHT_WORDS[j]:X}",
                           "absent": channel.kind == 0, "keys": keys_around(channel, T), "pose_time": T})


def check_tracks(game, anim, entries, ctx, tally, prof, rng, compare=None):
    """checks.md §2.1 and §2.3 for the chosen tracks of one loaded chunk. compare(anim, tr, ts, words,
    localtp, ctx, tally) compares one track's sampled times (default compare_times, all at once)."""
    compare = compare or compare_times
    tracks = chosen_tracks(anim, prof, rng)
    # pair over ALL records: the k-th record of an object is counted in file order, sample or not
    paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
    game.new_anm()
    for tr in tracks:
        entry = paired.get(tr.record.index)
        if entry is None:
            # DECISION (checks.md §2.1 step 4.1 counts and skips): the reference compiles a
            # controller for every object record, so a game that compiled none for it is a
            # mismatch, not a case to skip; an executable whose ConvLCNum2ALCNum does nothing
            # must not pass.
            tally.count("no controller")
            tally.fail(record(ctx, "controllers", "controller", "compiled", "none", object=tr.record.object,
                              track=tr.record.index, floats=False,
                              context={"why": "no table entry with a kind-0x0102 ctrl for this object record"}))
            continue
        for k, v in track_quirks(tr.record, anim.frames).items():
            tally.quirk(k, v)
        work, coord = game.work(entry.ctrl)
        ts, holds = track_times(anim, tr, rng, prof)
        before = len(tally.mismatches)
        words, localtp = game.step_times(work, coord, ts)
        compare(anim, tr, ts, words, localtp, ctx, tally)
        if holds:
            at = {t: k for k, t in enumerate(ts)}
            check_running_matrix({t: scratch_of(words[at[t]]) for T, _, _ in holds for t in (T, T + 1)},
                                 holds, tr, ctx, tally)
        if len(tally.mismatches) > before:
            attach_series(tally.mismatches[before], anim, tr, [(t, scratch_of(w)) for t, w in zip(ts, words)])
        check_multistep(game, work, ts, scratch_of(words[-1]), tr, ctx, tally)
        mark(tally, "object records", tr.record.index)


def chosen_tracks(anim, prof, rng):
    """The object records the check compares (checks.md §2.1): all, or the profile's seeded sample."""
    tracks = list(anim.tracks)
    if 0 <= prof.max_tracks < len(tracks):
        # DECISION: a track with a rotation held after a turn is checked even beyond the sample
        # (check_running_matrix): it is rare, and it is the only place a missing running product
        # shows. The sample's draws are the same with or without it.
        chosen = set(rng.sample(range(len(tracks)), prof.max_tracks))
        chosen |= {i for i, t in enumerate(tracks) if held_rotation_keys(t.record.rot)}
        tracks = [tracks[i] for i in sorted(chosen)]
    return tracks


def track_times(anim, tr, rng, prof):
    """(the sampled times of one track, its rotation holds): checks.md §2.1 step 4.3, plus both
    sides of every held key's start (anim.rotation_holds), under any profile (no draw taken)."""
    ts = sample_times(tr.record, anim.last, rng, prof.times, prof.max_boundaries)
    holds = anim.rotation_holds(tr)
    if holds:
        ts = sorted(set(ts) | {t for T, _, _ in holds for t in (T, T + 1)})
    return ts, holds


NINE = [0, 1, 2, 4, 5, 6, 8, 9, 10]      # word 4c+r of the 3x3, c-major (tolerance.rs_elements' order)
SCALE_WORDS = [20, 25, 30]               # words 0, 5 and 10 of the scale matrix at scratch +0x50


def scratch_of(row):
    """A Scratch from one row of Game.step_times' words (scratch +0x00 .. +0xD0)."""
    w = [int(x) for x in row]
    return Scratch(tuple(w[0:3]), (w[20], w[25], w[30]), tuple(w[36:52]), w[52])


def compare_times(anim, tr, ts, words, localtp, ctx, tally):
    """compare_pose and compare_localtp at every time of ts at once: the reference evaluates the
    record at all of them in one call (Animation.poses) and the exact compares run over arrays;
    only the failing times go through compare_pose / compare_localtp, which build the records."""
    rec = tr.record
    n = len(ts)
    P = anim.poses(tr, ts)
    T = P.time.astype(np.int64)
    bad = (words[:, 0:3] != P.pos).any(axis=1)
    bad |= (words[:, SCALE_WORDS] != P.scale).any(axis=1)
    bad |= words[:, 52] != P.alpha
    tally.count("cases", n)
    if rec.rot.kind and not tr.keyed_rotation:
        tally.count("single-value rotations", n)
        tally.quirk("single_value_rotations", n)
        rot9 = words[:, 36:52][:, NINE]
        bad |= (rot9 != np.asarray(P.rot, dtype=np.uint32)[None, :]).any(axis=1)
    elif rec.rot.kind:
        tally.count("keyed rotations", n)
        _, d, bound, ok = tolerance.compare(f32_array(words[:, 36:52][:, NINE]), tolerance.rs_elements(P.rot_matrix),
                                            P.passed)
        bad |= ~ok
        keyed_samples(tally, ctx, rec, ts, d, bound, P.passed)
        tally.quirk("final_hold_creep", int((T > max(f for f, _ in rec.rot.keys) * 256).sum()))
        tally.quirk("keyed_keys_passed", int(P.passed.sum()))
    bad_tp = localtp != P.alpha
    tally.count("localtp cases", n)
    for k in np.flatnonzero(bad | bad_tp):
        t, Tk = ts[k], int(T[k])
        pose = P.pose(k)
        if bad[k]:
            compare_pose(scratch_of(words[k]), pose, tr, t, Tk, ctx, tally, count=False)
        if bad_tp[k]:
            compare_localtp(int(localtp[k]), pose.alpha, rec, t, ctx, tally, count=False)


def keyed_samples(tally, ctx, rec, ts, d, bound, passed):
    """The track's keyed deviations into the tally at once, as compare_pose adds them one by one:
    every sample when the track has at most ROTATION_SAMPLES_KEPT, else its largest d/bound (only
    those can be among the chunk's, Tally.rotation_deviation); the first largest d is the worst."""
    n = d.size
    tally.rotation_count += n
    keep = np.arange(n)
    if n > ROTATION_SAMPLES_KEPT:
        ratio = np.divide(d, bound, out=np.zeros_like(d), where=bound != 0)
        keep = np.sort(np.lexsort((np.arange(n), -ratio))[:ROTATION_SAMPLES_KEPT])
    tally.rotation_samples.extend(zip(passed[keep].tolist(), d[keep].tolist(), bound[keep].tolist()))
    w = int(np.argmax(d))
    if tally.worst_keyed is None or d[w] > tally.worst_keyed["d"]:
        tally.keyed_worst(float(d[w]), float(bound[w]), ctx.chunk, rec.index, ts[w], "controllers")


def compare_pose(got: Scratch, pose, tr, t, T, ctx, tally, check="controllers", count=True):
    """One sampled time: position, scale, transparency exactly; rotation by its kind (checks.md §2.1).
    count=False: the case, its rotation counts and its keyed deviation were counted already."""
    rec = tr.record
    def fail(field, exp, g, channel, passed=None, **kw):
        c = {"keys": keys_around(channel, T), "pose_time": T}
        if passed is not None:
            c["passed"] = passed
        tally.fail(record(ctx, check, field, exp, g, object=rec.object, track=rec.index, time=t,
                          context=c, **kw))
    if count:
        tally.count("cases")
    for i in range(3):
        if got.pos[i] != pose.pos[i]:
            fail(f"position.{AXES[i]}", pose.pos[i], got.pos[i], rec.pos)
        if got.scale[i] != pose.scale[i]:
            fail(f"scale.{AXES[i]}", pose.scale[i], got.scale[i], rec.scale)
    if got.alpha != pose.alpha:
        fail("transparency", pose.alpha, got.alpha, rec.alpha)
    if rec.rot.kind == 0:
        return
    if not tr.keyed_rotation:
        if count:
            tally.count("single-value rotations")
            tally.quirk("single_value_rotations")
        for j, (w_got, w_exp) in enumerate(zip(got.rot9, pose.rot)):
            if w_got != w_exp:
                c, r = divmod(j, 3)
                fail(f"rotation[{r}][{c}]", w_exp, w_got, rec.rot)
        return
    want = tolerance.rs_elements(pose.rot_matrix)
    w, d, bound, ok = tolerance.compare(f32_array(got.rot9), want, pose.passed)
    c, r = divmod(int(w), 3)
    d, bound = float(d), float(bound)
    if count:
        tally.count("keyed rotations")
        tally.keyed(d, bound, ctx.chunk, rec.index, t, check, pose.passed)
        if T > max(f for f, _ in rec.rot.keys) * 256:
            tally.quirk("final_hold_creep")
        tally.quirk("keyed_keys_passed", pose.passed)
    if not ok:
        fail(f"rotation[{r}][{c}]", f32_bits(float(want[w])), got.rot[4 * c + r], rec.rot,
             deviation=d, tolerance=bound, passed=pose.passed)


def same_pose(a, b):
    """Word for word equal, a zero exponent reading as +0 (EE float has no denormals; ±0 are one value)."""
    return all((0 if zero_exponent(x) else x) == (0 if zero_exponent(y) else y) for x, y in zip(a, b))


def check_running_matrix(seen, holds, tr, ctx, tally):
    """animation-semantics.md §3.6: the pose is the running matrix W. A held key after a turn
    has a step with no axis (§3.4 step 4), so from T + 1 the pose is the W that the turn reached,
    which is the pose at T, where the turn ends with frac = 1. An executable that instead starts
    each segment from its key's own matrix poses the held key's sceVu0RotMatrix bits there: it
    keeps no running product and never drifts as the seeds document. Keyed rotations are
    otherwise compared within a tolerance, and that error lies inside it.

    DECISION: only that signature fails: the held pose is the key's own matrix exactly, in all
    nine words, and differs from the pose at T. A float running product reproduces a key's
    polynomial matrix in all nine words only by coincidence. It is not enough for the poses at T
    and T + 1 to differ: that needs only an executable that forms W with other roundings than its
    evaluation does, which the documents allow (executable-abi.md §8.2)."""
    for T, key, words in holds:
        end, held = seen[T].rot9, seen[T + 1].rot9
        own = tuple(words[4 * c + r] for c in range(3) for r in range(3))
        tally.count("running-matrix holds")
        if same_pose(held, end):
            tally.count("running-matrix holds continuous")
        elif same_pose(held, own):
            rec = tr.record
            tally.fail(record(ctx, "controllers", "running matrix", list(end), list(held), object=rec.object,
                              track=rec.index, time=T + 1,
                              context={"keys": keys_around(rec.rot, T), "held_key": key, "turn_ends_at": T,
                                       "why": "the pose after the held key's turn is that key's own "
                                              "sceVu0RotMatrix, not the running matrix the turn reached "
                                              "(animation-semantics.md §3.6)"}))


def compare_localtp(got, want, rec, t, ctx, tally, check="controllers", count=True, **kw):
    """The coord's localtp (+0x88), which SetAnmCtrlWork writes, is the reference's transparency."""
    if count:
        tally.count("localtp cases")
    if got != want:
        tally.fail(record(ctx, check, "localtp", want, got, object=rec.object, track=rec.index, time=t,
                          context={"coord_offset": f"+0x{mm.COORD_LOCALTP:X}"}, **kw))


def field_value(field, scratch=None, pose=None):
    """A float for a compared field ("position.x", "scale.z", "transparency", "rotation[r][c]")."""
    if field.startswith(("position.", "scale.")):
        k = AXES.index(field[-1])
        src = (scratch.pos if scratch else pose.pos) if field[0] == "p" else (scratch.scale if scratch else pose.scale)
        return f32(src[k])
    if field == "transparency":
        return f32(scratch.alpha if scratch else pose.alpha)
    r, c = int(field[9]), int(field[12])
    if scratch:
        return f32(scratch.rot[4 * c + r])
    return float(pose.rot_matrix[r][c])


def attach_series(m, anim, tr, seen, points=64):
    """The reference channel over [0, last] and the game's values at the sampled times (for a plot)."""
    try:
        hi = max(1, anim.last)
        ts = sorted({round(i * hi / (points - 1)) for i in range(points)} | {t for t, _ in seen})
        m["series"] = {"label": m["field"], "t": ts,
                       "ref": [field_value(m["field"], pose=anim.pose(tr, min(t, anim.last))) for t in ts],
                       "game_t": [t for t, _ in seen],
                       "game": [field_value(m["field"], scratch=s) for _, s in seen]}
    except (ValueError, IndexError):
        pass


def check_multistep(game, work, ts, single, tr, ctx, tally):
    """checks.md §2.3: the deltas of ts land bit-identically where one step to ts[-1] does.

    DECISION: the single-step result is the last sampled time's (reset, then one step of ts[-1]),
    which is exactly §2.3 step 2, so it is not recomputed.
    """
    game.reset_work(work)
    game.set_work_each(work, [b - a for a, b in zip([0] + list(ts), ts)])
    multi = game.scratch()
    tally.count("multistep checks")
    fields = [("position", multi.pos, single.pos), ("scale", multi.scale, single.scale),
              ("transparency", (multi.alpha,), (single.alpha,))]
    if tr.record.rot.kind:
        fields.append(("rotation", multi.rot9, single.rot9))
    for name, got, exp in fields:
        if got != exp:
            tally.fail(record(ctx, "multistep", name, list(exp), list(got), object=tr.record.object,
                              track=tr.record.index, time=ts[-1],
                              context={"deltas": [b - a for a, b in zip([0] + ts, ts)]}))


def replay_times(case, times, track):
    """One track evaluated at an explicit time list (checks.md §2.1 step 4.4 and §2.3)."""
    game, anim, ctx, tally = case.game, case.anim, case.ctx, case.tally
    entries = game.load(case.ch.data)
    tr = next((t for t in anim.tracks if t.record.index == track), None)
    if tr is None:
        raise HarnessError(f"track {track}: no such object track in {case.ch.id} (its tracks: "
                           f"{', '.join(str(t.record.index) for t in anim.tracks[:20]) or 'none'})")
    entry = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT).get(track)
    if entry is None:
        return
    game.new_anm()
    work, _ = game.work(entry.ctrl)
    ts = sorted(set(times))
    single = None
    for t in ts:
        game.reset_work(work)
        single = game.step(work, t)
        T = min(t, anim.last)
        compare_pose(single, anim.pose(tr, T), tr, t, T, ctx, tally)
    if ts:
        check_multistep(game, work, ts, single, tr, ctx, tally)


def replayed_times(m):
    """The times a controller (one time) or multistep (its deltas' times) mismatch is replayed at."""
    c = m.get("context") or {}
    if m.get("track") is None or m.get("time") is None:
        return None
    times = [m["time"]] if m["check"] == "controllers" else sorted(set(c.get("deltas") and _times(c["deltas"]) or [m["time"]]))
    return times, {"track": m["track"]}


def _times(deltas):
    out, t = [], 0
    for d in deltas:
        t += d
        out.append(t)
    return out


# checks.md §2.3: the multi-step comparison runs inside this check; selecting "multistep" selects it,
# and its mismatches (check "multistep") are replayed with it.
CHECK = Check("controllers", order=0, kinds=("object",), applies=applies, run=run, aliases=("multistep",),
              replay=Replay("times", replayed_times, replay_times, args=("track",)),
              traced_call="SetAnmCtrlWork")
