"""Material checks: texture offsets U, V and the ccMaterial u, v at sampled times (checks.md §2.2)."""
from harness.checks import Check
from harness.compare.keys import keys_around, sample_times
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm



def applies(case):
    """checks.md §2.2: a chunk with material records."""
    return bool(case.anim.materials)


def run(case):
    check_materials(case.game, case.anim, case.game.load(case.ch.data), case.ctx, case.tally, case.prof, case.rng)


def count_material(rec, tally):
    """The coverage of one material record the game compiled a controller for: keyed channels,
    negative texture offsets."""
    tally.quirk("material_keyed_channels", (rec.u.kind == 2) + (rec.v.kind == 2))
    tally.quirk("negative_uv", sum(1 for c in (rec.u, rec.v) for w in channel_words(c) if w >> 31 and w & 0x7FFFFFFF))


def check_materials(game, anim, entries, ctx, tally, prof, rng):
    """checks.md §2.2: texture offsets U, V and the ccMaterial u, v with random crops, exactly."""
    first = first_records(anim)
    game.new_anm()
    paired = entries_by_record([mt.record for mt in first.values()], entries, mm.KIND_MATERIAL)
    for mt in first.values():
        rec = mt.record
        entry = paired.get(rec.index)
        if entry is None:
            tally.fail(record(ctx, "materials", "material controller", None, None, object=rec.material,
                              track=rec.index, floats=False,
                              context={"why": "no table entry with a kind-0x0202 ctrl for this material"}))
            continue
        crop_u, crop_v, times = material_case(anim, rec, rng, prof)
        work, mat = game.material_work(entry.ctrl, crop_u, crop_v)
        count_material(rec, tally)
        for t in times:
            game.reset_work(work)
            game.set_work(work, t)
            tally.count("material cases")
            T = min(t, anim.last)
            su, sv = game.words(mm.SCRATCH, 2)
            u, v = game.material_uv(mat)
            exp_uv = anim.uv(mt, T)
            exp_off = anim.material_offsets(mt, T, crop_u, crop_v)
            ctx_ = {"crop": [crop_u, crop_v], "keys_u": keys_around(rec.u, t), "keys_v": keys_around(rec.v, t)}
            for field, e, g, fl in (("U", exp_uv[0], su, True), ("V", exp_uv[1], sv, True),
                                    ("u", exp_off[0], u, False), ("v", exp_off[1], v, False)):
                if e != g:
                    tally.fail(record(ctx, "materials", field, e, g, object=rec.material,
                                      track=rec.index, time=t, floats=fl, context=ctx_))
        # DECISION: formats.md §4.6: of several records for one material the first is used, so
        # the later ones are compared through it (a game that used one of them instead would show
        # in the first record's compare); the ledger counts them compared with it.
        for later in anim.materials:
            if later.material == mt.material:
                mark(tally, "material records", later.record.index)


def first_records(anim):
    """material object -> its first record (formats.md §4.6: the one the game uses)."""
    first = {}
    for mt in anim.materials:
        first.setdefault(mt.material, mt)
    return first


def record_of(anim, index):
    """The material record `index` of the chunk; KeyError."""
    for mt in anim.materials:
        if mt.record.index == index:
            return mt.record
    raise KeyError(f"material record {index}: no such record in the chunk")


def material_case(anim, rec, rng, prof):
    """(crop u, crop v, sampled times) of one material record (checks.md §2.2), drawn in that order."""
    crop_u, crop_v = rng.randint(0, 0xFFFF), rng.randint(0, 0xFFFF)
    return crop_u, crop_v, sample_times(rec, anim.last, rng, prof.times, prof.max_boundaries)


def channel_words(c):
    if c.kind == 1:
        return list(c.value)
    if c.kind == 2:
        return [w for _, v in c.keys for w in v]
    return []


CHECK = Check("materials", order=1, kinds=("material",), applies=applies, run=run)
