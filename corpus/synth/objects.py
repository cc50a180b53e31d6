"""The anm's object patterns of anim-objects.md §3.6 in the synthetic corpus.

Each pattern is a handful of objects a member defines besides its bones (Obj, ExtObj and Eff
chunks, clump nodes), and the records of its clips that name them. A record named here keeps
its controllers: only the object it names changes, so every count the five earlier checks make
(records, cases, matrices, steps) stays as it was.

| pattern | the disc's case (anim-objects.md §3.6) | here |
| --- | --- | --- |
| bodies | eww1: eight bodies, each clip names one | 8 Obj bodies in the clump; clip c names body c mod 8 |
| ext_legs | ecc1: legs 1-3 ExtObj copies of leg0 | leg0 an Obj node with one of the member's bone models, legs 1-3 copies; each clip names all four, so SetAnm makes three legs and builds their node tables |
| swarm | evb1/evba/evbb: 4, 8, 16 bees, each under its own body copy | a hive and a bee (with a bone model when the member has one) in the clump, n ExtObj copies of each, bee k's parent hive k |
| second_weapon | eus1: a second sword while it draws | two weapon nodes; every clip names the first, the odd clips the second too |
| loose_weapons | eka1: swords in no clump | two Obj weapons no clump lists, named by every clip |
| unnamed_model | eks1, and 185 clump-and-clip pairs: a node with a model no clip names | one more clump node with a model, named by no record |
| skin_nodes | field_k: bone and skin models over 49 clump nodes | bones 0-7 carry the member's bone models and are named twice (directly, then by an ExtObj copy), so SetAnm makes objects for them and builds their node tables over the clump's >= 49 nodes |
| effects | EFF_ objects (0xE00) | Eff chunks (object, parent); clips name the first, and before it an ExtObj copy of it (an Eff entry that loses its claim) |

DECISION: an Eff (0x0E00) chunk's payload is (object, parent); formats.md does not lay it out.
DECISION: nodes only some clips name come from the patterns themselves (the bodies, the second
weapon) and from the clump listing every bone while short clips name only the first bones.
"""
from __future__ import annotations

import random
from typing import Dict, List, Tuple

from .spec import MemberSpec

# DECISION: how many members carry each pattern. The disc's census counts none of them but the
# unnamed-model pairs (185 of 4,091 clips, about 4.5 %) and the EFF_ names (171, corpus-stats.md §2).
MEMBERS = {"bodies": 2, "ext_legs": 3, "swarm": 3, "second_weapon": 3, "loose_weapons": 3, "skin_nodes": 2,
           "effects": 24}
SWARMS = (4, 8, 16)
UNNAMED_MODEL_SHARE = 185 / 4091
SKIN_NODES_MIN = 49


def need(pattern: str, size: int) -> Tuple[int, int]:
    """(tracks every clip needs, bones the member needs) for a pattern."""
    return {"bodies": (1, 1), "ext_legs": (6, 1), "swarm": (2 + 2 * size, 1), "second_weapon": (3, 1),
            "loose_weapons": (3, 1), "unnamed_model": (0, 1), "skin_nodes": (16, SKIN_NODES_MIN),
            "effects": (3, 2)}[pattern]


def _fits(m: MemberSpec, pattern: str, size: int) -> bool:
    tracks, bones = need(pattern, size)
    if m.role or m.extobj or m.bones < bones or not m.chunks or m.category == 8:
        return False
    if pattern in ("skin_nodes", "ext_legs") and not any(md.layout == "bone" for md in m.models):
        return False
    if pattern in ("bodies", "second_weapon") and len(m.chunks) < 2:
        return False
    return all(c.tracks >= tracks for c in m.chunks)


def choose(members: List[MemberSpec], seed) -> None:
    """Give the patterns to members, drawn from (seed, "object patterns"); one pattern a member,
    the unnamed model besides."""
    rng = random.Random(f"{seed}:object patterns")
    taken = set()
    order = [("swarm", n) for n in reversed(SWARMS)] + [(p, 1) for p in ("skin_nodes", "bodies", "ext_legs",
                                                                          "second_weapon", "loose_weapons", "effects")]
    for pattern, size in order:
        count = 1 if pattern == "swarm" else MEMBERS[pattern]
        cands = [m for m in members if m.name not in taken and _fits(m, pattern, size)]
        for m in rng.sample(cands, min(count, len(cands))):
            m.objects[pattern] = size if pattern != "effects" else rng.randint(1, 3)
            taken.add(m.name)
    with_models = [m for m in members if _fits(m, "unnamed_model", 1) and m.models]
    chunks = sum(len(m.chunks) for m in with_models)
    want = round(UNNAMED_MODEL_SHARE * chunks)
    rng.shuffle(with_models)
    for m in with_models:
        if want <= 0:
            break
        m.objects["unnamed_model"] = 1
        want -= len(m.chunks)


