"""Note checks: _AnimateForward + NoteProcess over generated steps, restarts, repeats (checks.md §6)."""
from harness.checks import Check, Replay
from harness.checks.playback import forward_mismatches, step_quirks
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.steps import note_plan, note_step_count, planned, restarted



def applies(case):
    """checks.md §6: a chunk with F_Note records."""
    return bool(case.anim.notes)


def run(case):
    entries = case.game.load(case.ch.data)
    check_notes(case.game, case.anim, entries, case.ch.names, case.ctx, case.tally,
                plan_of(case.anim, case.prof, case.rng))


def plan_of(anim, prof, rng):
    """The chunk's note plan [(step, restart)] (checks.md §6.3, §6.4)."""
    return note_plan(rng, anim.frames, note_step_count(anim.frames, prof.note_steps_min, prof.note_steps_max))


def check_notes(game, anim, entries, names, ctx, tally, plan):
    """Run a plan [(step, restart)] from time 0 and compare every delivered note list (checks.md §6.2)."""
    game.playback(entries, names, 256)
    game.give_every_entry_an_instance(entries, 0x100)
    game.enable_notes()
    count_run(anim, tally)
    for i, s, restart, time, want in planned(anim, plan):
        got = game.forward(s)
        first = game.note_process()
        def where(i=i, time=time):
            # a mismatch's context, built only for one (the plan so far is O(steps) to copy)
            return {"plan": [list(p) for p in plan[:i + 1]], "time_before": time}
        if i % 5 == 0:
            again = game.note_process()
            count_repeated(tally)
            if again != first:
                tally.fail(record(ctx, "notes", "repeated NoteProcess", [list(n) for n in first],
                                  [list(n) for n in again], step=i, time=time, floats=False, context=where()))
        passed = anim.passed_notes(time, s)
        exp = [(n.event, n.param, n.time, n.object) for n in passed]
        tally.count("note steps")
        if got != (want.time, int(bool(want.ended))) and forward_mismatches(ctx, tally, "notes", got, want, i,
                                                                           time, where()):
            return False
        fwd = anim.forward_notes(time, s)
        if fwd != [(n[0], n[1]) for n in exp]:
            # checks.md §6.2 step 7: the reference's two routes to the note list must agree
            tally.fail(record(ctx, "notes", "reference forward_notes", [list(n[:2]) for n in exp],
                              [list(p) for p in fwd], step=i, time=time, floats=False, context=where()))
        if first != exp:
            tally.fail(record(ctx, "notes", "notes", [list(n) for n in exp], [list(n) for n in first],
                              step=i, time=time, floats=False, context=where()))
        for n in passed:
            mark(tally, "F_Note records", n.record.offset)
        if time == 0:
            # DECISION: a note under Top 0 is never delivered (animation-semantics.md §10): a
            # compared step from time 0 checks that it is not, so it counts compared then
            for n in anim.notes:
                if n.frame == 0:
                    mark(tally, "F_Note records", n.offset)
        if count_step(anim, s, restart, time, want, tally, passed):
            game.restart()
    return True


def count_run(anim, tally):
    """A run of a note plan: its count and the chunk's frame-0 notes (never delivered, §10)."""
    tally.count("note runs")
    tally.quirk("frame0_notes", sum(1 for n in anim.notes if n.frame == 0))


def count_repeated(tally):
    """NoteProcess called again after a step (every fifth, checks.md §6.2)."""
    tally.count("repeated NoteProcess")
    tally.quirk("repeated_noteprocess")


def count_steps(anim, plan, n, tally):
    """count_step of each of the first n steps of `plan`: the steps a comparison of the game's
    words with a model's answers compared (harness.truth.check), counted as the check counts them."""
    for i, s, restart, time, want in planned(anim, plan):
        if i >= n:
            break
        count_step(anim, s, restart, time, want, tally)


def count_step(anim, s, restart, time, want, tally, passed=None):
    """The counters and quirks of one compared step from `time` (want = the reference's Forward,
    equal to the game's frame counter and return value): the notes it hands on, its kind, and
    whether the plan restarts after it (returned: the caller restarts the game). passed: the
    step's notes, when the caller has them."""
    passed = anim.passed_notes(time, s) if passed is None else passed
    tally.count("notes delivered", len(passed))
    if len(passed) > 1:
        tally.count("steps with several notes")
    if s == 0:
        tally.count("note zero steps")
    if anim.loops and s and want.time == 0 and want.pose_at is not None:
        tally.count("note loop resets")
        tally.quirk("loop_resets")
    if want.ended:
        tally.count("note ends")
        tally.quirk("ends")
    step_quirks(s, tally)
    tally.quirk("notes_at_last_frame", sum(1 for n in passed if n.frame == anim.frames - 1))
    if len({n.frame for n in passed}) < len(passed):
        tally.quirk("several_notes_per_frame")
    if len(passed) >= 3:
        tally.quirk("three_notes_steps")
    if s >= anim.frames * 256:
        tally.quirk("steps_past_end")
    return restarted(anim, want, restart, tally, "note restarts")


def replay_plan(case, plan):
    check_notes(case.game, case.anim, case.game.load(case.ch.data), case.ch.names, case.ctx, case.tally,
                [tuple(p) for p in plan])


def replayed_plan(m):
    c = m.get("context") or {}
    return ([tuple(p) for p in c["plan"]], {}) if "plan" in c else None


CHECK = Check("notes", order=3, kinds=("note",), applies=applies, run=run,
              replay=Replay("plan", replayed_plan, replay_plan))
