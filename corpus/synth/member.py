"""One synthetic CCSF member: the setup chunks (formats.md §3) and Anime chunks, as byte segments.

member_parts(seed, spec) -> Parts with
  head:  Header, Index, Setup chunks (deflated),
  tex:   how to write the big Texture chunk, whose pixel block is the incompressible payload that
         writer.py sizes so that the member's compressed length comes out exact (stored blocks),
         followed by a zero-filled second mip level that sets the inflated length,
  tail:  every other chunk up to the end Top (deflated),
  chunks: the manifest of the member's Anime chunks (name, N, loops, record counts, digest).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import List

import numpy as np

from ..anime import build_anime
from .content import F1, TAG, Layout, bits, chunk_records, digest, normalized, np_rng, rng_for
from .spec import MemberSpec

TEX_DECLARED_EXTRA = 50     # every texture declares a wrong size (corpus-stats.md §6: xasc00 +0x32)


def chunk(kind, payload: bytes, tag=TAG, declared=None) -> bytes:
    n = len(payload) // 4 if declared is None else declared
    return struct.pack("<II", tag | kind, n) + payload


@dataclass
class Parts:
    name: str
    head: bytes
    tail: bytes
    tex_prefix: bytes            # chunk header .. block 0 header, without its pixel words
    tex_words_fixed: int         # payload words of the texture apart from block 0/1 data
    version: int
    chunks: List[dict] = field(default_factory=list)
    block0_header_at: int = 0    # offset of block 0's header inside tex_prefix


def _u32s(*w):
    return struct.pack(f"<{len(w)}I", *[x & 0xFFFFFFFF for x in w])


# DECISION: header frames 0, a 1-word Setup payload, Clut = (object, 16, 16 colours), Obj parents
# chained along the skeleton, colours 0x80808080 and 10-bit packed normals: none of these is read
# by the harness, and they keep the members compressible like real model data.
def header_chunk(ms: MemberSpec) -> bytes:
    name = ms.stem.encode()[:31].ljust(32, b"\0")
    return chunk(0x0001, b"CCSF" + name + struct.pack("<HH", ms.version, 0) + _u32s(0, 1, 0))


def index_chunk(lay: Layout) -> bytes:
    fe = b"".join(f.encode("latin-1")[:31].ljust(32, b"\0") for f in lay.files)
    oe = b"".join(n.encode("latin-1")[:29].ljust(30, b"\0") + struct.pack("<H", fi)
                  for n, fi in lay.names)
    return chunk(0x0002, _u32s(len(lay.files), len(lay.names)) + fe + oe)


def texture_prefix(ms: MemberSpec, tex_obj, clut_obj, mips: int):
    """Texture chunk bytes up to block 0's data: header, payload header, block 0 header.
    The declared size and block 0's word count are patched in by the writer."""
    ph = _u32s(tex_obj, clut_obj) + (_u32s(0) if ms.version >= 0x92 else b"")
    ph += bytes((0x13, 0, mips, 0)) + _u32s(0x00080008)
    return ph


