"""python -m corpus stats: the census of corpus-stats.md for any archive (synthetic or the disc).

census(corpus) -> dict of every figure; bad members are listed with the reason and skipped.
"""
from __future__ import annotations

import json
import struct
import sys
from collections import Counter

from .anime import parse_anime
from .ccsf import BONE, RIGID, SHADOW, SKIN
from .databin import GZIP_MAGIC, SECTOR
from .errors import CorpusError
from .names import printable
from .records import END_LOOP, END_PLAY_ONCE
from .tables import CATEGORIES, DISC_BASE_SECTORS

PREFIXES = ("OBJ_", "MDL_", "MAT_", "CMP_", "CLT_", "TEX_", "ANM_", "DMY_", "HIT_", "LGT_", "BLT_",
            "BOX_", "MPH_", "EFF_", "CAM_", "FBR_", "PAG_")


def _is_zero_exp(w):
    return (w >> 23) & 0xFF == 0 and w & 0x7FFFFF != 0


def _f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def category_of(m):
    """From the executable's tables when given; else by the disc's base sectors (formats.md §1.3).
    DECISION: without an executable the category is inferred from the member's sector."""
    if m.category is not None:
        return m.category
    sec = m.offset // SECTOR
    k = 0
    for i, b in enumerate(DISC_BASE_SECTORS):
        if sec >= b:
            k = i
    return k


