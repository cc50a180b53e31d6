"""Controller checks: object records at sampled times and multi-step consistency (checks.md §2.1,
§2.3), and the direct light records SetAnmCtrlWork evaluates into their light (docs/lights.md)."""
import functools
from typing import NamedTuple, Sequence

import numpy as np

from corpus.quirks import held_rotation_keys
from ground.fields import Field
from harness.compare.bits import f32, f32_array, f32_bits, zero_exponent
from harness.compare.tally import ROTATION_SAMPLES_KEPT
from harness.driver.game import Scratch
from harness.compare.keys import keys_around, sample_times, track_quirks
from corpus.lights import DIRECT_FIELDS, KIND_DIRECT_LIGHT
from harness.compare.mismatch import record
from harness.compare import tolerance
from harness import HarnessError
from harness.checks import Check, QueryKind, Replay, answered
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm
from reference import serve




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
    the game's words of each light query against the reference's answer (compare_light)."""
    for q in light_queries(game, anim, entries, prof, rng):
        answered(compare_light, q, serve.light(anim, q), ctx, tally, anim)


def light_queries(game, anim, entries, prof, r):
    """docs/lights.md: per direct light its times (drawn after every track's, as the check draws
    them), the words of its present channels to compare (`fields`, indices into the 15 of
    LIGHT_FIELDS), and the game's 15 words after each time: the light queries (docs/truth.md §3)."""
    paired = entries_by_record([lt.record for lt in anim.lights], entries, mm.KIND_DIRECT_LIGHT)
    out = []
    for lt in anim.lights:
        rec = lt.record
        q = {"kind": "light", "light": rec.index, "object": rec.object}
        entry = paired.get(rec.index)
        if entry is None:
            q.update(times=[], fields=[], game={"compiled": False})
            out.append(q)
            continue
        ts = light_times(anim, lt, r, prof)
        work, light = game.light_work(entry.ctrl)
        words = game.light_times(work, light, ts)
        present = [j for j, w in enumerate(anim.light_words(lt, 0)) if w is not None]
        q.update(times=[int(t) for t in ts], fields=present, ledger=[["direct light records", rec.index, 1]],
                 game={"words": words.tolist()})
        out.append(q)
    return out


def compare_light(q, a, ctx, tally, anim):
    """The game's 15 words of light query `q` at each time against the answer `a` (the words of
    the present channels, `fields`): a present channel's words equal the answer's, an absent
    channel's keep the harness's poison (SetAnmCtrlWork leaves them as they were; the game
    against itself, needing no answer). False when the game compiled no controller for it."""
    g = q["game"]
    if g.get("compiled") is False:
        tally.count("no light controller")
        tally.fail(record(ctx, "controllers", "light controller", "compiled", "none", object=q.get("object"),
                          floats=False, context={"light": q.get("light"), "why": "no table entry with a "
                                                 "kind-0x0605 ctrl for this direct light record"}))
        return False
    rec = anim.lights[q["light"]].record
    times, fields = q["times"], list(q["fields"])
    tally.count("direct light cases", len(times))
    G = np.asarray(g["words"], dtype=np.int64).astype(np.uint32).reshape(len(times), len(LIGHT_FIELDS))
    want = np.full(G.shape, mm.POISON, dtype=np.uint32)
    want[:, fields] = np.asarray(a["words"], dtype=np.int64).astype(np.uint32).reshape(len(times), len(fields))
    for k, j in zip(*np.nonzero(G != want)):
        t = times[k]
        tally.fail(light_mismatch(ctx, rec, int(j), int(want[k, j]), int(G[k, j]), t, anim.clamp(t)))
    return True


def light_mismatch(ctx, rec, j, expected, got, t, T, check="controllers"):
    """One word j of a direct light (LIGHT_FIELDS) that differs, as a mismatch record. DECISION: it
    names no track (a replay of a controllers mismatch replays an object track): the light's
    record index is in its context."""
    channel = getattr(rec, LIGHT_CHANNEL[j])
    return record(ctx, check, light_field(j), expected, got, object=rec.object, time=t,
                  context={"light": rec.index, "offset": f"+0x{mm.LIGHT_WORDS[j]:X}",
                           "absent": channel.kind == 0, "keys": keys_around(channel, T), "pose_time": T})


