"""The archive-wide plan: which members, which chunks, and every count of corpus-stats.md split exactly.

build_plan(seed, small) -> list of MemberSpec in archive order. Role members come from roles.py;
filler members and filler chunks absorb the rest of each disc figure so that the totals are exact.
All draws come from random.Random(f"{seed}:plan:<what>"), so the plan is a pure function of the seed.
"""
from __future__ import annotations

import random
from typing import List, Sequence

from ..tables import DISC_RECORDS
from . import objects
from .roles import CAT, K_DIRECT, K_DISTANT, K_OMNI, K_SPOT, role_members
from .spec import ChunkSpec, MemberSpec, ModelSpec, MorpherSpec
from .volumes import INF_SPANS

# corpus-stats.md figures
MTIME_RANGE = (973651006, 1030068730)
ANIME = 4091
LOOPS = 953
TOPS = 190_663
OBJECT_RECORDS = 229_107
F_MORPHER = 11_086
F_AMBIENT = 17_764
F_CAMERA = 4_956
F_OBJ = 3_388
NOTES = 2_697
NOTE_CHUNKS = 944
NOTE_LOOPS = 171
NOTE_EVENTS = {2: 1976, 0x8005: 487, 0x8003: 175, 0x8002: 57, 3: 2}
MULTI_NOTE_FRAMES = 466
LAST_FRAME_NOTES = 16
LIGHTS = {K_OMNI: 251, K_DISTANT: 162, K_DIRECT: 7, K_SPOT: 1}
MATERIAL_RECORDS = 216
MATERIAL_FILES = 21
MORPHERS = 233
TARGETS = 835
TARGETS_NAMED = 820
MATERIALS = 11_071
CROPS = 218
MODELS = 17_254
MMATS = {"rigid": 16_407, "shadow": 3_129, "bone": 2_994, "skin": 185}
VERTICES = 5_417_645
TRIANGLES = 2_819_008
MODEL_FLAGS = {0: 9_990, 1: 532, 9: 266, 8: 136, 10: 82, 3: 3, 2: 1}
OLD_VERSIONS = {0x90: 6, 0x92: 6, 0x95: 6, 0x96: 6}
PREFIXES = {"OBJ_": 244_315, "MDL_": 33_661, "MAT_": 11_071, "CMP_": 7_254, "CLT_": 5_538,
            "TEX_": 4_306, "ANM_": 4_091, "DMY_": 2_529, "HIT_": 2_388, "LGT_": 421, "BLT_": 290,
            "BOX_": 237, "MPH_": 233, "EFF_": 171, "CAM_": 20, "FBR_": 2, "PAG_": 1}
CAMERAS = 20
BONE_MODELS = 1000
SHADOW_MODELS = MMATS["shadow"]

FILLER_PREFIX = ("cmn", "gcmn", "demo", "xd", "top", "menu", "eff", "eq", "skl", "spc", "c", "n",
                 "g", "e", "b", "twn", "fld", "dun", "ev")
# members the spec names for other reasons (texture offsets, story maps, formats.md's example)
NAMED_FILLERS = {CAT["field"]: ("field_a", "field_c"), CAT["event"]: ("evarea", "evarea_b0"),
                 CAT["desktop"]: ("xasc00",)}
MORPH_CATS = {CAT["pc"], CAT["npc"], CAT["enemy"], CAT["boss"], CAT["event"], CAT["demo"]}
ROOM_CATS = {CAT["town"], CAT["field"], CAT["dungeon"], CAT["event"]}
MATERIAL_CATS = {CAT["desktop"], CAT["event"], CAT["boss"], CAT["dungeon"], CAT["toppage"],
                 CAT["field"], CAT["gimmick"]}


def R(seed, what):
    return random.Random(f"{seed}:plan:{what}")


