"""The named role cases of checks.md §10, under the real member and animation names.

Each role member is declared here with its exact content; plan.py adds filler members and filler
chunks around them so that the archive-wide counts of corpus-stats.md come out exact.
"""
from __future__ import annotations

from .spec import ChunkSpec, MemberSpec, MorpherSpec

K_OMNI, K_DISTANT, K_DIRECT, K_SPOT = 0x0609, 0x0603, 0x0605, 0x0607
CAT = {c: i for i, c in enumerate(("cmn", "gcmn", "demo", "desktop", "toppage", "menu", "effect",
                                   "equip", "skill", "spc", "pc", "npc", "gimmick", "enemy", "boss",
                                   "town", "field", "dungeon", "event"))}

# the nine note cases of the notes suite (checks.md §6.4, §10)
NOTE_CASES = ("ctu1body.cmp::ANM_ctu1atc0", "ctu1body.cmp::ANM_ctu1atc1", "ctu1body.cmp::ANM_ctu1run0",
              "cbu4body.cmp::ANM_cbu4atc0", "cbu4body.cmp::ANM_cbu4run0", "egn1.cmp::ANM_egn1atc0",
              "egn1.cmp::ANM_egn1atc1", "ecm1.cmp::ANM_ecm1mag0", "cbu0ski2.cmp::ANM_cbu0ski2")


def C(name, N, loops=False, tracks=6, **kw):
    return ChunkSpec(name=name, N=N, loops=loops, tracks=tracks, locked=True, role=name, **kw)


def _all(N, start=1):
    return list(range(start, N))


