"""F_Obj check (new in eediff): coord poses after playback steps, persistence included (checks.md §7)."""
from harness.checks import Check, QueryKind, Replay, answered
from harness.checks.playback import NINE_AND_T, coord_field
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.tables import first_entry
from harness.compare.steps import note_plan, planned, restarted
from harness.driver import memory_map as mm
from reference import serve



def applies(case):
    """checks.md §7: a chunk with F_Obj records."""
    return bool(case.anim.fobjs)


def run(case):
    """The plan with +0xA1 = 0, again with +0xA1 = 1, then one run of single-frame steps."""
    for a1, plan, entries in _loaded_plans(case.game, case.ch, case.anim, case.prof, case.rng):
        check_fobj(case.game, case.ch, case.anim, entries, case.ctx, case.tally, plan, a1)


def _loaded_plans(game, ch, anim, prof, rng):
    """(a1, plan, the chunk's entries loaded afresh for it) of each of the chunk's plans."""
    entries = game.load(ch.data)
    for k, (a1, plan) in enumerate(plans(anim, prof, rng)):
        if k:
            entries = game.load(ch.data)
        yield a1, plan, entries


def plans(anim, prof, rng):
    """[(a1, plan)]: the generated plan with +0xA1 = 0, again with +0xA1 = 1, then single frames."""
    plan = note_plan(rng, anim.frames, prof.fobj_steps)
    # DECISION (eediff addition to checks.md §7.3): besides the generated steps, one run of
    # single-frame steps reads every frame's records in turn, so a pose that holds for one
    # frame only is compared too; it stops at the end (or the profile's step cap).
    every_frame = [(256, False)] * min(max(1, anim.frames - 1), prof.playback_max_steps)
    return [(0, plan), (1, plan), (0, every_frame)]

def check_fobj(game, ch, anim, entries, ctx, tally, plan, a1):
    """One run of a plan with coord +0xA1 = a1 (checks.md §7, items 2-5) on the loaded chunk's
    entries: the game's words of the run's query against the reference's answer
    (reference/serve.py's, in process)."""
    q = query(game, ch, anim, entries, a1, plan)
    return answered(compare, q, serve.fobj(anim, q), ctx, tally, anim)


def queries(game, ch, anim, prof, r):
    """The check's queries (docs/truth.md §3, kind "fobj"): one per plan (a1 = 0, 1, then single
    frames)."""
    return [query(game, ch, anim, entries, a1, plan) for a1, plan, entries in _loaded_plans(game, ch, anim, prof, r)]



def replay_queries(game, ch, anim, plan, _exact_local, a1=0):
    """The query of an explicit F_Obj plan with a1 (a replay's, a shrinking candidate's: what a
    model is asked)."""
    return [query(game, ch, anim, game.load(ch.data), a1, [tuple(p) for p in plan])]

def query(game, ch, anim, entries, a1, plan):
    """One run of the plan [(step, restart)] with coord +0xA1 = a1 on the loaded chunk's entries:
    the steps' frame counters and, at each step into another frame, the coord words (matrix,
    localtp, flags) of every object whose F_Obj pose is in force."""
    coords, missing = start_fobj(game, anim, entries, ch.names, a1)
    state = {}
    forward, read, poses = [], [], []
    for i, s, restart, time, want in planned(anim, plan):
        got = game.forward(s)
        forward.append([int(got[0]), int(got[1])])
        if poses_read(anim, time, want, coords, state) is not None and state:
            read.append([i, list(state)])
            row = []
            for obj in state:
                words = game.coord_matrix(coords[obj])
                row.append({"matrix": [int(words[j]) for j in NINE_AND_T],
                            "localtp": int(game.u32(coords[obj] + mm.COORD_LOCALTP)),
                            "flags": int(game.m.read_u8(coords[obj] + mm.COORD_FLAGS) & 3)})
            poses.append(row)
        if anim.restarts(want, restart):
            game.restart()
    return {"kind": "fobj", "a1": a1, "plan": [[int(s), bool(x)] for s, x in plan], "read": read,
            "ledger": [["F_Obj records", k, 1] for k in compared_records(anim, plan, len(plan), list(coords))],
            "game": {"forward": forward, "poses": poses, "objects_without_entry": missing}}


def compared_records(anim, plan, n, objects):
    """The F_Obj records (their file offsets) the first n steps of `plan` compare, of `objects`
    (those with a coord): each pose in force at a step that reads one, and the records never in
    force it stands for."""
    # DECISION: a record never in force (animation-semantics.md §11: one at frame 0, or one that a
    # later record of its object in the same frame supersedes) is compared through the pose that
    # is in force instead (a game that applied it would differ there): it counts compared with it.
    never_in_force = never_in_force_of(anim)
    out, state = {}, {}
    for i, _, _, time, want in planned(anim, plan):
        if i >= n:
            break
        if poses_read(anim, time, want, objects, state) is not None:
            for obj, rec in state.items():
                out.update((r.offset, 1) for r in never_in_force.get((obj, rec.frame), []) + [rec])
    return list(out)