def allocate(total, weights: Sequence[float], rng, caps=None, mins=None) -> List[int]:
    """Split `total` into integers >= mins and <= caps, roughly proportional to weights, exactly."""
    n = len(weights)
    mins = list(mins) if mins is not None else [0] * n
    caps = list(caps) if caps is not None else [1 << 60] * n
    out = list(mins)
    left = total - sum(out)
    if left < 0 or sum(caps) < total or any(m > c for m, c in zip(mins, caps)):
        raise ValueError(f"cannot allocate {total} (mins {sum(mins)}, caps {sum(caps)})")
    while left > 0:
        open_ = [i for i in range(n) if out[i] < caps[i] and weights[i] > 0] or \
                [i for i in range(n) if out[i] < caps[i]]
        wsum = sum(max(weights[i], 1e-9) for i in open_)
        given = 0
        fracs = []
        for i in open_:
            share = left * max(weights[i], 1e-9) / wsum
            take = min(int(share), caps[i] - out[i])
            out[i] += take
            given += take
            fracs.append((share - int(share) + rng.random() * 1e-6, i))
        left -= given
        if left > 0:
            fracs.sort(reverse=True)
            for _, i in fracs:
                if left == 0:
                    break
                if out[i] < caps[i]:
                    out[i] += 1
                    left -= 1
    return out


def build_plan(seed=1, small=False, records=DISC_RECORDS) -> List[MemberSpec]:
    """records: the members per category (a volume's, synth/volumes.py; default the disc's)."""
    roles = role_members()
    members = list(roles)
    if not small:
        for k, cnt in enumerate(records):
            have = sum(1 for m in roles if m.category == k)
            named = list(NAMED_FILLERS.get(k, ()))
            for i in range(cnt - have):
                nm = named.pop(0) if named else f"{FILLER_PREFIX[k]}{i:03d}"
                members.append(MemberSpec(name=nm + ".cmp", category=k))
    members.sort(key=lambda m: (m.category, m.name))
    _versions_and_times(members, seed, small)
    _weights(members, seed)
    if small:
        _small_fixups(members)
    else:
        _chunks(members, seed)
    _models(members, seed, small)
    if not small:
        objects.choose(members, seed)
    _names(members, seed, small)
    if not small:
        check_plan(members)
    return members


def check_plan(members):
    """Fail at generation time, not in a census, when a split missed a disc figure."""
    ch = [c for m in members for c in m.chunks]
    got = {
        "anime": len(ch), "loops": sum(c.loops for c in ch), "tops": sum(c.N for c in ch) + len(ch),
        "tracks": sum(c.tracks for c in ch),
        "f_morpher": sum(len(fr) for c in ch for fr in c.morph.values()),
        "notes": sum(len(c.notes) for c in ch), "note_chunks": sum(1 for c in ch if c.notes),
        "note_loops": sum(1 for c in ch if c.notes and c.loops),
        "ambient": sum(len(c.ambient) for c in ch),
        "camera": sum(len(fr) for c in ch for _, fr in c.camera),
        "fobj": sum(len(fr) for c in ch for _, fr in c.fobj),
        "material_records": sum(c.materials for c in ch),
        "morphers": sum(len(m.morphers) for m in members),
        "models": sum(len(m.models) for m in members),
        "materials": sum(m.materials for m in members), "crops": sum(m.crops for m in members),
    }
    want = {"anime": ANIME, "loops": LOOPS, "tops": TOPS, "tracks": OBJECT_RECORDS,
            "f_morpher": F_MORPHER, "notes": NOTES, "note_chunks": NOTE_CHUNKS,
            "note_loops": NOTE_LOOPS, "ambient": F_AMBIENT, "camera": F_CAMERA, "fobj": F_OBJ,
            "material_records": MATERIAL_RECORDS, "morphers": MORPHERS, "models": MODELS,
            "materials": MATERIALS, "crops": CROPS}
    bad = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    if bad:
        raise AssertionError(f"synthetic plan misses disc figures (got, want): {bad}")


# ------------------------------------------------------------------------------------------------

