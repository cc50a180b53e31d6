"""check_chunk: every check on one Anime chunk, as the per-chunk record of interfaces.md §4."""
from __future__ import annotations

import time as _time
import traceback

from harness.checks import controllers as check_controllers, fobj as check_fobj, morph as check_morph, notes as check_notes, playback as check_playback
from harness import HarnessError
from harness.compare.mismatch import CaseContext
from harness.profiles import rng
from harness.compare.steps import note_plan, note_step_count
from harness.compare.tally import Tally

CHECKS = ("controllers", "materials", "multistep", "playback", "notes", "morph", "fobj")
# "multistep" runs inside "controllers" (checks.md §2.3); selecting it selects controllers.


def applicable(anim, prof, file_ok=True):
    """Which checks this chunk's content calls for (checks.md §2-§7, §9)."""
    out = []
    if anim.tracks:
        out.append("controllers")
    if anim.materials:
        out.append("materials")
    if anim.frames >= 1 and (prof.playback_all and (anim.tracks or anim.morphs) or anim.morphs or anim.loops):
        out.append("playback")
    if anim.notes:
        out.append("notes")
    if anim.morphs and file_ok:
        out.append("morph")
    if anim.fobjs:
        out.append("fobj")
    return out


def parse_reference(ch, float_model):
    from reference import Animation
    return Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=float_model)


def check_chunk(game, ch, ctx: CaseContext, prof, only=None, index=None, speed=None):
    """Run the applicable (or `only` the named) checks on corpus chunk `ch`; never raises."""
    t0, cpu0 = _time.time(), _time.process_time()
    tally = Tally()
    timing, error = {}, None
    steps0 = game.steps if game is not None else 0
    mcpu0 = dict(game.cpu) if game is not None else {}
    try:
        anim = parse_reference(ch, ctx.float_model)
    except Exception as exc:                      # the reference or corpus refused the chunk
        return result(ch, index, t0, tally, timing, describe_error(exc, "reference"), ctx, {})
    wanted = set(only or CHECKS)
    if "multistep" in wanted:
        wanted.add("controllers")
    tally.applicable = applicable(anim, prof)
    for check in tally.applicable:
        if check not in wanted:
            continue
        c0 = _time.time()
        tally.checks.append(check)
        try:
            run_one(check, game, ch, anim, ctx, tally, prof, speed)
        except Exception as exc:
            error = error or describe_error(exc, check)
            tally.count("errors")
        timing[check] = round(_time.time() - c0, 4)
    info = {"machine_steps": (game.steps - steps0) if game is not None else 0,
            "cpu_seconds": round(_time.process_time() - cpu0, 4),
            "machine_cpu": {k: round(v - mcpu0.get(k, 0.0), 4) for k, v in game.cpu.items()
                            if v - mcpu0.get(k, 0.0) > 0} if game is not None else {}}
    return result(ch, index, t0, tally, timing, error, ctx, info)


def run_one(check, game, ch, anim, ctx, tally, prof, speed=None):
    r = rng(ctx.seed, ch.id, check)
    if check == "morph":
        cases = check_morph.real_cases(anim, ch.file, r, prof.morph_limit, prof.morph_max_vertices, tally)
        from reference import morph
        check_morph.run_cases(game, cases, ctx, tally,
                              lambda b, s, t: morph(b, s, t, float_model=ctx.float_model))
        return
    entries = game.load(ch.data)
    if check == "controllers":
        check_controllers.check_tracks(game, anim, entries, ctx, tally, prof, r)
    elif check == "materials":
        check_controllers.check_materials(game, anim, entries, ctx, tally, prof, r)
    elif check == "playback":
        speeds = [speed] if speed else check_playback.draw_speeds(r, prof.playback_speeds)
        for k, s in enumerate(speeds):
            if k:
                entries = game.load(ch.data)
            n = check_playback.bulk_steps(anim, s, prof.playback_max_steps)
            tally.count(f"playback steps at {s}", n)
            check_playback.check_playback(game, anim, entries, ch.names, ctx, tally, [s] * n, s, prof.exact_local)
    elif check == "notes":
        plan = note_plan(r, anim.frames, note_step_count(anim.frames, prof.note_steps_min, prof.note_steps_max))
        check_notes.check_notes(game, anim, entries, ch.names, ctx, tally, plan)
    elif check == "fobj":
        plan = note_plan(r, anim.frames, prof.fobj_steps)
        # DECISION (eediff addition to checks.md §7.3): besides the generated steps, one run of
        # single-frame steps reads every frame's records in turn, so a pose that holds for one
        # frame only is compared too; it stops at the end (or the profile's step cap).
        every_frame = [(256, False)] * min(max(1, anim.frames - 1), prof.playback_max_steps)
        for k, (a1, p) in enumerate(((0, plan), (1, plan), (0, every_frame))):
            if k:
                entries = game.load(ch.data)
            check_fobj.check_fobj(game, anim, entries, ch.names, ctx, tally, p, a1)


def describe_error(exc, check):
    kind = type(exc).__name__
    tb = traceback.extract_tb(exc.__traceback__)
    where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    expected = isinstance(exc, HarnessError) or kind.endswith("Error") and "eemu" in type(exc).__module__
    return {"type": kind, "message": str(exc), "check": check,
            "where": None if expected else where}


def result(ch, index, t0, tally, timing, error, ctx, info):
    return {"chunk": ch.id, "index": index, "seconds": round(_time.time() - t0, 4),
            "counters": dict(tally.counters), "quirks": dict(tally.quirks),
            "mismatches": tally.mismatches, "dropped_mismatches": tally.dropped,
            "worst_keyed_rotation": tally.worst_keyed, "rotation_deviation": tally.rotation_deviation(),
            "checks": list(tally.checks) + (["multistep"] if "controllers" in tally.checks else []),
            "applicable": list(getattr(tally, "applicable", None) or []),
            "timing": timing, "error": error,
            "repro": ctx.repro(), **info}