def check_tracks(game, anim, entries, ctx, tally, prof, rng, compare=None):
    """checks.md §2.1 and §2.3 for the chosen tracks of one loaded chunk: each track's controller
    and multistep queries (track_queries) answered by reference/serve.py's answer functions in
    process and judged by compare_controller and compare_multistep, a model's comparisons.
    compare(anim, tr, q, a, ctx, tally) compares one track's sampled times (default compare_times,
    all at once)."""
    judge(track_queries_of(game, anim, entries, prof, rng), anim, ctx, tally, compare)


def judge(qs, anim, ctx, tally, compare=None):
    """Controller and multistep queries compared as a model's answers are: a controller query
    against reference/serve.py's controller answer in process (a keyed rotation's R also in
    double), a multistep query the game against itself.

    DECISION: in process a multistep query is compared with no answer: its comparison reads
    none (compare_multistep), and serve.multistep's pose would be computed to be thrown away."""
    compares = {"controller": functools.partial(compare_controller, times=compare or compare_times),
                "multistep": compare_multistep}
    answer = {"controller": functools.partial(serve.controller, double=True), "multistep": lambda *_: {}}
    for q in qs:
        answered(compares[q["kind"]], q, answer[q["kind"]](anim, q), ctx, tally, anim)


def queries(game, ch, anim, prof, r):
    """The check's queries (docs/truth.md §3, kinds "controller", "multistep" and "light"): per
    chosen track its controller query at the sampled times and the multistep query of their
    deltas, then the direct lights', drawn as the check draws them; the words as JSON lists."""
    entries = game.load(ch.data)
    out = [listed(q) for q in track_queries_of(game, anim, entries, prof, r)]
    return out + light_queries(game, anim, entries, prof, r)


def track_queries_of(game, anim, entries, prof, r):
    """The controller and multistep queries of the chosen tracks of the loaded chunk's entries
    (checks.md §2.1 step 4), the game's words as numpy arrays."""
    tracks = chosen_tracks(anim, prof, r)
    # pair over ALL records: the k-th record of an object is counted in file order, sample or not
    paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
    game.new_anm()
    out = []
    for tr in tracks:
        entry = paired.get(tr.record.index)
        if entry is None:
            # the game compiled no controller for this record: no times are drawn
            out.append(uncompiled(tr))
            continue
        out += track_queries(game, anim, tr, entry, *track_times(anim, tr, r, prof))
    return out


def uncompiled(tr):
    """The controller query of a record the game compiled no controller for (a mismatch)."""
    rec = tr.record
    return {"kind": "controller", "track": rec.index, "object": rec.object, "rotation": rotation_of(tr),
            "times": [], "game": {"compiled": False}}


def track_queries(game, anim, tr, entry, ts, holds=()):
    """The controller query of one track at times ts (the scratch words after each) and the
    multistep query of the same times' deltas, on the loaded chunk's table entry. holds: the
    track's held keys [(T, key, its own matrix words)], whose poses at T and T + 1 (both in ts)
    the comparison checks against each other (checks.md §2.1, the running matrix). A keyed
    rotation's `bound` holds passed(T) at each time, from the chunk's keys (checks.md §3). The
    multistep query's `single` is the game's pose after one step to the last time (checks.md
    §2.3 step 2: the controller query's last words). The words are numpy arrays (listed())."""
    rec = tr.record
    work, coord = game.work(entry.ctrl)
    words, localtp = game.step_times(work, coord, ts)
    q = {"kind": "controller", "track": rec.index, "object": rec.object, "rotation": rotation_of(tr),
         "times": [int(t) for t in ts], "ledger": [["object records", rec.index, 1]],
         "holds": [[int(T), int(k), [int(words[4 * c + r]) for c in range(3) for r in range(3)]]
                   for T, k, words in holds],
         "game": {"pos": words[:, 0:3], "scale": words[:, SCALE_WORDS], "rot": words[:, 36:52][:, NINE],
                  "alpha": words[:, 52], "localtp": localtp}}
    if tr.keyed_rotation:
        q["bound"] = {"passed": [int(p) for p in anim.passed_many(tr, ts)]}
    if not len(ts):
        return [q]
    deltas = [b - a for a, b in zip([0] + list(ts), ts)]
    game.reset_work(work)
    game.set_work_each(work, deltas)
    multi = game.scratch()
    single = scratch_of(words[-1])
    m = {"kind": "multistep", "track": rec.index, "object": rec.object, "rotation": rotation_of(tr),
         "deltas": deltas, "game": {"pos": list(multi.pos), "scale": list(multi.scale),
                                    "rot": list(multi.rot9), "alpha": multi.alpha,
                                    "single": {"pos": list(single.pos), "scale": list(single.scale),
                                               "rot": list(single.rot9), "alpha": single.alpha}}}
    return [q, m]