def census(corpus) -> dict:
    c = corpus
    s = Counter()
    rec = Counter()
    ev = Counter()
    versions = Counter()
    cats = Counter()
    prefixes = Counter()
    layouts = Counter()
    flags = Counter()
    lights = Counter()
    ctrl_kinds = Counter()
    frame0_notes, fobj_files, mat_files = [], set(), set()
    bad = list(c.bad)
    mtimes = []
    for m in c.members:
        if m.name in {b["member"] for b in c.bad}:
            continue
        try:
            f = c.file(m.name)
        except CorpusError as e:
            bad.append({"member": m.name, "offset": m.offset, "error": str(e)})
            continue
        s["members"] += 1
        cats[CATEGORIES[category_of(m)]] += 1
        s["csize"] += m.csize or 0
        s["usize"] += m.usize or 0
        mtimes.append(m.mtime)
        versions[f"0x{f.version:X}"] += 1
        if struct.unpack_from("<I", f.data, 4)[0] == 13 and f.count == 1 and f.word == 0:
            s["header_ok"] += 1
        fr = [ch for ch in f.chunks if ch.frame_section]
        if (len(fr) == 1 and fr[0].kind == 0xFF01 and
                [x for x in f.chunks if x.kind == 0x0005][-1].size == 1):
            s["frame_section_empty"] += 1
        for name in f.names.values():
            prefixes[name[:4]] += 1
        s["morpher_chunks"] += len(f.morphers)
        s["material_objects"] += len(f.materials)
        s["nonzero_crops"] += sum(1 for x in f.materials.values() if x.crop_u or x.crop_v)
        targets = set()
        for md in f.model_list:
            s["models"] += 1
            if md.mtype in (0x600, 0x601):
                targets.add(md.object)
            if md.mmats:
                flags[md.flag] += 1
            if md.unknown != 0x70:
                s["model_unknown_not_0x70"] += 1
            for mm in md.mmats:
                layouts[mm.kind] += 1
                # DECISION: vertices = vertexNum (rigid, bone, skin) or vNum (shadow); triangles =
                # floor(iNum / 3) of the shadow mmats, the only layout that stores triangles.
                s["vertices"] += mm.vertex_count
                if mm.kind == SHADOW:
                    s["triangles"] += mm.index_count // 3
        s["morph_targets"] += len(targets)
        named = set()
        for off, length, obj in f.anime_chunks:
            nm = f.names.get(obj, f"#obj{obj}")
            cid = f"{m.name}::{nm}"
            try:
                a = parse_anime(f.data[off:off + length], ext=f.ext, where=cid)
            except CorpusError as e:
                bad.append({"member": m.name, "chunk": cid, "offset": e.offset, "error": str(e)})
                continue
            _anime(a, cid, s, rec, ev, lights, ctrl_kinds, frame0_notes)
            s["notes_not_xnote"] += sum(1 for n in a.notes if f.names.get(n.object) != "OBJ_xnote")
            for mr in a.morphs:
                for t, w in mr.pairs:
                    named.add(t)
            if a.fobjs:
                fobj_files.add(m.name)
            if a.materials:
                mat_files.add(m.name)
        s["morph_targets_named_in_file"] += len(targets & named)
    # the archive as a whole
    arc = c.arc
    starts = {m.offset for m in c.members}
    off_sector = 0
    data = arc.read(0, len(arc))
    i = data.find(GZIP_MAGIC)
    while i >= 0:
        if i not in starts:
            off_sector += 1
            if i % SECTOR == 0:
                s["magic_on_sector_not_member"] += 1
        i = data.find(GZIP_MAGIC, i + 1)
    out = {
        "members": s["members"],
        "bad_members": bad,
        "size": len(arc),
        "compressed_bytes": s["csize"],
        "inflated_bytes": s["usize"],
        "mtime_range": [min(mtimes), max(mtimes)] if mtimes else None,
        "magic_off_sector": off_sector,
        "magic_on_sector_not_member": s["magic_on_sector_not_member"],
        "versions": dict(versions),
        "header_ok": s["header_ok"],
        "frame_section_empty": s["frame_section_empty"],
        "categories": {k: cats.get(k, 0) for k in CATEGORIES},
        "prefixes": {p: prefixes.get(p, 0) for p in PREFIXES},
        "anime_chunks": s["anime"],
        "play_once": s["play_once"],
        "loops": s["loops"],
        "chunks_all_tops": s["all_tops"],
        "tops": rec.get(0xFF01, 0),
        "frames_total": s["frames"],
        "records": {f"0x{k:04X}": v for k, v in sorted(rec.items())},
        "object_records_not_under_top0": s["obj_not_top0"],
        "fobj_files": sorted(fobj_files),
        "material_record_files": len(mat_files),
        "chunks_with_notes": s["note_chunks"],
        "note_chunks_looping": s["note_loops"],
        "notes_by_event": {f"0x{k:X}": v for k, v in sorted(ev.items())},
        "frames_with_several_notes": s["multi_note_frames"],
        "frames_with_three_notes": s["three_note_frames"],
        "notes_at_last_frame": s["notes_last"],
        "notes_at_frame0": frame0_notes,
        "notes_out_of_order": s["notes_disorder"],
        "notes_not_xnote": s["notes_not_xnote"],
        "controllers": {
            "kinds": {str(k): v for k, v in sorted(ctrl_kinds.items())},
            "keyed_under_2_keys": s["keyed_lt2"],
            "keys_back_in_time": s["back"],
            "keys_back_to_0": s["back0"],
            "keys_sharing_a_frame": s["shared"],
            "keys_past_end": s["past_end"],
            "zero_exponent_values": s["zero_exp"],
            "negative_zero_values": s["neg_zero"],
            "rotation_keys_beyond_180": s["rot_key_beyond"],
            "single_rotations_beyond_180": s["rot1_beyond"],
            "max_keys_keyed_rotation": s["max_rot_keys"],
            "scales_not_1": s["scale_not_1"],
            "scales_above_1": s["scale_above_1"],
        },
        "morpher_chunks": s["morpher_chunks"],
        "morph_targets": s["morph_targets"],
        "morph_targets_named_in_file": s["morph_targets_named_in_file"],
        "f_morpher_frame0": s["morph_f0"],
        "weights_outside_0_8": s["weight_bad"],
        "weights_above_1": s["weight_gt1"],
        "materials": s["material_objects"],
        "nonzero_crops": s["nonzero_crops"],
        "models": s["models"],
        "mmats": {k: layouts.get(k, 0) for k in (RIGID, SHADOW, BONE, SKIN)},
        "vertices": s["vertices"],
        "triangles": s["triangles"],
        "model_flags": {str(k): v for k, v in sorted(flags.items(), key=lambda x: -x[1])},
        "model_unknown_not_0x70": s["model_unknown_not_0x70"],
        "lights": {f"0x{k:04X}": v for k, v in sorted(lights.items())},
        "n_min": s["n_min"], "n_1": s["n_1"], "n_2_3": s["n_2_3"], "n_100_up": s["n_100"],
    }
    return out


