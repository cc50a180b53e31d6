"""Note checks: _AnimateForward + NoteProcess over generated steps, restarts, repeats (checks.md §6)."""
from harness.checks import Check, QueryKind, Replay, answered
from harness.checks.playback import step_quirks
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.steps import note_plan, note_step_count, planned, restarted
from reference import serve



def applies(case):
    """checks.md §6: a chunk with F_Note records."""
    return bool(case.anim.notes)


def run(case):
    check_notes(case.game, case.ch, case.anim, case.ctx, case.tally, plan_of(case.anim, case.prof, case.rng))


def plan_of(anim, prof, rng):
    """The chunk's note plan [(step, restart)] (checks.md §6.3, §6.4)."""
    return note_plan(rng, anim.frames, note_step_count(anim.frames, prof.note_steps_min, prof.note_steps_max))


def check_notes(game, ch, anim, ctx, tally, plan):
    """Run a plan [(step, restart)] from time 0 and compare every delivered note list (checks.md
    §6.2): the game's words of the plan's query against the reference's answer (reference/serve.py's,
    in process)."""
    q = query(game, ch, anim, game.load(ch.data), plan)
    return answered(compare, q, serve.notes(anim, q), ctx, tally, anim)


def queries(game, ch, anim, prof, r):
    """The check's queries (docs/truth.md §3, kind "notes"): one run of the chunk's note plan."""
    entries = game.load(ch.data)
    return [query(game, ch, anim, entries, plan_of(anim, prof, r))]


def query(game, ch, anim, entries, plan):
    """One run of the note plan [(step, restart)] from time 0 on the loaded chunk's entries: after
    each step the frame counter, the return value and the notes NoteProcess delivered, and every
    fifth step NoteProcess's list when called again (checks.md §6.2)."""
    game.playback(entries, ch.names, 256)
    game.give_every_entry_an_instance(entries, 0x100)
    game.enable_notes()
    forward, delivered, repeated = [], [], []
    for i, s, restart, _, want in planned(anim, plan):
        got = game.forward(s)
        first = game.note_process()
        if i % 5 == 0:          # NoteProcess again: it must hand on the same notes (checks.md §6.2)
            repeated.append([i, [[int(x) for x in n] for n in game.note_process()]])
        forward.append([int(got[0]), int(got[1])])
        delivered.append([[int(x) for x in n] for n in first])
        # DECISION: the restart follows the reference's end of the step, as the comparison's
        # walk of the plan does, so the game is driven alike in process and for a model (the
        # two agree wherever the frame counters do, and the comparison stops where they do not)
        if anim.restarts(want, restart):
            game.restart()
    return {"kind": "notes", "plan": [[int(s), bool(x)] for s, x in plan],
            "ledger": [["F_Note records", k, 1] for k in compared_records(anim, plan, len(plan))],
            "game": {"forward": forward, "notes": delivered, "repeated": repeated}}


def replay_queries(game, ch, anim, plan, _exact_local):
    """The query of an explicit note plan [(step, restart)] (a replay's, a shrinking candidate's:
    what a model is asked)."""
    return [query(game, ch, anim, game.load(ch.data), [tuple(p) for p in plan])]


def compared_records(anim, plan, n):
    """The F_Note records (their file offsets) the first n steps of `plan` compare: the notes each
    step hands on and, for a step from time 0, the notes at frame 0."""
    out = {}
    for i, s, _, time, _ in planned(anim, plan):
        if i >= n:
            break
        out.update((nt.record.offset, 1) for nt in anim.passed_notes(time, s))
        if time == 0:
            # DECISION: a note under Top 0 is never delivered (animation-semantics.md §10): a
            # compared step from time 0 checks that it is not, so it counts compared then
            out.update((nt.offset, 1) for nt in anim.notes if nt.frame == 0)
    return list(out)


def compare(q, a, ctx, tally, anim):
    """The game's words of note query `q` step by step against the answer `a` (per step the frame
    counter and return value, and the notes handed on), walking the plan as the chunk's parse
    plays it: a NoteProcess called again must hand on the same notes (the game against itself);
    the first step whose frame counter or return value differs stops the comparison (after it
    the two sides play different times) and is recorded, the steps before it count their records
    compared; what the check counts of the steps compared comes from the parse. False when a
    step stopped it."""
    g = q["game"]
    plan = [tuple(p) for p in q["plan"]]
    again = {int(i): notes for i, notes in g.get("repeated") or ()}
    count_run(anim, tally)
    for i, s, restart, time, want in planned(anim, plan):
        def where(i=i, time=time):
            # a mismatch's context, built only for one (the plan so far is O(steps) to copy)
            return {"plan": [list(p) for p in plan[:i + 1]], "time_before": time}
        first = [list(n) for n in g["notes"][i]]
        if i in again:
            count_repeated(tally)
            if [list(n) for n in again[i]] != first:
                tally.fail(record(ctx, "notes", "repeated NoteProcess", first, [list(n) for n in again[i]],
                                  step=i, time=time, floats=False, context=where()))
        tally.count("note steps")
        got, exp = [int(x) for x in g["forward"][i]], [int(x) for x in a["forward"][i]]
        if got != exp:
            for field, e, v in (("frame counter", exp[0], got[0]), ("return value", exp[1], got[1])):
                if e != v:
                    tally.fail(record(ctx, "notes", field, e, v, step=i, time=time, floats=False, context=where()))
            for k in compared_records(anim, plan, i):
                mark(tally, "F_Note records", k)
            return False
        passed = anim.passed_notes(time, s)
        # DECISION: checks.md §6.2 step 7, the reference's two routes to the note list must agree:
        # the parse against itself, checked whoever answers
        fwd = anim.forward_notes(time, s)
        if fwd != [(n.event, n.param) for n in passed]:
            tally.fail(record(ctx, "notes", "reference forward_notes", [[n.event, n.param] for n in passed],
                              [list(p) for p in fwd], step=i, time=time, floats=False, context=where()))
        exp_notes = [[int(x) for x in n] for n in a["notes"][i]]
        if first != exp_notes:
            tally.fail(record(ctx, "notes", "notes", exp_notes, first, step=i, time=time, floats=False,
                              context=where()))
        count_step(anim, s, restart, time, want, tally, passed)
    return True


def count_run(anim, tally):
    """A run of a note plan: its count and the chunk's frame-0 notes (never delivered, §10)."""
    tally.count("note runs")
    tally.quirk("frame0_notes", sum(1 for n in anim.notes if n.frame == 0))


def count_repeated(tally):
    """NoteProcess called again after a step (every fifth, checks.md §6.2)."""
    tally.count("repeated NoteProcess")
    tally.quirk("repeated_noteprocess")


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
    check_notes(case.game, case.ch, case.anim, case.ctx, case.tally, [tuple(p) for p in plan])


def replayed_plan(m):
    c = m.get("context") or {}
    return ([tuple(p) for p in c["plan"]], {}) if "plan" in c else None


CHECK = Check("notes", order=3, kinds=("note",), applies=applies, run=run,
              replay=Replay("plan", replayed_plan, replay_plan, queries=replay_queries), queries=queries,
              query_kinds=(QueryKind("notes", compare, serve.notes),))
