"""The scene an anm's objects are built from (anim-objects.md §2-§5, formats.md §3.4-§3.8).

scene(file) -> Scene: what MakeAnimeIndex, SetAnm, Draw and DeleteAnmIndex read of a member's
setup section, as plain integers and lists: the kind of every object's chunk, each Obj's and
ExtObj's parent, each Obj's model, the ExtObj targets, the clumps' node lists (file order), each
model's mtype, the node list of every bone and skin model, and the Eff (0x0E00) objects.

Scene.to_json() / Scene.from_json() are the form a truth request carries (truth.md §2), so a
model outside this repository receives exactly what the reference does. Bad input is a
CorpusError naming the member, the offset and the chunk kind.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from .anime import resolve as _resolve
from .errors import CorpusError

K_OBJ, K_MODEL, K_CLUMP, K_EXTOBJ, K_PARTICLE, K_EFF = 0x0100, 0x0800, 0x0900, 0x0A00, 0x0D00, 0x0E00
PARENTED = (K_OBJ, K_EXTOBJ, K_PARTICLE, K_EFF)          # the kinds with a parent field (§2.2)
BONE_OR_SKIN = 6                                       # (ccModel +0x20) & 6 (§3.3 step 5)
_NOT_OBJECTS = (0x0001, 0x0002, 0x0003, 0x0005)         # Header, Index, Setup, Frame: no object word


@dataclass
class Scene:
    kinds: Dict[int, int] = field(default_factory=dict)          # object -> kind of its chunk
    parents: Dict[int, int] = field(default_factory=dict)        # Obj, ExtObj, Particle, Eff -> parent
    obj_models: Dict[int, int] = field(default_factory=dict)     # Obj object -> model object
    ext: Dict[int, int] = field(default_factory=dict)            # ExtObj object -> target
    clumps: List[Tuple[int, Tuple[int, ...]]] = field(default_factory=list)   # (clump, nodes), file order
    mtypes: Dict[int, int] = field(default_factory=dict)         # model object -> mtype
    model_nodes: Dict[int, Tuple[int, ...]] = field(default_factory=dict)     # bone/skin model -> nodes
    effs: Tuple[int, ...] = ()                                   # Eff objects, file order

    def resolve(self, obj: int) -> int:
        return _resolve(self.ext, obj)

    def kind(self, obj: int) -> int:
        """The kind of the chunk `obj` names; 0 for an object with no setup chunk in the member.
        DECISION: an object that no setup chunk defines (a name of another file, or none) has
        kind 0: SetAnm finds no chunk for it, so it is neither drawn nor given an object."""
        return self.kinds.get(obj, 0)

    def to_json(self) -> dict:
        def pairs(m):
            return [[a, b] for a, b in sorted(m.items())]

        return {"kinds": pairs(self.kinds), "parents": pairs(self.parents),
                "obj_models": pairs(self.obj_models), "ext": pairs(self.ext),
                "clumps": [[c, list(n)] for c, n in self.clumps], "mtypes": pairs(self.mtypes),
                "model_nodes": [[m, list(n)] for m, n in sorted(self.model_nodes.items())],
                "effs": list(self.effs)}

    @classmethod
    def from_json(cls, d: dict, where: str = "scene") -> "Scene":
        """The inverse of to_json; a malformed field is a ValueError naming it."""
        def pairs(name):
            v = d.get(name, [])
            if not (isinstance(v, list) and all(type(p) is list and len(p) == 2 for p in v)
                    and _all_u32([x for p in v for x in p])):
                raise ValueError(f"{where}: {name} is not a list of [u32, u32] pairs")
            return dict(v)

        def lists(name):
            v = d.get(name, [])
            if not (isinstance(v, list) and all(type(p) is list and len(p) == 2 and type(p[1]) is list for p in v)
                    and _all_u32([p[0] for p in v]) and _all_u32([x for p in v for x in p[1]])):
                raise ValueError(f"{where}: {name} is not a list of [u32, [u32, ...]] pairs")
            return [(a, tuple(b)) for a, b in v]

        effs = d.get("effs", [])
        if not isinstance(effs, list) or not _all_u32(effs):
            raise ValueError(f"{where}: effs is not a list of u32")
        return cls(pairs("kinds"), pairs("parents"), pairs("obj_models"), pairs("ext"), lists("clumps"),
                   pairs("mtypes"), dict(lists("model_nodes")), tuple(effs))


def _all_u32(xs: list) -> bool:
    """Whether every item is a u32 (an int, not a bool), in one pass of each kind: the scene of
    every chunk is read back from its JSON form (the corpus index, the model protocol)."""
    return all(type(x) is int or (isinstance(x, int) and not isinstance(x, bool)) for x in xs) and \
        (not xs or (min(xs) >= 0 and max(xs) <= 0xFFFFFFFF))


def scene(f) -> Scene:
    """The Scene of a parsed CCSF member (a corpus.ccsf.CcsfFile)."""
    s = Scene()
    d = f.data
    for c in f.chunks:
        if c.frame_section or c.kind in _NOT_OBJECTS or c.size < 1:
            continue
        if c.offset + 12 > len(d):
            raise CorpusError("setup chunk has no object word", member=f.member, offset=c.offset, kind=c.kind)
        # DECISION: when several setup chunks define one object, the first gives its kind (as the
        # first Material wins, formats.md §3.5).
        obj = struct.unpack_from("<I", d, c.offset + 8)[0]
        if obj not in s.kinds:
            s.kinds[obj] = c.kind
            if c.kind in (K_PARTICLE, K_EFF):
                # DECISION: a Particle or Eff chunk's payload starts (object, parent), as Obj's
                # and ExtObj's do (formats.md lays out neither); a one-word chunk has parent 0.
                s.parents[obj] = struct.unpack_from("<I", d, c.offset + 12)[0] if c.size >= 2 else 0
    for o, ob in f.objs.items():
        s.parents[o] = ob.parent
        s.obj_models[o] = ob.model
    for o, e in f.extobjs.items():
        s.parents[o] = e.parent
    s.ext = dict(f.ext)
    s.clumps = [(o, tuple(nodes)) for o, nodes in f.clump_list]
    s.mtypes = {m: model.mtype for m, model in f.models.items()}
    s.model_nodes = _model_nodes(s)
    s.effs = tuple(o for o, k in s.kinds.items() if k == K_EFF)
    return s


def _model_nodes(s: Scene) -> Dict[int, Tuple[int, ...]]:
    """The node list of every bone and skin model (ccModelChunk +0x44/+0x48, §3.3 step 5).

    DECISION: the file stores no node list in the Model chunk (formats.md §3.8); a bone or skin
    model takes the node list of the first clump (file order) with a node whose Obj uses that
    model, as WL365 finds for field objects ("bone and skin models take their clump's nodes").
    A bone or skin model of no clump's node has an empty list."""
    out: Dict[int, Tuple[int, ...]] = {}
    for m, mtype in s.mtypes.items():
        if mtype & BONE_OR_SKIN:
            out[m] = ()
    for _clump, nodes in s.clumps:
        for n in nodes:
            m = s.obj_models.get(s.resolve(n))
            if m in out and not out[m]:
                out[m] = nodes
    return out

