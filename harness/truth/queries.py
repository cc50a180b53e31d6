"""The checks' queries asked of the game, one chunk at a time: what a truth file holds
(docs/truth.md §1-§3) and what a model run compares (harness/runners/cases/model_chunk.py).

Each check's queries are drawn by the check's own functions from the check's own generator
(harness.profiles.rng(seed, chunk id, check)), in the order the check draws them, and the game is
driven through the same Game calls, so the words are the words `make bulk` compares with the same
seed and profile. Nothing is compared here.

DECISION: as the checks do, the reference's parse of a chunk says which checks apply, which
records exist and which steps evaluate a pose (a step that moves no time evaluates nothing, and
the checks read no coord after it); the game's words are never taken from it.
"""
from __future__ import annotations

import time as _time

import numpy as np

from ground import vocabulary
from harness import EXPLAINED, HarnessError, checks
from harness.checks import parse_reference
from harness.checks import controllers as c_controllers
from harness.checks import playback as c_playback
from harness.compare.bits import f32_array
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm
from harness.profiles import rng

NINE_AND_T = c_playback.NINE_AND_T


def playback(game, ch, anim, prof, r):
    """checks.md §4: per drawn speed, every step's frame counter and return value, the posed
    tracks' coord words at each step that evaluates a pose, the morphers' states from frame 1."""
    out = []
    entries = game.load(ch.data)
    for k, (speed, n) in enumerate(c_playback.plan(anim, prof, r)):
        if k:
            entries = game.load(ch.data)
        out.append(playback_query(game, ch, anim, entries, speed, n, prof.exact_local))
    return out


def playback_query(game, ch, anim, entries, speed, n, exact_local):
    """One playback of n steps of `speed` from time 0 on the loaded chunk's entries."""
    steps = [speed] * n
    pb = game.playback(entries, ch.names, speed)
    paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
    posed = [(tr, pb.coords[paired[tr.record.index].position]) for tr in anim.tracks
             if tr.record.index in paired]
    morphers = [(entries[pos].object, addr) for pos, addr in pb.morphers.items()]
    ref = anim.playback(steps)
    tolerant = [j for j, (tr, _) in enumerate(posed) if tr.keyed_rotation or not exact_local]
    got, coords, got_states, stopped = c_playback.play(game, pb, posed, morphers, ref, steps)
    if stopped is not None:
        raise stopped
    forward = [[int(t), int(r)] for t, r in got]
    read = sorted(coords)
    morph_read = sorted(got_states)
    mats = [coords[i][0][:, NINE_AND_T].tolist() if posed else [] for i in read]
    tps = [coords[i][1].tolist() if posed else [] for i in read]
    states = [[[[int(t), int(w)] for t, w in pairs] for _, pairs in got_states[i]] for i in morph_read]
    have = {obj for obj, _ in morphers}
    return {"kind": "playback", "speed": speed, "steps": n,
            "tracks": [tr.record.index for tr, _ in posed],
            "rotation": [c_controllers.rotation_of(tr) for tr, _ in posed],
            # the tracks whose 3x3 is compared within checks.md §3's bound: the keyed
            # rotations, and every track under a profile without exact_local
            "tolerance": tolerant,
            "bound": _playback_bound(ref, [posed[j][0] for j in tolerant], len(read)),
            "morphers": [obj for obj, _ in morphers], "read": read, "morph_read": morph_read,
            "ledger": [["tracks", tr.record.index, 1] for tr, _ in posed],
            "game": {"forward": forward, "matrix": mats, "localtp": tps, "morph": states,
                     "unposed": [t.record.index for t in anim.tracks if t.record.index not in paired],
                     "morphers_without_instance": sorted(set(anim.morphs) - have)}}


def _playback_bound(ref, tracks, n):
    """The bound of checks.md §3 for the tolerance tracks at the n read steps, from the chunk's own
    records at each pose time (the values the in-process check bounds with): `passed` (n, nk),
    passed(T) of a keyed rotation and 0 otherwise, and `scale` (n, nk), the f32 word of
    max(|s_x|, |s_y|, |s_z|) (all the formula reads of the scale: one word, not three)."""
    if not tracks or not n:
        return {"passed": [[] for _ in range(n)], "scale": [[] for _ in range(n)]}
    tb = ref.tracks(tracks)
    passed = np.where(tb.keyed[None, :], tb.passed[:n], 0)
    words = tb.chan[:n, :, 3:6] & 0x7FFFFFFF                          # |s| of each axis, as EE words
    big = np.argmax(f32_array(words), axis=2)[..., None]
    return {"passed": passed.tolist(), "scale": np.take_along_axis(words, big, axis=2)[..., 0].tolist()}


