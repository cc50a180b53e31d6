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

from ground import vocabulary
from harness import EXPLAINED, HarnessError, checks
from harness.checks import parse_reference
from harness.checks import controllers as c_controllers
from harness.checks import fobj as c_fobj
from harness.checks import materials as c_materials
from harness.checks import morph as c_morph
from harness.checks import notes as c_notes
from harness.checks import playback as c_playback
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm
from harness.profiles import rng

NINE = c_controllers.NINE
SCALE_WORDS = c_controllers.SCALE_WORDS


def controllers(game, ch, anim, prof, r):
    """checks.md §2.1 and §2.3: per chosen track its sampled times and the scratch words after
    each, then the multi-step words of the same times' deltas."""
    entries = game.load(ch.data)
    tracks = c_controllers.chosen_tracks(anim, prof, r)
    paired = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT)
    game.new_anm()
    out = []
    for tr in tracks:
        entry = paired.get(tr.record.index)
        if entry is None:
            # the game compiled no controller for this record: no times are drawn (as the check)
            out.append(_uncompiled(tr))
            continue
        ts, holds = c_controllers.track_times(anim, tr, r, prof)
        out += track_queries(game, anim, tr, entry, ts, holds)
    return out + c_controllers.light_queries(game, anim, entries, prof, r)


def _uncompiled(tr):
    rec = tr.record
    return {"kind": "controller", "track": rec.index, "object": rec.object, "rotation": c_controllers.rotation_of(tr),
            "times": [], "game": {"compiled": False}}


def track_queries(game, anim, tr, entry, ts, holds=()):
    """The controller query of one track at times ts (the scratch words after each) and the
    multistep query of the same times' deltas, on the loaded chunk's table entry. holds: the
    track's held keys [(T, key, its own matrix words)], whose poses at T and T + 1 (both in ts)
    the comparison checks against each other (checks.md §2.1, the running matrix). A keyed
    rotation's `bound` holds passed(T) at each time, from the chunk's keys (checks.md §3)."""
    rec = tr.record
    work, coord = game.work(entry.ctrl)
    words, localtp = game.step_times(work, coord, ts)
    q = {"kind": "controller", "track": rec.index, "object": rec.object, "rotation": c_controllers.rotation_of(tr),
         "times": [int(t) for t in ts], "ledger": [["object records", rec.index, 1]],
         "holds": [[int(T), int(k), [int(words[4 * c + r]) for c in range(3) for r in range(3)]]
                   for T, k, words in holds],
         "game": {"pos": words[:, 0:3].tolist(), "scale": words[:, SCALE_WORDS].tolist(),
                  "rot": words[:, 36:52][:, NINE].tolist(), "alpha": words[:, 52].tolist(),
                  "localtp": localtp.tolist()}}
    keyed = tr.keyed_rotation
    if keyed:
        q["bound"] = {"passed": [int(p) for p in anim.poses(tr, ts).passed]}
    deltas = [b - a for a, b in zip([0] + list(ts), ts)]
    game.reset_work(work)
    game.set_work_each(work, deltas)
    multi = game.scratch()
    m = {"kind": "multistep", "track": rec.index, "object": rec.object, "rotation": c_controllers.rotation_of(tr),
         "deltas": deltas, "game": {"pos": list(multi.pos), "scale": list(multi.scale),
                                    "rot": list(multi.rot9), "alpha": multi.alpha}}
    if keyed:
        m["bound"] = {"passed": int(anim.passed(tr, sum(deltas)))}
    return [q, m]


# -- a replay: one check on an explicit input (shrinking and `harness replay` with a model) -------
def replay_queries(check, game, ch, anim, items, exact_local=True, **args):
    """The queries of check `check` (a name, not an alias) on chunk `ch` with the replay input
    `items` (checks.Replay: times with track, a plan with a1, or steps), with the game's words;
    numbered from 0. A HarnessError when the protocol cannot say the input."""
    entries = game.load(ch.data)
    if check == "controllers":
        track = args["track"]
        tr = c_controllers.track_of(anim, track)
        if tr is None:
            raise HarnessError(f"track {track}: no such object track in {ch.id}")
        entry = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT).get(track)
        game.new_anm()
        qs = [_uncompiled(tr)] if entry is None else track_queries(game, anim, tr, entry, sorted(set(items)))
    elif check == "notes":
        qs = [c_notes.query(game, ch, anim, entries, [tuple(p) for p in items])]
    elif check == "fobj":
        qs = [c_fobj.query(game, ch, anim, entries, args.get("a1", 0), [tuple(p) for p in items])]
    elif check == "playback":
        if not items or len(set(items)) != 1:
            raise HarnessError(f"steps {items}: a model's playback query plays n steps of one speed "
                               f"(docs/truth.md §3)")
        qs = [c_playback.query(game, ch, anim, entries, items[0], len(items), exact_local)]
    else:
        raise HarnessError(f"check {check}: no replay")
    for i, q in enumerate(qs):
        q["i"] = i
    return qs


