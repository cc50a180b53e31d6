"""The anm's objects (docs/spec/anim-objects.md): the driver calls of ccStream::MakeAnimeIndex,
ccAnm::SetAnm, ccAnm::Draw (with ccObj::Draw and the parent chain down to ccModel::Draw),
ccAnm::DeleteAnmIndex and ccAnmCtrlFloat_Set, and what each leaves, read back as raw u32 words.

Use, on one `Game` (harness/driver/game.py):

    ob = Objects(game)
    index = ob.make_anime_index(chunk_bytes, scene)     # §2: the list, the count, the parent slots
    table = ob.set_anm()                                # §3: entries, claims, node tables, parents, Init calls
    calls = ob.draw()                                   # §4: the draw set, ccObj::Draw hooked
    ob.start_playback(speed)                            # works on the entries' objects
    for dt in steps: ob.forward(dt); worlds = ob.draw_world()   # level 2: world matrices and alpha
    forward, draws = ob.play(dt, n)                     # the same n steps as one batch of calls
    kept = ob.keep(); ...; ob.restore(kept)             # the table again for another playback
    frees = ob.delete_anm_index()                       # §5: what DeleteAnmIndex freed

Every structure the spec leaves open is fixed below as a DECISION (anim-objects.md §7 lists the open
questions by number, "Q1" ... "Q10"); the stand-in (standin/src/objects.c) implements the same.

DECISION (Q1): MakeAnimeIndex is `MakeAnimeIndex__8ccStreamFP10ccAnmChunkP14ccStreamReader`,
  ccStream::MakeAnimeIndex(ccAnmChunk *chunk, ccStreamReader *reader). It allocates the index
  list with ccMalloc (8 bytes x the stream's object count), calls ConvLCNum2ALCNum with the reader,
  a cursor starting at chunk +0x18, the list and &chunk +0x20, stores the list at chunk +0x1C,
  then allocates the parent slots with ccMalloc (4 bytes x count) and stores them at chunk +0x28.
  Everything of the chunk ConvLCNum2ALCNum reads is set up as for `Game.load` (executable-abi.md §5.3).
DECISION: the stand-in's end-Top word moves from ccAnmChunk +0x20 to +0x2C (+0x20 is the count).
DECISION (Q2): a parent slot is an s32; −1 for an entry whose chunk is not Obj, ExtObj, Particle
  or Eff, and for one whose parent no entry names. The parent field is the entry's own chunk's
  (an ExtObj's own `parent`), not followed through ExtObj chains.
DECISION: the stream's chunk index (the game's loader builds it; the harness lays it out):
  ccStream +0x10 -> an array of ccChunkIndex pointers indexed by object number (entry 0 blank, 0
  for an object with no setup chunk), ccStream +0x14 = the object count. A ccChunkIndex (0x40
  bytes) holds the name (30 chars) at +0x08, the u16 chunk kind at +0x26, the run-time chunk at
  +0x2C, the claim at +0x30 (anim-objects.md §3.3 step 2), an Obj's ccModel at +0x38 (the
  loader's link, which ccObj::Init copies to +0x94) and its instance at +0x34: an ExtObj's
  target's ccChunkIndex (what ccGetExternalIndex follows, at most 64 hops), a model's ccModel,
  a clump node's ccObj, an Eff's ccEffObj, a zeroed 0x100 block for every other kind the clip
  names. Run-time Obj, ExtObj, Particle and Eff chunks are their payload words (object, parent,
  model or target) at +0, +4, +8; a ccModelChunk (0x60) has vertexScale at +0x40, a pointer to its
  node list (ccChunkIndex pointers) at +0x44 and the count at +0x48; its ccModel (0x40) has the u16
  mtype at +0x20, the flag word at +0x24 and the node table pointer at +0x28.
DECISION: the anm's clumps: ccAnm +0xA8 -> the first ccClump (0x10: +0x00 next, +0x04 node count,
  +0x08 -> array of node ccObj pointers), every clump of the member's setup section in file order.
  A node object has one ccObj however many clumps list it. A ccObj (0x100, a ccCoord) is as in
  anim-objects.md §3.5: +0x00 world matrix, +0x40 local matrix, +0x80 parent, +0x84 1.0, +0x88
  localtp, +0x8C flag byte (bit 0: world matrix valid), +0x8E kind 0x0100, +0x90 its ccChunkIndex,
  +0x94 its ccModel. The anm is a ccCoord too: its matrix at +0x40, transparency at +0x88, no parent.
DECISION (Q3): SetAnm's unsigned argument is a mode, passed 0; the stand-in ignores it.
DECISION (Q4): SetAnm makes objects for Obj entries only. Every entry's +0x04 starts as its named
  chunk's (ExtObj followed) instance, 0 for an Obj. Obj and Eff (0x0E00) entries start with flags
  1, every other kind with flags 0. An effect goes to the entry that claimed it (the last), as a
  clump node does: flags 6; an Eff entry that lost the claim keeps flags 1 (not drawn, not hung),
  since nothing is made for an Eff. SetAnm allocates the entry array (ccMalloc, 12 bytes an entry) and stores it at
  ccAnm +0xAC. A made ccObj comes from __nw__FUi(0x100), then `Init__5ccObjFP12ccChunkIndex`
  (this, its ccChunkIndex), which the harness hooks: the hook records the call and does what the
  constructor does (kind, index, model, identity local matrix, +0x84 and localtp 1.0).
DECISION (Q5): the node table is allocated by SetAnm (ccMalloc, 4 bytes a node) and stored at
  ccModel +0x28; a node no entry claims gets 0.
DECISION (Q6): a clump node's ccObj keeps whatever +0x80 it had when no entry claims it; the
  harness builds fresh nodes (+0x80 = 0) for every SetAnm.
DECISION (Q7): DeleteAnmIndex (`DeleteAnmIndex__5ccAnmFv`) frees every flags-7 object with
  __dl__FPv in index order, then the entry array with ccFree__FPv, and clears ccAnm +0xAC. It
  frees no node table (the ccModel owns it) and leaves noteRoot alone.
DECISION (Q8): ccAnm::Draw draws nothing for kinds other than 0x0100 and 0x0E00.
DECISION (Q9): `ccAnmCtrlFloat_Set(const channel *ch, u32 time, u32 *out)`, a free function with
  a plain name; it writes the result's bits at *out. A compiled object controller holds its
  transparency channel pointer at ctrl +0x10 (0 when the record has none).
DECISION (Q10): `_SetLWMatrix__7ccCoordFv`: a coord whose +0x8C bit 0 is clear computes its
  parent's world first, then world := parent.world x local (sceVu0MulMatrix(world, parent, local),
  column-major), or world := local with no parent, and sets bit 0. `Draw__5ccObjFf`(obj, tp in
  $f12) calls it, then, when the object has a model, `Draw__7ccModelFP5ccObjf`(model, obj, alpha
  in $f12) with alpha := localtp x tp (fs localtp, ft tp). The harness hooks ccModel::Draw (and
  ccEffObj::DrawNoAnm, `DrawNoAnm__8ccEffObjFv`) and clears bit 0 of every coord before each Draw.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from eemu_ext import CallIO
from harness import HarnessError
from harness.driver import memory_map as mm
from harness.driver.game import FORWARD, FRAME_SPD_MAX, INIT_WORK, Entry, anm_times, symbols_of
from harness.driver.stubs import Staged

MAKE_INDEX = "MakeAnimeIndex__8ccStreamFP10ccAnmChunkP14ccStreamReader"
SET_ANM = "SetAnm__5ccAnmFP10ccAnmChunkUi"
DRAW = "Draw__5ccAnmFv"
DELETE_INDEX = "DeleteAnmIndex__5ccAnmFv"
FLOAT_SET = "ccAnmCtrlFloat_Set"
OBJ_DRAW = "Draw__5ccObjFf"
OBJ_INIT = "Init__5ccObjFP12ccChunkIndex"
MODEL_DRAW = "Draw__7ccModelFP5ccObjf"
EFF_DRAW = "DrawNoAnm__8ccEffObjFv"
SET_LW = "_SetLWMatrix__7ccCoordFv"
# the functions the harness calls, with their budgets, and the ones it hooks
BUDGET = {MAKE_INDEX: 2_000_000_000, SET_ANM: 50_000_000, DRAW: 50_000_000, DELETE_INDEX: 5_000_000,
          FLOAT_SET: 5_000_000}
SHORT = {MAKE_INDEX: "MakeAnimeIndex", SET_ANM: "SetAnm", DRAW: "ccAnm::Draw", DELETE_INDEX: "DeleteAnmIndex",
         FLOAT_SET: "ccAnmCtrlFloat_Set"}
HOOKED = (OBJ_DRAW, OBJ_INIT, MODEL_DRAW, EFF_DRAW)
REQUIRED = tuple(BUDGET) + HOOKED

KIND_OBJ, KIND_MODEL, KIND_CLUMP, KIND_EXT, KIND_PARTICLE, KIND_EFF = 0x0100, 0x0800, 0x0900, 0x0A00, 0x0D00, 0x0E00
PARENTED = (KIND_OBJ, KIND_EXT, KIND_PARTICLE, KIND_EFF)
ONE = 0x3F800000
IDENTITY = (ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE)

# layout (DECISIONs above)
STREAM_INDEX, STREAM_COUNT = 0x10, 0x14
CHUNK_LIST, CHUNK_COUNT, CHUNK_PARENTS = 0x1C, 0x20, 0x28
CI_SIZE, CI_NAME, CI_KIND, CI_CHUNK, CI_CLAIM, CI_INST, CI_MODEL = 0x40, 0x08, 0x26, 0x2C, 0x30, 0x34, 0x38
OBJ_SIZE, OBJ_WORLD, OBJ_LOCAL, OBJ_PARENT, OBJ_TP_FACTOR, OBJ_LOCALTP = 0x100, 0x00, 0x40, 0x80, 0x84, 0x88
OBJ_FLAGS, OBJ_KIND, OBJ_INDEX, OBJ_MODEL = 0x8C, 0x8E, 0x90, 0x94
ANM_MATRIX, ANM_TP, ANM_CLUMPS = 0x40, 0x88, 0xA8
CLUMP_SIZE, CLUMP_NEXT, CLUMP_N, CLUMP_NODES = 0x10, 0x00, 0x04, 0x08
MODEL_SIZE, MODEL_MTYPE, MODEL_FLAGS, MODEL_TABLE = 0x40, 0x20, 0x24, 0x28
MODELCHUNK_SIZE, MODELCHUNK_SCALE, MODELCHUNK_NODES, MODELCHUNK_COUNT = 0x60, 0x40, 0x44, 0x48
ENTRY_SIZE, ENTRY_OBJECT, ENTRY_KIND, ENTRY_FLAGS = 12, 0x04, 0x08, 0x0A
ENTRY = struct.Struct("<IIHBx")          # an entry's ccstag, object, kind and flags, as laid out above
_U32, _U16, _WORDS3 = struct.Struct("<I"), struct.Struct("<H"), struct.Struct("<3I")
CTRL_ALPHA = 0x10
MODEL_NODE_TABLE_FLAG = 0x40
INSTANCE_SIZE = 0x100


@dataclass
class Scene:
    """What SetAnm's world is built from: a member's setup section, parsed (formats.md §3).

    kinds: object -> the kind of its setup chunk (0x0100 Obj, 0x0800 Model, 0x0900 Clump, 0x0A00
    ExtObj, 0x0D00, 0x0E00, 0x0200 Material, 0x1900 Morpher, ...); objs: Obj object -> (parent,
    model); ext: ExtObj object -> (parent, target); effs: Particle/Eff object -> parent; clumps:
    [(clump object, [node objects])] in file order; models: model object -> (mtype, [node objects])
    (the node list of a bone or skin model, empty for the others); names: object -> name;
    object_count: the Index chunk's object count (entry 0 included)."""
    kinds: Dict[int, int]
    object_count: int
    objs: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    ext: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    effs: Dict[int, int] = field(default_factory=dict)
    clumps: List[Tuple[int, List[int]]] = field(default_factory=list)
    models: Dict[int, Tuple[int, List[int]]] = field(default_factory=dict)
    names: Dict[int, str] = field(default_factory=dict)