# -- a replay: one check on an explicit input (shrinking and `harness replay` with a model) -------
def replay_queries(check, game, ch, anim, items, exact_local=True, **args):
    """The queries of check `check` (a name, not an alias) on chunk `ch` with the replay input
    `items` (checks.Replay: times with track, a plan with a1, or steps), with the game's words;
    numbered from 0. A HarnessError when the protocol cannot say the input."""
    how = checks.get(check).replay
    if how is not None and how.queries is not None:          # the check's own (checks.Replay.queries)
        qs = how.queries(game, ch, anim, list(items), **args)
    else:
        qs = undeclared_replay_queries(check, game, ch, anim, items, exact_local, **args)
    for i, q in enumerate(qs):
        q["i"] = i
    return qs


def undeclared_replay_queries(check, game, ch, anim, items, exact_local=True, **_args):
    """TRANSITIONAL: replay_queries of the checks whose Replay does not declare its queries yet."""
    entries = game.load(ch.data)
    if check == "playback":
        if not items or len(set(items)) != 1:
            raise HarnessError(f"steps {items}: a model's playback query plays n steps of one speed "
                               f"(docs/truth.md §3)")
        qs = [playback_query(game, ch, anim, entries, items[0], len(items), exact_local)]
    else:
        raise HarnessError(f"check {check}: no replay")
    return qs


# TRANSITIONAL: check name -> the function that asks the game its queries, of the checks whose
# module does not declare it yet (Check.queries, harness/checks/__init__.py); merged with the
# registry's (exporters()), each leaves this table when its module declares it
UNDECLARED = {"playback": playback}


def exporters():
    """check name -> the function that asks the game its queries, in the checks' run order: the
    checks' declarations (checks.builders()) merged with UNDECLARED."""
    declared = checks.builders()
    return {c.name: declared.get(c.name) or UNDECLARED[c.name] for c in checks.CHECKS
            if c.name in declared or c.name in UNDECLARED}


def kinds_of(check):
    """The query kinds the queries of check `check` have (docs/truth.md §3), in the vocabulary's order."""
    return tuple(k for k, of in vocabulary.QUERY_KINDS.items() if of == check)


def kinds_by_check():
    """check name -> kinds_of(check), of every check in run order."""
    return {c.name: kinds_of(c.name) for c in checks.CHECKS}


def chunk_line(game, ch, index, opts, prof, only=None, anim=None, timing=None):
    """The truth line of one chunk: its queries with the game's words, or the error that stopped
    the game (the line then says which check and why, and holds the queries asked before it).
    anim: the chunk's parse, when the caller has it; timing: a dict given the seconds of each check."""
    line = {"chunk": ch.id, "index": index, "checks": [], "queries": []}
    if anim is None:
        try:
            anim = parse_reference(ch, opts.float_model)
        except Exception as exc:
            line["error"] = {"type": type(exc).__name__, "message": str(exc), "check": "reference"}
            return line
    exporting = exporters()
    wanted = {checks.resolve(w).name for w in only} if only else {c.name for c in checks.CHECKS}
    game.reload = prof.reload
    for check in checks.applicable(checks.Case(anim, prof)):
        if check not in wanted:
            continue
        if check not in exporting:
            # DECISION: a check that applies but asks no queries is an error, never left out of
            # the line: a truth file or a model run would otherwise pass a check it never asked
            raise HarnessError(f"check {check}: asks the game no queries (its Check declares no `queries`), so "
                               f"it has no truth line and no model run")
        t0 = _time.time()
        try:
            qs = exporting[check](game, ch, anim, prof, rng(opts.seed, ch.id, check))
        except EXPLAINED as exc:
            line["error"] = {"type": type(exc).__name__, "message": str(exc), "check": check}
            break
        finally:
            if timing is not None:
                timing[check] = round(_time.time() - t0, 4)
        line["checks"].append(check)
        for q in qs:
            q["i"] = len(line["queries"])
            line["queries"].append(q)
    return line
