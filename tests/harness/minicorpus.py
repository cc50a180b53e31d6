"""A tiny in-memory corpus of hand-built Anime chunks (corpus.anime.build_anime) with the interface of
interfaces.md §2, so harness tests run without DATA.BIN."""
from types import SimpleNamespace

from corpus.anime import (build_anime, fobj, keyed, material_track, morph, note, obj_track, one,
                          parse_anime)

NAMES = {3: "OBJ_body", 4: "OBJ_arm", 5: "OBJ_box", 6: "OBJ_fobj", 7: "ANM_mini", 8: "MAT_tex",
         9: "MPH_flag", 10: "MDL_flag0", 11: "MDL_flag1", 12: "MDL_flagbase", 20: "OBJ_xnote"}


def model(obj, scale, seed, n=7):
    """A decoded model (interfaces.md §2 Model/Mmat shape): one mmat of n s16 triples."""
    pos = [((seed * 7919 + i * 104729 + k * 1299709) % 65536 - 32768 if i % 3 else
            (seed * 31 + i * 17 + k * 5) % 200 - 100) for i in range(n) for k in range(3)]
    positions = [tuple(pos[3 * i:3 * i + 3]) for i in range(n)]
    return SimpleNamespace(object=obj, vertex_scale=scale, mtype=0x600,
                           mmats=[SimpleNamespace(kind=0, vertex_count=n, positions=positions)])


MODELS = {12: model(12, 0x3F800000, 1), 10: model(10, 0x3F800000, 2), 11: model(11, 0x40000000, 3)}


class MiniChunk:
    def __init__(self, member, name, data):
        self.member, self.name, self.data = member, name, data
        self.id = f"{member}::{name}"
        self.names = NAMES
        self.ext = {}
        # a hand-built member: its models, and no setup chunks, Obj, ExtObj or clump (an empty scene)
        self.file = SimpleNamespace(models=MODELS, morphers={9: 12}, materials={}, names=NAMES, ext={},
                                    member=member, data=b"", chunks=[], objs={}, extobjs={}, clump_list=[])

    @property
    def anime(self):
        return parse_anime(self.data, where=self.id)

    def resolve(self, obj):
        return obj


class MiniCorpus:
    def __init__(self, chunks):
        self._chunks = {c.id: c for c in chunks}

    def chunk_ids(self):
        return list(self._chunks)

    def chunk(self, cid):
        return self._chunks[cid]


def rich_loop():
    """A looping chunk: keyed position (back in time, shared frame), keyed + single rotations,
    scale, transparency, a material, notes (frame 0, several per frame, last frame), morphs."""
    return build_anime(
        object=7, frames=12, loops=True,
        tracks=[obj_track(3, pos=keyed((0, 1., 2., 3.), (3, 4., 5., 6.), (3, 7., 8., 9.), (2, 0., 1., 0.)),
                          rot=keyed((0, 0., 10., 20.), (5, 30., -40., 50.), (11, 90., 0., -10.)),
                          scale=one(2., 2., 0.5), alpha=keyed((0, 1.), (11, 0.25))),
                obj_track(4, pos=one(1.5, -2., 0.), rot=(0, 90, -200)),
                obj_track(5, scale=keyed((1, 1., 1., 1.), (20, 3., 2., 1.)))],
        materials=[material_track(8, u=keyed((0, 0.), (11, -0.5)), v=one(0.25))],
        notes=[note(0, 1, 1, 20), note(2, 2, 2, 20), note(2, 0x8005, 1, 20), note(5, 0x8003, 7, 20),
               note(11, 1, 3, 20)],
        morphs=[morph(1, 9, [(10, 0.5), (11, 0.25)]), morph(6, 9, [(10, 1.0)])])


def play_once_fobj():
    return build_anime(
        object=7, frames=8, loops=False,
        tracks=[obj_track(3, pos=keyed((0, 0., 0., 0.), (7, 7., 0., -7.))),
                obj_track(4, pos=keyed((0, 0., 0., 0.), (12, 12., 24., -6.)))],
        notes=[note(3, 0x8005, 1, 20), note(7, 2, 2, 20)],
        fobjs=[fobj(f, 6, pos=(0, 0, 1.5 * f), rot=(0, 7.5 * f, -7.5 * f), alpha=1.25 - 0.25 * f)
               for f in range(1, 8)])


def mini_corpus():
    return MiniCorpus([MiniChunk("mini.cmp", "ANM_loop", rich_loop()),
                       MiniChunk("mini.cmp", "ANM_once", play_once_fobj())])