def role_members():
    """MemberSpec list of every role member (fresh objects on each call)."""
    m = []

    def M(name, cat, chunks, bones=12, **kw):
        spec = MemberSpec(name=name + ".cmp", category=CAT[cat], chunks=chunks, bones=bones,
                          role=True, **kw)
        m.append(spec)
        return spec

    # morphing (xp_flag) and the second morph blend (ekx1)
    M("xp_flag", "desktop", [C("ANM_xpflnut0", 20, True, 6, features=("keyed_pos_rot",),
                               morph={0: _all(20), 1: _all(20)})],
      bones=6, morphers=[MorpherSpec(3, [48]), MorpherSpec(3, [32])])
    M("ekx1", "enemy", [C("ANM_ekx1atc0", 31, False, 10, notes=[(7, 0x8005, 1), (15, 2, 3)],
                          features=("keyed_pos_rot",)),
                        C("ANM_ekx1dwn0", 25, False, 10, morph={0: _all(25)})],
      bones=10, morphers=[MorpherSpec(2, [40, 24], odd_scale=True)])
    # loops
    M("town01", "town", [C("ANM_sr1fla1_a", 48, True, 8, features=("keyed_pos_rot", "rot1_beyond")),
                         C("ANM_sr1shi1_a", 64, True, 6, features=("keyed_pos_rot", "nonunit_scale"))])
    M("field_d", "field", [C("ANM_sfd4lak1a", 90, True, 4, features=("keyed_pos_rot",))])
    # key quirks
    M("chgate", "gimmick", [C("ANM_xmgtcir2", 40, True, 3, features=("shared_key", "keyed_pos_rot"),
                              materials=2)], bones=4, materials=4, crops=4)
    M("eldl", "enemy", [C("ANM_eldlmag0", 45, False, 10, features=("back_key0", "back_key"))])
    M("cbu3body", "pc", [C("ANM_cbu3nut2", 50, False, 12, features=("back_key", "shared_key", "keyed_rot"))])
    M("xdhhack", "desktop", [C("ANM_xdhfram0", 30, False, 4, features=("past_end",))], bones=4)
    M("cha2body", "pc", [C("ANM_cha2mag1", 90, False, 8, features=("keys70",)),
                         C("ANM_cha2nut3", 80, True, 8, features=("keys70",))])
    # texture offsets
    M("xdl_load", "desktop", [C("ANM_xdl_lod0", 60, True, 2, materials=3, features=("mat_mix",)),
                              C("ANM_xdl_lod1", 60, True, 1, materials=3, features=("mat_mix",))],
      bones=2, materials=6, crops=6)
    # notes
    M("ctu1body", "pc", [C("ANM_ctu1atc0", 24, False, 10, notes=[(5, 2, 2), (5, 0x8005, 1), (12, 2, 4)]),
                         C("ANM_ctu1atc1", 28, False, 10, notes=[(4, 2, 1), (9, 0x8005, 1), (15, 2, 2)]),
                         C("ANM_ctu1run0", 20, True, 10, notes=[(5, 2, 1), (15, 2, 1), (19, 2, 2)])])
    M("cbu4body", "pc", [C("ANM_cbu4atc0", 26, False, 10, notes=[(6, 2, 2), (6, 0x8005, 1), (14, 0x8002, 0)]),
                         C("ANM_cbu4run0", 18, True, 10, notes=[(4, 2, 1), (13, 2, 1), (17, 2, 1)])])
    M("egn1", "enemy", [C("ANM_egn1atc0", 30, False, 8, notes=[(8, 0x8005, 1), (12, 0x8003, 0), (20, 2, 5)]),
                        C("ANM_egn1atc1", 34, False, 8, notes=[(10, 0x8003, 0), (10, 2, 2), (18, 0x8005, 1)])])
    M("ecm1", "enemy", [C("ANM_ecm1mag0", 36, False, 8, notes=[(0, 2, 5), (10, 0x8005, 1), (22, 2, 1)])])
    M("eug1", "enemy", [C("ANM_eug1dwn0", 28, False, 8, notes=[(0, 2, 3), (14, 2, 1)])])
    M("eugz", "enemy", [C("ANM_eugzdwn0", 28, False, 8, notes=[(0, 2, 3), (16, 2, 2)])])
    # DECISION: cbu0ski2 sits in the pc category: the skill category's 15 members share 15
    # sectors on the disc, too small for a character file.
    M("cbu0ski2", "pc", [C("ANM_cbu0ski2", 40, False, 10,
                           notes=[(8, 2, 1), (8, 2, 2), (8, 0x8005, 1), (20, 2, 3), (20, 2, 4),
                                  (20, 0x8005, 1), (30, 2, 1)])])
    # F_Obj: one record per frame 1 .. N-1 for a body no controller drives
    for stem, ns in (("eex1", (32, 40, 36)), ("eii1", (30, 38, 34)), ("elgx", (28, 42, 33))):
        body = f"OBJ_{stem}body"
        M(stem, "enemy", [C(f"ANM_{stem}{clip}", n, False, 6, fobj=[(body, _all(n))],
                            features=(("eex1_frame3",) if stem == "eex1" and clip == "dmg0" else ()))
                          for clip, n in zip(("dmg0", "dwn0", "mag0"), ns)], bones=8, fobj_body=body)
    # xddesk01: its F_Obj chunks' N are set by plan.py so that the archive holds 3,388 F_Obj records
    M("xddesk01", "desktop", [ChunkSpec(name=f"ANM_xddsk{i}", N=0, tracks=2, locked=True,
                                        role=f"ANM_xddsk{i}", fobj=[("OBJ_xddesk01obj", [])])
                              for i in range(12)], bones=4, fobj_body="OBJ_xddesk01obj")
    # ExtObj copies (the Grunties)
    M("cdogbod0", "npc", [C("ANM_cdogrun0", 24, True, 23, ext_tracks=8, features=("keyed_pos_rot",))],
      bones=23, extobj=True, clumps=1)
    # lights: the spot light of town05, a direct light per event room (formats.md §4.7)
    M("town05", "town", [C("ANM_town05sky0", 60, True, 2, lights=[K_SPOT, K_DISTANT],
                           ambient=list(range(60)))], bones=2)
    for room in ("se1_1", "se1_2", "se1_3", "se2_1", "se2_2", "se3_1", "se3_2"):
        M(room, "event", [C(f"ANM_{room}lig0", 30, True, 2, lights=[K_DIRECT], ambient=[0])], bones=2)
    return m