def _versions_and_times(members, seed, small):
    rng = R(seed, "versions")
    cands = [m for m in members if not m.role and m.category == CAT["equip"]]
    if small:
        cands = [m for m in members if m.name in ("xdhhack.cmp", "eldl.cmp", "xdl_load.cmp", "town05.cmp")]
    rng.shuffle(cands)
    vs = [v for v, n in OLD_VERSIONS.items() for _ in range(n)]
    for m, v in zip(cands, vs[::6] if small else vs):
        m.version = v
    rng = R(seed, "mtime")
    lo, hi = MTIME_RANGE
    for m in members:
        m.mtime = rng.randint(lo, hi)
    members[0].mtime, members[-1].mtime = lo, hi


def _weights(members, seed):
    rng = R(seed, "weights")
    for m in members:
        k = m.category
        avg = INF_SPANS[k] / DISC_RECORDS[k]
        m.weight = 0.0 if k == CAT["skill"] else avg * rng.uniform(0.5, 1.5)
        if m.role:
            m.weight = max(m.weight, 30.0)


def _small_fixups(members):
    """--small: just the role members; give xddesk01's chunks a fixed N, cameras to one room."""
    for m in members:
        for c in m.chunks:
            if m.name == "xddesk01.cmp":
                c.N = 20 + int(c.name[-1:] if c.name[-1].isdigit() else 0)
                c.fobj = [(c.fobj[0][0], list(range(1, c.N)))]


# DECISION: the disc fixes xddesk01's F_Obj record count (with the enemies', 3,388) and its file,
# not its number of clips; 48 clips of about 60 records (instead of 12 of about 260) let the default
# bulk sample (seed 4, N = 200) meet F_Obj chunks.
XDDESK_CLIPS = 48


def _chunks(members, seed):
    rng = R(seed, "chunks")
    xd = next(m for m in members if m.name == "xddesk01.cmp")
    proto = xd.chunks[0]
    for i in range(len(xd.chunks), XDDESK_CLIPS):
        xd.chunks.append(ChunkSpec(name=f"ANM_xddsk{i}", N=0, tracks=proto.tracks, locked=True,
                                   role=f"ANM_xddsk{i}", fobj=[(proto.fobj[0][0], [])]))
    role_chunks = [c for m in members for c in m.chunks]
    # --- how many filler chunks each member gets
    elig = [m for m in members if m.category != CAT["skill"] and m.fobj_body is None
            and not m.name.startswith("se") and m.name not in ("town05.cmp",)]
    counts = allocate(ANIME - len(role_chunks), [m.weight for m in elig], rng)
    for m, n in zip(elig, counts):
        base = len(m.chunks)
        for i in range(n):
            m.chunks.append(ChunkSpec(name=f"ANM_{m.stem}{base + i:03d}", N=0))
    fillers = [(m, c) for m in members for c in m.chunks if not c.locked]
    # --- F_Obj: xddesk01's N so that all F_Obj records total 3,388
    fixed = sum(len(fr) for m in members for c in m.chunks if c.locked for _, fr in c.fobj if fr)
    xd = next(m for m in members if m.name == "xddesk01.cmp")
    ns = allocate(F_OBJ - fixed, [1] * len(xd.chunks), rng, mins=[40] * len(xd.chunks))
    for c, n in zip(xd.chunks, ns):
        c.N = n + 1
        c.fobj = [(c.fobj[0][0], list(range(1, c.N)))]
    # --- cameras: 20 CAM_ objects in filler chunks of demo/event members, every frame
    cam_chunks = [(m, c) for m, c in fillers if m.category in (CAT["demo"], CAT["event"])]
    rng.shuffle(cam_chunks)
    cam_chunks = cam_chunks[:CAMERAS]
    ns = allocate(F_CAMERA, [rng.uniform(0.5, 1.5) for _ in cam_chunks], rng,
                  mins=[100] * len(cam_chunks))
    for (m, c), n in zip(cam_chunks, ns):
        c.N, c.locked = n, True
        c.camera = [(m.cameras, list(range(n)))]
        m.cameras += 1
    fillers = [(m, c) for m, c in fillers if not c.locked]
    # --- N for the other fillers, then the exact sum
    for m, c in fillers:
        r = rng.random()
        c.N = (1 if r < 0.04 else rng.randint(2, 3) if r < 0.09 else rng.randint(10, 45) if r < 0.6
               else rng.randint(45, 90) if r < 0.9 else rng.randint(100, 220))
    total_n = TOPS - ANIME
    have = sum(c.N for m in members for c in m.chunks)
    free = [c for m, c in fillers if c.N >= 10]
    _nudge([c for c in free], total_n - have, rng, lo=10, hi=400)
    assert sum(c.N for m in members for c in m.chunks) == total_n
    # --- loops
    need = LOOPS - sum(c.loops for m in members for c in m.chunks)
    cands = [c for m, c in fillers if c.N >= 2]
    for c in rng.sample(cands, need):
        c.loops = True
    # --- object records
    rest = OBJECT_RECORDS - sum(c.tracks for m in members for c in m.chunks if c.locked)
    filler_all = [(m, c) for m in members for c in m.chunks if not c.role]
    for m in members:
        if not m.role:
            m.bones = max(1, int(rng.uniform(0.4, 1.6) * (60 if m.category in
                          (CAT["pc"], CAT["npc"], CAT["enemy"], CAT["boss"]) else 45)))
    tr = allocate(rest, [m.bones for m, c in filler_all], rng, mins=[1] * len(filler_all),
                  caps=[max(2 * m.bones, 4) for m, c in filler_all])
    for (m, c), n in zip(filler_all, tr):
        c.tracks = n
        m.bones = max(m.bones, n)
    _morphers(members, seed)
    _notes(members, seed)
    _materials(members, seed)
    _lights(members, seed)