def listed(q):
    """Query q with the game's words as JSON lists (a truth file's, a model's)."""
    g = q["game"]
    return dict(q, game={k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in g.items()})


def replay_queries(game, ch, anim, times, _exact_local, track):
    """The controller and multistep queries of track `track` at an explicit time list (a replay's,
    a shrinking candidate's: what a model is asked), the words as JSON lists. HarnessError: no such
    track."""
    entries = game.load(ch.data)
    tr = track_of(anim, track)
    if tr is None:
        raise HarnessError(f"track {track}: no such object track in {ch.id}")
    entry = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT).get(track)
    game.new_anm()
    return [uncompiled(tr)] if entry is None else [listed(q) for q in track_queries(game, anim, tr, entry,
                                                                                     sorted(set(times)))]


def compare_controller(q, a, ctx, tally, anim, times=None):
    """The game's words of controller query `q` against the answer `a` (checks.md §2.1): the
    sampled times (times(anim, tr, q, a, ctx, tally), default compare_times), then the running
    matrix after each held key (the game against itself), and the first mismatch of the track
    carries the reference's series for a plot (attach_series). False when the game compiled no
    controller for the record (a mismatch)."""
    g = q["game"]
    if g.get("compiled") is False:
        # DECISION (checks.md §2.1 step 4.1 counts and skips): the reference compiles a
        # controller for every object record, so a game that compiled none for it is a
        # mismatch, not a case to skip; an executable whose ConvLCNum2ALCNum does nothing
        # must not pass.
        tally.count("no controller")
        tally.fail(record(ctx, "controllers", "controller", "compiled", "none", object=q.get("object"),
                          track=q.get("track"), floats=False,
                          context={"why": "no table entry with a kind-0x0102 ctrl for this object record"}))
        return False
    tr = track_of(anim, q["track"])
    if tr is None:
        raise KeyError(f"track {q['track']}: no such object track in the chunk")
    count_track(anim, tr, tally)
    before = len(tally.mismatches)
    (times or compare_times)(anim, tr, q, a, ctx, tally)
    ts, rot = q["times"], _u32(g["rot"])
    holds = q.get("holds") or ()
    if holds:
        at = {t: k for k, t in enumerate(ts)}
        check_running_matrix({t: tuple(int(x) for x in rot[at[t]]) for T, _, _ in holds for t in (T, T + 1)},
                             holds, tr, ctx, tally)
    if len(tally.mismatches) > before:
        attach_series(tally.mismatches[before], anim, tr, list(zip(ts, game_poses(g))))
    return True


def compare_multistep(q, _a, ctx, tally, _anim):
    """checks.md §2.3: the game's pose after the deltas of ts in turn (step 1) is bit-identical to
    its pose after one step to the last time (step 2, the query's `single`): position, scale,
    transparency, and the rotation's words (keyed bits included) when the record has one.

    DECISION: the game against itself, as checks.md §2.3 says, whoever answers: the answer (the
    pose at the deltas' sum) is read for its shape only. The controller query judges the game's
    pose at that time (ts[-1]) against the answer already, so an answer here adds no comparison.
    DECISION: the single-step result is the last sampled time's (reset, then one step of ts[-1]),
    which is exactly §2.3 step 2, so it is not recomputed."""
    g = q["game"]
    one = g["single"]
    tally.count("multistep checks")
    fields = [("position", g["pos"], one["pos"]), ("scale", g["scale"], one["scale"]),
              ("transparency", [g["alpha"]], [one["alpha"]])]
    if q["rotation"] != "none":
        fields.append(("rotation", g["rot"], one["rot"]))
    deltas = [int(d) for d in q["deltas"]]
    for name, got, exp in fields:
        got, exp = [int(x) for x in got], [int(x) for x in exp]
        if got != exp:
            tally.fail(record(ctx, "multistep", name, exp, got, object=q.get("object"), track=q.get("track"),
                              time=sum(deltas), context={"deltas": deltas}))
    return True


