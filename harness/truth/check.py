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

from harness import checks
from harness.checks import answered
from harness.checks import playback as c_playback
from harness.checks.playback import coord_field
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


# -- the steps of playback, notes and F_Obj ----------------------------------------------------------
def _forwards(check, G, A, ctx, tally, where, pair=False):
    """The index of the first step whose frame counter or return value differs (recorded), or the
    number of steps when none does. pair: one record of [time, return value] (the F_Obj check's)."""
    before = 0
    for i, (gf, af) in enumerate(zip(G, A)):
        tally.count(f"{check} steps" if check != "playback" else "steps")
        if list(gf) != list(af):
            ctx_ = dict(where(i), time_before=before)
            if pair:
                tally.fail(record(ctx, check, "frame counter", list(af), list(gf), step=i, time=before,
                                  floats=False, context=ctx_))
            else:
                for field, e, v in (("frame counter", af[0], gf[0]), ("return value", af[1], gf[1])):
                    if e != v:
                        tally.fail(record(ctx, check, field, e, v, step=i, time=before, floats=False, context=ctx_))
            return i
        before = af[0]
    return len(G)


def playback(q, a, ctx, tally, anim):
    g = q["game"]
    for idx in g.get("unposed") or ():
        tally.fail(record(ctx, "playback", "instance", "compiled", "none", track=idx, floats=False,
                          context={"why": f"object record {idx} has no table entry with a kind-0x0102 ctrl, "
                                          f"so no instance is posed"}))
    for obj in g.get("morphers_without_instance") or ():
        tally.fail(record(ctx, "playback", "morpher instance", "ccMorpher", "none", object=obj, floats=False,
                          context={"why": f"F_Morpher records name morpher object {obj}, which has no table "
                                          f"entry with an MPH_ name, so its morph state is never read"}))
    speed = q["speed"]
    tally.count("playbacks")
    c_playback.count_plan(speed, q["steps"], tally)
    # the step sizes so far: what a replay (and the shrinker) plays again (checks.Replay "steps")
    where = lambda i: {"speed": speed, "steps": i + 1, "step_sizes": [speed] * (i + 1)}
    stop = _forwards("playback", g["forward"], a["forward"], ctx, tally, where)
    wants = c_playback.count_steps(anim, [speed] * q["steps"], stop, tally)
    times = [f[0] for f in g["forward"]]
    tracks, rots = q["tracks"], q["rotation"]
    rows = [k for k, i in enumerate(q["read"]) if i < stop]
    if rows and tracks:
        G = _u32(g["matrix"])[rows]                            # (n, nt, 12)
        A = _u32(a["matrix"])[rows]
        tally.count("object matrices", G.shape[0] * G.shape[1])
        keyed = np.array([r == "keyed" for r in rots], dtype=bool)
        tolerant = np.zeros(len(tracks), dtype=bool)
        tolerant[list(q["tolerance"])] = True          # keyed, or every track without exact_local
        bad = np.zeros(G.shape[:2] + (12,), dtype=bool)
        bad[:, :, 9:12] = G[:, :, 9:12] != A[:, :, 9:12]
        exact_cols = ~tolerant
        bad[:, exact_cols, :9] = G[:, exact_cols, :9] != A[:, exact_cols, :9]
        if exact_cols.any():
            tally.count("exact local matrices", int(G.shape[0] * exact_cols.sum()))
        dev, samples = {}, [None] * len(tracks)
        if tolerant.any():
            cols = np.array(q["tolerance"], dtype=np.int64)
            passed = np.asarray(q["bound"]["passed"], dtype=np.int64)[rows]          # (n, len(tolerance))
            passed = np.where(keyed[cols][None, :], passed, 0)
            scale = f32_array(_u32(q["bound"]["scale"])[rows])[..., None]            # (n, len(tolerance), 1)
            w, dw, bw, ok = tolerance.compare(f32_array(G[:, cols, :9]), f32_array(A[:, cols, :9]), passed,
                                              scale, keyed[cols][None, :])
            for k, jj in zip(*np.nonzero(~ok)):
                dev[(k, cols[jj])] = (int(w[k, jj]), float(dw[k, jj]), float(bw[k, jj]))
            for jj, j in enumerate(cols):
                if keyed[j]:
                    samples[j] = (dw[:, jj], bw[:, jj], passed[:, jj])
        # the keyed deviations at each read step's pose time, as the check keeps them
        c_playback.keyed_samples(tally, ctx, tracks, samples,
                                 [anim.clamp(wants[q["read"][k]].pose_at) for k in rows])
        for k, j in sorted(set(zip(*np.nonzero(bad.any(axis=2)))) | set(dev)):
            i = q["read"][rows[k]]
            ctx_ = where(i)
            for word in np.flatnonzero(bad[k, j]):
                tally.fail(record(ctx, "playback", coord_field(word), int(A[k, j, word]), int(G[k, j, word]),
                                  track=tracks[j], time=times[i], step=i, context=ctx_))
            if (k, j) in dev:
                word, d_, b_ = dev[(k, j)]
                tally.fail(record(ctx, "playback", coord_field(word), int(A[k, j, word]), int(G[k, j, word]),
                                  track=tracks[j], time=times[i], step=i, deviation=d_, tolerance=b_, context=ctx_))
        GT = _u32(g["localtp"])[rows]
        AT = _u32(a["localtp"])[rows]
        tally.count("localtp cases", GT.size)
        for k, j in zip(*np.nonzero(GT != AT)):
            i = q["read"][rows[k]]
            tally.fail(record(ctx, "playback", "localtp", int(AT[k, j]), int(GT[k, j]), track=tracks[j],
                              time=times[i], step=i, context=where(i)))
    for k, i in enumerate(q["morph_read"]):
        if i >= stop:
            break
        for j, obj in enumerate(q["morphers"]):
            tally.count("morph states")
            gp, ap = g["morph"][k][j], a["morph"][k][j]
            if [list(p) for p in gp] != [list(p) for p in ap]:
                tally.fail(record(ctx, "playback", "morph state", _pairs(ap), _pairs(gp), object=obj, step=i,
                                  time=times[i], floats=False, context=where(i)))
    return stop == len(g["forward"])