@dataclass
class Index:
    """What MakeAnimeIndex left on the chunk (anim-objects.md §2.3): `objects` the entries' objects
    ((lc - 1) >> 2) in list order, `kinds` the kind of the chunk each names (the stream's index,
    not followed), `ctrls` each entry's compiled controller address (0: none), `count` the u32 at
    chunk +0x20, `parents` the s32 parent slots at *(chunk +0x28), one per entry."""
    objects: List[int]
    kinds: List[int]
    ctrls: List[int]
    count: int
    parents: List[int]


@dataclass
class Table:
    """What SetAnm left (anim-objects.md §3.6 level 1), identities instead of addresses.

    An identity is ("node", object) for a clump node's ccObj, ("made", j) for the object of the
    j-th ccObj::Init call, ("anm",) for the anm, ("instance", object) for another chunk's instance,
    ("none",) for address 0 and ("unknown", address) for anything else.
    entries: per entry (identity of +0x04, u16 kind at +0x08, u8 flags at +0x0A, u32 ccstag at +0);
    parents: per entry, the identity at its object's +0x80 (None unless the entry has an object and flag 0x2);
    claims: [(object, word)] for every ccChunkIndex whose +0x30 is not 0 after the call;
    node_tables: model object -> (ccModel +0x24 word, [identity per node slot] or None without a table);
    inits: [(made j, object of the ccChunkIndex passed)] in call order;
    addresses: identity -> address (for the world calls and the frees)."""
    entries: List[Tuple[tuple, int, int, int]]
    parents: List[Optional[tuple]]
    claims: List[Tuple[int, int]]
    node_tables: Dict[int, Tuple[int, Optional[List[tuple]]]]
    inits: List[Tuple[int, int]]
    addresses: Dict[tuple, int]