def _u32(v):
    return np.asarray(v, dtype=np.int64).astype(np.uint32)


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


def compare_times(anim, tr, q, a, ctx, tally):
    """checks.md §2.1 at every time of controller query `q` at once against the answer `a` (the
    reference evaluates the record at all of them in one call, Animation.poses, in process):
    pose_failures compares over arrays; only the failing times build records (report_failures).
    A keyed rotation's bound is the query's passed(T); its statistics measure the game's 3x3
    from the answer's double R when the answer gives one (in process, `rot_r`), else from its
    f32 words (docs/truth.md §5)."""
    g, ts = q["game"], q["times"]
    n = len(ts)
    rotation = q["rotation"]
    T = np.minimum(np.asarray(ts, dtype=np.int64) & 0xFFFFFFFF, anim.last)
    passed = np.asarray(q["bound"]["passed"] if rotation == "keyed" else np.zeros(n), dtype=np.int64)
    count_times(tr, T, passed, tally)
    tally.count("localtp cases", n)
    got = {c: _u32(g[c]) for c in ("pos", "scale", "alpha", "rot", "localtp")}
    want = {c: _u32(a[c]) for c in ("pos", "scale", "alpha", "rot", "localtp")}
    want_r = None
    if rotation == "keyed":
        if a.get("rot_r") is not None:
            want_r, want["rot"] = np.asarray(a["rot_r"], dtype=np.float64), None
        else:
            want_r = f32_array(want["rot"])
    failures, keyed = pose_failures(got, want, rotation, want_r, passed, localtp=True)
    if keyed is not None:
        keyed_samples(tally, ctx, tr.record, ts, *keyed, passed)
    report_failures(failures, tr, ts, T, passed, ctx, tally)


class GamePose(NamedTuple):
    """The game's words of one time of a controller query (field_value reads it as a Scratch)."""
    pos: Sequence[int]
    scale: Sequence[int]
    rot9: Sequence[int]
    alpha: int


def game_poses(g):
    """The game's poses of a controller query's words `g`, one per time."""
    return [GamePose(*row) for row in zip(*(_u32(g[c]).tolist() for c in ("pos", "scale", "rot", "alpha")))]


def count_track(anim, tr, tally):
    """The coverage of one track the game compiled a controller for (its channels' kinds and keys)."""
    for k, v in track_quirks(tr.record, anim.frames).items():
        tally.quirk(k, v)


def track_of(anim, index):
    """The object track of record `index`, or None."""
    return next((t for t in anim.tracks if t.record.index == index), None)


def count_times(tr, T, passed, tally):
    """The cases of one track at its pose times T (each clamped to last, Animation.clamp) with
    passed(T) of a keyed rotation: the counters and the rotations' coverage, in process and from a
    model's answers alike."""
    n = len(T)
    tally.count("cases", n)
    rotation = rotation_of(tr)
    if rotation == "exact":
        tally.count("single-value rotations", n)
        tally.quirk("single_value_rotations", n)
    elif rotation == "keyed":
        tally.count("keyed rotations", n)
        tally.quirk("final_hold_creep", int((np.asarray(T, dtype=np.int64) > max(f for f, _ in tr.record.rot.keys)
                                             * 256).sum()))
        tally.quirk("keyed_keys_passed", int(np.sum(passed)))


