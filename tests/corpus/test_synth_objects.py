"""The synthetic corpus holds every named pattern of anim-objects.md §3.6 (corpus/synth/objects.py),
in the exact byte formats of formats.md §3, while each renamed record keeps its controllers."""
import struct

import pytest

from corpus.synth.plan import build_plan


@pytest.fixture(scope="module")
def plan():
    return build_plan(1)


def with_pattern(plan, pattern):
    return [m for m in plan if pattern in m.objects]


def names_of(fl):
    return {v: k for k, v in fl.names.items()}


def clips(corpus, m):
    return [corpus.chunk(f"{m.name}::{c.name}").anime for c in m.chunks]


def nodes_of(fl):
    return {n for nodes in fl.clumps.values() for n in nodes}


def named(anime):
    return [t.object for t in anime.tracks]


def test_every_pattern_is_in_the_plan_with_swarms_of_4_8_and_16(plan):
    for p in ("bodies", "ext_legs", "swarm", "second_weapon", "loose_weapons", "unnamed_model", "skin_nodes",
              "effects"):
        assert with_pattern(plan, p), p
    assert sorted(m.objects["swarm"] for m in with_pattern(plan, "swarm")) == [4, 8, 16]


def test_eight_bodies_in_the_clump_and_each_clip_names_one(full_corpus, plan):
    for m in with_pattern(plan, "bodies"):
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        bodies = [ids[f"OBJ_{m.stem}body{k}"] for k in range(8)]
        assert set(bodies) <= nodes_of(fl) and all(fl.objs[b].parent == 0 for b in bodies)
        per_clip = [[o for o in named(a) if o in bodies] for a in clips(full_corpus, m)]
        assert all(len(p) == 1 for p in per_clip) and len({p[0] for p in per_clip}) == min(8, len(m.chunks))


def test_legs_1_to_3_are_extobj_copies_of_leg0_and_every_clip_names_the_four(full_corpus, plan):
    for m in with_pattern(plan, "ext_legs"):
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        legs = [ids[f"OBJ_{m.stem}leg{k}"] for k in range(4)]
        assert legs[0] in nodes_of(fl) and legs[0] in fl.objs
        assert all(fl.ext[x] == legs[0] for x in legs[1:])
        for a in clips(full_corpus, m):
            assert [o for o in named(a) if o in legs] == legs
            assert [t.target for t in a.tracks if t.object in legs] == [legs[0]] * 4


def test_each_swarm_copy_hangs_under_its_own_body_copy(full_corpus, plan):
    for m in with_pattern(plan, "swarm"):
        n = m.objects["swarm"]
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        hive, bee = ids[f"OBJ_{m.stem}hive"], ids[f"OBJ_{m.stem}bee"]
        assert {hive, bee} <= nodes_of(fl) and fl.objs[bee].parent == hive
        raw = {struct.unpack_from("<I", fl.data, c.offset + 8)[0]: struct.unpack_from("<III", fl.data, c.offset + 8)
               for c in fl.chunks if c.kind == 0x0A00 and not c.frame_section}
        for k in range(n):
            h, b = ids[f"OBJ_{m.stem}hive{k:02d}"], ids[f"OBJ_{m.stem}bee{k:02d}"]
            assert raw[h] == (h, 0, hive) and raw[b] == (b, h, bee)
        for a in clips(full_corpus, m):
            copies = [o for o in named(a) if fl.ext.get(o) in (hive, bee)]
            assert len(copies) == 2 * n


def test_a_second_weapon_some_clips_name_and_weapons_in_no_clump(full_corpus, plan):
    for m in with_pattern(plan, "second_weapon"):
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        w0, w1 = ids[f"OBJ_{m.stem}wpn0"], ids[f"OBJ_{m.stem}wpn1"]
        assert {w0, w1} <= nodes_of(fl)
        sets = [{o for o in named(a) if o in (w0, w1)} for a in clips(full_corpus, m)]
        assert {w0} in sets and {w0, w1} in sets
    for m in with_pattern(plan, "loose_weapons"):
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        swords = {ids[f"OBJ_{m.stem}swd0"], ids[f"OBJ_{m.stem}swd1"]}
        assert swords <= set(fl.objs) and not swords & nodes_of(fl)
        assert all(swords <= set(named(a)) for a in clips(full_corpus, m))


def test_a_clump_node_with_a_model_that_no_clip_names(full_corpus, plan):
    ms = with_pattern(plan, "unnamed_model")
    assert sum(len(m.chunks) for m in ms) >= 150           # about 185 of 4,091 on the disc
    for m in ms[:5]:
        fl = full_corpus.file(m.name)
        trall = names_of(fl)[f"OBJ_{m.stem}trall"]
        assert trall in nodes_of(fl) and fl.objs[trall].model in fl.models
        assert all(trall not in named(a) for a in clips(full_corpus, m))


def test_skinned_bones_over_49_nodes_are_named_directly_then_by_a_copy(full_corpus, plan):
    for m in with_pattern(plan, "skin_nodes"):
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        assert max(len(n) for n in fl.clumps.values()) >= 49
        bones = [ids[f"OBJ_{m.stem}{k:02d}"] for k in range(8)]
        assert all(fl.models[fl.objs[b].model].mtype & 6 for b in bones)
        for a in clips(full_corpus, m):
            order = named(a)
            for k, b in enumerate(bones):
                x = ids[f"OBJ_{m.stem}sx{k}"]
                assert fl.ext[x] == b and order.index(b) < order.index(x)


def test_eff_chunks_and_a_copy_named_before_the_effect(full_corpus, plan):
    ms = with_pattern(plan, "effects")
    assert sum(m.objects["effects"] for m in ms) <= 171            # the disc's EFF_ names
    for m in ms:
        fl = full_corpus.file(m.name)
        ids = names_of(fl)
        effs = {struct.unpack_from("<I", fl.data, c.offset + 8)[0]: struct.unpack_from("<II", fl.data, c.offset + 8)
                for c in fl.chunks if c.kind == 0x0E00 and not c.frame_section}
        assert len(effs) == m.objects["effects"] and all(fl.names[o].startswith("EFF_") for o in effs)
        eff, copy = ids[f"EFF_{m.stem}00"], ids[f"OBJ_{m.stem}efx"]
        assert effs[eff][1] == ids[f"OBJ_{m.stem}00"] and fl.ext[copy] == eff
        for a in clips(full_corpus, m):
            order = named(a)
            assert order.index(copy) < order.index(eff)


def test_a_renamed_record_keeps_its_controllers(full_corpus, full_manifest, plan):
    m = with_pattern(plan, "swarm")[0]
    counts = {c["id"]: c["tracks"] for mem in full_manifest["members"] for c in mem.get("chunks", [])}
    for c in m.chunks:
        a = full_corpus.chunk(f"{m.name}::{c.name}").anime
        assert len(a.tracks) == c.tracks == counts[f"{m.name}::{c.name}"]