@dataclass
class DrawCall:
    """One call ccAnm::Draw made: `kind` 0x0100 (ccObj::Draw) or 0x0E00 (ccEffObj::DrawNoAnm),
    the object's identity, and the $f12 bits passed (None for DrawNoAnm)."""
    kind: int
    identity: tuple
    tp: Optional[int]


@dataclass
class WorldCall:
    """One ccModel::Draw call under ccAnm::Draw with ccObj::Draw run: the object's identity, the
    16 words of its world matrix (column-major, obj +0x00) and the alpha bits in $f12."""
    identity: tuple
    world: Tuple[int, ...]
    alpha: int


@dataclass
class Draws:
    """The ccModel::Draw calls of a playback's Draws (Objects.play), step by step: `identities`
    per step the objects' identities in call order; `world` the (calls, 16) world words and
    `alpha` the (calls,) alpha bits of every call of every step, in that order."""
    identities: List[List[tuple]]
    world: np.ndarray
    alpha: np.ndarray

    def calls(self) -> List[List[Tuple[tuple, Tuple[int, ...], int]]]:
        """Per step [(identity, 16 world words, alpha)]: draw_world's calls as plain values."""
        out, k = [], 0
        world, alpha = self.world.tolist(), self.alpha.tolist()
        for step in self.identities:
            out.append([(i, tuple(world[k + q]), alpha[k + q]) for q, i in enumerate(step)])
            k += len(step)
        return out


@dataclass
class Frees:
    """What DeleteAnmIndex freed: [(symbol, identity)] in call order, and the word left at +0xAC."""
    calls: List[Tuple[str, tuple]]
    anm_index: int