def small_texture(ms, tex_obj, clut_obj, r) -> bytes:
    ph = texture_prefix(ms, tex_obj, clut_obj, 0)
    m = r.randint(16, 64)
    data = _u32s(0, m) + r.randbytes(4 * m)
    body = ph + data
    return chunk(0x0300, body, declared=len(body) // 4 + TEX_DECLARED_EXTRA)


def model_chunk(lay: Layout, i: int, md, gen, scale_bits, positions=None) -> bytes:
    obj = lay.models[i]
    out = [struct.pack("<IIHHHhB3x", obj, scale_bits, md.mtype, len(md.mmats), md.flag, 0, 0x70)]
    mats = lay.mats
    for j, (kind, vn, extra) in enumerate(md.mmats):
        mat = mats[(i + j) % len(mats)] if mats else 0
        if positions is not None:
            pos = positions[j]
        else:
            pos = gen.integers(-2000, 2000, size=(vn if kind != "skin" else extra, 3), dtype=np.int16)
        if kind == "rigid":
            out.append(_u32s(0, mat, vn))
            out.append(_pad4(pos.astype("<i2").tobytes()))
            if not md.mtype & 0x40:
                out.append(_normals(gen, vn))
            if not md.mtype & 0x200:
                out.append(np.full(vn, 0x80808080, dtype="<u4").tobytes())
            if not md.mtype & 0x400:
                out.append(gen.integers(0, 1 << 12, size=vn, dtype="<u4").tobytes())
        elif kind == "bone":
            out.append(_u32s(mat, vn, 0, j))
            out.append(_pad4(pos.astype("<i2").tobytes()))
            out.append(_normals(gen, vn))
            out.append(gen.integers(0, 1 << 12, size=vn, dtype="<u4").tobytes())
        elif kind == "skin":
            on = extra
            w = gen.integers(0, 0x200, size=on, dtype=np.uint16)
            w[:vn] |= 0x200       # DECISION: vertexNum = the entries whose w has bit 9 set
            ent = np.zeros((on, 4), dtype="<u2")
            ent[:, :3] = pos.astype("<i2").view("<u2")
            ent[:, 3] = w
            out.append(_u32s(mat, vn, on))
            out.append(ent.tobytes())
            out.append(_normals(gen, on))
            out.append(gen.integers(0, 1 << 12, size=vn, dtype="<u4").tobytes())
        else:  # shadow
            inum = extra
            out.append(struct.pack("<ii", vn, inum))
            if vn:
                out.append(_pad4(pos.astype("<i2").tobytes()))
                out.append(gen.integers(0, vn, size=3 * (inum // 3), dtype="<i4").tobytes())
    body = b"".join(out)
    declared = len(body) // 4 + (15 * len(md.mmats) if md.mtype & 4 else 0)
    return chunk(0x0800, body, declared=declared)


def _pad4(b: bytes) -> bytes:
    return b + b"\0" * (-len(b) % 4)


def _normals(gen, n):
    return (gen.integers(0, 1 << 10, size=n, dtype="<u4") * 0x100401).astype("<u4").tobytes()


def _morph_positions(vcounts):
    """A base shape (a waving sheet) and per-target offsets: realistic s16 values."""
    out = []
    for vn in vcounts:
        cols = max(2, int(vn ** 0.5))
        idx = np.arange(vn)
        x = (idx % cols) * 120 - cols * 60
        y = (idx // cols) * 120 - 600
        z = (np.sin(idx * 0.7) * 40).astype(np.int64)
        out.append(np.stack([x, y, z], axis=1).astype(np.int16))
    return out


def member_parts(seed, ms: MemberSpec) -> Parts:
    lay = Layout(ms)
    r = rng_for(seed, ms.name, "setup")
    gen = np_rng(seed, ms.name, "models")
    head = header_chunk(ms) + index_chunk(lay) + chunk(0x0003, _u32s(0), tag=0)
    tex0 = lay.texs[0]
    clut0 = lay.cluts[0] if lay.cluts else 0
    prefix = texture_prefix(ms, tex0, clut0, 1)
    tail = []
    for t in range(1, len(lay.texs)):
        tail.append(small_texture(ms, lay.texs[t], lay.cluts[t] if t < len(lay.cluts) else 0, r))
    for c in lay.cluts:
        tail.append(chunk(0x0400, _u32s(c, 16) + r.randbytes(64)))
    for j, mobj in enumerate(lay.mats):
        cu = cv = 0
        if j < ms.crops:
            cu, cv = r.randint(1, 0xFFFF), r.randint(0, 0xFFFF)
        tail.append(chunk(0x0200, _u32s(mobj, tex0, F1) + struct.pack("<HH", cu, cv)))
    # models: morph bases and targets first (same vertex counts per mmat)
    i = 0
    for k, sp in enumerate(ms.morphers):
        base_pos = _morph_positions(sp.mmats)
        scale = r.choice((1.0, 1.0, 0.5, 2.0))
        tail.append(model_chunk(lay, i, ms.models[i], gen, bits([scale])[0], base_pos))
        for t in range(sp.targets + sp.spare):
            md = ms.models[i + 1 + t]
            pos = [np.clip(p.astype(np.int32) + gen.integers(-150, 150, size=p.shape), -32768, 32767)
                   .astype(np.int16) for p in base_pos]
            tscale = scale
            if sp.odd_scale and t == 0:
                tscale = scale * 2.0          # a target at another vertexScale (checks.md §10)
                pos = [(p // 2).astype(np.int16) for p in pos]
            tail.append(model_chunk(lay, i + 1 + t, md, gen, bits([tscale])[0], pos))
        i += 1 + sp.targets + sp.spare
    for j in range(i, len(ms.models)):
        md = ms.models[j]
        scale = r.choice((1.0, 1.0, 0.5, 0.25, 2.0, 4.0))
        tail.append(model_chunk(lay, j, md, gen, bits([scale])[0]))
    for k, (base, _, _) in enumerate(lay.morph_models):
        tail.append(chunk(0x1900, _u32s(lay.mphs[k], base)))
    objs = list(lay.bones) + [o for o in (lay.xnote, lay.body) if o is not None] + list(lay.ext)
    pat = lay.objects
    shadow = (0,) if ms.version >= 0x96 else ()
    for n, o in enumerate(objs):
        parent = objs[n - 1] if 0 < n < len(lay.bones) else 0
        model = lay.models[n % len(lay.models)] if lay.models and n < len(lay.bones) else 0
        model = pat.models.get(o, model)
        tail.append(chunk(0x0100, _u32s(o, parent, model, *shadow)))
    for o, parent, model in pat.objs:
        tail.append(chunk(0x0100, _u32s(o, parent, model, *shadow)))
    for k, c in enumerate(lay.cmps):
        nodes = lay.ext if (ms.extobj and k == 0) else lay.bones
        if k == 0:
            nodes = list(nodes) + pat.nodes
        tail.append(chunk(0x0900, _u32s(c) + struct.pack("<HH", len(nodes), 0) + _u32s(*nodes)))
    for x in lay.ext:
        tail.append(chunk(0x0A00, _u32s(x, 0, lay.ext_map[x])))
    for x, parent, target in pat.exts:
        tail.append(chunk(0x0A00, _u32s(x, parent, target)))
    for o, parent in pat.effs:
        tail.append(chunk(0x0E00, _u32s(o, parent)))
    manifest = []
    for ci, cs in enumerate(ms.chunks):
        rec = chunk_records(seed, ms, ci, lay)
        data = build_anime(**rec)
        tail.append(data)
        norm = normalized(rec)
        manifest.append({"id": f"{ms.name}::{cs.name}", "N": cs.N, "loops": cs.loops,
                         "role": cs.role, "words": (len(data) - 20) // 4,
                         "tracks": len(rec["tracks"]), "notes": len(rec["notes"]),
                         "morphs": len(rec["morphs"]), "fobjs": len(rec["fobjs"]),
                         "materials": len(rec["materials"]), "others": len(rec["others"]),
                         "digest": digest(norm)})
    tail.append(chunk(0x0005, _u32s(1)))
    tail.append(chunk(0xFF01, _u32s(0xFFFFFFFF)))
    return Parts(ms.name, head, b"".join(tail), prefix, len(prefix) // 4, ms.version, manifest)
