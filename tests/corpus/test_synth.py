"""The synthetic corpus: determinism, round trip, and the named role cases of checks.md §10."""
import hashlib
import os
import struct

import pytest

from corpus.synth import synthesize
from corpus.synth.content import Layout, chunk_records, digest, normalized
from corpus.synth.member import member_parts
from corpus.synth.plan import build_plan


def f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path, small_dir):
    synthesize(str(tmp_path / "a"), seed=1, small=True)
    synthesize(str(tmp_path / "b"), seed=2, small=True)
    assert sha(tmp_path / "a" / "DATA.BIN") == sha(os.path.join(small_dir, "DATA.BIN"))
    assert open(tmp_path / "a" / "categories.c").read() == open(os.path.join(small_dir, "categories.c")).read()
    assert sha(tmp_path / "b" / "DATA.BIN") != sha(tmp_path / "a" / "DATA.BIN")


def test_member_content_independent_of_order():
    """Every random choice comes from (seed, member, chunk): a member made alone is the same."""
    plan = build_plan(1, small=True)
    alone = member_parts(1, plan[7])
    for m in plan[:7]:
        member_parts(1, m)
    again = member_parts(1, build_plan(1, small=True)[7])
    assert (alone.head, alone.tail) == (again.head, again.tail)


def test_round_trip_small(small_corpus, small_manifest):
    """Every chunk parses back to exactly the records the generator intended."""
    plan = {m.name: m for m in build_plan(1, small=True)}
    n = 0
    for m in small_manifest["members"]:
        spec = plan[m["name"]]
        lay = Layout(spec)
        for ci, cm in enumerate(m["chunks"]):
            a = small_corpus.chunk(cm["id"]).anime
            want = normalized(chunk_records(1, spec, ci, lay))
            assert normalized(a) == want, cm["id"]
            assert digest(want) == cm["digest"]
            n += 1
    assert n == len(small_corpus.chunk_ids()) == 55


# ----------------------------------------------------------------------------- role cases (§10)

def anime(c, cid):
    return c.chunk(cid).anime


def keyed(t, ch):
    return getattr(t, ch).kind == 2


def frames_of(ch):
    return [fr for fr, _ in ch.keys]


@pytest.fixture(scope="module", params=["small", "full"])
def corpus(request):
    if request.param == "full" and not request.config.getoption("--slow"):
        pytest.skip("the full archive's role cases run with --slow (test_stats covers their presence)")
    return request.getfixturevalue(f"{request.param}_corpus")


def test_ordinary_and_second_loop(corpus):
    a = anime(corpus, "town01.cmp::ANM_sr1fla1_a")
    assert a.loops and any(keyed(t, "pos") and keyed(t, "rot") for t in a.tracks)
    b = anime(corpus, "town01.cmp::ANM_sr1shi1_a")
    assert b.loops and any(keyed(t, "pos") and keyed(t, "rot") for t in b.tracks)
    assert any(t.scale.kind and any(w != 0x3F800000 for w in t.scale.value + tuple(x for _, ws in t.scale.keys for x in ws))
               for t in b.tracks)


def test_morphing_role(corpus):
    ch = corpus.chunk("xp_flag.cmp::ANM_xpflnut0")
    a, fl = ch.anime, ch.file
    assert a.loops and fl.morphers
    for mph, base in fl.morphers.items():
        recs = [r for r in a.morphs if r.morpher == mph]
        assert [r.frame for r in recs] == list(range(1, a.frames))
        b = fl.models[base]
        for r in recs[:2]:
            for tgt, w in r.pairs:
                t = fl.models[tgt]
                assert t.mtype in (0x600, 0x601)
                assert [m.vertex_count for m in t.mmats] == [m.vertex_count for m in b.mmats]
                assert 0 <= f(w) < 8


def test_second_morph_blend_has_a_target_at_another_scale(corpus):
    ch = corpus.chunk("ekx1.cmp::ANM_ekx1dwn0")
    fl = ch.file
    (mph, base), = fl.morphers.items()
    tg = {t for r in ch.anime.morphs for t, _ in r.pairs}
    assert any(fl.models[t].vertex_scale != fl.models[base].vertex_scale for t in tg)


def test_key_quirks(corpus):
    a = anime(corpus, "chgate.cmp::ANM_xmgtcir2")
    assert any(x == y for t in a.tracks for c in (t.pos, t.rot) for x, y in zip(frames_of(c), frames_of(c)[1:]))
    a = anime(corpus, "eldl.cmp::ANM_eldlmag0")
    assert any(y == 0 and x > 0 for t in a.tracks for c in (t.pos, t.rot) for x, y in zip(frames_of(c), frames_of(c)[1:]))
    a = anime(corpus, "cbu3body.cmp::ANM_cbu3nut2")
    rots = [frames_of(t.rot) for t in a.tracks]
    assert any(any(y < x for x, y in zip(r, r[1:])) for r in rots)
    assert any(any(y == x for x, y in zip(r, r[1:])) for r in rots)
    a = anime(corpus, "xdhhack.cmp::ANM_xdhfram0")
    assert any(frames_of(t.pos) and frames_of(t.pos)[-1] > a.frames - 1 for t in a.tracks)
    for cid in ("cha2body.cmp::ANM_cha2mag1", "cha2body.cmp::ANM_cha2nut3"):
        assert max(len(t.rot.keys) for t in anime(corpus, cid).tracks) >= 70