class ObjectHooks:
    """The hooks of the anm's objects on one machine: ccObj::Init and ccEffObj::DrawNoAnm call
    the driver that holds them (`owner`, the last Objects made on the machine), and ccModel::Draw
    (model, obj, alpha) is a tap, replaced by nothing with its arguments listed (no Python on the
    Draw path under the native engine): (a0, a1, a2, a3, $f12, ...) per call.

    DECISION: installed once per machine and handed from driver to driver. A hook that goes in
    or out makes the engines translate the code afresh and index its blocks again (3.6 ms a
    time on the stand-in); a driver per chunk installing its own cost that three times a chunk."""

    def __init__(self, m, sym):
        self.m = m
        self.owner = None
        self.init = m.hooks.add("address", self._init, sym[OBJ_INIT])
        self.eff = m.hooks.add("address", self._eff, sym[EFF_DRAW])
        self.model = m.hooks.add("tap", addr=sym[MODEL_DRAW])

    @classmethod
    def on(cls, game, sym) -> "ObjectHooks":
        """The game's machine's hooks (kept on the Game), installed afresh unless they are all
        still in place."""
        hooks = game.object_hooks
        if hooks is None or hooks.m is not game.m or not hooks.installed() \
                or hooks.addresses() != (sym[OBJ_INIT], sym[EFF_DRAW], sym[MODEL_DRAW]):
            hooks = game.object_hooks = cls(game.m, sym)
        return hooks

    def addresses(self):
        return self.init.addr, self.eff.addr, self.model.addr

    def installed(self) -> bool:
        """Whether every one of them is still the machine's hook at its address."""
        h = self.m.hooks
        return (all(h.at.get(x.addr) is x.fn for x in (self.init, self.eff))
                and h.taps.get(self.model.addr) is self.model.calls)

    def _init(self, m):
        return self.owner._init_hook(m)

    def _eff(self, m):
        return self.owner._eff_hook(m)


