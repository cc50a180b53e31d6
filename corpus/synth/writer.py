"""Write the synthetic DATA.BIN, categories.c and manifest.json with the disc's exact sizes.

Each member's deflate stream is assembled from segments: the deflated head (Header, Index, Setup),
stored blocks holding the big Texture chunk and its incompressible pixel words, a deflated run of
zeros (the texture's second mip level), and the deflated tail (every other chunk). Stored blocks
cost exactly 5 bytes each, so the pixel word count fixes the member's compressed length to the
byte; the zero run fixes the inflated length. Sector counts per member follow the category base
sectors of formats.md §1.3, padding totals the disc's, and one "balancer" member absorbs the last
bytes of the inflated total (corpus-stats.md §1).
"""
from __future__ import annotations

import json
import os
import struct
import time
import zlib
from typing import List

from ..tables import write_categories_c
from .content import rng_for
from .member import TAG, TEX_DECLARED_EXTRA, Parts, member_parts
from .plan import R, allocate, build_plan

# DECISION: exact sizes come from stored deflate blocks of incompressible texture words (5 bytes
# of overhead each) and a deflated zero run; the six off-sector `1F 8B 08` are planted in those
# stored words, which the disc's compressed data may contain just as well.
SECTOR = 2048
MAGIC = b"\x1f\x8b\x08"
PLANTED = 6          # `1F 8B 08` inside compressed data, off sector boundaries (corpus-stats.md §1)
LEVELS = (6, 5, 7, 4, 8, 9, 3, 2, 1)


def deflate(data: bytes, level=6, final=False) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH)


def gzip_header(name: str, mtime: int) -> bytes:
    return MAGIC + bytes((0x08,)) + struct.pack("<I", mtime) + bytes((0, 3)) + name.encode() + b"\0"