def objects(game, ch, anim, prof, _r):
    """anim-objects.md §2.4-§5.2: one query carrying the member's scene (each object's kind, every
    Obj's, ExtObj's and Eff's parent, the clumps, the models) and the anm's tp; the game's view of
    the index, SetAnm's table, Draw's calls and DeleteAnmIndex's frees."""
    from harness.checks import objects as c_objects
    ob, sc, _, _, got_index, got_table = c_objects.build(checks.Case(anim, prof, game, ch))
    view = c_objects.game_view(ob, got_index, got_table)
    return [{"kind": "objects", "scene": sc.to_json(), "anm_tp": c_objects.ANM_TP,
             "ledger": [[c_objects.INDEX_KIND, i, 1] for i in range(len(view["index"]))], "game": view}]


def world(game, ch, anim, prof, r):
    """anim-objects.md §3.6 level 2: per playback speed one query (the scene, the speed, the step
    count, the anm's matrix and tp) with the game's frame counter and ccModel::Draw calls after
    every step, and, harness-only, each call's bound (None: exact) from the check's rule. The index
    and table are built once and restored before each further speed, as the world check does."""
    from harness.checks import objects as c_objects
    from harness.checks import world as c_world
    out = []
    exact_local = getattr(prof, "exact_local", True)
    case = checks.Case(anim, prof, game, ch)
    kept = ob = None
    for speed, n in c_playback.plan(anim, prof, r):
        if kept is None:
            ob, sc, want_index, want, _, _ = c_objects.build(case, anm_matrix=c_world.ANM_MATRIX)
            kept = ob.keep()
        else:
            ob.restore(kept)
            if game.reload:
                ob = c_objects.build(case, anm_matrix=c_world.ANM_MATRIX)[0]
                ob.same_as(kept)
        forward, draws = c_world.game_series(ob, speed, n)
        bounds = c_world.expected(anim, want_index, want, speed, n, exact_local)["bounds"]
        out.append({"kind": "world", "scene": sc.to_json(), "speed": speed, "steps": n,
                    "anm_matrix": list(c_world.ANM_MATRIX), "anm_tp": c_objects.ANM_TP,
                    "bounds": [None if b is None else [[float(x) for x in row] for row in b] for b in bounds],
                    "ledger": [[c_world.WORLD_KIND, i, 1] for i in range(len(want_index))],
                    "game": {"forward": forward, "calls": _world_calls(draws)}})
    return out


def _world_calls(draws):
    """Per step [[identity, 16 world words, alpha], ...]: the game's Draw calls as JSON values."""
    world, alpha = draws.world.tolist(), draws.alpha.tolist()
    out, k = [], 0
    for step in draws.identities:
        out.append([[list(i), world[k + q], alpha[k + q]] for q, i in enumerate(step)])
        k += len(step)
    return out


# check name -> the function that asks the game its queries (the checks' run order)
EXPORTERS = {"controllers": controllers, "materials": c_materials.queries, "playback": c_playback.queries, "notes": c_notes.queries,
             "morph": c_morph.queries, "fobj": c_fobj.queries, "objects": objects, "world": world}
# the query kinds each check's queries have (docs/truth.md §3)
KINDS_OF = {c: tuple(k for k, of in vocabulary.QUERY_KINDS.items() if of == c) for c in vocabulary.CHECKS}


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
    wanted = set(only or EXPORTERS)
    wanted = {checks.resolve(w).name for w in wanted}
    game.reload = prof.reload
    for check in checks.applicable(checks.Case(anim, prof)):
        if check not in wanted:
            continue
        t0 = _time.time()
        try:
            qs = EXPORTERS[check](game, ch, anim, prof, rng(opts.seed, ch.id, check))
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
