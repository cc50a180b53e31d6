"""Member content of the synthetic corpus: the object index, the setup chunks and the Anime records.

Everything is drawn from random.Random(f"{seed}:{member}:{what}") (numpy generators seeded from the
same strings for bulk vertex data), so one member or one chunk regenerates alone, independent of
the order in which the archive is written.
"""
from __future__ import annotations

import hashlib
import random
import struct
from typing import List

import numpy as np

from ..records import (ABSENT1, ABSENT3, END_LOOP, END_PLAY_ONCE, Controller, FObj, MaterialTrack,
                       MorphRecord, Note, OtherRecord, Track)
from .roles import K_DIRECT, K_DISTANT, K_OMNI, K_SPOT
from . import objects
from .spec import ChunkSpec, MemberSpec

TAG = 0xCCCC << 16
F1 = 0x3F800000
# DECISION: rates of the quirks the disc's census does not count: high enough that the
# default `make bulk` sample (seed 4, N = 200) holds chunks with each, rare against the ordinary case.
LATE_FIRST_KEY = 0.03          # keyed channels whose first key is after frame 0
ALPHA_OUTSIDE = 0.10           # controller transparencies outside [0, 1] (only F_Obj clamps)
# DECISION: keyed rotations that hold still after a turn (a key repeated on a later frame), as
# animated poses do; the step between the two has no axis (animation-semantics.md §3.4 step 4),
# and the pose in it is the running matrix the turn reached (§3.6). The disc's census does not
# count key values, so the proportion is ours.
HELD_ROT_KEY = 0.06
FAR_SCROLL = 0.35              # material channels scrolled to |U| >= 8, where U * 4096 wraps in s16


def rng_for(seed, member, what):
    return random.Random(f"{seed}:{member}:{what}")


def np_rng(seed, member, what):
    h = hashlib.sha256(f"{seed}:{member}:{what}".encode()).digest()
    return np.random.default_rng(int.from_bytes(h[:8], "little"))


def bits(vals) -> tuple:
    n = len(vals)
    return struct.unpack(f"<{n}I", struct.pack(f"<{n}f", *vals))


# ------------------------------------------------------------------------------------ the index

class Layout:
    """The member's object table (formats.md §3.2), laid out from its MemberSpec alone."""

    def __init__(self, ms: MemberSpec):
        self.ms = ms
        s = ms.stem
        names: List[tuple] = [("", 0)]

        def add(items, fidx=1):
            start = len(names)
            for it in items:
                names.append((it, fidx))
            return list(range(start, len(names)))

        self.anm = add([c.name for c in ms.chunks])
        self.bones = add([f"OBJ_{s}{i:02d}" for i in range(ms.bones)])
        self.xnote = add(["OBJ_xnote"])[0] if any(c.notes for c in ms.chunks) else None
        self.body = add([ms.fobj_body])[0] if ms.fobj_body else None
        self.ext = add([f"OBJ_{s}x{i:02d}" for i in range(23)]) if ms.extobj else []
        self.models = add([f"MDL_{s}{i:03d}" for i in range(len(ms.models))])
        self.mats = add([f"MAT_{s}{i:03d}" for i in range(ms.materials)])
        self.texs = add([f"TEX_{s}{i:02d}" for i in range(ms.textures)])
        self.cluts = add([f"CLT_{s}{i:02d}" for i in range(ms.cluts)])
        self.mphs = add([f"MPH_{s}{i:02d}" for i in range(len(ms.morphers))])
        self.cmps = add(["CMP_trall" if ms.extobj and i == 0 else f"CMP_{s}{i:02d}"
                                 for i in range(ms.clumps)])
        nl = sum(len(c.lights) for c in ms.chunks)
        self.lgts = add([f"LGT_{s}lig{i + 1}" for i in range(nl)])
        self.cams = add([f"CAM_{s}{i:02d}" for i in range(ms.cameras)])
        self.pattern = add(objects.names(ms))
        for p, n in sorted(ms.extra_names.items()):
            add([f"{p}{s}_x{i:04d}" for i in range(n)], fidx=2)
        self.names = names
        self.files = ["", f" {s}.max"] + ([f"#{s}_ext.ccs"] if ms.extra_names else [])
        # models: morph bases and targets come first (plan._models appends them first)
        self.morph_models = []       # per morpher: (base, [named targets], [spare targets])
        i = 0
        for sp in ms.morphers:
            base = self.models[i]
            tg = self.models[i + 1:i + 1 + sp.targets]
            spare = self.models[i + 1 + sp.targets:i + 1 + sp.targets + sp.spare]
            self.morph_models.append((base, tg, spare))
            i += 1 + sp.targets + sp.spare
        # ExtObj: x_i stands for bone i; x00 -> x01 -> bone 1 is a two-hop chain
        self.ext_map = {}
        for i, x in enumerate(self.ext):
            self.ext_map[x] = self.bones[i % max(1, len(self.bones))] if self.bones else x
        if len(self.ext) > 1:
            self.ext_map[self.ext[0]] = self.ext[1]
        self.objects = objects.Objects(ms, self)
        for x, _parent, target in self.objects.exts:
            self.ext_map[x] = target