def rotation_of(tr):
    """How a track's 3x3 is compared: "none" (no rotation channel), "exact" or "keyed" (within
    checks.md §3's bound)."""
    if not tr.record.rot.kind:
        return "none"
    return "keyed" if tr.keyed_rotation else "exact"


def pose_failures(got, want, rotation, want_r=None, passed=None, localtp=False):
    """The controller comparison of checks.md §2.1, one track at n times at once (compare_times:
    the reference's answers in process and a model's alike). got, want: "pos", "scale" (n, 3),
    "alpha" (n,), "rot" (n, 9: word 4c+r at 3c + r) and "localtp" (n,) u32 words; rotation:
    "none" (not compared), "exact" (the nine words equal) or "keyed": the game's nine elements
    within checks.md §3's bound (tolerance.compare) of want_r, the reference's R in double (n, 9),
    at the game's side's keys passed `passed` (n,); want["rot"] may then be absent (the expected
    word shown is want_r's nearest f32). localtp: whether the localtp words are compared.

    Returns (failures, keyed): the failures in time order, each (k, field, channel, expected, got,
    bound), per time the position and scale axis by axis, the transparency, the rotation (each
    differing word, or a keyed 3x3's element furthest over its bound), the localtp; channel the
    record's ("pos", "scale", "alpha", "rot"; None for the localtp), bound a keyed element's
    {"deviation", "tolerance"} (else None). keyed: (d, bound) per time for a keyed rotation.

    DECISION: one order for both pipelines, the in-process check's (time by time); a model's
    controller records had come channel by channel (every position, then every scale...). The
    records are the same; only a model run's order changed."""
    got = {c: np.asarray(v) for c, v in got.items()}
    want = {c: v if v is None else np.asarray(v) for c, v in want.items()}
    bad = {c: got[c] != want[c] for c in ("pos", "scale", "alpha")}
    any_bad = bad["pos"].any(axis=1) | bad["scale"].any(axis=1) | bad["alpha"]
    keyed = None
    if rotation == "exact":
        bad["rot"] = got["rot"] != want["rot"]
        any_bad |= bad["rot"].any(axis=1)
    elif rotation == "keyed":
        w, d, bound, ok = tolerance.compare(f32_array(got["rot"]), want_r, passed)
        keyed = (d, bound)
        any_bad |= ~ok
    if localtp:
        bad["localtp"] = got["localtp"] != want["localtp"]
        any_bad |= bad["localtp"]
    out = []
    for k in np.flatnonzero(any_bad):
        def word(c, field, *j, channel=None, bound=None):
            e = f32_bits(float(want_r[k, j[0]])) if want.get(c) is None else int(want[c][(k, *j)])
            out.append((int(k), field, channel, e, int(got[c][(k, *j)]), bound))
        for i in range(3):
            if bad["pos"][k, i]:
                word("pos", Field.axis("position", i), i, channel="pos")
            if bad["scale"][k, i]:
                word("scale", Field.axis("scale", i), i, channel="scale")
        if bad["alpha"][k]:
            word("alpha", "transparency", channel="alpha")
        if rotation == "exact":
            for j in np.flatnonzero(bad["rot"][k]):
                word("rot", rotation_field(j), int(j), channel="rot")
        elif rotation == "keyed" and not ok[k]:
            word("rot", rotation_field(w[k]), int(w[k]), channel="rot",
                 bound={"deviation": float(d[k]), "tolerance": float(bound[k])})
        if localtp and bad["localtp"][k]:
            word("localtp", "localtp")
    return out, keyed


def rotation_field(j):
    """The field of element j (c-major: 3c + r) of the scratch 3x3."""
    c, r = divmod(int(j), 3)
    return Field.element("rotation", r, c)


def light_field(j):
    """The field of word j of a direct light (LIGHT_FIELDS)."""
    return Field("light", (), LIGHT_FIELDS[j])


