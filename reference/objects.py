"""The anm's objects (anim-objects.md §2-§5): MakeAnimeIndex's list and parent slots, SetAnm's
object table, Draw's draw set, DeleteAnmIndex's frees, and the world matrices down the parent chain.

Objects are named by identity, never by address: "node C.J" (node J of the anm's clump C, clumps
in the order the member holds them), "made J" (the J-th object SetAnm made), "anm" (the anm
itself) and "none" (no object). Every value the game stores as a float is a raw u32 pattern
computed in EE arithmetic (reference.eefloat).

    index = make_anime_index(anime, scene)        # [IndexEntry(object, kind, parent)]
    table = set_anm(index, scene)                 # Table: entries, parents, inits, node tables
    draw_set(table, alpha)                        # [(position, kind, alpha bits)], index order
    delete_frees(table)                           # the identities DeleteAnmIndex frees
    world(table, locals, anm_matrix, ops)         # {identity: 16 words} of every drawn object
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from corpus.objects import BONE_OR_SKIN, K_EFF, K_EXTOBJ, K_OBJ

from .rotation import IDENTITY16, mul_matrix

NONE, ANM = "none", "anm"
F_NAMED, F_HANG, F_DRAW = 0x1, 0x2, 0x4
F_NODE, F_MADE = F_HANG | F_DRAW, F_NAMED | F_HANG | F_DRAW
NO_PARENT = -1
MODEL_NODE_TABLE = 0x40          # ccModel +0x24 bit set once the node table is built


@dataclass(frozen=True)
class IndexEntry:
    object: int       # the object the record names (its own, not resolved): lc = 4·object + 1
    kind: int         # the kind of that object's own chunk (0x0A00 for an ExtObj copy)
    parent: int       # the parent slot: the position of the parent's entry, or -1


@dataclass(frozen=True)
class Entry:
    identity: str     # what +0x04 holds
    kind: int         # +0x08: the kind of the chunk, ExtObj followed
    flags: int        # +0x0A


@dataclass
class Table:
    entries: List[Entry]
    parents: Dict[str, str]                       # object identity -> parent identity (+0x80)
    inits: List[int]                              # the chunk (object) of each ccObj::Init call, in order
    node_tables: Dict[str, Tuple[str, ...]]       # made object -> the identity in each node slot
    marked_models: List[int] = field(default_factory=list)   # models given bit 0x40, in order


def index_objects(anime) -> List[Tuple[int, bool]]:
    """(object, adds) of every naming in file order (anim-objects.md §2.2, the table the
    stand-in's and the game's ConvLCNum2ALCNum fill): a 0x0102 record always adds an entry of its
    own (`adds`); a material, F_Morpher (the morpher, then each target model), F_Note or F_Obj
    record names its object, which gets an entry only the first time. Light records name none."""
    named = [(t.offset, ((t.object, True),)) for t in anime.tracks]
    named += [(m.offset, ((m.material, False),)) for m in anime.materials]
    named += [(r.offset, ((r.morpher, False),) + tuple((p[0], False) for p in r.pairs))
              for r in anime.morphs]
    named += [(n.offset, ((n.object, False),)) for n in anime.notes]
    named += [(f.offset, ((f.object, False),)) for f in anime.fobjs]
    return [x for _off, xs in sorted(named, key=lambda p: p[0]) for x in xs]


def make_anime_index(anime, scene) -> List[IndexEntry]:
    """ccStream::MakeAnimeIndex (§2.2): the list in first-named order and each entry's parent slot.

    DECISION: the parent slot is an s32; it names the first entry of the parent object (own, not
    resolved, as the users' harnesses read it); entries of kinds other than Obj, ExtObj, 0x0D00
    and 0x0E00 get -1, and so do Particle and Eff entries, whose chunks have no parent field in
    formats.md. The ExtObj's parent field is its own, not followed through the chain."""
    objects: List[int] = []
    first: Dict[int, int] = {}
    for obj, adds in index_objects(anime):
        if adds or obj not in first:
            first.setdefault(obj, len(objects))
            objects.append(obj)
    out = []
    for obj in objects:
        kind = scene.kind(obj)
        slot = NO_PARENT
        if kind in (K_OBJ, K_EXTOBJ):
            parent = scene.parents.get(obj, 0)
            slot = first.get(parent, NO_PARENT) if parent else NO_PARENT
        out.append(IndexEntry(obj, kind, slot))
    return out


def makes_object(kind: int) -> bool:
    """§3.3 step 4: which still-unbound entries SetAnm makes an object for. DECISION: Obj and
    Eff (0x0E00, a ccEffObj): the spec's Draw draws 0x0E00 entries with flag 0x4, which only a
    made object can carry; other kinds (materials, morphers, models) keep flags 1."""
    return kind in (K_OBJ, K_EFF)


def set_anm(index: Sequence[IndexEntry], scene) -> Table:
    """ccAnm::SetAnm's object table (§3.3 steps 1-7)."""
    kinds = [scene.kind(scene.resolve(e.object)) for e in index]
    ident = [NONE] * len(index)
    flags = [F_NAMED] * len(index)
    claim: Dict[int, int] = {}
    for i, e in enumerate(index):                          # step 2: the last entry wins
        claim[scene.resolve(e.object)] = i
    for c, (_clump, nodes) in enumerate(scene.clumps):     # step 3: clump nodes
        for j, node in enumerate(nodes):
            r = scene.resolve(node)
            # DECISION: a node is matched through its resolved object, and only an Obj node
            # counts; a node held twice is taken by its last occurrence.
            if scene.kind(r) == K_OBJ and r in claim:
                i = claim[r]
                ident[i], flags[i] = f"node {c}.{j}", F_NODE
    inits: List[int] = []
    made: List[int] = []
    for i, e in enumerate(index):                          # step 4: made objects
        if flags[i] == F_NAMED and makes_object(kinds[i]):
            ident[i], flags[i] = f"made {len(made)}", F_MADE
            made.append(i)
            inits.append(scene.resolve(e.object))
    node_tables: Dict[str, Tuple[str, ...]] = {}
    marked: List[int] = []
    for i in made:                                         # step 5: bone and skin node tables
        model = scene.obj_models.get(scene.resolve(index[i].object))
        if kinds[i] != K_OBJ or model is None or not scene.mtypes.get(model, 0) & BONE_OR_SKIN:
            continue
        # DECISION: a node no entry claims leaves its slot null ("none").
        node_tables[ident[i]] = tuple(ident[claim[scene.resolve(n)]] if scene.resolve(n) in claim else NONE
                                      for n in scene.model_nodes.get(model, ()))
        if model not in marked:
            marked.append(model)
    parents: Dict[str, str] = {}
    for i, e in enumerate(index):                          # step 6: parents
        if flags[i] & F_HANG:
            parents[ident[i]] = ident[e.parent] if e.parent >= 0 else ANM
    entries = [Entry(ident[i], kinds[i], flags[i]) for i in range(len(index))]
    return Table(entries, parents, inits, node_tables, marked)


def draw_set(table: Table, alpha: int) -> List[Tuple[int, int, int]]:
    """ccAnm::Draw (§4.2): (entry position, kind, the alpha bits passed) of every entry with flag
    0x4 and kind 0x0100 (ccObj::Draw, with the anm's +0x88 as it is) or 0x0E00 (DrawNoAnm, no
    alpha: 0), in index order. DECISION: other kinds draw nothing."""
    out = []
    for i, e in enumerate(table.entries):
        if e.flags & F_DRAW and e.kind in (K_OBJ, K_EFF):
            out.append((i, e.kind, alpha if e.kind == K_OBJ else 0))
    return out


def delete_frees(table: Table) -> List[str]:
    """ccAnm::DeleteAnmIndex (§5): the made objects (flags 7), in index order. DECISION: nothing
    else is freed (the entry array and the index stay), and a clump node is never freed."""
    return [e.identity for e in table.entries if e.flags == F_MADE]


def world(table: Table, locals_: Dict[str, Sequence[int]], anm_matrix: Sequence[int], ops,
          ) -> Dict[str, Tuple[int, ...]]:
    """The world matrix of every object with a parent, parent ⊗ local down the chain to the anm
    (ccCoord::_SetLWMatrix, §4.2): sceVu0MulMatrix with the parent's world matrix as the left
    operand. DECISION: an object whose local matrix is not given is at the identity (ccObj::Init
    starts it there); an object hung from a null parent (its parent's entry has no object) has
    its local matrix as its world matrix; a parent cycle is cut where it closes, at the anm."""
    out: Dict[str, Tuple[int, ...]] = {ANM: tuple(anm_matrix)}

    def of(obj: str, seen: Tuple[str, ...] = ()) -> Tuple[int, ...]:
        if obj in out:
            return out[obj]
        parent = table.parents.get(obj, ANM)
        local = tuple(locals_.get(obj, IDENTITY16))
        if parent == NONE:
            out[obj] = local
            return local
        if parent in seen or parent == obj:
            parent = ANM
        w = mul_matrix(of(parent, seen + (obj,)), local, ops)
        out[obj] = w
        return w

    for obj in table.parents:
        if obj != NONE:
            of(obj)
    del out[ANM]
    return out
