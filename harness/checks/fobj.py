"""F_Obj check (new in eediff): coord poses after playback steps, persistence included (checks.md §7)."""
from harness.checks import Check, Replay
from harness.checks.playback import coord_field
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.tables import first_entry
from harness.compare.steps import note_plan, planned, restarted
from harness.driver import memory_map as mm



def applies(case):
    """checks.md §7: a chunk with F_Obj records."""
    return bool(case.anim.fobjs)


def run(case):
    """The plan with +0xA1 = 0, again with +0xA1 = 1, then one run of single-frame steps."""
    game, ch, anim, ctx, tally, prof = case.game, case.ch, case.anim, case.ctx, case.tally, case.prof
    rng = case.rng
    entries = game.load(ch.data)
    for k, (a1, p) in enumerate(plans(anim, prof, rng)):
        if k:
            entries = game.load(ch.data)
        check_fobj(game, anim, entries, ch.names, ctx, tally, p, a1)


def plans(anim, prof, rng):
    """[(a1, plan)]: the generated plan with +0xA1 = 0, again with +0xA1 = 1, then single frames."""
    plan = note_plan(rng, anim.frames, prof.fobj_steps)
    # DECISION (eediff addition to checks.md §7.3): besides the generated steps, one run of
    # single-frame steps reads every frame's records in turn, so a pose that holds for one
    # frame only is compared too; it stops at the end (or the profile's step cap).
    every_frame = [(256, False)] * min(max(1, anim.frames - 1), prof.playback_max_steps)
    return [(0, plan), (1, plan), (0, every_frame)]

def check_fobj(game, anim, entries, names, ctx, tally, plan, a1):
    """One run of a plan with coord +0xA1 = a1 (checks.md §7, items 2-5)."""
    coords, missing = start_fobj(game, anim, entries, names, a1)
    for obj in missing:
        tally.fail(record(ctx, "fobj", "index entry", None, None, object=obj, floats=False,
                          context={"why": "no table entry for the F_Obj record's object"}))
    tally.count("fobj runs")
    # DECISION: a record never in force (animation-semantics.md §11: one at frame 0, or one that a
    # later record of its object in the same frame supersedes) is compared through the pose that
    # is in force instead (a game that applied it would differ there): it counts compared with it.
    never_in_force = never_in_force_of(anim)
    state = {}
    for i, s, restart, time, want in planned(anim, plan):
        got = game.forward(s)
        tally.count("fobj steps")
        where = {"plan": [list(p) for p in plan[:i + 1]], "time_before": time, "a1": a1}
        if got != (want.time, int(bool(want.ended))):
            tally.fail(record(ctx, "fobj", "frame counter", [want.time, int(bool(want.ended))], list(got),
                              step=i, time=time, floats=False, context=where))
            return False
        if poses_read(anim, time, want, coords, state, tally) is not None:
            for obj, rec in state.items():
                compare_fobj(game, anim, coords[obj], rec, a1, ctx, tally, i, want.pose_at >> 8, where)
                for r in never_in_force.get((obj, rec.frame), []) + [rec]:
                    mark(tally, "F_Obj records", r.offset)
        if restarted(anim, want, restart, tally, "fobj restarts"):
            game.restart()
    return True


def poses_read(anim, time, want, objects, state, tally=None):
    """The step's new F_Obj poses (Animation.fobj_poses_read; None when it reads no frame), added
    to `state`, the poses in force; the poses that persist from earlier steps counted (tally)."""
    read = anim.fobj_poses_read(time, want, objects)
    if read is not None:
        state.update(read)
        if tally is not None:
            tally.quirk("fobj_persisted", len(state) - len(read))
    return read


def count_steps(anim, plan, n, objects, tally):
    """What the check counts of the first n steps of `plan` besides its comparisons (the poses
    that persist, the restarts): the steps a comparison of the game's words with a model's answers
    compared (harness.truth.check). objects: the F_Obj objects with a coord, in order."""
    state = {}
    for i, s, restart, time, want in planned(anim, plan):
        if i >= n:
            break
        poses_read(anim, time, want, objects, state, tally)
        restarted(anim, want, restart, tally, "fobj restarts")


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


def compare_fobj(game, anim, coord, rec, a1, ctx, tally, step, frame, where):
    """Coord +0x40 (translation exact, 3x3), +0x88 localtp, +0xA2 bits 0-1 (checks.md §7.4)."""
    count_pose(tally)
    words = game.coord_matrix(coord)
    def fail(field, e, g, floats=True, **kw):
        tally.fail(record(ctx, "fobj", field, e, g, object=rec.object, step=step, time=frame << 8,
                          floats=floats, context=dict(where, record_frame=rec.frame,
                                                      record=[f"0x{w:08x}" for w in rec.words]), **kw))
    exact = anim.fobj_local_matrix(rec)     # 16 column-major u32 words in EE arithmetic
    for i in range(3):
        if words[12 + i] != exact[12 + i]:
            fail(coord_field(9 + i), exact[12 + i], words[12 + i])
    for c in range(3):
        for r in range(3):
            if words[4 * c + r] != exact[4 * c + r]:
                fail(coord_field(3 * c + r), exact[4 * c + r], words[4 * c + r])
    alpha = anim.fobj_localtp(rec)
    got_tp = game.u32(coord + mm.COORD_LOCALTP)
    if got_tp != alpha:
        fail("localtp", alpha, got_tp)
    flags = game.m.read_u8(coord + mm.COORD_FLAGS) & 3
    want = anim.fobj_flag_bits(rec, a1)
    if flags != want:
        fail("flags", want, flags, floats=False)


def replay_plan(case, plan, a1=0):
    check_fobj(case.game, case.anim, case.game.load(case.ch.data), case.ch.names, case.ctx, case.tally,
               [tuple(p) for p in plan], a1)


def replayed_plan(m):
    c = m.get("context") or {}
    return ([tuple(p) for p in c["plan"]], {"a1": c.get("a1", 0)}) if "plan" in c else None


CHECK = Check("fobj", order=5, kinds=("fobj",), applies=applies, run=run,
              replay=Replay("plan", replayed_plan, replay_plan, args=("a1",)))
