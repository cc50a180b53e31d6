"""Material checks: texture offsets U, V and the ccMaterial u, v at sampled times (checks.md §2.2).

The check asks its queries of the game (`queries`: per material its crops, times and the game's
words), the reference answers them in process through reference/serve.py's own answer function
(the one `reference serve` speaks to a model run), and `compare` judges the game's words against
an answer in docs/truth.md §3's shape: a model's answer of a truth file goes through the same
function (harness/truth/check.py).
"""
from harness.checks import Check, QueryKind, answered
from harness.compare.keys import keys_around, sample_times
from harness.compare.mismatch import record
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm
from reference import serve



def applies(case):
    """checks.md §2.2: a chunk with material records."""
    return bool(case.anim.materials)


def run(case):
    check_materials(case.game, case.ch, case.anim, case.ctx, case.tally, case.prof, case.rng)


def count_material(rec, tally):
    """The coverage of one material record the game compiled a controller for: keyed channels,
    negative texture offsets."""
    tally.quirk("material_keyed_channels", (rec.u.kind == 2) + (rec.v.kind == 2))
    tally.quirk("negative_uv", sum(1 for c in (rec.u, rec.v) for w in channel_words(c) if w >> 31 and w & 0x7FFFFFFF))


def check_materials(game, ch, anim, ctx, tally, prof, rng):
    """checks.md §2.2: texture offsets U, V and the ccMaterial u, v with random crops, exactly: the
    game's words of each query against the reference's answer."""
    for q in queries(game, ch, anim, prof, rng):
        answered(compare, q, serve.material(anim, q), ctx, tally, anim)


def queries(game, ch, anim, prof, r):
    """Per material (its first record) the crops, the times and the game's U, V and u16 u, v at
    each: the check's queries (docs/truth.md §3, kind "material")."""
    entries = game.load(ch.data)
    first = first_records(anim)
    game.new_anm()
    paired = entries_by_record([mt.record for mt in first.values()], entries, mm.KIND_MATERIAL)
    out = []
    for mt in first.values():
        rec = mt.record
        q = {"kind": "material", "track": rec.index, "material": rec.material}
        entry = paired.get(rec.index)
        if entry is None:
            q.update(crop=[0, 0], times=[], game={"compiled": False})
            out.append(q)
            continue
        crop_u, crop_v, times = material_case(anim, rec, r, prof)
        work, mat = game.material_work(entry.ctrl, crop_u, crop_v)
        g = {"U": [], "V": [], "u": [], "v": []}
        for t in times:
            game.reset_work(work)
            game.set_work(work, t)
            su, sv = game.words(mm.SCRATCH, 2)
            u, v = game.material_uv(mat)
            g["U"].append(su)
            g["V"].append(sv)
            g["u"].append(u)
            g["v"].append(v)
        # DECISION: formats.md §4.6: of several records for one material the first is used, so
        # the later ones are compared through it (a game that used one of them instead would show
        # in the first record's compare); the ledger counts them compared with it.
        ledger = [["material records", later.record.index, 1] for later in anim.materials
                  if later.material == mt.material]
        q.update(crop=[crop_u, crop_v], times=[int(t) for t in times], game=g, ledger=ledger)
        out.append(q)
    return out


def compare(q, a, ctx, tally, anim):
    """The game's words of material query `q` against the answer `a` (U, V, u, v at each time),
    exactly. False when the game compiled no controller for the material."""
    g = q["game"]
    if g.get("compiled") is False:
        tally.fail(record(ctx, "materials", "material controller", None, None, object=q.get("material"),
                          track=q.get("track"), floats=False,
                          context={"why": "no table entry with a kind-0x0202 ctrl for this material"}))
        return False
    rec = record_of(anim, q["track"])
    count_material(rec, tally)
    tally.count("material cases", len(q["times"]))
    for k, t in enumerate(q["times"]):
        ctx_ = {"crop": list(q["crop"]), "keys_u": keys_around(rec.u, t), "keys_v": keys_around(rec.v, t)}
        for field, fl in (("U", True), ("V", True), ("u", False), ("v", False)):
            if int(g[field][k]) != int(a[field][k]):
                tally.fail(record(ctx, "materials", field, int(a[field][k]), int(g[field][k]), object=q.get("material"),
                                  track=q.get("track"), time=t, floats=fl, context=ctx_))
    return True


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


CHECK = Check("materials", order=1, kinds=("material",), applies=applies, run=run, queries=queries,
              query_kinds=(QueryKind("material", compare, serve.material),))