def names(m: MemberSpec) -> List[str]:
    """The pattern objects' names, in index order (content.Layout appends them after the cameras)."""
    s, out = m.stem, []
    p = m.objects
    if "bodies" in p:
        out += [f"OBJ_{s}body{k}" for k in range(8)]
    if "ext_legs" in p:
        out += [f"OBJ_{s}leg{k}" for k in range(4)]
    if "swarm" in p:
        n = p["swarm"]
        out += [f"OBJ_{s}hive", f"OBJ_{s}bee"] + [f"OBJ_{s}hive{k:02d}" for k in range(n)] \
            + [f"OBJ_{s}bee{k:02d}" for k in range(n)]
    if "second_weapon" in p:
        out += [f"OBJ_{s}wpn0", f"OBJ_{s}wpn1"]
    if "loose_weapons" in p:
        out += [f"OBJ_{s}swd0", f"OBJ_{s}swd1"]
    if "unnamed_model" in p:
        out += [f"OBJ_{s}trall"]
    if "skin_nodes" in p:
        out += [f"OBJ_{s}sx{k}" for k in range(8)]
    if "effects" in p:
        out += [f"EFF_{s}{k:02d}" for k in range(p["effects"])] + [f"OBJ_{s}efx"]
    return out


def prefix_counts(m: MemberSpec) -> Dict[str, int]:
    out: Dict[str, int] = {}
    for n in names(m):
        out[n[:4]] = out.get(n[:4], 0) + 1
    return out


class Objects:
    """A member's pattern objects, laid out: the setup chunks' words and each clip's renaming."""

    def __init__(self, m: MemberSpec, lay):
        self.m, self.lay = m, lay
        self.id = dict(zip(names(m), lay.pattern))
        self.s = m.stem
        rigid = [o for o, md in zip(lay.models, m.models) if md.layout == "rigid" and not md.mtype & 0x606]
        self.rigid = rigid[0] if rigid else 0
        self.bone_models = [o for o, md in zip(lay.models, m.models) if md.layout == "bone"]
        self.objs: List[tuple] = []       # (object, parent, model)
        self.exts: List[tuple] = []       # (object, parent, target)
        self.effs: List[tuple] = []       # (object, parent)
        self.nodes: List[int] = []        # appended to the first clump
        self.models: Dict[int, int] = {}  # bone -> model replacing its own
        self._lay_out()

    def _o(self, name):
        return self.id[f"{name[:4]}{self.s}{name[4:]}"]

    def _lay_out(self):
        p, b, o = self.m.objects, self.lay.bones, self._o
        if "bodies" in p:
            for k in range(8):
                self.objs.append((o(f"OBJ_body{k}"), 0, self.rigid))
                self.nodes.append(o(f"OBJ_body{k}"))
        if "ext_legs" in p:
            leg0 = o("OBJ_leg0")
            self.objs.append((leg0, b[0], self.bone_models[0] if self.bone_models else self.rigid))
            self.nodes.append(leg0)
            self.exts += [(o(f"OBJ_leg{k}"), b[0], leg0) for k in (1, 2, 3)]
        if "swarm" in p:
            hive, bee = o("OBJ_hive"), o("OBJ_bee")
            self.objs += [(hive, 0, self.rigid), (bee, hive, self.bone_models[0] if self.bone_models else self.rigid)]
            self.nodes += [hive, bee]
            for k in range(p["swarm"]):
                self.exts.append((o(f"OBJ_hive{k:02d}"), 0, hive))
                self.exts.append((o(f"OBJ_bee{k:02d}"), o(f"OBJ_hive{k:02d}"), bee))
        if "second_weapon" in p:
            for w in ("OBJ_wpn0", "OBJ_wpn1"):
                self.objs.append((o(w), b[0], self.rigid))
                self.nodes.append(o(w))
        if "loose_weapons" in p:
            self.objs += [(o("OBJ_swd0"), b[0], self.rigid), (o("OBJ_swd1"), b[0], self.rigid)]
        if "unnamed_model" in p:
            model = self.rigid or (self.lay.models[0] if self.lay.models else 0)
            self.objs.append((o("OBJ_trall"), b[0], model))
            self.nodes.append(o("OBJ_trall"))
        if "skin_nodes" in p:
            for k in range(8):
                self.models[b[k]] = self.bone_models[k % len(self.bone_models)]
                self.exts.append((o(f"OBJ_sx{k}"), b[k - 1] if k else 0, b[k]))
        if "effects" in p:
            for k in range(p["effects"]):
                self.effs.append((o(f"EFF_{k:02d}"), b[0]))
            self.exts.append((o("OBJ_efx"), b[1], o("EFF_00")))

    def renames(self, ci: int, n_tracks: int) -> Dict[int, int]:
        """{track position: the object it names instead} for clip ci of n_tracks records."""
        p, o, out = self.m.objects, self._o, {}
        if "bodies" in p:
            out[0] = o(f"OBJ_body{ci % 8}")
        if "ext_legs" in p:
            for k in range(4):
                out[2 + k] = o(f"OBJ_leg{k}")
        if "swarm" in p:
            for k in range(p["swarm"]):
                out[2 + 2 * k] = o(f"OBJ_hive{k:02d}")
                out[3 + 2 * k] = o(f"OBJ_bee{k:02d}")
        if "second_weapon" in p:
            out[n_tracks - 1] = o("OBJ_wpn0")
            if ci % 2:
                out[n_tracks - 2] = o("OBJ_wpn1")
        if "loose_weapons" in p:
            out[n_tracks - 1] = o("OBJ_swd0")
            out[n_tracks - 2] = o("OBJ_swd1")
        if "skin_nodes" in p:
            for k in range(8):
                out[8 + k] = o(f"OBJ_sx{k}")
        if "effects" in p:
            out[n_tracks - 2] = o("OBJ_efx")
            out[n_tracks - 1] = o("EFF_00")
        return out
