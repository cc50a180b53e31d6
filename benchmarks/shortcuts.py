"""The nightly with its shortcuts switched off, for `make bench` to measure each shortcut against.

The per-entry compares give the same records, counters and order as the vectorised compares the
checks run (tests/harness/test_vector_compare.py, tests/harness/test_controller_vector_compare.py);
they exist only to be measured against.

    python -m benchmarks.shortcuts [--load-afresh] [--per-entry-compare] bulk ARGS...

runs `python -m harness bulk ARGS...` in this process with the chosen shortcuts off: --load-afresh
makes every Game load each chunk afresh (Game(load_once=False)), --per-entry-compare checks
playback one entry at a time and controllers one time at a time.
"""
from __future__ import annotations

import functools
import sys

from harness.checks import controllers as C
from harness.checks import playback as P
from harness.checks.controllers import compare_localtp, compare_pose, game_poses
from harness.checks.playback import (compare_matrix, count_plan, count_step_kind, forward_mismatches,
                                     mark_posed, pairs_json, start_playback)
from harness.compare.mismatch import record
from harness.driver import memory_map as mm


def check_playback_each(game, anim, entries, names, ctx, tally, steps, speed=None, exact_local=True):
    """check_playback one entry at a time: the reference per pose, the compare per word."""
    count_plan(speed if speed is not None else (steps[0] if steps else 256), len(steps), tally)
    pb, posed, morphers = start_playback(game, anim, entries, names, tally, speed, steps, ctx)
    time, looped = 0, False
    for i, s in enumerate(steps):
        got = game.forward(s)
        want = anim.forward(time, s)
        tally.count("steps")
        where = {"step_sizes": list(steps[:i + 1]), "time_before": time}
        if forward_mismatches(ctx, tally, "playback", got, (want.time, int(bool(want.ended))), i, time, where):
            return False
        count_step_kind(anim, s, want, tally)
        time = want.time
        looped_before, looped = looped, looped or want.looped
        if want.pose_at is None:
            continue
        T = min(want.pose_at, anim.last)
        for tr, coord in posed:
            compare_matrix(game.coord_matrix(coord), anim, tr, T, ctx, tally, i, where, exact_local)
            compare_localtp(game.u32(coord + mm.COORD_LOCALTP), anim.pose(tr, T).alpha, tr.record, T,
                            ctx, tally, check="playback", step=i)
        frame = want.pose_at >> 8
        if frame >= 1 and morphers:
            # after a loop reset a morpher keeps the previous pass's state until read again (§9.1)
            want_w = anim.morph_weights(frame, after_loop=looped_before)
            for obj, addr in morphers:
                tally.count("morph states")
                exp = [tuple(p) for p in want_w.get(obj, ())]
                got_w = game.morph_state(addr, pb.models)
                if got_w != exp:
                    tally.fail(record(ctx, "playback", "morph state", pairs_json(exp), pairs_json(got_w),
                                      object=obj, step=i, time=T, floats=False, context=where))
    mark_posed(tally, posed)
    return True


def compare_times_each(anim, tr, q, _a, ctx, tally):
    """controllers.compare_times one time at a time: the reference's pose per time (not the
    answer's arrays), compare_pose and compare_localtp per time."""
    for k, (t, got) in enumerate(zip(q["times"], game_poses(q["game"]))):
        T = min(t, anim.last)
        pose = anim.pose(tr, T)
        compare_pose(got, pose, tr, t, T, ctx, tally)
        compare_localtp(int(q["game"]["localtp"][k]), pose.alpha, tr.record, t, ctx, tally)


def per_entry_compare():
    """The playback and controller checks compare entry by entry from now on, in this process."""
    P.check_playback = check_playback_each
    C.check_tracks = functools.partial(C.check_tracks, compare=compare_times_each)


def load_afresh():
    """Every Game made from now on, in this process, loads each chunk afresh."""
    from harness.driver import game

    class LoadingGame(game.Game):
        def __init__(self, *args, **kw):
            kw.setdefault("load_once", False)
            super().__init__(*args, **kw)

    game.Game = LoadingGame


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    switches = {"--load-afresh": load_afresh, "--per-entry-compare": per_entry_compare}
    while argv and argv[0] in switches:
        switches[argv.pop(0)]()
    from harness.__main__ import main as harness_main
    sys.argv = ["python -m harness", *argv]
    return harness_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