def report_failures(failures, tr, ts, T, passed, ctx, tally, check="controllers"):
    """pose_failures' failures as the check's records: a channel's keys around the pose time T[k],
    a keyed element's keys passed, the localtp's coord offset."""
    rec = tr.record
    for k, field, channel, e, g, bound in failures:
        if channel is None:
            compare_localtp(g, e, rec, ts[k], ctx, tally, check, count=False)
            continue
        c = {"keys": keys_around(getattr(rec, channel), int(T[k])), "pose_time": int(T[k])}
        if bound is not None:
            c["passed"] = int(passed[k])
        tally.fail(record(ctx, check, field, e, g, object=rec.object, track=rec.index, time=ts[k],
                          context=c, **(bound or {})))


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
    """One sampled time (pose_failures of one time): position, scale, transparency exactly; rotation
    by its kind (checks.md §2.1). count=False: the case, its rotation counts and its keyed
    deviation were counted already."""
    rec = tr.record
    rotation = rotation_of(tr)
    one = {"pos": [got.pos], "scale": [got.scale], "alpha": [got.alpha], "rot": [got.rot9]}
    want = {"pos": [pose.pos], "scale": [pose.scale], "alpha": [pose.alpha],
            "rot": [pose.rot] if rotation == "exact" else None}
    want_r = tolerance.rs_elements(pose.rot_matrix)[None] if rotation == "keyed" else None
    failures, keyed = pose_failures(one, want, rotation, want_r, [pose.passed])
    if count:
        count_times(tr, [T], [pose.passed], tally)
        if rotation == "keyed":
            tally.keyed(float(keyed[0][0]), float(keyed[1][0]), ctx.chunk, rec.index, t, check, pose.passed)
    report_failures(failures, tr, [t], [T], [pose.passed], ctx, tally, check)


def same_pose(a, b):
    """Word for word equal, a zero exponent reading as +0 (EE float has no denormals; ±0 are one value)."""
    return all((0 if zero_exponent(x) else x) == (0 if zero_exponent(y) else y) for x, y in zip(a, b))


def check_running_matrix(seen, holds, tr, ctx, tally):
    """seen: {time: the game's 3x3 words (c-major, Scratch.rot9)}; holds: [(T, key, the key's own
    3x3 words, c-major)]. animation-semantics.md §3.6: the pose is the running matrix W. A held key after a turn
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
    for T, key, own in holds:
        end, held = seen[T], seen[T + 1]
        tally.count("running-matrix holds")
        if same_pose(held, end):
            tally.count("running-matrix holds continuous")
        elif same_pose(held, own):
            rec = tr.record
            tally.fail(record(ctx, "controllers", "running matrix", list(end), list(held), object=rec.object,
                              track=rec.index, time=T + 1,
                              context={"keys": keys_around(rec.rot, T), "held_key": int(key), "turn_ends_at": int(T),
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
    """A float for a compared field ("position.x", "scale.z", "transparency", "rotation[r][c]") of
    the game's words (a Scratch or a GamePose) or of the reference's pose."""
    f = Field.parse(field)
    if f.name in ("position", "scale") and f.axis_index is not None:
        src = scratch or pose
        return f32((src.pos if f.name == "position" else src.scale)[f.axis_index])
    if f.name == "transparency":
        return f32(scratch.alpha if scratch else pose.alpha)
    r, c = f.index
    if scratch:
        return f32(scratch.rot9[3 * c + r])
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


def replay_times(case, times, track):
    """One track evaluated at an explicit time list (checks.md §2.1 step 4.4 and §2.3)."""
    game, anim, ctx, tally = case.game, case.anim, case.ctx, case.tally
    entries = game.load(case.ch.data)
    tr = track_of(anim, track)
    if tr is None:
        raise HarnessError(f"track {track}: no such object track in {case.ch.id} (its tracks: "
                           f"{', '.join(str(t.record.index) for t in anim.tracks[:20]) or 'none'})")
    entry = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT).get(track)
    if entry is None:
        return
    game.new_anm()
    judge(track_queries(game, anim, tr, entry, sorted(set(times))), anim, ctx, tally)


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
              replay=Replay("times", replayed_times, replay_times, args=("track",), queries=replay_queries),
              traced_call="SetAnmCtrlWork", queries=queries,
              query_kinds=(QueryKind("controller", compare_controller, serve.controller),
                           QueryKind("multistep", compare_multistep, serve.multistep),
                           QueryKind("light", compare_light, serve.light)))
