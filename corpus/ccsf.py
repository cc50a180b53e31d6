"""CCSF files: the chunk walk (formats.md §2.3-2.4) and the setup chunks the harness reads (§3).

CcsfFile(data, member) walks the file at once (cheap) and decodes the rest lazily: names, ext,
models, morphers, materials, objs, clumps, anime chunk locations. Every error is a CorpusError
naming the member, the byte offset inside the inflated file and the chunk kind.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Optional, Tuple

from .anime import resolve as _resolve
from .errors import CorpusError

TAG = 0xCCCC
K_HEADER, K_INDEX, K_SETUP, K_FRAME = 0x0001, 0x0002, 0x0003, 0x0005
K_OBJ, K_MATERIAL, K_TEXTURE, K_CLUT = 0x0100, 0x0200, 0x0300, 0x0400
K_ANIME, K_MODEL, K_CLUMP, K_EXTOBJ, K_MORPHER = 0x0700, 0x0800, 0x0900, 0x0A00, 0x1900

SETUP_KINDS = frozenset((0x0003, 0x0005, 0x0100, 0x0200, 0x0300, 0x0400, 0x0500, 0x0600, 0x0700,
                         0x0800, 0x0900, 0x0A00, 0x0B00, 0x0C00, 0x0D00, 0x0E00, 0x1000, 0x1100,
                         0x1200, 0x1300, 0x1400, 0x1700, 0x1800, 0x1900, 0x2000, 0x2200,
                         K_HEADER, K_INDEX))
FRAME_KINDS = frozenset((0xFF01, 0x0005, 0x0101, 0x0108, 0x0201, 0x0502, 0x0601, 0x0602, 0x0604,
                         0x0606, 0x0608, 0x0802, 0x0803, 0x1801, 0x1901, 0x2201))
VERSIONS_SEEN = (0x90, 0x92, 0x95, 0x96, 0x100)

# mmat layouts (formats.md §3.8)
RIGID, BONE, SKIN, SHADOW = "rigid", "bone", "skin", "shadow"


@dataclass
class Chunk:
    kind: int
    tag: int
    offset: int          # of the chunk header, in the inflated file
    size: int            # declared payload words
    end: int             # where the walk continues
    frame_section: bool


class Mmat:
    """One mmat: layout kind, vertex count, and (lazily) the raw s16 positions."""

    def __init__(self, kind, vertex_count, material, data, pos_off, n, stride, index_count=0):
        self.kind, self.vertex_count, self.material = kind, vertex_count, material
        self.index_count = index_count
        self._data, self._pos_off, self._n, self._stride = data, pos_off, n, stride

    @cached_property
    def positions(self) -> List[Tuple[int, int, int]]:
        """The raw s16 position triples (for skin mmats: of every offset entry)."""
        d, o = self._data, self._pos_off
        if self._stride == 6:
            return list(struct.iter_unpack("<3h", d[o:o + 6 * self._n]))
        return [struct.unpack_from("<3h", d, o + 8 * i) for i in range(self._n)]

    def __repr__(self):
        return f"Mmat({self.kind}, {self.vertex_count})"


@dataclass
class Model:
    object: int
    vertex_scale: int        # raw f32 bits
    mtype: int               # masked with 0xFF when the version is < 0x100
    mmats: List[Mmat]
    flag: int = 0
    zoffs: int = 0
    unknown: int = 0x70
    offset: int = 0
    declared_end: int = 0    # p + 8 + 4·size (too large for mtype & 4)


@dataclass
class Material:
    object: int
    texture: int
    alpha: int               # raw f32 bits
    crop_u: int
    crop_v: int


@dataclass
class ExtObj:
    object: int
    parent: int
    target: int


@dataclass
class Obj:
    object: int
    parent: int
    model: int
    shadow: Optional[int] = None


class CcsfFile:
    """One inflated CCSF member."""

    def __init__(self, data: bytes, member: Optional[str] = None):
        self.data = bytes(data)
        self.member = member
        self._walk()

    # -- helpers
    def fail(self, msg, offset=None, kind=None):
        raise CorpusError(msg, member=self.member, offset=offset, kind=kind)

    def _u32(self, off, kind=None):
        if off + 4 > len(self.data) or off < 0:
            self.fail(f"read past the end of the file (0x{len(self.data):X} bytes)", off, kind)
        return struct.unpack_from("<I", self.data, off)[0]

    # -- the walk (formats.md §2.3)
    def _walk(self):
        d = self.data
        n = len(d)
        if n < 60 + 16:
            self.fail(f"file of {n} bytes is too short for a Header and an Index chunk", 0, K_HEADER)
        typ, size = struct.unpack_from("<II", d, 0)
        if typ & 0xFFFF != K_HEADER or typ >> 16 not in (TAG, 0):
            self.fail(f"the file does not start with a Header chunk (type 0x{typ:08X})", 0, typ & 0xFFFF)
        if d[8:12] != b"CCSF":
            self.fail(f"Header magic {d[8:12]!r}, want b'CCSF'", 8, K_HEADER)
        if size < 13:
            self.fail(f"Header payload of {size} words (want 13)", 0, K_HEADER)
        self.name = d[12:44].split(b"\0", 1)[0].decode("latin-1")
        self.version = struct.unpack_from("<H", d, 44)[0]
        self.frames, self.count, self.word = struct.unpack_from("<III", d, 48)
        if self.version < 0x90:
            self.fail(f"version 0x{self.version:X} is below 0x90 (the game refuses it)", 44, K_HEADER)
        chunks = []
        p, frame_mode = 0, False
        while p < n:
            if p + 8 > n:
                self.fail(f"the walk is lost: {n - p} stray bytes at the end", p)
            typ, size = struct.unpack_from("<II", d, p)
            kind, tag = typ & 0xFFFF, typ >> 16
            if tag not in (TAG, 0):
                self.fail(f"the walk is lost: tag 0x{tag:04X} (type 0x{typ:08X})", p, kind)
            if kind not in (FRAME_KINDS if frame_mode else SETUP_KINDS):
                self.fail(f"the walk is lost: kind not allowed in the "
                          f"{'frame' if frame_mode else 'setup'} section", p, kind)
            if not chunks and kind != K_HEADER:
                self.fail("first chunk is not the Header", p, kind)
            if len(chunks) == 1 and (kind != K_INDEX or p != 60):
                self.fail("the Index chunk does not follow the Header at offset 60", p, kind)
            if frame_mode:
                e = p + 8 + 4 * size
            elif kind == K_TEXTURE:
                e = self._texture_end(p)
            elif kind == K_MODEL:
                e = self._model_end(p)
            else:
                e = p + 8 + 4 * size
            if e > n:
                self.fail(f"chunk of {size} words runs past the end of the file (0x{n:X})", p, kind)
            chunks.append(Chunk(kind, tag, p, size, e, frame_mode))
            if kind == K_FRAME and not frame_mode:
                frame_mode = True
            p = e
        self.chunks = chunks

    def _texture_end(self, p):
        v, d = self.version, self.data
        q = p + 8 + (12 if v >= 0x92 else 8)
        if v >= 0x90:
            if q + 8 > len(d):
                self.fail("texture header runs past the end of the file", p, K_TEXTURE)
            mips = d[q + 2]
            q += 8
        else:
            mips, q = 0, q + 4
        for _ in range(mips + 1):
            m = self._u32(q + 4, K_TEXTURE)
            q += 8 + 4 * m
        return q

    def _model_end(self, p):
        model = self._model(p)
        return model._end

    def _model(self, p):
        """Decode a Model chunk at p (formats.md §3.8); returns a Model with ._end set."""
        d, v = self.data, self.version
        a = p + 8
        if a + 20 > len(d):
            self.fail("model header runs past the end of the file", p, K_MODEL)
        obj, scale, mtype, count, flag, zoffs, unk = struct.unpack_from("<IIHHHhB", d, a)
        size = struct.unpack_from("<I", d, p + 4)[0]
        if v < 0x100:
            mtype &= 0xFF
        q = a + 20
        mmats = []
        end = len(d)

        def need(x):
            if x > end:
                self.fail(f"model mmat {len(mmats)} runs past the end of the file", p, K_MODEL)

        for _ in range(count):
            if mtype & 2:
                self.fail(f"mtype 0x{mtype:X} has the mtype & 2 layout, which the data never uses",
                          p, K_MODEL)
            if mtype & 4:
                need(q + 12)
                mat, vn, on = struct.unpack_from("<III", d, q)
                q += 12
                if on == 0:
                    need(q + 4)
                    pos = q + 4
                    q = pos + ((6 * vn + 3) & ~3) + 8 * vn
                    need(q)
                    mmats.append(Mmat(BONE, vn, mat, d, pos, vn, 6))
                else:
                    pos = q
                    need(q + 8 * on)
                    ws = memoryview(d[q:q + 8 * on]).cast("H")[3::4]
                    st = sum(1 for w in ws if w & 0x200)
                    q += 8 * on + 4 * on + 4 * st
                    need(q)
                    mmats.append(Mmat(SKIN, vn, mat, d, pos, on, 8))
            elif mtype & 8:
                need(q + 8)
                vn, inum = struct.unpack_from("<ii", d, q)
                q += 8
                pos = q
                if vn != 0:
                    if vn < 0 or inum < 0:
                        self.fail(f"shadow mmat with vNum {vn}, iNum {inum}", p, K_MODEL)
                    q += ((6 * vn + 3) & ~3) + 12 * (inum // 3)
                    need(q)
                mmats.append(Mmat(SHADOW, max(vn, 0), 0, d, pos, max(vn, 0), 6, max(inum, 0)))
            else:
                need(q + 12)
                _name, mat, vn = struct.unpack_from("<III", d, q)
                q += 12
                pos = q
                q += (6 * vn + 3) & ~3
                per = (0 if mtype & 0x40 else 4) + (0 if mtype & 0x200 else 4) + \
                      (0 if mtype & 0x400 else 4)
                q += per * vn
                need(q)
                mmats.append(Mmat(RIGID, vn, mat, d, pos, vn, 6))
        m = Model(obj, scale, mtype, mmats, flag, zoffs, unk, p, p + 8 + 4 * size)
        m._end = q
        return m

    # -- lazily decoded setup chunks
    def _setup(self, kind):
        return [c for c in self.chunks if c.kind == kind and not c.frame_section]

    @cached_property
    def index(self):
        """(files, names, name_file): file entries, {object index -> name}, {object -> file index}."""
        d = self.data
        c = self.chunks[1]
        fc, oc = struct.unpack_from("<II", d, 68) if c.end >= 76 else (0, 0)
        if c.size != 2 + 8 * (fc + oc) or 76 + 32 * (fc + oc) > c.end:
            self.fail(f"Index of {c.size} words does not hold {fc} files and {oc} objects "
                      f"(want {2 + 8 * (fc + oc)} words)", 60, K_INDEX)
        files = [d[76 + 32 * i:108 + 32 * i].split(b"\0", 1)[0].decode("latin-1") for i in range(fc)]
        base = 76 + 32 * fc
        names, name_file = {}, {}
        for i in range(1, oc):
            e = base + 32 * i
            names[i] = d[e:e + 30].split(b"\0", 1)[0].decode("latin-1")
            name_file[i] = struct.unpack_from("<H", d, e + 30)[0]
        return files, names, name_file

    @property
    def names(self) -> Dict[int, str]:
        return self.index[1]

    @cached_property
    def extobjs(self) -> Dict[int, ExtObj]:
        """{object -> ExtObj(object, parent, target)} from the setup section's ExtObj chunks
        (formats.md §3.7); a later chunk for one object replaces an earlier one."""
        out = {}
        for c in self._setup(K_EXTOBJ):
            if c.size < 3:
                self.fail(f"ExtObj of {c.size} words (want 3)", c.offset, K_EXTOBJ)
            o, parent, t = struct.unpack_from("<III", self.data, c.offset + 8)
            out[o] = ExtObj(o, parent, t)
        return out

    @cached_property
    def ext(self) -> Dict[int, int]:
        """{object -> target} from the setup section's ExtObj chunks (formats.md §3.7)."""
        return {o: e.target for o, e in self.extobjs.items()}

    def resolve(self, obj):
        return _resolve(self.ext, obj)

    @cached_property
    def objs(self) -> Dict[int, Obj]:
        out = {}
        for c in self._setup(K_OBJ):
            need = 4 if self.version >= 0x96 else 3
            if c.size < need:
                self.fail(f"Obj of {c.size} words (want {need})", c.offset, K_OBJ)
            w = struct.unpack_from(f"<{need}I", self.data, c.offset + 8)
            out.setdefault(w[0], Obj(w[0], w[1], w[2], w[3] if need == 4 else None))
        return out

    @cached_property
    def clump_list(self) -> List[Tuple[int, List[int]]]:
        """(clump object, node objects) of every Clump chunk, file order (formats.md §3.6)."""
        out = []
        for c in self._setup(K_CLUMP):
            if c.size < 2:
                self.fail(f"Clump of {c.size} words", c.offset, K_CLUMP)
            o = self._u32(c.offset + 8)
            n = struct.unpack_from("<H", self.data, c.offset + 12)[0]
            if 2 + n > c.size:
                self.fail(f"Clump of {c.size} words cannot hold {n} nodes", c.offset, K_CLUMP)
            out.append((o, list(struct.unpack_from(f"<{n}I", self.data, c.offset + 16))))
        return out

    @cached_property
    def clumps(self) -> Dict[int, List[int]]:
        out = {}
        for o, nodes in self.clump_list:
            out.setdefault(o, nodes)
        return out

    @cached_property
    def materials(self) -> Dict[int, Material]:
        """First Material chunk per object wins (formats.md §3.5)."""
        out = {}
        for c in self._setup(K_MATERIAL):
            if c.size < 4:
                self.fail(f"Material of {c.size} words (want 4)", c.offset, K_MATERIAL)
            o, tex, alpha, cu, cv = struct.unpack_from("<IIIHH", self.data, c.offset + 8)
            out.setdefault(o, Material(o, tex, alpha, cu, cv))
        return out

    @cached_property
    def morphers(self) -> Dict[int, int]:
        out = {}
        for c in self._setup(K_MORPHER):
            if c.size < 2:
                self.fail(f"Morpher of {c.size} words (want 2)", c.offset, K_MORPHER)
            m, base = struct.unpack_from("<II", self.data, c.offset + 8)
            out[m] = base
        return out

    @cached_property
    def model_list(self) -> List[Model]:
        return [self._model(c.offset) for c in self._setup(K_MODEL)]

    @cached_property
    def models(self) -> Dict[int, Model]:
        out = {}
        for m in self.model_list:
            out.setdefault(m.object, m)
        return out

    @cached_property
    def anime_chunks(self) -> List[Tuple[int, int, int]]:
        """(offset, byte length, ANM_ object) of every Anime chunk, file order."""
        out = []
        for c in self._setup(K_ANIME):
            if c.size < 3:
                self.fail(f"Anime chunk of {c.size} words", c.offset, K_ANIME)
            out.append((c.offset, c.end - c.offset, self._u32(c.offset + 8)))
        return out

    def anime_bytes(self, offset, length):
        return self.data[offset:offset + length]
