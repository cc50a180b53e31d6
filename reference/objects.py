"""The anm's objects (anim-objects.md §2-§5): MakeAnimeIndex's list and parent slots, SetAnm's
object table, Draw's draw set, DeleteAnmIndex's frees, and the world matrices down the parent chain.

Objects are named by identity, never by address: ("node", object) (the ccObj of a clump node,
one per node object), ("made", j) (the object of the j-th ccObj::Init call), ("instance", object)
(another chunk's instance: a ccEffObj, a ccModel, a material's), ("anm",) and ("none",). Every value the game stores as a float is a raw u32 pattern
computed in EE arithmetic (reference.eefloat).

    index = make_anime_index(anime, scene)        # [IndexEntry(object, kind, parent)]
    table = set_anm(index, scene)                 # Table: entries, parents, inits, node tables
    draw_set(table, tp)                           # [(kind, identity, tp bits)], index order
    delete_frees(table)                           # [(free function, identity)] DeleteAnmIndex calls
    world_draws(table, locals, localtps, anm, tp, ops)   # [(identity, world, alpha)] per ccModel::Draw
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from corpus.lights import direct_lights
from corpus.objects import BONE_OR_SKIN, K_CLUMP, K_EFF, K_EXTOBJ, K_MODEL, K_OBJ, PARENTED
from corpus.records import FObj

from .animation import bits_to_doubles
from .rotation import IDENTITY16, mul_matrix

NONE, ANM = ("none",), ("anm",)
F_NAMED, F_HANG, F_DRAW = 0x1, 0x2, 0x4
F_NODE, F_MADE = F_HANG | F_DRAW, F_NAMED | F_HANG | F_DRAW
NO_PARENT = -1
MODEL_NODE_TABLE = 0x40          # ccModel +0x24 bit set once the node table is built
MAX_HOPS = 64
ONE = 0x3F800000
DELETE, FREE, ENTRIES = "__dl__FPv", "ccFree__FPv", ("entries",)
Identity = Tuple
IDENTITY_WORDS = np.asarray(IDENTITY16, dtype=np.uint32)     # ccObj::Init's local, for every step
ZERO_WORDS = np.zeros(16, dtype=np.uint32)                  # another chunk's instance's block


@dataclass(frozen=True)
class IndexEntry:
    object: int       # the object the record names (its own, not resolved): lc = 4·object + 1
    kind: int         # the kind of that object's own chunk (0x0A00 for an ExtObj copy), 0 for none
    parent: int       # the parent slot: the position of the parent's entry, or -1


@dataclass(frozen=True)
class Entry:
    identity: Identity   # what +0x04 holds
    kind: int            # +0x08: the kind of the chunk, ExtObj followed
    flags: int           # +0x0A


@dataclass
class Table:
    entries: List[Entry]
    parents: List[Identity]                       # per entry: its object's +0x80, None unless hung
    inits: List[int]                              # the chunk (object) of each ccObj::Init call, in order
    node_tables: Dict[int, Tuple[Identity, ...]]  # bone/skin model -> the identity in each node slot
    models: Dict[Identity, int] = field(default_factory=dict)   # each object's model (0: none)
    hung: Dict[Identity, Identity] = field(default_factory=dict)   # object -> the parent written at +0x80


def index_objects(anime) -> List[Tuple[int, bool]]:
    """(object, adds) of every naming in file order (anim-objects.md §2.2, the table the
    stand-in's and the game's ConvLCNum2ALCNum fill): a 0x0102 record always adds an entry of its
    own (`adds`); a material, F_Morpher (the morpher, then each target model), F_Note or F_Obj
    record names its object, which gets an entry only the first time. A direct light record (0x0605)
    adds an entry of its own, as a 0x0102 record does (ConvLCNum2ALCNum compiles it into a controller
    of the table, docs/lights.md); the other light records name none."""
    named = [(t.offset, ((t.object, True),)) for t in anime.tracks]
    named += [(lt.offset, ((lt.object, True),)) for lt in direct_lights(anime)]
    named += [(m.offset, ((m.material, False),)) for m in anime.materials]
    named += [(r.offset, ((r.morpher, False),) + tuple((p[0], False) for p in r.pairs))
              for r in anime.morphs]
    named += [(n.offset, ((n.object, False),)) for n in anime.notes]
    named += [(f.offset, ((f.object, False),)) for f in anime.fobjs]
    return [x for _off, xs in sorted(named, key=lambda p: p[0]) for x in xs]


def index_length(anime) -> int:
    """How many entries MakeAnimeIndex lists for the chunk (its scene does not change the count)."""
    seen = set()
    n = 0
    for obj, adds in index_objects(anime):
        if adds or obj not in seen:
            seen.add(obj)
            n += 1
    return n


def make_anime_index(anime, scene) -> List[IndexEntry]:
    """ccStream::MakeAnimeIndex (§2.2): the list in first-named order and each entry's parent slot.

    DECISION: the parent slot is an s32; it names the first entry of the parent object (the
    chunk's own parent field, not followed through ExtObj chains, as the users' harnesses read
    it); entries of kinds other than Obj, ExtObj, Particle and Eff, and entries whose parent is 0
    or unnamed, get -1."""
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
        if kind in PARENTED:
            parent = scene.parents.get(obj, 0)
            slot = first.get(parent, NO_PARENT) if parent else NO_PARENT
        out.append(IndexEntry(obj, kind, slot))
    return out


def external(scene, obj: int):
    """ccGetExternalIndex (§3.2): the object whose chunk an entry names, ExtObj followed while the
    target has a chunk (at most 64 hops); None for an object with no setup chunk."""
    if obj not in scene.kinds:
        return None
    for _ in range(MAX_HOPS):
        t = scene.ext.get(obj)
        if scene.kinds[obj] != K_EXTOBJ or t is None or t not in scene.kinds:
            break
        obj = t
    return obj


def model_of(scene, obj) -> int:
    """The ccModel a ccObj built from `obj`'s chunk carries: its Obj's model, if that is a Model."""
    m = scene.obj_models.get(obj, 0) if obj is not None and scene.kind(obj) == K_OBJ else 0
    return m if scene.kind(m) == K_MODEL else 0


def set_anm(index: Sequence[IndexEntry], scene) -> Table:
    """ccAnm::SetAnm's object table (§3.3 steps 1-7).

    DECISION (the spec's open question 4): an entry whose chunk (ExtObj followed) is Obj starts
    with flags 1 and no object; every other entry takes its chunk's instance (none for a clump or
    an unknown object), with flags 1 for an Eff and 0 for the others. Nothing is made for an Eff:
    its ccEffObj goes to the entry that claimed it (the last), as a clump node does, with flags 6
    (hung and drawn); an Eff entry that lost the claim keeps flags 1. Clump nodes are matched through their own chunk (a node that is an ExtObj copy is not its
    target's node), one ccObj per node object however many clumps list it."""
    ext = [external(scene, e.object) for e in index]
    kinds = [scene.kind(x) if x is not None else 0 for x in ext]
    ident: List[Identity] = []
    flags: List[int] = []
    for x, k in zip(ext, kinds):                          # step 1
        ident.append(NONE if x is None or k in (K_OBJ, K_CLUMP) else ("instance", x))
        flags.append(F_NAMED if k in (K_OBJ, K_EFF) else 0)
    claim: Dict[int, int] = {}
    for i, x in enumerate(ext):                            # step 2: the last entry wins
        if x is not None:
            claim[x] = i
    for i, x in enumerate(ext):                            # an effect goes to its claiming entry
        if kinds[i] == K_EFF and claim.get(x) == i:
            flags[i] = F_NODE
    for _clump, nodes in scene.clumps:                     # step 3: clump nodes
        for node in nodes:
            if node in scene.kinds and node in claim:
                i = claim[node]
                ident[i], flags[i] = ("node", node), F_NODE
    inits: List[int] = []
    models: Dict[Identity, int] = {}
    for i, x in enumerate(ext):                            # step 4: made objects
        if flags[i] == F_NAMED and kinds[i] == K_OBJ:
            ident[i], flags[i] = ("made", len(inits)), F_MADE
            inits.append(x)
            models[ident[i]] = model_of(scene, x)
    for _clump, nodes in scene.clumps:
        for node in nodes:
            models[("node", node)] = model_of(scene, node if node in scene.kinds else None)
    node_tables: Dict[int, Tuple[Identity, ...]] = {}
    for i in range(len(index)):                            # step 5: bone and skin node tables
        model = models.get(ident[i], 0) if flags[i] == F_MADE else 0
        if model and scene.mtypes.get(model, 0) & BONE_OR_SKIN:
            # DECISION: a node no entry claims leaves its slot 0 ("none").
            node_tables[model] = tuple(ident[claim[n]] if n in scene.kinds and n in claim else NONE
                                       for n in scene.model_nodes.get(model, ()))
    written: Dict[Identity, Identity] = {}
    for i, e in enumerate(index):                          # step 6: parents, the anm for slot -1
        if flags[i] & F_HANG:
            up = ident[e.parent] if 0 <= e.parent < len(index) else NONE
            written[ident[i]] = up if up != NONE else ANM
    parents = [written[ident[i]] if flags[i] & F_HANG and ident[i] != NONE else None
               for i in range(len(index))]
    entries = [Entry(ident[i], kinds[i], flags[i]) for i in range(len(index))]
    return Table(entries, parents, inits, node_tables, models, written)


def draw_set(table: Table, tp: int) -> List[Tuple[int, Identity, Optional[int]]]:
    """ccAnm::Draw (§4.2): (kind, identity, the $f12 bits passed) of every entry with flag 0x4,
    in index order: kind 0x0100 calls ccObj::Draw with the anm's +0x88 as it is, kind 0x0E00
    calls ccEffObj::DrawNoAnm (no float argument: None). DECISION: other kinds draw nothing."""
    return [(e.kind, e.identity, tp if e.kind == K_OBJ else None)
            for e in table.entries if e.flags & F_DRAW and e.kind in (K_OBJ, K_EFF)]


def delete_frees(table: Table) -> List[Tuple[str, Identity]]:
    """ccAnm::DeleteAnmIndex (§5): (free function, identity) in call order. DECISION: operator
    delete of every made object (flags 7) in index order, then ccFree of the entry array; a clump
    node or another chunk's instance is never freed, and ccAnm +0xAC is left 0."""
    return [(DELETE, e.identity) for e in table.entries if e.flags == F_MADE] + [(FREE, ENTRIES)]


def world_draws(table: Table, locals_: Dict[Identity, Sequence[int]], localtps: Dict[Identity, int],
                anm_matrix: Sequence[int], tp: int, ops) -> List[Tuple[Identity, Tuple[int, ...], int]]:
    """ccAnm::Draw with ccObj::Draw run, at one step: (identity, world matrix, alpha) of every
    ccModel::Draw call, in index order (world_series with one step, in Python arithmetic)."""
    one = world_series(table, {k: np.asarray(v, dtype=np.uint32).reshape(1, 16) for k, v in locals_.items()},
                       {k: np.asarray([v], dtype=np.uint32) for k, v in localtps.items()}, anm_matrix, tp, 1,
                       ops.model, None, ops)
    return [(obj, tuple(int(x) for x in W[0]), int(A[0])) for obj, W, A in one]


def view(anime, scene, tp: int, index=None, table=None) -> dict:
    """What the objects check compares, as JSON-friendly lists (docs/truth.md "objects"): the
    index (object, own kind, parent slot per entry) and its count; SetAnm's entries (identity,
    kind, flags), each entry's parent (None unless hung), the claims left (none), each model's
    [model, bit 0x40 set, node table]; the ccObj::Init calls; Draw's calls with the anm's tp;
    DeleteAnmIndex's frees and the +0xAC word it leaves. index, table: make_anime_index's and
    set_anm's of the same anime and scene, when the caller has them."""
    if index is None:
        index = make_anime_index(anime, scene)
    if table is None:
        table = set_anm(index, scene)
    models = sorted(m for m, k in scene.kinds.items() if k == K_MODEL)
    return {"index": [[e.object, e.kind, e.parent] for e in index], "count": len(index),
            "entries": [[list(e.identity), e.kind, e.flags] for e in table.entries],
            "parents": [list(p) if p is not None else None for p in table.parents],
            "claims": [],
            "node_tables": [[m, m in table.node_tables, [list(x) for x in table.node_tables.get(m, ())]]
                            for m in models],
            "inits": [[j, o] for j, o in enumerate(table.inits)],
            "draws": [[k, list(i), t] for k, i, t in draw_set(table, tp)],
            "frees": [[f, list(i)] for f, i in delete_frees(table)], "anm_index": 0}


def pose_series(anim, index, table, speed, n):
    """(per step: Forward; {identity: (n, 16) local words}; {identity: (n,) localtp words};
    identities whose local comes from a keyed rotation): what the reference's works and F_Obj
    records leave in each entry's object after every step of one playback (pose_playbacks with
    one playback)."""
    fws, locals_, tps, keyed = pose_playbacks(anim, index, table, [(speed, n)])
    return fws[0], locals_, tps, keyed


def pose_playbacks(anim, index, table, playbacks):
    """pose_series for several playbacks [(speed, n)], each from time 0 on the table SetAnm left,
    in one batch: (per playback its Forwards; {identity: (N, 16) local words}; {identity: (N,)
    localtp words}; the keyed identities), the N rows being the playbacks' steps one after the
    other (pose_blocks, each identity's column of its blocks)."""
    runs, posed, L, A, keyed = pose_blocks(anim, index, table, playbacks)
    return runs, {ident: L[:, c] for c, ident in enumerate(posed)}, \
        {ident: A[:, c] for c, ident in enumerate(posed)}, keyed


def pose_blocks(anim, index, table, playbacks):
    """pose_playbacks as blocks: (per playback its Forwards; the posed identities, one column each;
    (N, m, 16) local words and (N, m) localtp words, column c the words of the c-th identity; the
    keyed identities). A work writes its object's local matrix and localtp at every step that
    evaluates (pose_at), holding them otherwise; an F_Obj record read by a step's
    DecodeFrameChunk, which runs after the works, writes its pose, which holds until the object's
    work next evaluates. Nothing holds from one playback into the next. Of two works on one
    object, the later one's words are the object's (the last write of a step)."""
    position = positions(anim.anime)
    ident16 = np.asarray(IDENTITY16, dtype=np.uint32)
    posed_tracks = [(tr, table.entries[position[tr.record.index]].identity) for tr in anim.tracks]
    posed_tracks = [(tr, ident) for tr, ident in posed_tracks if ident[0] in ("node", "made")]
    trs = [tr for tr, _ in posed_tracks]
    column: Dict[Identity, int] = {}                # identity -> its work's track (the last one)
    for t, (_tr, ident) in enumerate(posed_tracks):
        column[ident] = t
    worked = set(column)
    keyed = {ident for tr, ident in posed_tracks if tr.keyed_rotation}
    pbs = [anim.playback([speed] * n) for speed, n in playbacks]
    runs = [pb.forwards for pb in pbs]
    writes = fobj_writes(anim, index, table, playbacks, runs, worked)
    posed = list(column)
    for ident, *_ in writes:
        if ident not in column:
            column[ident] = None
            posed.append(ident)
    N, m, mt = sum(n for _, n in playbacks), len(posed), len(worked)
    cols = [column[ident] for ident in posed[:mt]]
    every = cols == list(range(len(trs)))
    L = np.empty((N, m, 16), dtype=np.uint32)
    A = np.empty((N, m), dtype=np.uint32)
    L[:, mt:], A[:, mt:] = ident16, ONE             # an F_Obj's object no work poses: Init's pose
    # each playback's tracks at its pose times (its Playback's batch: the one the playback check's
    # reference evaluated when it asked for the same tracks), then every step's row of each
    # (a step that evaluates nothing holds the last pose; before the first, ccObj::Init's)
    base = 0
    for pb, (_speed, n) in zip(pbs, playbacks):
        steps = slice(base, base + n)
        base += n
        if not (trs and len(pb.evaluated)):
            L[steps, :mt], A[steps, :mt] = ident16, ONE
            continue
        tb = pb.tracks(trs)
        local, alpha = tb.local, tb.chan[:, :, 6]
        if not every:
            local, alpha = local[:, cols], alpha[:, cols]
        rows = np.full(n, -1, dtype=np.intp)                # the last evaluated step's row, step by step
        rows[pb.evaluated] = np.arange(len(pb.evaluated))
        rows = np.maximum.accumulate(rows)
        held = int(np.count_nonzero(rows < 0))              # the steps before the first evaluation
        init, posed_steps, rows = slice(steps.start, steps.start + held), slice(steps.start + held, steps.stop), rows[held:]
        L[init, :mt], A[init, :mt] = ident16, ONE
        L[posed_steps, :mt], A[posed_steps, :mt] = local[rows], alpha[rows]
        keyed_cols = [c for c, t in enumerate(cols) if tb.keyed[t]]
        if keyed_cols:                                      # keyed rotation: double, math orientation
            k = [cols[c] for c in keyed_cols]
            L[posed_steps, keyed_cols] = keyed_words(tb, k)[rows]
    at = {ident: c for c, ident in enumerate(posed)}
    for ident, lo, hi, words, tp in writes:
        L[lo:hi, at[ident]], A[lo:hi, at[ident]] = words, tp
    return runs, posed, L, A, keyed


def keyed_words(tb, k):
    """The local matrices of the tracks `k` of a TrackBatch, whose rotations are keyed, as words:
    animation.local_doubles (element (r, c) = R[r][c]·s_c, translation p, bottom row (0, 0, 0, 1))
    rounded to single, column-major (word 4c + r): (n, len(k), 16) uint32."""
    n = tb.rot.shape[0]
    words = np.zeros((n, len(k), 4, 4), dtype=np.float32)          # [column, row]
    s = bits_to_doubles(tb.chan[:, k, 3:6])
    words[:, :, :3, :3] = (tb.rot[:, k] * s[:, :, None, :]).swapaxes(2, 3)
    words[:, :, 3, :3] = bits_to_doubles(tb.chan[:, k, 0:3])
    words[:, :, 3, 3] = 1.0
    return words.reshape(n, len(k), 16).view(np.uint32)


def fobj_writes(anim, index, table, playbacks, runs, worked):
    """[(identity, first row, end row, 16 local words, localtp)] in the order the steps write
    them: each F_Obj record a step's DecodeFrameChunk reads poses its object from that step
    until the object's work next evaluates (to the playback's end for an object no work poses)."""
    if not anim.fobjs:                                      # no F_Obj record: no step writes a pose
        return []
    first = {}
    for i, e in enumerate(index):
        first.setdefault(e.object, i)
    out, base, poses = [], 0, {}
    for (speed, n), fws in zip(playbacks, runs):
        time = 0
        for j, fw in enumerate(fws):
            recs = anim.records_read(time, speed) if fw.read is not None else ()
            for r in recs:
                if not isinstance(r, FObj) or r.object not in first:
                    continue
                e = table.entries[first[r.object]]
                if e.kind == K_EFF or e.identity[0] not in ("node", "made"):
                    continue
                upto = n if e.identity not in worked else next(
                    (q for q in range(j + 1, n) if fws[q].pose_at is not None), n)
                if r.offset not in poses:                   # a record read again (another speed, a loop)
                    poses[r.offset] = (np.asarray(anim.fobj_local_matrix(r), dtype=np.uint32),
                                       anim.fobj_localtp(r))
                out.append((e.identity, base + j, base + upto, *poses[r.offset]))
            time = fw.time
        base += n
    return out


def positions(anime):
    """{0x0102 record index: its own index entry's position}."""
    out, pos, k, seen = {}, 0, 0, set()
    for obj, adds in index_objects(anime):
        if adds:
            out[k] = pos
            k += 1
            seen.add(obj)
            pos += 1
        elif obj not in seen:
            seen.add(obj)
            pos += 1
    return out


def mul_matrices(P, L, float_model: str, kernels=None, ops=None):
    """sceVu0MulMatrix(P[k], L[k]) for every row k of two (n, 16) uint32 arrays: the batched form
    of rotation.mul_matrix (the compiled kernel when given, else mul_matrix row by row)."""
    if kernels is None:
        P = np.asarray(P, dtype=np.uint32).reshape(-1, 16)
        L = np.asarray(L, dtype=np.uint32).reshape(-1, 16)
        return np.array([mul_matrix(tuple(int(x) for x in p), tuple(int(x) for x in q), ops)
                         for p, q in zip(P, L)], dtype=np.uint32).reshape(P.shape[0], 16)
    return kernels.mul_matrices(float_model, P, L)


def world_series(table: Table, locals_, localtps, anm_matrix, tp: int, n: int, float_model: str,
                 kernels=None, ops=None):
    """ccAnm::Draw with ccObj::Draw run, at n playback steps at once: [(identity, (n, 16) world
    words, (n,) alpha words)] of ccModel::Draw's calls, in index order. locals_ / localtps map an
    identity to its (n, 16) local matrices and (n,) localtp words. A ccObj's world matrix is
    sceVu0MulMatrix(parent's world, local), the parent first (ccCoord::_SetLWMatrix, §4.2), down
    to the anm, whose world is its own matrix; the alpha is f_mul(localtp, tp) (fs localtp, ft
    the anm's +0x88).

    DECISION (open question 10): parent ⊗ local, in that operand order. A ccObj that no record
    poses keeps ccObj::Init's identity local matrix and localtp 1.0; another chunk's instance is
    a zeroed block (local matrix and localtp 0). A parent cycle never ends in the game; the
    reference cuts it where it closes, at the anm."""
    out = {ANM: np.tile(np.asarray(anm_matrix, dtype=np.uint32), (n, 1))}

    def local(obj):
        if obj[0] in ("node", "made"):
            got = locals_.get(obj)
            return np.tile(np.asarray(IDENTITY16, dtype=np.uint32), (n, 1)) if got is None else got
        return np.zeros((n, 16), dtype=np.uint32)

    up: Dict[Identity, Optional[Identity]] = {}     # each object's parent as composed (None: none)

    def walk(obj, seen=()):
        if obj in up or obj in out:
            return
        parent = table.hung.get(obj)
        if parent is not None:
            if parent in seen or parent == obj:
                parent = ANM
            else:
                walk(parent, seen + (obj,))
        up[obj] = parent

    drawn = [obj for kind, obj, _tp in draw_set(table, tp) if kind == K_OBJ and table.models.get(obj, 0)]
    for obj in drawn:
        walk(obj)
    if kernels is not None:                          # every chain in one call, parents first
        block = {ANM: 0}
        for k, obj in enumerate(up):
            block[obj] = k + 1
        W = kernels.world_series(float_model, out[ANM], [-1 if p is None else block[p] for p in up.values()],
                                 [(IDENTITY_WORDS if locals_.get(obj) is None else locals_[obj])
                                  if obj[0] in ("node", "made") else ZERO_WORDS for obj in up])
        for obj, k in block.items():
            out[obj] = W[k]
    else:
        python_levels(out, up, local, n, ops)
    if not drawn:
        return []
    ltp = np.concatenate([np.full(n, ONE, dtype=np.uint32) if localtps.get(obj) is None
                          else np.asarray(localtps[obj], dtype=np.uint32).reshape(n) for obj in drawn])
    if kernels is not None:
        alpha = kernels.op(float_model, "mul", ltp, np.full(ltp.size, tp, dtype=np.uint32))
    else:
        alpha = np.array([ops.f_mul(int(x), tp) for x in ltp], dtype=np.uint32)
    return [(obj, out[obj], alpha[k * n:(k + 1) * n]) for k, obj in enumerate(drawn)]


def python_levels(out, up, local, n, ops):
    """world_series' composition in the Python model: every object of one depth below the anm in
    one batch (rows are independent: the same words), into `out`."""
    depth = {ANM: 0}
    levels: Dict[int, List[Identity]] = {}
    for obj, parent in up.items():                   # parents before their children
        depth[obj] = 0 if parent is None else depth[parent] + 1
        if parent is None:
            out[obj] = local(obj)
        else:
            levels.setdefault(depth[obj], []).append(obj)
    for d in sorted(levels):
        objs = levels[d]
        if len(objs) == 1:                           # (a chain's level: one object, no copy)
            P, L = out[up[objs[0]]], local(objs[0])
        else:
            P, L = np.concatenate([out[up[o]] for o in objs]), np.concatenate([local(o) for o in objs])
        W = mul_matrices(P, L, None, None, ops)
        for k, o in enumerate(objs):
            out[o] = W[k * n:(k + 1) * n]