class MemberWriter:
    """Holds one member's segments and solves its sizes."""

    def __init__(self, seed, spec, parts: Parts, head_c=None, tail_c=None):
        self.seed, self.spec, self.p = seed, spec, parts
        self.gz = gzip_header(spec.name, spec.mtime)
        self.levels = {"head": 0, "tail": 0, "zero": 0}
        self.head_c = deflate(parts.head, LEVELS[0]) if head_c is None else head_c
        self.tail_c = deflate(parts.tail, LEVELS[0], final=True) if tail_c is None else tail_c
        self.Z = 0
        self.zero_c = deflate(b"", LEVELS[0])
        self.tex_fixed = 8 + len(parts.tex_prefix) + 8 + 8       # header, payload header, 2 block headers
        self.pixels = None
        self.tweaks = {}

    def set_zero(self, Z):
        self.Z = Z
        self.zero_c = deflate(bytes(Z), LEVELS[self.levels["zero"]])

    def fixed_c(self):
        """Compressed bytes apart from the stored stream."""
        return len(self.gz) + len(self.head_c) + len(self.zero_c) + len(self.tail_c) + 8

    def inflated(self, S):
        return len(self.p.head) + S + self.Z + len(self.p.tail)

    @staticmethod
    def split(Rb):
        """Stored stream of Rb bytes: (k blocks, S content bytes) with S = Rb - 5k, S % 4 == 0."""
        k0 = max(1, -(-Rb // 65540))
        k = k0 + ((Rb - k0) % 4)
        S = Rb - 5 * k
        return k, S

    def solve(self, csize):
        self.csize = csize
        Rb = csize - self.fixed_c()
        k, S = self.split(Rb)
        if S < self.tex_fixed:
            raise ValueError(f"{self.spec.name}: no room for the texture ({S} < {self.tex_fixed})")
        self.k, self.S = k, S
        return self.inflated(S)

    def build(self):
        """The member's bytes (csize long); returns (bytes, usize)."""
        L = self.S - self.tex_fixed
        if self.pixels is None or len(self.pixels) != L:
            self.pixels = bytearray(rng_for(self.seed, self.spec.name, "pixels").randbytes(L))
            for i, v in self.tweaks.items():
                if i < L:
                    self.pixels[i] = v
        p = self.p
        words = (len(p.tex_prefix) + 8 + L + 8 + self.Z) // 4
        tex = (struct.pack("<II", TAG | 0x0300, words + TEX_DECLARED_EXTRA) + p.tex_prefix
               + struct.pack("<II", 0, L // 4))
        tex_end = struct.pack("<II", 0, self.Z // 4)
        content = tex + bytes(self.pixels) + tex_end
        assert len(content) == self.S
        blocks = []
        k, S = self.k, self.S
        per = -(-S // k)
        pos = 0
        off = len(self.gz) + len(self.head_c)     # member offset of the stored stream
        self.pixel_spans = []                      # (offset in member, offset in pixels, length)
        tl = len(tex)
        for _ in range(k):
            n = min(per, S - pos)
            blocks.append(bytes((0,)) + struct.pack("<HH", n, n ^ 0xFFFF))
            off += 5
            a, e = max(pos, tl), min(pos + n, tl + L)
            if a < e:
                self.pixel_spans.append((off + (a - pos), a - tl, e - a))
            blocks.append(content[pos:pos + n])
            off += n
            pos += n
        stored = b"".join(blocks)
        raw = p.head + content + bytes(self.Z) + p.tail
        crc = zlib.crc32(raw)
        member = self.gz + self.head_c + stored + self.zero_c + self.tail_c + struct.pack("<II", crc, len(raw) & 0xFFFFFFFF)
        assert len(member) == self.csize, (self.spec.name, len(member), self.csize)
        return member, len(raw)

    def segment_at(self, off):
        """Which segment holds member byte off."""
        edges = [("gz", len(self.gz)), ("head", len(self.head_c)),
                 ("stored", self.S + 5 * self.k), ("zero", len(self.zero_c)),
                 ("tail", len(self.tail_c)), ("trailer", 8)]
        pos = 0
        for name, n in edges:
            if off < pos + n:
                return name
            pos += n
        return "trailer"

    def recompress(self, seg):
        self.levels[seg] += 1
        if self.levels[seg] >= len(LEVELS):
            raise ValueError(f"{self.spec.name}: cannot avoid 1F 8B 08 in the {seg} segment")
        lv = LEVELS[self.levels[seg]]
        if seg == "head":
            self.head_c = deflate(self.p.head, lv)
        elif seg == "tail":
            self.tail_c = deflate(self.p.tail, lv, final=True)
        else:
            self.zero_c = deflate(bytes(self.Z), lv)

    def clean(self, csize, keep_usize=None):
        """Build with no `1F 8B 08` after the header; returns (bytes, usize)."""
        for _ in range(64):
            u = self.solve(csize)
            if keep_usize is not None and u != keep_usize:
                return None, u
            data, usize = self.build()
            hits = _hits(data, 3)
            if not hits:
                return data, usize
            for h in hits:
                fixed = False
                for mo, po, n in self.pixel_spans:
                    for j in range(3):
                        if mo <= h + j < mo + n:
                            i = po + (h + j - mo)
                            self.pixels[i] ^= 0x55
                            self.tweaks[i] = self.pixels[i]
                            fixed = True
                            break
                    if fixed:
                        break
                if not fixed:
                    seg = self.segment_at(h)
                    if seg in ("head", "tail", "zero"):
                        self.recompress(seg)
                    elif self.pixels:
                        self.pixels[0] ^= 0x01          # trailer or block header: change the CRC
                        self.tweaks[0] = self.pixels[0]
                    break
        raise ValueError(f"{self.spec.name}: could not clean 1F 8B 08")


def generator_hash() -> str:
    """SHA-1 of the generator's sources: a DATA.BIN is current when its manifest carries this."""
    import glob
    import hashlib
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha1()
    files = sorted(glob.glob(os.path.join(here, "*.py"))) + [
        os.path.join(here, "..", n) for n in ("anime.py", "records.py", "tables.py")]
    for fn in files:
        with open(fn, "rb") as f:
            h.update(os.path.basename(fn).encode() + f.read())
    return h.hexdigest()


def _hits(data: bytes, start: int) -> List[int]:
    out = []
    i = data.find(MAGIC, start)
    while i >= 0:
        out.append(i)
        i = data.find(MAGIC, i + 1)
    return out


def _prepare(args):
    """Worker: one member's content and its two deflated segments (pure function of seed, spec)."""
    seed, spec = args
    p = member_parts(seed, spec)
    return p, deflate(p.head, LEVELS[0]), deflate(p.tail, LEVELS[0], final=True)


def _prepare_all(seed, plan, jobs):
    if jobs <= 1 or len(plan) < 64:
        return [_prepare((seed, m)) for m in plan]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with ProcessPoolExecutor(jobs, mp_context=ctx) as ex:
        # big members first would balance better, but map keeps the order simple and stable
        return list(ex.map(_prepare, [(seed, m) for m in plan], chunksize=8))


def synthesize(out_dir, seed=1, small=False, log=None, jobs=None, volume=None):
    """Write DIR/DATA.BIN, DIR/categories.c and DIR/manifest.json. Returns the manifest dict.
    jobs: worker processes for the member content (default: up to 2 CPUs); the bytes do not
    depend on it. volume: inf | mut | out | qua, that volume's members per category (default INF's)."""
    from .volumes import VOLUME_RECORDS
    t0 = time.time()
    say = log or (lambda *_: None)
    plan = build_plan(seed, small, VOLUME_RECORDS[volume or "inf"])
    say(f"plan: {len(plan)} members ({time.time() - t0:.1f} s)")
    if jobs is None:
        jobs = min(2, os.cpu_count() or 1)
    writers = [MemberWriter(seed, m, p, hc, tc) for m, (p, hc, tc) in zip(plan, _prepare_all(seed, plan, jobs))]
    say(f"content: {time.time() - t0:.1f} s")
    if small:
        results = _sizes_small(writers, seed)
    else:
        results = _sizes_full(writers, seed, volume or "inf")
    say(f"sizes: {time.time() - t0:.1f} s")
    os.makedirs(out_dir, exist_ok=True)
    members = []
    pos = 0
    tmp = os.path.join(out_dir, "DATA.BIN.tmp")
    with open(tmp, "wb") as f:
        for w, (data, usize) in zip(writers, results):
            pad = w.sectors * SECTOR - len(data)
            f.write(data)
            f.write(bytes(pad))
            members.append({"name": w.spec.name, "category": w.spec.category, "offset": pos,
                            "csize": len(data), "usize": usize, "version": w.spec.version,
                            "mtime": w.spec.mtime, "chunks": w.p.chunks})
            pos += len(data) + pad
    os.replace(tmp, os.path.join(out_dir, "DATA.BIN"))
    cate = _category_offsets(members)

    class _M:
        def __init__(self, d):
            self.__dict__.update(d)
            self.name = d["name"]
    src = write_categories_c([_M(m) for m in members], cate,
                             note=f" --seed {seed}" + (" --small" if small else "")
                             + (f" --volume {volume}" if volume else ""))
    with open(os.path.join(out_dir, "categories.c"), "w") as f:
        f.write(src)
    from .roles import NOTE_CASES
    manifest = {"seed": seed, "small": small, **({"volume": volume} if volume else {}), "generator": generator_hash(), "size": pos, "cate_ofs": cate, "members": members,
                "note_cases": list(NOTE_CASES),
                "roles": [c["id"] for m in members for c in m["chunks"] if c.get("role")]}
    with open(os.path.join(out_dir, "manifest.json.tmp"), "w") as f:
        json.dump(manifest, f)
    os.replace(os.path.join(out_dir, "manifest.json.tmp"), os.path.join(out_dir, "manifest.json"))
    say(f"wrote {pos} bytes in {time.time() - t0:.1f} s")
    return manifest


def _category_offsets(members):
    """cateCDOfsTbl: each category's first member; an empty one (--small) where the next begins."""
    end = max((m["offset"] + m["csize"] for m in members), default=0)
    end += -end % SECTOR
    out = []
    for k in range(19):
        offs = [m["offset"] for m in members if m["category"] >= k]
        out.append(min(offs) if offs else end)
    return out + [0]


def _sizes_small(writers, seed):
    res = []
    for w in writers:
        r = rng_for(seed, w.spec.name, "size")
        w.set_zero(4 * r.randint(0, 4096))
        c = w.fixed_c() + w.tex_fixed + 4 * r.randint(256, 2048) + 20
        data, usize = w.clean(c)
        w.sectors = -(-(len(data) + 1) // SECTOR)
        res.append((data, usize))
    return res


def _sizes_full(writers, seed, volume="inf"):
    """Each member's compressed bytes and sectors, so that the archive has the volume's figures
    (synth/volumes.py; Infection's are corpus-stats.md's)."""
    from .volumes import figures, spans
    fig = figures(volume)
    rng = R(seed, "sizes")
    n = len(writers)
    pad_total = fig.padding
    # zero runs: whatever the inflated total leaves after the structure and the pixel words
    struct_u = sum(len(w.p.head) + len(w.p.tail) + w.tex_fixed for w in writers)
    struct_c = sum(w.fixed_c() + 5 for w in writers)
    pixels = fig.csize - struct_c - sum(w.tex_fixed for w in writers)
    zero_total = fig.usize - struct_u - pixels
    if zero_total < 0:
        raise ValueError(f"the structure inflates to {struct_u} bytes; no room for the disc's sizes")
    weights = [w.spec.weight for w in writers]
    zs = allocate(zero_total // 4, weights, rng)
    for w, z in zip(writers, zs):
        w.set_zero(4 * z)
    # sectors per member inside each category, then padding
    need = [-(-(w.fixed_c() + w.tex_fixed + 5 * 4 + 64 + 2) // SECTOR) for w in writers]
    span = spans(volume, [sum(need[i] for i in range(n) if writers[i].spec.category == k) for k in range(19)])
    sectors = [0] * n
    for k in range(19):
        idx = [i for i in range(n) if writers[i].spec.category == k]
        extra = span[k] - sum(need[i] for i in idx)
        add = allocate(extra, [weights[i] + 1e-3 for i in idx], rng)
        for i, a in zip(idx, add):
            sectors[i] = need[i] + a
    caps = [min(2047, sectors[i] * SECTOR - writers[i].fixed_c() - writers[i].tex_fixed - 5 * 4 - 64)
            for i in range(n)]
    pads = allocate(pad_total, [rng.random() for _ in range(n)], rng, mins=[1] * n, caps=caps)
    # balancer: the member with the most sectors absorbs the inflated total
    bal = max(range(n), key=lambda i: sectors[i])
    res = [None] * n
    usum = 0
    for i, w in enumerate(writers):
        w.sectors = sectors[i]
        if i == bal:
            continue
        res[i] = w.clean(sectors[i] * SECTOR - pads[i])
        usum += res[i][1]
    w = writers[bal]
    want = fig.usize - usum
    c = sectors[bal] * SECTOR - pads[bal]
    u = w.solve(c)
    z0 = w.Z + ((want - u) // 4) * 4
    if volume == "inf":
        got = _balance(w, c, want, z0)
    else:
        # DECISION: a later volume's totals lie far from Infection's, beyond the first estimate's
        # search: Newton steps on the zero run bring the balancer near. Its inflated total is not
        # published (synth/volumes.py), so it takes the nearest it can reach, up to 3 bytes below.
        for _ in range(16):
            w.set_zero(z0)
            step = ((want - w.solve(c)) // 4) * 4
            if not step:
                break
            z0 = max(z0 + step, 0)
        got = next((g for d in range(4) if (g := _balance(w, c, want - d, z0, 64)) is not None), None)
    if got is None:
        raise ValueError("could not balance the inflated total")
    res[bal] = got
    _plant(writers, res, seed)
    return res


def _balance(w, c, want, z0, reach=20000):
    """(bytes, usize) of the balancer with `c` compressed bytes inflating to exactly `want`: the zero run
    nearest z0 (within `reach` words) that does, or None."""
    for dz in sorted(range(-reach, reach + 1), key=abs):
        Z = z0 + 4 * dz
        if Z < 0:
            continue
        w.set_zero(Z)
        if w.solve(c) == want:
            data, usize = w.clean(c, keep_usize=want)
            if data is not None:
                return data, usize
    return None


def _plant(writers, res, seed):
    """Six `1F 8B 08` inside stored pixel words, never at a sector boundary (formats.md §1.2)."""
    rng = R(seed, "plant")
    cands = [i for i, w in enumerate(writers) if w.pixel_spans and w.pixel_spans[0][2] > 8192]
    for i in sorted(rng.sample(cands, PLANTED)):
        w = writers[i]
        mo, po, n = w.pixel_spans[0]
        for _ in range(100):
            j = rng.randrange(16, n - 16)
            if (mo + j) % SECTOR not in (0,) and MAGIC not in bytes(w.pixels[po + j - 4:po + j + 7]):
                break
        w.pixels[po + j:po + j + 3] = MAGIC
        w.tweaks.update({po + j + q: MAGIC[q] for q in range(3)})
        data, usize = w.build()
        assert usize == res[i][1]
        if len(_hits(data, 3)) != 1:
            raise ValueError(f"{w.spec.name}: planting made {len(_hits(data, 3))} occurrences")
        res[i] = (data, usize)
