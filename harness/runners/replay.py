"""Replay entry points for shrinking: re-run one check of one chunk on an explicit input list."""
from harness import HarnessError
from harness.checks import controllers, fobj, notes, playback
from harness.runners.chunk import parse_reference
from harness.compare.tables import entries_by_record
from harness.compare.tally import Tally
from harness.driver import memory_map as mm


def replay_playback(game, ch, ctx, steps, speed=None, exact_local=True):
    anim, tally = parse_reference(ch, ctx.float_model), Tally()
    playback.check_playback(game, anim, game.load(ch.data), ch.names, ctx, tally, list(steps),
                                  speed, exact_local)
    return tally


def replay_notes(game, ch, ctx, plan):
    anim, tally = parse_reference(ch, ctx.float_model), Tally()
    notes.check_notes(game, anim, game.load(ch.data), ch.names, ctx, tally, [tuple(p) for p in plan])
    return tally


def replay_fobj(game, ch, ctx, plan, a1=0):
    anim, tally = parse_reference(ch, ctx.float_model), Tally()
    fobj.check_fobj(game, anim, game.load(ch.data), ch.names, ctx, tally, [tuple(p) for p in plan], a1)
    return tally


def replay_times(game, ch, ctx, track, times):
    """One track evaluated at an explicit time list (checks.md §2.1 step 4.4 and §2.3)."""
    anim, tally = parse_reference(ch, ctx.float_model), Tally()
    entries = game.load(ch.data)
    tr = next((t for t in anim.tracks if t.record.index == track), None)
    if tr is None:
        raise HarnessError(f"track {track}: no such object track in {ch.id} (its tracks: "
                           f"{', '.join(str(t.record.index) for t in anim.tracks[:20]) or 'none'})")
    entry = entries_by_record([t.record for t in anim.tracks], entries, mm.KIND_OBJECT).get(track)
    if entry is None:
        return tally
    game.new_anm()
    work, _ = game.work(entry.ctrl)
    ts = sorted(set(times))
    single = None
    for t in ts:
        game.reset_work(work)
        single = game.step(work, t)
        T = min(t, anim.last)
        controllers.compare_pose(single, anim.pose(tr, T), tr, t, T, ctx, tally)
    if ts:
        controllers.check_multistep(game, work, ts, single, tr, ctx, tally)
    return tally