def _nudge(chunks, delta, rng, lo, hi):
    """Change the N of `chunks` by a total of delta, one frame at a time, within [lo, hi]."""
    order = list(chunks)
    rng.shuffle(order)
    step = 1 if delta > 0 else -1
    i = 0
    stuck = 0
    while delta != 0:
        c = order[i % len(order)]
        i += 1
        big = max(1, abs(delta) // len(order))
        if lo <= c.N + step * big <= hi:
            c.N += step * big
            delta -= step * big
            stuck = 0
        else:
            stuck += 1
            if stuck > len(order):
                raise ValueError("cannot reach the frame total")


def _morphers(members, seed):
    rng = R(seed, "morph")
    role_m = sum(len(m.morphers) for m in members)
    role_named = sum(s.targets for m in members for s in m.morphers)
    role_recs = sum(len(fr) for m in members for c in m.chunks for fr in c.morph.values())
    cands = [m for m in members if not m.role and m.category in MORPH_CATS and m.version == 0x100
             and sum(1 for c in m.chunks if not c.locked and c.N >= 2) >= 1]
    rng.shuffle(cands)
    n_m = MORPHERS - role_m
    per = allocate(n_m, [m.weight for m in cands[:80]], rng, mins=[1] * 80, caps=[6] * 80)
    mph = []
    for m, k in zip(cands[:80], per):
        for _ in range(k):
            s = MorpherSpec(targets=1, mmats=[rng.randint(12, 160) for _ in range(rng.choice((1, 1, 2)))])
            mph.append((m, s, len(m.morphers)))   # its number in the member (specs may be equal)
            m.morphers.append(s)
    tg = allocate(TARGETS_NAMED - role_named, [1] * len(mph), rng, mins=[1] * len(mph), caps=[8] * len(mph))
    for (m, s, _), t in zip(mph, tg):
        s.targets = t
    for i in rng.sample(range(len(mph)), TARGETS - TARGETS_NAMED):
        mph[i][1].spare += 1
    mph[0][1].odd_scale = True
    # records: every filler morpher at least one, on frames 1 .. N-1 of its member's chunks
    caps = []
    for m, s, _ in mph:
        caps.append(sum(c.N - 1 for c in m.chunks if not c.locked and c.N >= 2))
    recs = allocate(F_MORPHER - role_recs, caps, rng, mins=[1] * len(mph), caps=caps)
    for (m, s, k), n in zip(mph, recs):
        chs = [c for c in m.chunks if not c.locked and c.N >= 2]
        split = allocate(n, [c.N - 1 for c in chs], rng, caps=[c.N - 1 for c in chs])
        for c, j in zip(chs, split):
            if j:
                frames = [1] + sorted(rng.sample(range(2, c.N), j - 1)) if j > 1 else [1]
                c.morph[k] = frames


def _notes(members, seed):
    rng = R(seed, "notes")
    role = [c for m in members for c in m.chunks if c.notes]
    r_notes = sum(len(c.notes) for c in role)
    r_loops = sum(c.loops for c in role)

    def groups(c):
        g = {}
        for f, *_ in c.notes:
            g[f] = g.get(f, 0) + 1
        return g
    r_multi = sum(1 for c in role for f, n in groups(c).items() if n > 1)
    r_last = sum(1 for c in role for f, *_ in c.notes if f == c.N - 1)
    cands = [c for m in members for c in m.chunks if not c.locked and c.N >= 6]
    loops = [c for c in cands if c.loops]
    once = [c for c in cands if not c.loops]
    n_chunks = NOTE_CHUNKS - len(role)
    pick = rng.sample(loops, NOTE_LOOPS - r_loops) + rng.sample(once, n_chunks - (NOTE_LOOPS - r_loops))
    rng.shuffle(pick)
    n_notes = NOTES - r_notes
    multi = MULTI_NOTE_FRAMES - r_multi
    triples = 25
    singles = n_notes - 2 * (multi - triples) - 3 * triples
    last = LAST_FRAME_NOTES - r_last
    # groups per chunk: every chunk >= 1, within its usable frames 1 .. N-2
    sizes = [3] * triples + [2] * (multi - triples) + [1] * singles
    rng.shuffle(sizes)
    per = allocate(len(sizes), [c.N for c in pick], rng, mins=[1] * len(pick),
                   caps=[max(1, (c.N - 2) // 2) for c in pick])
    events = [e for e, n in NOTE_EVENTS.items() for _ in range(n)]
    for c in role:
        for _, e, _ in c.notes:
            events.remove(e)
    rng.shuffle(events)
    last_chunks = set(id(c) for c in pick[:last])
    gi = 0
    for c, k in zip(pick, per):
        gs = sizes[gi:gi + k]
        gi += k
        lastg = None
        if id(c) in last_chunks:
            # a single note at N - 1 (the group list keeps its size: take a single one)
            if 1 in gs:
                gs.remove(1)
            else:  # swap with a single group of a later chunk
                j = sizes.index(1, gi)
                sizes[j] = gs[0]
                gs = gs[1:]
            lastg = c.N - 1
        frames = sorted(rng.sample(range(1, c.N - 1), len(gs)))
        notes = []
        for f, s in zip(frames, gs):
            for _ in range(s):
                notes.append(f)
        if lastg is not None:
            notes.append(lastg)
        c.notes = [(f, 0, 0) for f in notes]
    k = 0
    for c in pick:
        out = []
        for f, _, _ in c.notes:
            e = events[k]
            k += 1
            p = rng.randint(1, 24) if e == 2 else rng.choice((0, 1)) if e & 0x8000 else rng.randint(0, 3)
            out.append((f, e, p))
        c.notes = out
    assert k == len(events), (k, len(events))


def _materials(members, seed):
    rng = R(seed, "materials")
    role_files = [m for m in members if any(c.materials for c in m.chunks)]
    role_recs = sum(c.materials for m in role_files for c in m.chunks)
    named = [m for m in members if m.name in ("field_a.cmp", "field_c.cmp")]
    cands = [m for m in members if not m.role and m.category in MATERIAL_CATS and m.name not in
             ("field_a.cmp", "field_c.cmp") and sum(not c.locked for c in m.chunks) >= 4]
    rng.shuffle(cands)
    files = named + cands[:MATERIAL_FILES - len(role_files) - len(named)]
    counts = allocate(MATERIAL_RECORDS - role_recs, [1] * len(files), rng, mins=[2] * len(files),
                      caps=[4 * sum(not c.locked for c in m.chunks) for m in files])
    for m, n in zip(files, counts):
        chs = [c for c in m.chunks if not c.locked]
        split = allocate(n, [1] * len(chs), rng, caps=[4] * len(chs))
        for c, j in zip(chs, split):
            c.materials = j
        m.materials = max(m.materials, max(split) + 2)
        m.crops = max(m.crops, max(split))
    # all materials (MAT_ names) and crops over the archive
    others = [m for m in members if m.category != CAT["skill"]]
    have = sum(m.materials for m in members)
    extra = allocate(MATERIALS - have, [m.weight for m in others], rng)
    for m, e in zip(others, extra):
        m.materials += e
    have_c = sum(m.crops for m in members)
    cc = [m for m in others if m.materials > m.crops]
    more = allocate(CROPS - have_c, [1] * len(cc), rng, caps=[m.materials - m.crops for m in cc])
    for m, e in zip(cc, more):
        m.crops += e


def _lights(members, seed):
    rng = R(seed, "lights")
    role_counts = {}
    for m in members:
        for c in m.chunks:
            for k in c.lights:
                role_counts[k] = role_counts.get(k, 0) + 1
    rooms = [c for m in members if m.category in ROOM_CATS for c in m.chunks if not c.locked]
    for kind in (K_OMNI, K_DISTANT):
        n = LIGHTS[kind] - role_counts.get(kind, 0)
        per = allocate(n, [1] * len(rooms), rng, caps=[3] * len(rooms))
        for c, j in zip(rooms, per):
            c.lights += [kind] * j
    have = sum(len(c.ambient) for m in members for c in m.chunks)
    per = allocate(F_AMBIENT - have, [c.N for c in rooms], rng, caps=[c.N for c in rooms])
    for c, j in zip(rooms, per):
        c.ambient = sorted(rng.sample(range(c.N), j))


def _models(members, seed, small):
    rng = R(seed, "models")
    for m in members:
        for s in m.morphers:
            m.models.append(ModelSpec("rigid", 0, 0, [("rigid", v, 0) for v in s.mmats]))
            for t in range(s.targets + s.spare):
                m.models.append(ModelSpec("rigid", 0x600 if t % 2 == 0 else 0x601, 0,
                                          [("rigid", v, 0) for v in s.mmats]))
    if small:
        for m in members:
            if m.version >= 0x92:
                m.models.append(ModelSpec("bone", 4, 1, [("bone", 24, 0), ("skin", 6, 9)]))
            m.models.append(ModelSpec("shadow", 8, 0, [("shadow", 20, 30)]))
            m.models.append(ModelSpec("rigid", 0x40 if m.version >= 0x100 else 1, 0, [("rigid", 30, 0)]))
            m.models.append(ModelSpec("empty", 0, 0, []))
        return
    fixed = [md for m in members for md in m.models]
    n_fixed_mmats = sum(len(md.mmats) for md in fixed)
    fixed_v = sum(v for md in fixed for _, v, _ in md.mmats)
    holders = [m for m in members if m.category != CAT["skill"]]
    w = [m.weight for m in holders]
    n_rigid = 11_010 - SHADOW_MODELS - BONE_MODELS - len(fixed)
    n_empty = MODELS - 11_010
    specs = ([("rigid", None)] * n_rigid + [("shadow", None)] * SHADOW_MODELS
             + [("bone", None)] * BONE_MODELS + [("empty", None)] * n_empty)
    per = allocate(len(specs), w, rng)
    rng.shuffle(specs)
    models = []
    i = 0
    for m, n in zip(holders, per):
        for kind, _ in specs[i:i + n]:
            md = ModelSpec(kind, {"rigid": rng.choice((0, 0, 1, 0x40)), "shadow": 8, "bone": 4,
                                  "empty": 0}[kind])
            if m.version < 0x100 and md.mtype >= 0x100:
                md.mtype &= 0xFF
            m.models.append(md)
            models.append(md)
        i += n
    # mmats per model
    rig = [md for md in models if md.layout == "rigid"]
    bone = [md for md in models if md.layout == "bone"]
    nr = allocate(MMATS["rigid"] - n_fixed_mmats, [1] * len(rig), rng, mins=[1] * len(rig), caps=[8] * len(rig))
    for md, n in zip(rig, nr):
        md.mmats = [["rigid", 0, 0] for _ in range(n)]
    nb = allocate(MMATS["bone"] + MMATS["skin"], [1] * len(bone), rng, mins=[1] * len(bone), caps=[10] * len(bone))
    slots = []
    for md, n in zip(bone, nb):
        md.mmats = [["bone", 0, 0] for _ in range(n)]
        slots += md.mmats
    for s in rng.sample(slots, MMATS["skin"]):
        s[0] = "skin"
    shad = []
    for md in models:
        if md.layout == "shadow":
            md.mmats = [["shadow", 0, 0]]
            shad.append(md.mmats[0])
    # vertices and triangles
    allm = [mm for md in models for mm in md.mmats]
    vs = allocate(VERTICES - fixed_v, [rng.lognormvariate(0, 0.8) for _ in allm], rng,
                  mins=[3] * len(allm), caps=[4000] * len(allm))
    for mm, v in zip(allm, vs):
        mm[1] = v
    tri = allocate(TRIANGLES, [mm[1] for mm in shad], rng, mins=[1] * len(shad))
    for mm, t in zip(shad, tri):
        mm[2] = 3 * t + rng.choice((0, 0, 0, 1, 2))
    for mm in allm:
        if mm[0] == "skin":
            mm[2] = mm[1] + rng.randint(0, mm[1])     # offsetNum >= vertices (bit-9 entries)
    for md in models:
        md.mmats = [tuple(mm) for mm in md.mmats]
    # flags over the models with mmats
    with_mmats = [md for m in members for md in m.models if md.mmats]
    flags = [f for f, n in MODEL_FLAGS.items() for _ in range(n)]
    rng.shuffle(flags)
    for md, f in zip(with_mmats, flags):
        md.flag = f


def _names(members, seed, small):
    """Textures, cluts, clumps and the '#' names that make every prefix count exact."""
    rng = R(seed, "names")
    for m in members:
        m.textures = 1 + (0 if m.category == CAT["skill"] else int(m.weight // 40))
        m.cluts = m.textures if m.category != CAT["skill"] else 0
        m.clumps = max(m.clumps, 1 if m.bones else 0)
    if small:
        for m in members:
            m.extra_names = {"DMY_": 1, "HIT_": 1} if m.role else {}
        return
    own = {p: 0 for p in PREFIXES}
    for m in members:
        for p, n in own_names(m).items():
            own[p] += n
    holders = [m for m in members if m.category != CAT["skill"]]
    for p, total in PREFIXES.items():
        left = total - own[p]
        if left < 0:
            raise ValueError(f"plan has {own[p]} {p} objects, more than the disc's {total}")
        if left == 0:
            continue
        per = allocate(left, [m.weight for m in holders], rng)
        for m, n in zip(holders, per):
            if n:
                m.extra_names[p] = n


def own_names(m: MemberSpec) -> dict:
    """Objects a member defines itself, by prefix (content.py lays the index out the same way)."""
    n = {p: 0 for p in PREFIXES}
    n["ANM_"] = len(m.chunks)
    n["OBJ_"] = m.bones + (1 if any(c.notes for c in m.chunks) else 0) + (1 if m.fobj_body else 0) \
        + (23 if m.extobj else 0)
    n["MDL_"] = len(m.models)
    n["MAT_"] = m.materials
    n["TEX_"] = m.textures
    n["CLT_"] = m.cluts
    n["MPH_"] = len(m.morphers)
    n["CMP_"] = m.clumps
    n["LGT_"] = sum(len(c.lights) for c in m.chunks)
    n["CAM_"] = m.cameras
    for p, k in objects.prefix_counts(m).items():
        n[p] += k
    return n