def compare(q, a, ctx, tally, anim):
    """The game's words of F_Obj query `q` step by step against the answer `a` (per step the
    frame counter and return value, at each read step the poses in force), walking the plan as
    the chunk's parse plays it: the first step whose frame counter or return value differs stops
    the comparison and is recorded, the steps before it count their records compared; what the
    check counts (the poses that persist, the restarts) comes from the parse. False when a step
    stopped it."""
    g, a1 = q["game"], q["a1"]
    plan = [tuple(p) for p in q["plan"]]
    missing = g.get("objects_without_entry") or ()
    for obj in missing:
        tally.fail(record(ctx, "fobj", "index entry", None, None, object=obj, floats=False,
                          context={"why": "no table entry for the F_Obj record's object"}))
    tally.count("fobj runs")
    objects = [o for o in fobj_objects(anim) if o not in missing]
    reads = {int(i): (k, objs) for k, (i, objs) in enumerate(q["read"])}
    state = {}
    for i, s, restart, time, want in planned(anim, plan):
        tally.count("fobj steps")
        where = {"plan": [list(p) for p in plan[:i + 1]], "time_before": time, "a1": a1}
        got, exp = [int(x) for x in g["forward"][i]], [int(x) for x in a["forward"][i]]
        if got != exp:
            tally.fail(record(ctx, "fobj", "frame counter", exp, got, step=i, time=time, floats=False, context=where))
            for k in compared_records(anim, plan, i, objects):
                mark(tally, "F_Obj records", k)
            return False
        if poses_read(anim, time, want, objects, state, tally) is not None and i in reads:
            k, objs = reads[i]
            for j, obj in enumerate(objs):
                compare_pose(g["poses"][k][j], a["poses"][k][j], state[obj], ctx, tally, i,
                             want.pose_at >> 8, where)
        restarted(anim, want, restart, tally, "fobj restarts")
    return True


def compare_pose(got, want, rec, ctx, tally, step, frame, where):
    """One coord's words (+0x40's translation and 3x3, +0x88 localtp, +0xA2 bits 0-1; checks.md
    §7.4) against the answer's pose in force of F_Obj record `rec`'s object, exactly: the
    translation first, then the 3x3, column by column."""
    count_pose(tally)
    def fail(field, e, g, floats=True):
        tally.fail(record(ctx, "fobj", field, e, g, object=rec.object, step=step, time=frame << 8,
                          floats=floats, context=dict(where, record_frame=rec.frame,
                                                      record=[f"0x{w:08x}" for w in rec.words])))
    if want is None:
        fail("pose in force", None, "read", floats=False)
        return
    for j in (9, 10, 11, *range(9)):                # got/want["matrix"]: NINE_AND_T's words
        if int(got["matrix"][j]) != int(want["matrix"][j]):
            fail(coord_field(j), int(want["matrix"][j]), int(got["matrix"][j]))
    if int(got["localtp"]) != int(want["localtp"]):
        fail("localtp", int(want["localtp"]), int(got["localtp"]))
    if int(got["flags"]) != int(want["flags"]):
        fail("flags", int(want["flags"]), int(got["flags"]), floats=False)


def poses_read(anim, time, want, objects, state, tally=None):
    """The step's new F_Obj poses (Animation.fobj_poses_read; None when it reads no frame), added
    to `state`, the poses in force; the poses that persist from earlier steps counted (tally)."""
    read = anim.fobj_poses_read(time, want, objects)
    if read is not None:
        state.update(read)
        if tally is not None:
            tally.quirk("fobj_persisted", len(state) - len(read))
    return read


def count_pose(tally):
    """One F_Obj pose compared: its coord's matrix, translation first, then the exact 3x3."""
    tally.count("F_Obj poses")
    tally.count("exact F_Obj matrices")


def fobj_objects(anim):
    """The objects the F_Obj records name, in order: the objects whose coords the check reads."""
    return sorted({r.object for r in anim.fobjs})


def start_fobj(game, anim, entries, names, a1):
    """A playback at 256 with an instance for every entry, and coord +0xA1 = a1 of each F_Obj
    record's object: ({object: its coord}, the objects with no table entry), objects in order."""
    game.playback(entries, names, 256)
    game.give_every_entry_an_instance(entries, mm.COORD_SIZE, kind=mm.INDEX_KIND_OBJ)
    coords, missing = {}, []
    for obj in fobj_objects(anim):
        e = first_entry(entries, obj)
        if e is None:
            missing.append(obj)
            continue
        coord = game.u32(mm.IDX + mm.INDEX_SIZE * e.position + mm.INDEX_SUBST)
        game.m.write_u8(coord + mm.COORD_A1, a1)
        coords[obj] = coord
    return coords, missing


def never_in_force_of(anim):
    """{(object, frame): the records of that object never in force, compared through the record in
    force at that frame} (the DECISION in check_fobj)."""
    out = {}
    for r in anim.fobjs:
        in_force = anim.fobj_pose(r.object, max(r.frame, 1) << 8)
        if in_force is not None and in_force is not r:
            out.setdefault((r.object, in_force.frame), []).append(r)
    return out


def replay_plan(case, plan, a1=0):
    check_fobj(case.game, case.ch, case.anim, case.game.load(case.ch.data), case.ctx, case.tally,
               [tuple(p) for p in plan], a1)


def replayed_plan(m):
    c = m.get("context") or {}
    return ([tuple(p) for p in c["plan"]], {"a1": c.get("a1", 0)}) if "plan" in c else None


CHECK = Check("fobj", order=5, kinds=("fobj",), applies=applies, run=run,
              replay=Replay("plan", replayed_plan, replay_plan, args=("a1",), queries=replay_queries), queries=queries,
              query_kinds=(QueryKind("fobj", compare, serve.fobj),))