class Objects:
    """The anm-object driver calls on one Game: one chunk's index, table, draws and frees."""

    def __init__(self, game):
        self.g = game
        self.sym = symbols_of(game.img, REQUIRED, game.image_path, "symbols for the anm's objects",
                              "docs/spec/anim-objects.md")
        from harness.executable import refuse_carried
        refuse_carried(game.img, REQUIRED, getattr(game, "confirm", ()))
        game.sym.update(self.sym)
        game.short.update(SHORT)
        for name, steps in BUDGET.items():
            game.budget.setdefault(name, steps)
        self.scene: Optional[Scene] = None
        self.index_of: Dict[int, int] = {}       # object -> its ccChunkIndex
        self.node_obj: Dict[int, int] = {}       # node object -> its ccObj
        self.model_of: Dict[int, int] = {}       # model object -> its ccModel
        self.inits: List[Tuple[int, int]] = []   # (ccObj, ccChunkIndex) per Init call
        self.draws: List[DrawCall] = []
        self.worlds: List[WorldCall] = []
        self.names: Dict[int, tuple] = {}        # address -> identity
        self._coords: tuple = (None, 0, [])      # (names, its size, the coords' flag bytes) cached
        self.anm_index: Optional[Index] = None
        self._hooks = ObjectHooks.on(game, self.sym)
        self._hooks.owner = self
        self._model_tap = self._hooks.model
        self._model_calls = self._model_tap.calls
        del self._model_calls[:]

    # -- §2 -----------------------------------------------------------------------------------
    def make_anime_index(self, chunk: bytes, scene: Scene) -> Index:
        """Lay out the stream's chunk index for `scene`, then MakeAnimeIndex(stream, chunk,
        reader); returns the Index it left. A fresh machine state per call (heap reset)."""
        g, m = self.g, self.g.m
        g.prepare_chunk(chunk)
        self.scene = scene
        self._layout_stream(scene)
        g.call(MAKE_INDEX, mm.STREAM, mm.CHUNK, mm.RB)
        g.check_output_buffer()
        count = g.u32(mm.CHUNK + CHUNK_COUNT)
        lst, slots = g.u32(mm.CHUNK + CHUNK_LIST), g.u32(mm.CHUNK + CHUNK_PARENTS)
        if count > scene.object_count or (count and not (g.heap.contains(lst) and g.heap.contains(slots))):
            raise HarnessError(f"MakeAnimeIndex left count {count} (objects {scene.object_count}), "
                               f"list 0x{lst:08x}, parent slots 0x{slots:08x} (anim-objects.md §2.3)")
        words = g.words(lst, 2 * count) if count else ()
        objects = [((words[2 * i] - 1) & 0xFFFFFFFF) >> 2 for i in range(count)]
        ctrls = [words[2 * i + 1] for i in range(count)]
        parents = list(struct.unpack(f"<{count}i", m.read(slots, 4 * count))) if count else []
        kinds = [scene.kinds.get(o, 0) for o in objects]
        self.anm_index = Index(objects, kinds, ctrls, count, parents)
        return self.anm_index

    def _layout_stream(self, sc: Scene):
        """The stream's chunk index for `sc` (the DECISIONs above), laid out in one buffer and
        written to the machine at once: its blocks are fresh heap blocks, in the order and at the
        addresses heap.alloc gives them one by one (each zeroed, the padding after it left as
        memory holds it, as a Staged layout leaves them).

        DECISION: the blocks are taken from the heap as one allocation of their padded sizes
        (the same addresses, heap pointer and high water as one alloc a block); a heap too small
        for them is a HeapExhausted naming the stream layout as a whole, before anything of it
        is written."""
        g = self.g
        g.zero(mm.STREAM, mm.STREAM_SIZE)
        n = sc.object_count
        objects = sorted(sc.kinds)
        for o in objects:
            if not 0 < o < n:
                raise HarnessError(f"scene: object {o} outside the index's {n} objects")
        # the blocks, in allocation order: (offset from the first, size asked)
        blocks, top = [], 0

        def take(size):
            nonlocal top
            blocks.append((top, size))
            top += (size + 15) & ~15
            return blocks[-1][0]
        arr = take(4 * max(n, 1))
        index_of = {o: take(CI_SIZE) for o in objects}
        kinds = sc.kinds
        made = {}                                # object -> the offsets of the blocks it gets after its index
        for o in objects:
            kind = kinds[o]
            if kind in (KIND_OBJ, KIND_EXT):
                made[o] = (take(12),)
            elif kind in (KIND_PARTICLE, KIND_EFF):
                made[o] = (take(12), take(INSTANCE_SIZE))
            elif kind == KIND_MODEL:
                made[o] = (take(MODELCHUNK_SIZE), take(MODEL_SIZE), take(4 * max(len(sc.models.get(o, (0, []))[1]), 1)))
            elif kind != KIND_CLUMP:
                made[o] = (take(INSTANCE_SIZE),)
        base = g.heap.alloc(top, "stream layout", fill=False)
        buf = bytearray(g.m.read(base, top))     # the padding after a block: the memory's own
        for off, size in blocks:
            buf[off:off + size] = bytes(size)
        u32, u16, words3 = _U32.pack_into, _U16.pack_into, _WORDS3.pack_into
        g.m.write_u32(mm.STREAM + STREAM_INDEX, base + arr)
        g.m.write_u32(mm.STREAM + STREAM_COUNT, n)
        self.index_of = {o: base + off for o, off in index_of.items()}
        self.node_obj, self.model_of, self.names = {}, {}, {}
        names = sc.names
        for o, ci in index_of.items():
            u32(buf, arr + 4 * o, base + ci)
            name = names.get(o, "").encode("latin-1", "replace")[:30]
            buf[ci + CI_NAME:ci + CI_NAME + len(name)] = name
            u16(buf, ci + CI_KIND, kinds[o] & 0xFFFF)
        links = []
        for o, ci in index_of.items():
            kind = kinds[o]
            if kind == KIND_OBJ:
                parent, model = sc.objs.get(o, (0, 0))
                words3(buf, made[o][0], o, parent, model)
                u32(buf, ci + CI_CHUNK, base + made[o][0])
                links.append((ci, model))
            elif kind == KIND_EXT:
                parent, target = sc.ext[o]
                words3(buf, made[o][0], o, parent, target)
                u32(buf, ci + CI_CHUNK, base + made[o][0])
                u32(buf, ci + CI_INST, self.index_of.get(target, 0))
            elif kind in (KIND_PARTICLE, KIND_EFF):
                chunk, inst = made[o]
                words3(buf, chunk, o, sc.effs.get(o, 0), 0)
                u32(buf, ci + CI_CHUNK, base + chunk)
                u32(buf, ci + CI_INST, base + inst)
                self.names[base + inst] = ("instance", o)
            elif kind == KIND_MODEL:
                mtype, nodes = sc.models.get(o, (0, []))
                mc, model, lst = made[o]
                for k, node in enumerate(nodes):
                    u32(buf, lst + 4 * k, self.index_of.get(node, 0))
                u32(buf, mc + MODELCHUNK_SCALE, ONE)
                u32(buf, mc + MODELCHUNK_NODES, base + lst)
                u32(buf, mc + MODELCHUNK_COUNT, len(nodes))
                u32(buf, model + mm.MODEL_INDEX, base + ci)
                u16(buf, model + MODEL_MTYPE, mtype & 0xFFFF)
                u32(buf, ci + CI_CHUNK, base + mc)
                u32(buf, ci + CI_INST, base + model)
                self.model_of[o] = base + model
                self.names[base + model] = ("instance", o)
            elif kind != KIND_CLUMP:
                inst = made[o][0]
                u32(buf, ci + CI_INST, base + inst)
                self.names[base + inst] = ("instance", o)
        for ci, model_obj in links:
            u32(buf, ci + CI_MODEL, self.model_of.get(model_obj, 0))
        if top:
            g.m.write(base, bytes(buf))

    # -- §3 -----------------------------------------------------------------------------------
    def set_anm(self, mode=0, anm_matrix: Sequence[int] = IDENTITY, anm_tp=ONE) -> Table:
        """Build the anm (clumps with fresh node ccObjs, chunk, stream, matrix and transparency),
        call SetAnm(anm, chunk, mode) and read back the Table. Needs make_anime_index first."""
        g = self.g
        if self.scene is None:
            raise HarnessError("set_anm before make_anime_index")
        sc = self.scene
        m = Staged(g.m, g.heap)                  # the clumps and their nodes written at once
        a = m.alloc
        g.new_anm()
        m.write(mm.ANM + ANM_MATRIX, struct.pack("<16I", *anm_matrix))
        m.write_u32(mm.ANM + ANM_TP, anm_tp)
        m.write_u32(mm.ANM + mm.ANM_CHUNK, mm.CHUNK)
        m.write_u32(mm.ANM + mm.ANM_STREAM, mm.STREAM)
        self.names[mm.ANM] = ("anm",)
        for ci in self.index_of.values():
            m.write_u32(ci + CI_CLAIM, 0)
        prev = None
        for _, nodes in sc.clumps:
            clump = a(CLUMP_SIZE, "clump")
            arr = a(4 * max(len(nodes), 1), "clump nodes")
            for k, node in enumerate(nodes):
                if node not in self.node_obj:
                    obj = a(OBJ_SIZE, "clump node")
                    self._construct(obj, self.index_of.get(node, 0), m)
                    self.node_obj[node] = obj
                    self.names[obj] = ("node", node)
                m.write_u32(arr + 4 * k, self.node_obj[node])
            m.write_u32(clump + CLUMP_N, len(nodes))
            m.write_u32(clump + CLUMP_NODES, arr)
            m.write_u32((prev + CLUMP_NEXT) if prev else mm.ANM + ANM_CLUMPS, clump)
            prev = clump
        for node, obj in self.node_obj.items():
            if node in self.index_of:
                m.write_u32(self.index_of[node] + CI_INST, obj)
        m.commit()
        self.inits = []
        g.call(SET_ANM, mm.ANM, mm.CHUNK, mode & 0xFFFFFFFF)
        return self.table()

    def _construct(self, obj, ci, m=None):
        """What ccObj::Init does (the hook's and the harness's own node objects), written to the
        machine or to a Staged layout `m` (the ccChunkIndex `ci` is in the machine already)."""
        block = bytearray(OBJ_SIZE)
        struct.pack_into("<16I", block, OBJ_LOCAL, *IDENTITY)
        struct.pack_into("<I", block, OBJ_TP_FACTOR, ONE)
        struct.pack_into("<I", block, OBJ_LOCALTP, ONE)
        struct.pack_into("<H", block, OBJ_KIND, KIND_OBJ)
        struct.pack_into("<I", block, OBJ_INDEX, ci)
        struct.pack_into("<I", block, OBJ_MODEL, self.g.u32(ci + CI_MODEL) if ci else 0)
        (m or self.g.m).write(obj, bytes(block))

    def _object_of_index(self, ci):
        for o, c in self.index_of.items():
            if c == ci:
                return o
        return None

    def _init_hook(self, m):
        obj, ci = m.args(2)
        self._construct(obj, ci)
        self.names[obj] = ("made", len(self.inits))
        self.inits.append((obj, ci))
        return obj

    def identity(self, addr) -> tuple:
        if addr == 0:
            return ("none",)
        return self.names.get(addr, ("unknown", addr))

    def table(self) -> Table:
        """The Table SetAnm left (also valid after later calls that do not touch it)."""
        g, m = self.g, self.g.m
        count = self.anm_index.count if self.anm_index else 0
        arr = g.u32(mm.ANM + mm.ANM_INDEX)
        entries, parents = [], []
        for tag, obj, kind, flags in ENTRY.iter_unpack(m.read(arr, ENTRY_SIZE * count)) if count else ():
            entries.append((self.identity(obj), kind, flags, tag))
            hung = obj and flags & 2
            parents.append(self.identity(g.u32(obj + OBJ_PARENT)) if hung else None)
        claims = [(o, g.u32(ci + CI_CLAIM)) for o, ci in sorted(self.index_of.items()) if g.u32(ci + CI_CLAIM)]
        tables = {}
        for o, model in sorted(self.model_of.items()):
            flags, tbl = g.u32(model + MODEL_FLAGS), g.u32(model + MODEL_TABLE)
            n = len(self.scene.models.get(o, (0, []))[1])
            tables[o] = (flags, [self.identity(w) for w in g.words(tbl, n)] if tbl and n else None)
        inits = [(j, self._object_of_index(ci)) for j, (_, ci) in enumerate(self.inits)]
        return Table(entries, parents, claims, tables, inits, {v: k for k, v in self.names.items()})

    # -- §4 -----------------------------------------------------------------------------------
    def draw(self) -> List[DrawCall]:
        """ccAnm::Draw with ccObj::Draw hooked: the (kind, identity, $f12 bits) of every call."""
        self.draws = []
        self.g.m.hooks.add("address", self._obj_hook, self.sym[OBJ_DRAW])
        try:
            self.g.call(DRAW, mm.ANM)
        finally:
            self.g.m.hooks.remove(self.sym[OBJ_DRAW])
        return list(self.draws)

    def _obj_hook(self, m):
        self.draws.append(DrawCall(KIND_OBJ, self.identity(m.args(1)[0]), m.F[12] & 0xFFFFFFFF))
        return 0

    def _eff_hook(self, m):
        self.draws.append(DrawCall(KIND_EFF, self.identity(m.args(1)[0]), None))
        return 0

    def draw_world(self) -> List[WorldCall]:
        """ccAnm::Draw with ccObj::Draw run (the parent chain, _SetLWMatrix) and ccModel::Draw
        hooked: every ccModel::Draw call in order. Bit 0 of +0x8C of the anm and of every object
        the table holds is cleared first (a new frame).

        ccModel::Draw is a tap hook (eemu_ext/core/hooks.py): each call leaves its object (a1) and
        alpha ($f12) in a list, and the world matrices are gathered in one read after Draw. DECISION: an object's world matrix after Draw is the one its ccModel::Draw received:
        _SetLWMatrix writes it once a frame (bit 0 set), nothing else under ccAnm::Draw writes a
        coord's +0x00, and ccModel::Draw is the harness's hook."""
        g = self.g
        self._clear_world_flags()
        self.draws = []
        del self._model_calls[:]
        g.call(DRAW, mm.ANM)
        drawn = [(c[1], c[4]) for c in self._model_calls]
        if not drawn:
            self.worlds = []
            return []
        ram = g._ram_u32()
        words = ram[g._word_index([obj for obj, _ in drawn], OBJ_WORLD, 16)].tolist()
        names, ident = self.names, self.identity
        self.worlds = [WorldCall(names.get(obj) or ident(obj), tuple(w), alpha)
                       for (obj, alpha), w in zip(drawn, words)]
        return list(self.worlds)

    def _clear_world_flags(self):
        self.g.m.and_u8(self._coord_flags(), 0xFE)

    # -- one table, several playbacks ---------------------------------------------------------
    def keep(self):
        """What make_anime_index and set_anm left, to come back to with restore(): the machine's
        memory (not the executable's code, as Game.load keeps a load), the heap and the driver's
        own names and Init calls. DECISION: memory only, as for a load: the registers are every
        call's own (executable-abi.md §3.1)."""
        return (self.g.m.snapshot(skip=self.g.img.code), self._heap_state(), dict(self.names), list(self.inits))

    def _heap_state(self):
        g, h = self.g, self.g.heap
        return (h.ptr, h.high_water, list(h.log), list(h.frees), g.out_buffer, g.out_high)

    def hooked(self) -> bool:
        """Whether the machine's ccObj::Init, ccEffObj::DrawNoAnm and ccModel::Draw hooks are
        still this driver's (no other driver took them since): its kept state is then usable."""
        return self._hooks.owner is self and self._hooks.installed()

    def restore(self, kept):
        """The state keep() saw, before another playback on the same table."""
        g, h = self.g, self.g.heap
        snap, state, names, inits = kept
        g.m.restore(snap)
        h.ptr, h.high_water, log, frees, g.out_buffer, g.out_high = state
        h.log, h.frees = list(log), list(frees)
        self.names, self.inits = dict(names), list(inits)

    def same_as(self, kept):
        """A HarnessError unless this driver's fresh make_anime_index and set_anm left exactly
        the state of `kept` (memory byte for byte, the heap, names and Init calls): the check of
        the restore shortcut (a profile's reload)."""
        g = self.g
        snap, state, names, inits = kept
        diff = g.m.differences(snap)
        if diff:
            where = ", ".join(f"0x{a:08x} fresh 0x{now:02x} restored 0x{then:02x}" for a, now, then in diff[:4])
            raise HarnessError(f"one table for every playback: a fresh MakeAnimeIndex and SetAnm left memory "
                               f"different from the restored state at {where}{' ...' if len(diff) > 4 else ''}")
        if self._heap_state() != state or self.names != names or self.inits != inits:
            raise HarnessError("one table for every playback: a fresh MakeAnimeIndex and SetAnm left another "
                               "heap, other objects or other ccObj::Init calls than the restored state")

    # -- playback on the table (level 2) ---------------------------------------------------------
    def start_playback(self, speed=256) -> Dict[int, int]:
        """Works for every entry whose compiled controller is an object record (kind 0x0102) and
        whose object is a ccObj, on the SetAnm entry array as the index; time 0, the reader opened.
        Returns {entry position: work}."""
        g, m = self.g, self.g.m
        m.write_u16(mm.ANM + mm.ANM_FRAME_SPD, speed & 0xFFFF)
        m.write_u32(mm.ANM + mm.ANM_FRAME_NOW, 0)
        m.write_u16(mm.ANM + mm.ANM_FRAME_CNT, 0)
        m.write_u32(mm.ANM + mm.ANM_WORKS, 0)
        arr = g.u32(mm.ANM + mm.ANM_INDEX)
        before = self._work_entries(arr)
        todo = [(i, ctrl) for i, (ctrl, ok) in enumerate(before) if ok]
        io = CallIO()
        io.gather(0, [mm.ANM + mm.ANM_WORKS])
        g.call_each(INIT_WORK, [(mm.ANM, ctrl, arr + ENTRY_SIZE * i) for i, ctrl in todo], io=io)
        if self._work_entries(arr) != before:
            raise HarnessError("InitAnmCtrlWork changed an entry's object or its controller's kind: the "
                               "entries that get works are read once, before the first")
        g.open_reader()
        return dict(zip([i for i, _ in todo], io.gathered.tolist()))

    def index_entries(self) -> List[Entry]:
        """MakeAnimeIndex's entries as Game.load gives a table's: position, object, compiled
        controller and its kind."""
        m, ix = self.g.m, self.anm_index
        return [Entry(i, o, c, m.read_u16(c) if c else None) for i, (o, c) in enumerate(zip(ix.objects, ix.ctrls))]

    def work_positions(self) -> List[int]:
        """The entries start_playback makes works for (an object record's controller on a ccObj)."""
        return [i for i, (_, ok) in enumerate(self._work_entries(self.g.u32(mm.ANM + mm.ANM_INDEX))) if ok]

    def entry_objects(self) -> List[int]:
        """The address of the object each of SetAnm's entries holds (0: none), in entry order."""
        count = self.anm_index.count if self.anm_index else 0
        return self._held(self.g.u32(mm.ANM + mm.ANM_INDEX), count)

    def _held(self, arr, count) -> List[int]:
        """The object words of the first `count` entries of the entry array at `arr`."""
        words = self.g.words(arr, ENTRY_SIZE // 4 * count) if count else ()
        return list(words[ENTRY_OBJECT // 4::ENTRY_SIZE // 4])

    def _work_entries(self, arr):
        """Per entry (its compiled controller, whether it gets a work: an object record's
        controller on a ccObj). DECISION: read once, before the InitAnmCtrlWork calls (one batch,
        ANM +0x104 gathered after each), and again after them: the calls make works and leave
        the entries and controllers alone (HarnessError if not)."""
        ctrls, identity = self.anm_index.ctrls, self.identity
        kinds = self.g.m.read_u16s([ctrl for ctrl in ctrls if ctrl])
        k = iter(kinds)
        return [(ctrl, bool(ctrl) and next(k) == mm.KIND_OBJECT and identity(obj)[0] in ("node", "made"))
                for ctrl, obj in zip(ctrls, self._held(arr, len(ctrls)))]

    def forward(self, dt):
        """_AnimateForward(anm, dt) on the table's works -> (time, return value)."""
        return self.g.forward(dt)

    def play(self, dt, n):
        """play_gathering(dt, n) without words gathered: ([time, return value] per step, Draws)."""
        forward, draws, _ = self.play_gathering(dt, n)
        return forward, draws

    def play_gathering(self, dt, n, gather=()):
        """n steps of forward(dt), each followed by draw_world(), as one batch of machine calls
        (Game.call_each: every call's ABI check right after it) whose work between the calls is
        described as data (a machine CallIO), which the native engine does in C: after a forward,
        the time words, then a new frame (bit 0 of every coord's +0x8C cleared); after a Draw, per
        ccModel::Draw call its object, alpha and the 16 world words the object holds, then
        frameSpd written again. The u32 words at the addresses of `gather` are gathered after each
        forward, before its Draw (a posed object's local words as _AnimateForward left them).
        ([time, return value] per step, Draws, the gathered words (n, len(gather)) uint32).

        DECISION: the coords a frame clears are the ones named when the playback starts (the
        table's, as _clear_world_flags names them); a ccObj::Init under _AnimateForward or Draw
        would make another, and is refused (HarnessError) rather than missed."""
        g = self.g
        dt &= 0xFFFFFFFF
        spd = min(dt, FRAME_SPD_MAX)       # as Game.forward writes frameSpd before each step
        spd_bytes = (spd & 0xFFFF).to_bytes(2, "little")
        io = CallIO(period=2)
        io.gather(0, [mm.ANM + mm.ANM_FRAME_NOW, mm.ANM + mm.ANM_FRAME_SPD, *gather])
        io.and_bytes(0, self._coord_flags(), 0xFE)
        io.gather_taps(1, self._model_tap, regs=(1, 4), arg=1, offset=OBJ_WORLD, n=16)
        io.write(1, mm.ANM + mm.ANM_FRAME_SPD, spd_bytes)
        inits = len(self.inits)
        del self._model_calls[:]
        self.draws = []
        g.m.write(mm.ANM + mm.ANM_FRAME_SPD, spd_bytes)
        out = g.call_each([FORWARD, DRAW] * n, [(mm.ANM, dt), (mm.ANM,)] * n, io=io)
        self.draws = []
        if len(self.inits) != inits:
            raise HarnessError(f"a playback step called ccObj::Init ({len(self.inits) - inits} times): the "
                               f"frame's coords are the table's (anim-objects.md §3.6)")
        got = io.gathered.reshape(n, 2 + len(gather))
        times = anm_times(got[:, 0], got[:, 1])
        rows = io.tapped.reshape(-1, 18)
        objs_all = rows[:, 0].tolist()
        names, ident = self.names, self.identity
        identities, last, k = [], (None, None), 0
        for c in io.tap_counts[1::2].tolist():
            objs = tuple(objs_all[k:k + c])
            k += c
            if objs != last[0]:            # most Draws call for the same objects as the one before
                last = objs, [names.get(obj) or ident(obj) for obj in objs]
            identities.append(last[1])
        draws = Draws(identities, np.ascontiguousarray(rows[:, 2:]), np.ascontiguousarray(rows[:, 1]))
        return [[t, v0] for t, v0 in zip(times.tolist(), out[0::2])], draws, got[:, 2:]

    def _coord_flags(self):
        """The +0x8C flag byte of the anm and of every object the table holds."""
        names = self.names                      # a layout makes a new dict; then it only grows
        held, size, flags = self._coords
        if held is not names or size != len(names):
            flags = [addr + OBJ_FLAGS for addr, ident in names.items() if ident[0] in ("node", "made", "anm")]
            self._coords = (names, len(names), flags)
        return flags

    # -- §5, §6 -----------------------------------------------------------------------------------
    def delete_anm_index(self) -> Frees:
        """DeleteAnmIndex(anm) with the frees recorded: [(symbol, identity)] and +0xAC after."""
        g = self.g
        arr = g.u32(mm.ANM + mm.ANM_INDEX)
        self.names.setdefault(arr, ("entries",))
        start = len(g.heap.frees)
        g.call(DELETE_INDEX, mm.ANM)
        calls = [(name, self.identity(p)) for name, p in g.heap.frees[start:]]
        return Frees(calls, g.u32(mm.ANM + mm.ANM_INDEX))

    def alpha_channel(self, ctrl) -> int:
        """The transparency channel of a compiled object controller (ctrl +0x10), 0 for none."""
        return self.g.u32(ctrl + CTRL_ALPHA)

    def float_set(self, channel, times) -> List[int]:
        """ccAnmCtrlFloat_Set(channel, t, out) at each time: the result bits, one per time."""
        g = self.g
        out = g.heap.alloc(16, "float result")
        got = []
        for t in times:
            g.m.write_u32(out, mm.POISON)
            g.call(FLOAT_SET, channel, t & 0xFFFFFFFF, out)
            got.append(g.u32(out))
        return got