# ------------------------------------------------------------------------------- Anime records

def _denorm(r):
    return (r.getrandbits(1) << 31) | r.randint(1, 0x7FFFFF)


class _Gen:
    """Draws controller values for one chunk."""

    def __init__(self, r: random.Random, N: int):
        self.r, self.N = r, N

    def frames(self, n):
        r, N = self.r, self.N
        if N >= n:
            fr = [0] + sorted(r.sample(range(1, N), n - 1))
            fr[-1] = N - 1
        else:
            fr = sorted(r.randint(0, N - 1) for _ in range(n))
            fr[0] = 0
        q = r.random()
        if n >= 3 and q < 0.005:
            i = r.randint(1, n - 2)
            fr[i + 1] = fr[i]                          # keys sharing a frame
        elif n >= 3 and q < 0.0075:
            i = r.randint(2, n - 1)
            fr[i] = r.randint(0, max(0, fr[i - 1] - 1))  # a key back in time
        elif n >= 2 and q < 0.0115:
            fr[-1] = self.N - 1 + r.randint(1, 40)     # a key past the last frame
        if n >= 2 and fr[1] >= 1 and r.random() < LATE_FIRST_KEY:
            fr[0] = r.randint(1, fr[1])                # the first key after frame 0: a hold before it
        return fr

    def words(self, vals):
        w = list(bits(vals))
        r = self.r
        if r.random() < 0.004:
            w[r.randrange(len(w))] = _denorm(r) if r.random() < 0.6 else 0x80000000
        return tuple(w)

    def vec_keys(self, fr, start, step, wrap=False):
        r = self.r
        v = list(start)
        keys = []
        for f in fr:
            keys.append((f, self.words(v)))
            v = [x + r.uniform(-step, step) for x in v]
            if wrap:   # keep ordinary rotation keys inside +-180; the quirk below goes beyond
                v = [max(-179.0, min(179.0, x)) for x in v]
        if wrap and r.random() < 0.03:   # a rotation key beyond +-180 degrees
            f, w = keys[-1]
            keys[-1] = (f, (bits([r.choice((1, -1)) * r.uniform(181, 540)])[0],) + w[1:])
        return keys

    def nkeys(self):
        r, N = self.r, self.N
        return max(2, min(r.randint(2, 10), max(2, N)))

    def keyed_ok(self):
        """N = 1 clips rarely key a channel (their two keys must share frame 0 or pass the end)."""
        return self.N > 1 or self.r.random() < 0.03

    def pos(self):
        r = self.r
        k = r.random()
        if k < 0.15:
            return ABSENT3
        base = [r.choice((1, -1)) * r.uniform(10, 2000) for _ in range(3)]
        if k < 0.60 or not self.keyed_ok():
            return Controller(1, 3, self.words(base))
        return Controller(2, 3, (), tuple(self.vec_keys(self.frames(self.nkeys()), base, 40.0)))

    def rot(self):
        r = self.r
        k = r.random()
        if k < 0.15:
            return ABSENT3
        base = [r.uniform(-180, 180) for _ in range(3)]
        if k < 0.55 or not self.keyed_ok():
            if r.random() < 0.03:
                base[r.randrange(3)] = r.choice((1, -1)) * r.uniform(181, 720)
            return Controller(1, 3, self.words(base))
        keys = self.vec_keys(self.frames(self.nkeys()), base, 25.0, wrap=True)
        if len(keys) >= 3 and r.random() < HELD_ROT_KEY:
            i = r.randint(1, len(keys) - 2)
            if keys[i + 1][0] > keys[i][0]:
                keys[i + 1] = (keys[i + 1][0], keys[i][1])     # the turn into key i, then a hold
        return Controller(2, 3, (), tuple(keys))

    def scale(self):
        r = self.r
        k = r.random()
        if k < 0.5:
            return ABSENT3
        if k < 0.9 or not self.keyed_ok():
            v = [1.0] * 3 if r.random() < 0.7 else [r.uniform(0.5, 1.6)] * 3
            return Controller(1, 3, self.words(v))
        return Controller(2, 3, (), tuple(self.vec_keys(self.frames(self.nkeys()), [r.uniform(0.8, 1.2)] * 3, 0.1)))

    def alpha(self):
        r = self.r
        k = r.random()
        if k < 0.8:
            return ABSENT1
        if k < 0.92 or not self.keyed_ok():
            v = r.choice((1.0, 0.5, r.random()))
            if r.random() < ALPHA_OUTSIDE:
                v = r.choice((1.5, -0.25, 2.0, -1.0, r.uniform(-0.6, 1.8)))
            return Controller(1, 1, self.words([v]))
        fr = self.frames(self.nkeys())
        out = r.random() < ALPHA_OUTSIDE
        return Controller(2, 1, (), tuple((f, self.words([r.uniform(-0.6, 1.8) if out else r.random()]))
                                          for f in fr))


