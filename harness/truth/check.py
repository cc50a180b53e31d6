"""A model's answers against the game's words of a truth file, as mismatch records (interfaces.md §4).

The comparison is the checks' own: raw u32 words equal, except a keyed rotation's 3x3, which is
within checks.md §3's bound (docs/tolerances.md: per element in the playback, never below one
ulp of the expected element). The model is the expected side ("reference" in a printed
mismatch), the game the got side, as in every other record. Each function takes one query (with
the game's words under "game") and the model's answer, and records into a Tally.

DECISION: where a check stops at the first frame counter that differs (playback, notes, F_Obj),
the comparison of that query stops there too: after it the two sides play different times.
What a check counts of the steps and cases it compared (their kinds, the restarts, the coverage
quirks) is counted by the check's own functions from the chunk's parse (`anim`), as in process, so
a model's run and the in-process run count alike.
DECISION: a bound is never taken from the answer being judged. A 3x3's keys passed and scale
come from the query's `bound` (the export's, from the chunk's own records at the pose time: the
values the in-process checks bound with); a count, a skip or a stop comes from the query or from a
comparison of the two sides, never from one answer's word alone.
"""
from __future__ import annotations

import numpy as np

from harness.checks import answered
from harness.checks import controllers as c_controllers
from harness.checks.controllers import same_pose
from harness.checks import fobj as c_fobj
from harness.checks import materials as c_materials
from harness.checks import morph as c_morph
from harness.checks import notes as c_notes
from harness.checks import playback as c_playback
from ground import vocabulary
from harness.compare import tolerance
from harness.compare.bits import f32_array
from harness.compare.mismatch import CaseContext, record
from corpus.names import shell_word



class TruthContext(CaseContext):
    """A case of a truth file: its repro is the check-truth command narrowed to the chunk and check."""

    def __init__(self, chunk, seed, profile, float_model, file, model=None, image=None, data=None, disc=None,
                 defaults=None):
        super().__init__(chunk, seed, profile, float_model, image, data, disc, defaults=defaults)
        self.file, self.model = file, model

    def repro(self, check=None, time=None):  # noqa: ARG002  (CaseContext.repro's signature: record() passes time=)
        parts = [".venv/bin/python", "-m", "harness", "check-truth", shell_word(self.file),
                 "--case", shell_word(self.chunk)]
        if check:
            parts += ["--check", shell_word(check)]
        if self.model:
            parts += ["--model", shell_word(self.model)]
        for flag, key, val in (("--image", "IMAGE", self.image), ("--data", "DATA", self.data),
                               ("--disc", "DISC", self.disc)):
            if val and val != self.defaults.get(key):
                parts += [flag, shell_word(val)]
        return " ".join(parts)


def _u32(v):
    return np.asarray(v, dtype=np.int64).astype(np.uint32)


# -- controllers, multistep (checks.md §2.1, §2.3) --------------------------------------------------
def controller(q, a, ctx, tally, anim):
    g = q["game"]
    obj, track = q.get("object"), q.get("track")
    if g.get("compiled") is False:
        tally.count("no controller")
        tally.fail(record(ctx, "controllers", "controller", "compiled", "none", object=obj, track=track,
                          floats=False, context={"why": "no table entry with a kind-0x0102 ctrl for this object record"}))
        return False
    times = q["times"]
    rot = q.get("rotation")
    tr = _track(anim, q)
    c_controllers.count_track(anim, tr, tally)
    c_controllers.count_times(tr, [anim.clamp(t) for t in times],
                              q["bound"]["passed"] if rot == "keyed" else [0] * len(times), tally)
    tally.count("localtp cases", len(times))
    got = {c: _u32(g[c]) for c in ("pos", "scale", "alpha", "rot", "localtp")}
    want = {c: _u32(a[c]) for c in ("pos", "scale", "alpha", "rot", "localtp")}
    passed = np.asarray(q["bound"]["passed"], dtype=np.int64) if rot == "keyed" else None
    want_r = f32_array(want["rot"]) if rot == "keyed" else None
    failures, keyed = c_controllers.pose_failures(got, want, rot, want_r, passed, localtp=True)
    if keyed is not None:
        c_controllers.keyed_samples(tally, ctx, tr.record, times, *keyed, passed)
    for k, field, _, e, v, bound in failures:
        tally.fail(record(ctx, "controllers", field, e, v, object=obj, track=track, time=times[k],
                          context={"passed": int(passed[k])} if bound else None, **(bound or {})))
    running_matrix(q, ctx, tally)
    return True


def _track(anim, q):
    tr = c_controllers.track_of(anim, q["track"])
    if tr is None:
        raise KeyError(f"track {q['track']}: no such object track in the chunk")
    return tr