def test_texture_offsets(corpus):
    for cid in ("xdl_load.cmp::ANM_xdl_lod0", "xdl_load.cmp::ANM_xdl_lod1"):
        ch = corpus.chunk(cid)
        ms = ch.anime.materials
        kinds = {m.u.kind for m in ms} | {m.v.kind for m in ms}
        assert {1, 2} <= kinds
        vals = [w for m in ms for c in (m.u, m.v) for w in c.value + tuple(x for _, ws in c.keys for x in ws)]
        assert any(f(w) < 0 for w in vals)
        assert all(ch.file.materials[m.material].crop_u or ch.file.materials[m.material].crop_v for m in ms)


def test_note_roles(corpus):
    a = anime(corpus, "ctu1body.cmp::ANM_ctu1atc0")
    assert [(n.event, n.param) for n in a.notes if n.frame == 5] == [(2, 2), (0x8005, 1)]
    assert len({n.frame for n in anime(corpus, "ctu1body.cmp::ANM_ctu1atc1").notes}) >= 2
    r = anime(corpus, "ctu1body.cmp::ANM_ctu1run0")
    assert r.loops and r.notes[-1].frame == r.frames - 1
    ev = {n.event for cid in ("egn1.cmp::ANM_egn1atc0", "egn1.cmp::ANM_egn1atc1") for n in anime(corpus, cid).notes}
    assert {0x8005, 0x8003} <= ev
    for cid in ("ecm1.cmp::ANM_ecm1mag0", "eug1.cmp::ANM_eug1dwn0", "eugz.cmp::ANM_eugzdwn0"):
        assert anime(corpus, cid).notes[0].frame == 0
    from collections import Counter
    assert max(Counter(n.frame for n in anime(corpus, "cbu0ski2.cmp::ANM_cbu0ski2").notes).values()) == 3
    e = anime(corpus, "ekx1.cmp::ANM_ekx1atc0")
    assert not e.loops and e.notes and e.frames >= 30
    for cid in ("cbu4body.cmp::ANM_cbu4atc0", "cbu4body.cmp::ANM_cbu4run0"):
        assert anime(corpus, cid).notes


def test_fobj_pose_role(corpus):
    ch = corpus.chunk("eex1.cmp::ANM_eex1dmg0")
    a = ch.anime
    body = next(k for k, v in ch.names.items() if v == "OBJ_eex1body")
    recs = [r for r in a.fobjs if r.object == body]
    assert len(recs) == 31 and [r.frame for r in recs] == list(range(1, a.frames))
    r3 = next(r for r in recs if r.frame == 3)
    assert f(r3.pos[2]) == 7.75 and [f(w) for w in r3.rot] == [0.0, 15.0, -15.0]
    assert all(t.object != body for t in a.tracks)


def test_extobj_role(corpus):
    ch = corpus.chunk("cdogbod0.cmp::ANM_cdogrun0")
    fl = ch.file
    trall = next(k for k, v in fl.names.items() if v == "CMP_trall")
    nodes = fl.clumps[trall]
    assert len(nodes) == 23 and all(n in fl.ext for n in nodes)
    hops = max(sum(1 for _ in _chain(fl.ext, n)) for n in nodes)
    assert hops >= 2
    assert any(t.object in fl.ext and t.target != t.object for t in ch.anime.tracks)


def _chain(ext, o):
    while o in ext and ext[o] != o:
        o = ext[o]
        yield o


def test_lights(corpus):
    a = anime(corpus, "town05.cmp::ANM_town05sky0")
    assert 0x0607 in {o.kind for o in a.others}
    ch = corpus.chunk("se1_3.cmp::ANM_se1_3lig0")
    d = next(o for o in ch.anime.others if o.kind == 0x0605)
    assert ch.names[d.words[0]] == "LGT_se1_3lig1" and d.words[1] == 0x240041
    assert [f(w) for w in d.words[2:5]] == [0, 0, 2500] and [f(w) for w in d.words[8:10]] == [498, 500]


def test_semantics_properties_everywhere(corpus):
    """animation-semantics.md §9.1 and §8.3: no frame-0 F_Morpher, a Top per frame, notes in order."""
    from corpus.anime import parse_anime
    for cid in corpus.chunk_ids():
        ch = corpus.chunk(cid)
        a = parse_anime(ch.data, where=cid)
        assert all(r.frame >= 1 for r in a.morphs), cid
        assert [f for f, _ in a.tops][:-1] == list(range(a.frames)), cid
        fr = [n.frame for n in a.notes]
        assert fr == sorted(fr) and all(x < a.frames for x in fr), cid


@pytest.mark.slow
def test_full_archive_same_bytes_with_one_or_two_workers(tmp_path, full_dir):
    """The full archive depends only on the seed (make corpus uses two worker processes)."""
    synthesize(str(tmp_path / "one"), seed=1, jobs=1)
    assert sha(tmp_path / "one" / "DATA.BIN") == sha(os.path.join(full_dir, "DATA.BIN"))
    assert open(tmp_path / "one" / "categories.c").read() == open(os.path.join(full_dir, "categories.c")).read()


@pytest.mark.parametrize("seed", [1, 2, 3, 7, 11])
def test_plan_hits_every_disc_count_for_any_seed(seed):
    """build_plan checks its splits (corpus-stats.md §3-§7) and raises when one misses."""
    from corpus.synth.plan import check_plan
    plan = build_plan(seed)
    check_plan(plan)
    assert len(plan) == 1023