def _track(obj, target, pos, rot, scale, alpha, flags_hi=0):
    flags = flags_hi | pos.kind | (rot.kind << 3) | (scale.kind << 6) | (alpha.kind << 9)
    return Track(0, obj, target, flags, pos, rot, scale, alpha, 0, 0)


def _keys(frames, vecs):
    return Controller(2, len(vecs[0]), (), tuple((f, bits(v)) for f, v in zip(frames, vecs)))


def _role_tracks(feature, g: _Gen, tracks: list):
    """Overwrite the first tracks with the quirk a role demands (checks.md §10)."""
    N = g.N

    def setc(i, **kw):
        t = tracks[i]
        d = dict(pos=t.pos, rot=t.rot, scale=t.scale, alpha=t.alpha)
        d.update(kw)
        tracks[i] = _track(t.object, t.target, d["pos"], d["rot"], d["scale"], d["alpha"])

    lin = lambda n, a, b: [a + (b - a) * i / max(1, n - 1) for i in range(n)]
    if feature == "keyed_pos_rot":
        fr = sorted(set([0, N // 3, 2 * N // 3, N - 1]))
        setc(0, pos=_keys(fr, [[x, 10.0 * i, -x] for i, x in enumerate(lin(len(fr), 0, 300))]),
             rot=_keys(fr, [[0.0, y, 5.0] for y in lin(len(fr), -90, 90)]))
    elif feature == "nonunit_scale":
        setc(0, scale=Controller(1, 3, bits([1.5, 1.5, 1.5])))
        setc(1, scale=_keys([0, N // 2, N - 1], [[0.8] * 3, [1.3] * 3, [0.9] * 3]))
    elif feature == "rot1_beyond":
        setc(1, rot=Controller(1, 3, bits([200.0, -190.0, 30.0])))
    elif feature == "shared_key":
        a = N // 4
        setc(0, pos=_keys([0, a, a, 2 * a, N - 1], [[0, 0, 0], [100, 0, 0], [100, 50, 0], [0, 50, 0], [0, 0, 0]]))
    elif feature == "back_key0":
        setc(0, rot=_keys([0, N // 2, N - 1, 0], [[0, 0, 0], [0, 90, 0], [0, 180, 0], [0, 45, 0]]),
             pos=_keys([0, N // 3, 0, N - 1], [[0, 0, 0], [30, 0, 0], [60, 0, 0], [90, 0, 0]]))
    elif feature == "back_key":
        setc(1, pos=_keys([0, N // 2, N // 4, N - 1], [[0, 10, 0], [0, 40, 0], [0, 20, 0], [0, 80, 0]]))
    elif feature == "keyed_rot":
        setc(2, rot=_keys([0, 10, 10, N - 1], [[0, 0, 0], [0, 30, 0], [0, 30, 15], [0, 60, 15]]))
        setc(3, rot=_keys([0, 30, 5, N - 1], [[10, 0, 0], [40, 0, 0], [20, 0, 0], [80, 0, 0]]))
        setc(4, rot=_keys([0, N // 4, N // 2, N - 1], [[0, 0, 0], [0, 45, 10], [0, 45, 10], [0, 90, 10]]))
    elif feature == "past_end":
        setc(0, pos=_keys([0, N // 2, N + 10], [[0, 0, 0], [50, 0, 0], [120, 0, 0]]),
             rot=_keys([0, N - 1, N + 5], [[0, 0, 0], [0, 0, 90], [0, 0, 135]]))
    elif feature == "keys70":
        fr = list(range(N))
        setc(0, rot=_keys(fr, [[2.0 * i, 3.0 * i - 100, 0.5 * i] for i in fr]))


def _mat_records(spec: ChunkSpec, g: _Gen, lay: Layout, role_mix: bool):
    r, N = g.r, g.N
    out = []
    for j in range(spec.materials):
        mat = lay.mats[j]
        if role_mix:
            u, v = [(_keys([0, N - 1], [[0.0], [-1.0]]), Controller(1, 1, bits([-0.25]))),
                    (Controller(1, 1, bits([0.5])), _keys([0, N // 2, N - 1], [[0.0], [0.75], [-0.5]])),
                    (ABSENT1, _keys([0, N - 1], [[-0.125], [-2.0]]))][j % 3]
        else:
            def ch():
                k = r.random()
                if k < 0.2:
                    return ABSENT1
                far = r.random() < FAR_SCROLL      # the title scroll and the like run far
                if k < 0.5:
                    v = r.choice((1, -1)) * r.uniform(8, 40) if far else r.uniform(-1, 1)
                    return Controller(1, 1, g.words([v]))
                fr = g.frames(g.nkeys())
                lim = 40.0 if far else 2.0
                return Controller(2, 1, (), tuple((f, g.words([r.uniform(-lim, lim)])) for f in fr))
            u, v = ch(), ch()
        out.append(MaterialTrack(0, mat, u.kind | (v.kind << 3), u, v, 0, 0))
    return out


# light channels (formats.md §4.7): the direct light's 3-bit fields, widths 3 (position, rotation,
# colour) and 1 (intensity, beam start and end, radii); the other kinds take the object/flags prefix
# with the channels they plausibly have. DECISION: those layouts are not recorded; ours reuse the
# direct light's fields.
DIRECT_CHANNELS = ((0, 3), (3, 3), (6, 3), (9, 1), (12, 1), (15, 1), (18, 1), (21, 1))
# the five event rooms without a documented light show the forms: every channel one-valued, every
# channel keyed, mixes, and absent channels
DIRECT_FORMS = {"se1_1": (1,) * 8, "se1_2": (2,) * 8, "se2_1": (2, 1, 2, 1, 2, 1, 2, 1),
                "se3_1": (1, 2, 1, 2, 1, 2, 1, 2), "se3_2": (0, 0, 0, 0, 1, 1, 0, 0)}
OTHER_CHANNELS = {K_OMNI: (0, 6, 9), K_DISTANT: (3, 6, 9), K_SPOT: (0, 3, 6, 9, 12, 15)}


def _light_channel(kind, values, r, N):
    if kind == 1:
        return list(bits(values()))
    fr = sorted(r.sample(range(max(2, N)), 2)) if N >= 2 else [0, 0]
    out = [len(fr)]
    for f in fr:
        out += [f, *bits(values())]
    return out


def _light(kind, obj, lay: Layout, r: random.Random, N: int):
    s = lay.ms.stem
    if kind == K_DIRECT and s in ("se1_3", "se2_2"):      # the documented ones (formats.md §4.7)
        radii = {"se1_3": (498.0, 500.0), "se2_2": (800.0, 850.0)}[s]
        w = (obj, 0x240041, *bits([0.0, 0.0, 2500.0]), *bits([1.0, 1.0, 1.0]), *bits(list(radii)))
        return OtherRecord(0, kind, w, 0)
    if kind == K_DIRECT:
        forms = DIRECT_FORMS.get(s) or tuple(r.choice((0, 1, 1, 2)) for _ in DIRECT_CHANNELS)
        chans = [(sh, k) for (sh, _width), k in zip(DIRECT_CHANNELS, forms)]
    else:
        chans = [(sh, 2 if r.random() < 0.3 or (kind == K_SPOT and sh == 3) else 1)
                 for sh in OTHER_CHANNELS[kind]]   # town05's spot light turns (keyed rotation)
    gen = {0: lambda: [r.uniform(-500, 500) for _ in range(3)], 3: lambda: [r.uniform(-180, 180) for _ in range(3)],
           6: lambda: [r.random() for _ in range(3)], 9: lambda: [r.uniform(0.2, 1.5)],
           12: lambda: [r.uniform(0, 200)], 15: lambda: [r.uniform(200, 2500)],
           18: lambda: [r.uniform(300, 600)], 21: lambda: [r.uniform(600, 900)]}
    flags, words = 0, []
    for sh, k in chans:
        if k == 0:
            continue
        flags |= k << sh
        words += _light_channel(k, gen[sh], r, N)
    return OtherRecord(0, kind, (obj, flags, *words), 0)


def _resolve(ext_map, obj):
    """An object's ExtObj target, followed (formats.md §3.7, at most 64 hops)."""
    for _ in range(64):
        nx = ext_map.get(obj)
        if nx is None or nx == obj:
            break
        obj = nx
    return obj


def chunk_records(seed, ms: MemberSpec, ci: int, lay: Layout) -> dict:
    """The generator's intended records of chunk ci (keyword arguments of build_anime)."""
    spec = ms.chunks[ci]
    r = rng_for(seed, ms.name, spec.name)
    N = spec.N
    g = _Gen(r, N)
    # object records
    tracks = []
    usable = [b for b in lay.bones]
    for i in range(spec.tracks):
        if i < spec.ext_tracks and lay.ext:
            obj = lay.ext[i % len(lay.ext)]
        else:
            obj = usable[i % len(usable)]
        tracks.append(_track(obj, _resolve(lay.ext_map, obj), g.pos(), g.rot(), g.scale(), g.alpha()))
    if spec.role is None and len(tracks) >= 3 and r.random() < 0.01:
        t = tracks[-1]   # two records naming one object: two instances (formats.md §4.5)
        tracks[-1] = _track(tracks[0].object, tracks[0].target, t.pos, t.rot, t.scale, t.alpha)
    for i, obj in sorted(lay.objects.renames(ci, len(tracks)).items()):
        t = tracks[i]      # a pattern's object (objects.py): the record keeps its controllers
        tracks[i] = _track(obj, _resolve(lay.ext_map, obj), t.pos, t.rot, t.scale, t.alpha)
    for f in sorted(spec.features, key=lambda x: x != "keyed_pos_rot"):   # the plain one first
        if tracks and f not in ("mat_mix", "eex1_frame3"):
            _role_tracks(f, g, tracks)
    materials = _mat_records(spec, g, lay, "mat_mix" in spec.features)
    others = []
    li = sum(len(c.lights) for c in ms.chunks[:ci])
    for kind in spec.lights:
        others.append(_light(kind, lay.lgts[li], lay, r, N))
        li += 1
    # per-frame records
    morphs = []
    for k, frames in sorted(spec.morph.items()):
        base, tg, _ = lay.morph_models[k]
        for f in frames:
            pairs = []
            for t in tg:
                # DECISION: weights stay in [0, 8), the disc's census figure (corpus-stats.md §6,
                # §9 item 8); negative, -0 and >= 8 weights run in make bulk as the Modify
                # pseudo-chunks of harness/runners/cases/morph_pseudo.py.
                w = r.random() if r.random() > 0.03 else r.uniform(1.0, 7.99)
                pairs.append((t, bits([w])[0]))
            morphs.append(MorphRecord(f, lay.mphs[k], tuple(pairs), 0, 0))
    morphs.sort(key=lambda m: m.frame)    # file order: by frame, then morpher (formats.md §4.2)
    notes = [Note(f, lay.xnote, e, p, 0) for f, e, p in spec.notes]
    fobjs = []
    for name, frames in spec.fobj:
        obj = lay.body
        z = r.uniform(-5, 5)
        ry = 0.0
        for f in frames:
            if "eex1_frame3" in spec.features:
                pos, rot = [0.0, 0.0, 3.875 * (f - 1)], [0.0, 7.5 * (f - 1), -7.5 * (f - 1)]
            else:
                z += r.uniform(-2, 2)
                ry += r.uniform(-10, 10)
                pos, rot = [r.uniform(-1, 1), 0.0, z], [0.0, ry, r.uniform(-20, 20)]
            alpha, scale = 1.0, [1.0, 1.0, 1.0]
            if ms.name == "xddesk01.cmp" and r.random() < 0.05:
                alpha = r.choice((1.25, -0.5, 0.5))   # DECISION: exercise the [0, 1] clamp
            # DECISION: non-unit, unequal and negative scales (a mirrored pose), so that the order
            # of T.R.S is tested; eex1 ANM_eex1dmg0 keeps the documented unit scale
            if "eex1_frame3" not in spec.features and r.random() < (0.4 if ms.name == "xddesk01.cmp" else 0.15):
                scale = [r.uniform(0.4, 2.5) * (-1 if r.random() < 0.25 else 1) for _ in range(3)]
            w = (obj, 0, *bits(pos), *bits(rot), *bits(scale), bits([alpha])[0],
                 r.choice((0, 0, 1)))
            fobjs.append(FObj(f, obj, w, 0))
    fobjs.sort(key=lambda o: o.frame)
    # DECISION: payloads of F_Ambient (4 floats RGBA), F_Camera (object, eye, target, fov) and of
    # the light controllers (object, flags, channels) are free (formats.md §4.7-4.8): these are ours.
    for f in spec.ambient:
        others.append(OtherRecord(f, 0x0601, bits([r.uniform(0.2, 0.6) for _ in range(3)] + [1.0]), 0))
    for cam, frames in spec.camera:
        co = lay.cams[cam]
        for f in frames:
            others.append(OtherRecord(f, 0x0502, (co, *bits([r.uniform(-800, 800) for _ in range(6)]
                                                          + [r.uniform(30, 60)])), 0))
    return dict(object=lay.anm[ci], frames=N, end=END_LOOP if spec.loops else END_PLAY_ONCE,
                tracks=tracks, materials=materials, morphs=morphs, notes=notes, fobjs=fobjs,
                others=others)


def normalized(anime_or_fields) -> tuple:
    """Records without offsets and indices: what the generator intends and the parser must return."""
    if isinstance(anime_or_fields, dict):
        d = anime_or_fields
        get = d.__getitem__
    else:
        get = lambda k: getattr(anime_or_fields, k)
    tr = tuple((t.object, t.target, t.flags, t.pos, t.rot, t.scale, t.alpha, t.frame) for t in get("tracks"))
    ma = tuple((m.material, m.flags, m.u, m.v, m.frame) for m in get("materials"))
    mo = tuple((m.frame, m.morpher, m.pairs, m.pad) for m in get("morphs"))
    no = tuple((n.frame, n.object, n.event, n.param) for n in get("notes"))
    fo = tuple((f.frame, f.object, f.words) for f in get("fobjs"))
    ot = tuple(sorted(((o.frame, o.kind, o.words) for o in get("others"))))
    head = (get("object"), get("frames") if isinstance(anime_or_fields, dict) else anime_or_fields.frames,
            get("end"))
    return (head, tr, ma, mo, no, fo, ot)


def digest(norm) -> str:
    return hashlib.sha1(repr(norm).encode()).hexdigest()