def running_matrix(q, ctx, tally):
    """The game against itself (checks.md §2.1, controllers.check_running_matrix): after a held
    key's turn the pose is the running matrix the turn reached (the pose at T), never the key's
    own matrix. Needs no model: the words are the game's at T and T + 1."""
    at = {t: k for k, t in enumerate(q["times"])}
    rot = q["game"]["rot"]
    for T, key, own in q.get("holds") or ():
        if T not in at or T + 1 not in at:
            continue
        end, held = [int(x) for x in rot[at[T]]], [int(x) for x in rot[at[T + 1]]]
        tally.count("running-matrix holds")
        if same_pose(held, end):
            tally.count("running-matrix holds continuous")
        elif same_pose(held, own):
            tally.fail(record(ctx, "controllers", "running matrix", end, held, object=q.get("object"),
                              track=q.get("track"), time=T + 1,
                              context={"held_key": key, "turn_ends_at": T,
                                       "why": "the pose after the held key's turn is that key's own "
                                              "sceVu0RotMatrix, not the running matrix the turn reached "
                                              "(animation-semantics.md §3.6)"}))


def multistep(q, a, ctx, tally, _anim):
    g = q["game"]
    tally.count("multistep checks")
    t = sum(q["deltas"])
    ints = lambda v: [int(x) for x in np.asarray(v).ravel()]
    fields = [("position", g["pos"], a["pos"]), ("scale", g["scale"], a["scale"]),
              ("transparency", [g["alpha"]], [a["alpha"]])]
    rot = q.get("rotation")
    if rot == "exact":
        fields.append(("rotation", g["rot"], a["rot"]))
    for name, got, exp in fields:
        got, exp = ints(got), ints(exp)
        if got != exp:
            tally.fail(record(ctx, "multistep", name, exp, got, object=q.get("object"),
                              track=q.get("track"), time=t, context={"deltas": q["deltas"]}))
    if rot == "keyed":
        passed = int(q["bound"]["passed"])
        _, d, bound, ok = tolerance.compare(f32_array(_u32(g["rot"])), f32_array(_u32(a["rot"])), passed)
        if not ok:
            tally.fail(record(ctx, "multistep", "rotation", ints(a["rot"]), ints(g["rot"]), object=q.get("object"),
                              track=q.get("track"), time=t, deviation=float(d), tolerance=float(bound),
                              context={"deltas": q["deltas"], "passed": passed}))
    return True


def objects(q, a, ctx, tally, _anim):
    """The model's view of the anm's objects against the game's, as the objects check compares."""
    from harness.checks import objects as c_objects
    from corpus.objects import Scene
    ok = c_objects.compare_views(a, q["game"], lambda field, e, g, position=None, **kw: c_objects.compare_fail(
        ctx, tally, a, field, e, g, position, **kw))
    c_objects.count(Scene.from_json(q["scene"]), q["game"], tally, ok)
    return ok


def world(q, a, ctx, tally, _anim):
    """The model's Draws of one playback against the game's, as the world check compares them."""
    from harness.checks import world as c_world
    want = {"forward": a["forward"], "pose_at": a["pose_at"], "order": [tuple(x) for x in a["order"]],
            "world": a["world"], "alpha": a["alpha"], "bounds": q["bounds"]}
    tally.count(f"world playbacks at {q['speed']}")
    calls = [[(tuple(i), tuple(w), al) for i, w, al in step] for step in q["game"]["calls"]]
    return c_world.compare_series(ctx, tally, q["speed"], want, q["game"]["forward"], calls)


COMPARE = {"controller": controller, "multistep": multistep, "light": c_controllers.compare_light, "material": c_materials.compare, "playback": c_playback.compare,
           "notes": c_notes.compare, "fobj": c_fobj.compare, "modify": c_morph.compare, "objects": objects, "world": world}
if set(COMPARE) != set(vocabulary.QUERY_KINDS):
    raise ImportError(f"harness/truth/check.py compares the query kinds {sorted(COMPARE)}, not ground/vocabulary.py's "
                      f"QUERY_KINDS {sorted(vocabulary.QUERY_KINDS)}")


def compare(q, a, ctx, tally, anim):
    """Compare the answer `a` to query `q` of the chunk whose parse is `anim` by its kind's
    comparison (the chunk's parse says what the check counts of what it compared) and mark the
    records it covers in the ledger when it was compared to its end (checks.answered): the ledger
    of a model's run is the checks' (harness/compare/ledger.py)."""
    return answered(COMPARE[q["kind"]], q, a, ctx, tally, anim)


CHECK_OF = vocabulary.QUERY_KINDS         # query kind -> the check whose query it is