def _pairs(pairs):
    return [[t, f"0x{w & 0xFFFFFFFF:08x}"] for t, w in pairs]


# TRANSITIONAL: the comparisons of the query kinds no check module declares yet (their checks'
# QueryKind, harness/checks/__init__.py). The registry's declarations are merged with this table
# (comparisons()); each kind leaves it when its check module declares it.
UNDECLARED = {"playback": playback}


def comparisons():
    """query kind -> its comparison (q, a, ctx, tally, anim): the checks' declarations
    (checks.query_kinds()) merged with UNDECLARED; an ImportError unless they are the vocabulary's
    query kinds exactly (a kind compared twice, by no one, or no query kind)."""
    declared = {k: kind.compare for k, (_, kind) in checks.query_kinds().items()}
    twice = sorted(set(declared) & set(UNDECLARED))
    out = dict(UNDECLARED, **declared)
    if twice or set(out) != set(vocabulary.QUERY_KINDS):
        raise ImportError(f"harness/truth/check.py compares the query kinds {sorted(out)}, not ground/vocabulary.py's "
                          f"QUERY_KINDS {sorted(vocabulary.QUERY_KINDS)}"
                          + (f" (declared by a check and in UNDECLARED: {', '.join(twice)})" if twice else ""))
    return out


comparisons()             # at import: a kind without its comparison is an ImportError (no table kept: the registry may grow)


def compare(q, a, ctx, tally, anim):
    """Compare the answer `a` to query `q` of the chunk whose parse is `anim` by its kind's
    comparison (the chunk's parse says what the check counts of what it compared) and mark the
    records it covers in the ledger when it was compared to its end (checks.answered): the ledger
    of a model's run is the checks' (harness/compare/ledger.py)."""
    return answered(comparison(q["kind"]), q, a, ctx, tally, anim)


def comparison(kind):
    """The comparison of query kind `kind`: its check's declaration, or UNDECLARED's; KeyError."""
    declared = checks.query_kinds().get(kind)
    return declared[1].compare if declared is not None else UNDECLARED[kind]


def check_of(kind, default=None):
    """The check whose query kind `kind` is (ground/vocabulary.py's QUERY_KINDS), or `default`."""
    return vocabulary.QUERY_KINDS.get(kind, default)