def _anime(a, cid, s, rec, ev, lights, ctrl_kinds, frame0_notes):
    s["anime"] += 1
    s["frames"] += a.frames
    if a.end == END_LOOP:
        s["loops"] += 1
    elif a.end == END_PLAY_ONCE:
        s["play_once"] += 1
    s["n_1"] += a.frames == 1
    s["n_2_3"] += 2 <= a.frames <= 3
    s["n_100"] += a.frames >= 100
    tf = [f for f, _ in a.tops if f < 0xFFFFFF00]
    if set(range(a.frames)) <= set(tf):
        s["all_tops"] += 1
    for k, v in a.counts.items():
        rec[k] += v
    for o in a.others:
        if o.kind in (0x0603, 0x0605, 0x0607, 0x0609):
            lights[o.kind] += 1
    N = a.frames
    for t in a.tracks:
        if t.frame != 0:
            s["obj_not_top0"] += 1
        for ch, name in ((t.pos, "pos"), (t.rot, "rot"), (t.scale, "scale"), (t.alpha, "alpha")):
            ctrl_kinds[f"{name}:{ch.kind}"] += 1
            vals = list(ch.value) + [w for _, ws in ch.keys for w in ws]
            for w in vals:
                if _is_zero_exp(w):
                    s["zero_exp"] += 1
                elif w == 0x80000000:
                    s["neg_zero"] += 1
            if ch.kind == 2:
                fr = [f for f, _ in ch.keys]
                if len(fr) < 2:
                    s["keyed_lt2"] += 1
                if any(b < a_ for a_, b in zip(fr, fr[1:])):
                    s["back"] += 1
                    if any(b == 0 and a_ > 0 for a_, b in zip(fr, fr[1:])):
                        s["back0"] += 1
                if any(b == a_ for a_, b in zip(fr, fr[1:])):
                    s["shared"] += 1
                if fr and max(fr) > N - 1:
                    s["past_end"] += 1
            if name == "rot":
                if ch.kind == 2:
                    s["max_rot_keys"] = max(s["max_rot_keys"], len(ch.keys))
                    if any(abs(_f(w)) > 180 for _, ws in ch.keys for w in ws):
                        s["rot_key_beyond"] += 1
                elif ch.kind == 1 and any(abs(_f(w)) > 180 for w in ch.value):
                    s["rot1_beyond"] += 1
            if name == "scale" and ch.kind:
                if any(w != 0x3F800000 for w in vals):
                    s["scale_not_1"] += 1
                if any(abs(_f(w)) > 1 for w in vals):
                    s["scale_above_1"] += 1
    for mr in a.morphs:
        if mr.frame == 0:
            s["morph_f0"] += 1
        for _, w in mr.pairs:
            x = _f(w)
            if not (0 <= x < 8):
                s["weight_bad"] += 1
            elif x > 1:
                s["weight_gt1"] += 1
    if a.notes:
        s["note_chunks"] += 1
        s["note_loops"] += a.loops
        per = Counter(n.frame for n in a.notes)
        s["multi_note_frames"] += sum(1 for v in per.values() if v > 1)
        s["three_note_frames"] += sum(1 for v in per.values() if v > 2)
        prev = 0
        for n in a.notes:
            ev[n.event] += 1
            if n.frame == N - 1:
                s["notes_last"] += 1
            if n.frame == 0:
                frame0_notes.append(cid)
            if n.frame < prev or n.frame >= N:
                s["notes_disorder"] += 1
            prev = n.frame


def main(a):
    from . import open_corpus
    c = open_corpus(data=a.path, image=a.image, disc=a.disc)
    out = census(c)
    if a.json:
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        _print(out)
    # DECISION: a census that found bad members exits 1 (the census itself is printed in full).
    if out["bad_members"]:
        print(f"error: {len(out['bad_members'])} bad {'member' if len(out['bad_members']) == 1 else 'members'} in {c.label}", file=sys.stderr)
        return 1
    return 0


def _print(o):
    def line(k, v):
        print(f"{k:<38} {v}")
    print("== archive (corpus-stats.md §1)")
    for k in ("members", "size", "compressed_bytes", "inflated_bytes", "mtime_range", "magic_off_sector",
              "versions", "header_ok", "frame_section_empty"):
        line(k, o[k])
    line("categories", " ".join(f"{k}={v}" for k, v in o["categories"].items()))
    print("== object-name prefixes (§2)")
    print("  " + " ".join(f"{k}{v}" for k, v in o["prefixes"].items()))
    print("== Anime chunks (§3)")
    for k in ("anime_chunks", "play_once", "loops", "chunks_all_tops", "tops", "frames_total",
              "object_records_not_under_top0", "fobj_files", "material_record_files",
              "n_1", "n_2_3", "n_100_up"):
        line(k, o[k])
    line("records", " ".join(f"{k}:{v}" for k, v in o["records"].items()))
    line("lights", o["lights"])
    print("== controllers (§4)")
    for k, v in o["controllers"].items():
        line("  " + k, v)
    print("== notes (§5)")
    for k in ("chunks_with_notes", "note_chunks_looping", "notes_by_event", "frames_with_several_notes",
              "frames_with_three_notes", "notes_at_last_frame", "notes_at_frame0", "notes_out_of_order",
              "notes_not_xnote"):
        line(k, o[k])
    print("== morphs, materials, models (§6)")
    for k in ("morpher_chunks", "morph_targets", "morph_targets_named_in_file", "f_morpher_frame0",
              "weights_outside_0_8", "weights_above_1", "materials", "nonzero_crops", "models", "mmats",
              "vertices", "triangles", "model_flags", "model_unknown_not_0x70"):
        line(k, o[k])
    print(f"== bad members: {len(o['bad_members'])}")
    for b in o["bad_members"]:
        print(printable(f"  {b.get('chunk') or b['member']} at offset 0x{int(b.get('offset') or 0):X}: {b['error']}"))
