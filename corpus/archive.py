"""open_corpus: the archive's members and Anime chunks with stable ids, behind a cached index.

A chunk id is "member::ANM_name" (a repeated name in one member gets "#2", "#3", ...). The index
(members, their Anime chunks, bad members and why) is cached as JSON under build/cache/ (or
$EEDIFF_CACHE), keyed by the archive's path, size, mtime and the SHA-1 of its first MiB, so
enumerating all chunks does not inflate anything.
"""
from __future__ import annotations

import hashlib
import io
import json
import mmap
import os
import tempfile
from collections import OrderedDict
from typing import Dict, List, Optional

from .anime import parse_anime
from .ccsf import CcsfFile
from .databin import (SECTOR, ArchiveBytes, Member, inflate_member, parse_gzip_header, refuse_non_regular,
                      scan_members)
from .errors import CorpusError
from .objects import Scene, scene as scene_of
from .tables import ElfImage, read_tables

INDEX_VERSION = 7
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cache_dir():
    return os.environ.get("EEDIFF_CACHE") or os.path.join(ROOT, "build", "cache")


class AnimeChunk:
    """One Anime chunk of the archive (interfaces.md §2)."""

    def __init__(self, corpus, id, member, name, offset, length, obj, blob_at=None):
        self.corpus, self.id, self.member, self.name = corpus, id, member, name
        self.offset, self.length, self.object = offset, length, obj
        self.blob_at = blob_at      # where the index's side file keeps a copy of the bytes

    @property
    def file(self) -> CcsfFile:
        return self.corpus.file(self.member)

    @property
    def data(self) -> bytes:
        blob = self.corpus._blob
        if blob is not None and self.blob_at is not None:
            return bytes(blob[self.blob_at:self.blob_at + self.length])
        return self.file.anime_bytes(self.offset, self.length)

    @property
    def names(self) -> Dict[int, str]:
        names = self.corpus._names.get(self.member)      # kept in the index: no inflate
        return names if names is not None else self.file.names

    @property
    def ext(self) -> Dict[int, int]:
        ext = self.corpus._ext.get(self.member)
        return ext if ext is not None else self.file.ext

    @property
    def scene(self) -> Scene:
        """The member's scene (corpus/objects.py), kept in the index: no inflate. A member whose
        setup section the index could not read as a scene is read again here, which raises the
        same CorpusError naming the member and offset."""
        return self.corpus.scene(self.member)

    def resolve(self, obj):
        return self.file.resolve(obj)

    @property
    def anime(self):
        """The parsed chunk. The corpus keeps the last 256 parsed chunks, not all of them: holding
        every chunk's records would make Python's cycle collector crawl over millions of tuples."""
        lru = self.corpus._anime
        a = lru.get(self.id)
        if a is None:
            a = parse_anime(self.data, ext=self.ext, where=self.id)
            lru[self.id] = a
            while len(lru) > 256:
                lru.popitem(last=False)
        else:
            lru.move_to_end(self.id)
        return a

    def __repr__(self):
        return f"<AnimeChunk {self.id}>"


class Corpus:
    """An opened archive: members in archive order, Anime chunks by id, bad members listed."""

    def __init__(self, arc: ArchiveBytes, image: Optional[ElfImage] = None, label=None,
                 use_cache=True):
        self.arc = arc
        self.image = image
        self.label = label or arc.path
        self._files: "OrderedDict[str, CcsfFile]" = OrderedDict()
        self._anime: "OrderedDict[str, object]" = OrderedDict()
        self.table_records = None
        self.cate_ofs = None
        self._blob = None
        self._ext = {}
        self._names = {}
        self._scenes = {}           # member -> the scene's JSON form as the index keeps it
        self._scene_parsed = {}     # member -> Scene, parsed from it on first use
        self._side_stem = None
        idx = self._load_index(use_cache)
        fields = Member.__dataclass_fields__
        self.members: List[Member] = [Member(**{k: v for k, v in m.items() if k in fields})
                                      for m in idx["members"]]
        self._member = {}
        for m in self.members:
            self._member.setdefault(m.name, m)      # a duplicate name is a bad member (the first is read)
        self.bad: List[dict] = idx["bad"]
        self.versions = {m["name"]: m.get("version") for m in idx["members"]}
        self._chunks: "OrderedDict[str, AnimeChunk]" = OrderedDict()
        for m in idx["members"]:
            if "ext" in m:
                self._ext[m["name"]] = {o: t for o, t in m["ext"]}
            if "names" in m:
                self._names[m["name"]] = {o: n for o, n in m["names"]}
            if m.get("scene") is not None:
                self._scenes[m["name"]] = m["scene"]
            for cid, name, off, length, obj, *at in m.get("chunks", ()):
                self._chunks[cid] = AnimeChunk(self, cid, m["name"], name, off, length, obj,
                                               at[0] if at and self._blob is not None else None)

    # -- index
    def _key(self):
        st = os.stat(self.arc.path)
        h = hashlib.sha1(self.arc.read(0, 1 << 20)).hexdigest()
        img = hashlib.sha1(self.image.data).hexdigest()[:16] if self.image else "-"
        return (f"{INDEX_VERSION}:{os.path.abspath(self.arc.path)}:{self.arc.base}:{len(self.arc)}:"
                f"{st.st_size}:{st.st_mtime_ns}:{h}:{img}")

    def _archive_tag(self):
        """Names the archive (path and window start) in the cache's file names, whatever its
        contents and size."""
        where = f"{os.path.abspath(self.arc.path)}:{self.arc.base}"
        return hashlib.sha1(where.encode()).hexdigest()[:10]

    def _prune_cache(self, keep):
        """DECISION: the cache keeps only the newest index of each archive (path and window start):
        an archive rewritten in place leaves no stale 32 MB side file behind."""
        prefix = f"corpus-{self._archive_tag()}-"
        try:
            names = os.listdir(cache_dir())
        except OSError:
            return
        for name in names:
            if name.startswith(prefix) and not name.startswith(keep):
                try:
                    os.unlink(os.path.join(cache_dir(), name))
                except OSError:
                    pass

    def _load_index(self, use_cache):
        key = self._key()
        stem = f"corpus-{self._archive_tag()}-" + hashlib.sha1(key.encode()).hexdigest()[:20]
        path = os.path.join(cache_dir(), stem + ".json")
        self._side_stem = path[:-5] if use_cache else None
        if use_cache and os.path.exists(path):
            try:
                with open(path) as f:
                    idx = json.load(f)
                if idx.get("key") == key:
                    if self.image is not None:
                        self.table_records, self.cate_ofs = read_tables(self.image)
                    self._blob = self._open_blob(path[:-5] + ".anime", idx.get("blob_size"))
                    return idx
            except (OSError, ValueError):
                pass
        idx = self._build_index()
        idx["key"] = key
        blob = idx.pop("_blob")
        idx["blob_size"] = len(blob)
        self._blob = blob
        if use_cache:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
                with os.fdopen(fd, "wb") as f:
                    f.write(blob)
                os.replace(tmp, path[:-5] + ".anime")
                fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
                with os.fdopen(fd, "w") as f:
                    json.dump(idx, f)
                os.replace(tmp, path)
                self._prune_cache(stem)
            except OSError:
                try:
                    os.unlink(tmp)
                except (OSError, UnboundLocalError):
                    pass
        return idx

    @staticmethod
    def _open_blob(path, size):
        """The side file of Anime chunk bytes written with the index (None when absent or stale)."""
        try:
            with open(path, "rb") as f:
                if size is None or os.fstat(f.fileno()).st_size != size:
                    return None
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        except OSError:
            return None

    def _members_from_tables(self):
        recs, ofs = read_tables(self.image)
        self.table_records, self.cate_ofs = recs, ofs
        n = len(self.arc)
        placed = []
        for r in recs:
            off = ofs[r.category] + r.offset
            where = f"{r.member_name} ({r.name}, category {r.category})"
            if r.offset % SECTOR or ofs[r.category] % SECTOR:
                raise CorpusError(f"index record offset 0x{off:X} is not a multiple of 2048",
                                  member=where, offset=off, kind="index table")
            if off + r.csize > n:
                raise CorpusError(f"index record (offset 0x{off:X}, csize {r.csize}) runs past the "
                                  f"archive's {n} bytes", member=where, offset=off, kind="index table")
            hl, fname, mtime, _ = parse_gzip_header(self.arc.read(off, 4096), where=where, offset=off)
            if fname != r.member_name:
                raise CorpusError(f"index record {r.name} points at member {fname!r}",
                                  member=where, offset=off, kind="index table")
            isize = int.from_bytes(self.arc.read(off + r.csize - 4, 4), "little")
            if isize != r.usize:
                raise CorpusError(f"index record usize {r.usize} disagrees with the member's ISIZE "
                                  f"{isize} (at csize {r.csize})", member=where, offset=off,
                                  kind="index table")
            placed.append((off, r, hl, fname, mtime))
        placed.sort(key=lambda x: x[0])
        members = []
        for i, (off, r, hl, fname, mtime) in enumerate(placed):
            end = placed[i + 1][0] if i + 1 < len(placed) else n
            if end - off < r.csize:
                raise CorpusError(f"index record csize {r.csize} overlaps the next member at 0x{end:X}",
                                  member=fname, offset=off, kind="index table")
            members.append(Member(i, fname, off, end - off, mtime, hl, r.csize, r.usize, r.category))
        # DECISION: every sector-aligned member must be in the index (the disc's tables cover all
        # 1,023 members with no gaps, formats.md §1.3); one that is not is reported.
        known = {m.offset for m in members}
        for m in scan_members(self.arc):
            if m.offset not in known:
                raise CorpusError("a gzip member on a sector boundary is in no index table",
                                  member=m.name, offset=m.offset, kind="index table")
        return members

    def _build_index(self):
        members = self._members_from_tables() if self.image is not None else scan_members(self.arc)
        out, bad = [], []
        blob = bytearray()
        first_at = {}                   # member name -> offset of the first member of that name
        for m in members:
            want_cs, want_us = m.csize, m.usize
            entry = None
            try:
                # DECISION: a second member of one name is a bad member naming both offsets: the
                # corpus never folds one into the other (chunk ids name members by name alone).
                if first_at.setdefault(m.name, m.offset) != m.offset:
                    raise CorpusError(f"duplicate member name: the member at 0x{first_at[m.name]:X} has it "
                                      f"too; this copy at 0x{m.offset:X} is not read", member=m.name,
                                      offset=m.offset, kind="duplicate name")
                data = inflate_member(self.arc, m)
                if want_cs is not None and (m.csize != want_cs or m.usize != want_us):
                    raise CorpusError(f"index record says csize {want_cs}, usize {want_us}; the member "
                                      f"has csize {m.csize}, usize {m.usize}", member=m.name,
                                      offset=m.offset, kind="index table")
                f = CcsfFile(data, member=m.name)
                names = f.names
                seen = {}
                chunks = []
                for off, length, obj in f.anime_chunks:
                    nm = names.get(obj) or f"#obj{obj}"
                    seen[nm] = seen.get(nm, 0) + 1
                    cid = f"{m.name}::{nm}" + (f"#{seen[nm]}" if seen[nm] > 1 else "")
                    chunks.append([cid, nm, off, length, obj, len(blob)])
                    blob += f.data[off:off + length]
                # DECISION: the object names go into the index with the chunks, so a
                # worker names a chunk's objects without inflating its member (3% of a nightly)
                # DECISION: the member's scene (the objects and world checks' setup section) goes
                # into the index too, so those checks do not inflate the member again for it; a
                # setup section that is no scene is not a bad member (every other check reads the
                # member): its scene is left out, and reading it raises the error where it is used
                try:
                    sc = scene_of(f).to_json()
                except CorpusError:
                    sc = None
                entry = dict(vars(m), version=f.version, chunks=chunks,
                             ext=sorted([o, t] for o, t in f.ext.items()),
                             names=sorted([o, n] for o, n in names.items()), scene=sc)
                self._files[m.name] = f
            except CorpusError as e:
                bad.append({"member": m.name or f"#{m.index}", "offset": m.offset,
                            "error": str(e), "kind": e.kind if isinstance(e.kind, (int, str)) else None})
                entry = dict(vars(m), version=None, chunks=[], bad=str(e))
            out.append(entry)
        while len(self._files) > 4:
            self._files.popitem(last=False)
        return {"members": [dict(e) for e in out], "bad": bad, "_blob": bytes(blob)}

    def side_path(self, suffix):
        """A file beside the cached index, under the index's own stem (None when the index is not
        cached): derived tables of this archive that the index's pruning keeps and replaces with it."""
        return None if self._side_stem is None else self._side_stem + suffix

    # -- access
    def chunk_ids(self) -> List[str]:
        return list(self._chunks)

    def chunk(self, cid) -> AnimeChunk:
        try:
            return self._chunks[cid]
        except KeyError:
            raise CorpusError(f"no Anime chunk {cid!r} in {self.label}", member=cid,
                              kind="chunk id") from None

    def chunks(self):
        return list(self._chunks.values())

    def member(self, name) -> Member:
        if name not in self._member:
            raise CorpusError(f"no member {name!r} in {self.label}", member=name, kind="member")
        return self._member[name]

    def member_bytes(self, name) -> bytes:
        return inflate_member(self.arc, self.member(name))

    def parsed_state(self):
        """What the corpus holds parsed (inflated members, parsed chunks), for restore_parsed."""
        return OrderedDict(self._files), OrderedDict(self._anime)

    def restore_parsed(self, state):
        """Put back what parsed_state returned: two runs of a chunk start from the same state."""
        self._files, self._anime = (OrderedDict(x) for x in state)

    def file(self, name) -> CcsfFile:
        f = self._files.get(name)
        if f is None:
            f = CcsfFile(self.member_bytes(name), member=name)
            self._files[name] = f
            while len(self._files) > 8:
                self._files.popitem(last=False)
        else:
            self._files.move_to_end(name)
        return f

    def scene(self, name) -> Scene:
        """A member's scene: from the index when it keeps one, else read from the member."""
        sc = self._scene_parsed.get(name)
        if sc is None:
            kept = self._scenes.get(name)
            sc = (Scene.from_json(kept, where=f"{self.label}: index: member {name!r}: scene") if kept is not None
                  else scene_of(self.file(name)))
            self._scene_parsed[name] = sc
        return sc

    def __len__(self):
        return len(self._chunks)


def _open_iso(disc):
    """(the opened pycdlib image, pycdlib's exception type); a file that is no ISO 9660 image is a
    CorpusError naming it. The caller closes the image."""
    try:
        import pycdlib
        from pycdlib.pycdlibexception import PyCdlibException
    except ImportError:  # pragma: no cover  (optional: pycdlib is needed only to read a disc image)
        raise CorpusError("reading a disc image needs pycdlib (pip install pycdlib)", member=disc,
                          kind="iso") from None
    iso = pycdlib.PyCdlib()
    try:
        iso.open(os.fspath(disc))
    except (PyCdlibException, OSError) as e:
        raise CorpusError(f"not an ISO 9660 image: {e}", member=os.fspath(disc), kind="iso") from None
    return iso, PyCdlibException


def find_on_disc(disc):
    """(DATA.BIN extent byte offset, length, executable bytes) of an ISO 9660 image."""
    iso, PyCdlibException = _open_iso(disc)
    try:
        def find(*cands):
            for c in cands:
                try:
                    return iso.get_record(iso_path=c)
                except PyCdlibException:
                    continue
            return None
        rec = find("/DATA/DATA.BIN;1", "/DATA/DATA.BIN")
        if rec is None:
            raise CorpusError("no /DATA/DATA.BIN on the disc image", member=os.fspath(disc), kind="iso")
        base, length = rec.extent_location() * 2048, rec.get_data_length()
        exe = None
        cands = ["/SLUS_202.67;1", "/SLUS_202.67"]
        try:   # the executable SYSTEM.CNF boots (BOOT2 = cdrom0:\\NAME;1), when it is another
            bio = io.BytesIO()
            iso.get_file_from_iso_fp(bio, iso_path="/SYSTEM.CNF;1")
            for line in bio.getvalue().decode("latin-1").splitlines():
                if line.replace(" ", "").upper().startswith("BOOT2=CDROM0:"):
                    name = line.split(":", 1)[1].strip().lstrip("\\").upper()
                    cands.append("/" + name if ";" in name else "/" + name + ";1")
        except PyCdlibException:
            pass
        for c in cands:
            try:
                bio = io.BytesIO()
                iso.get_file_from_iso_fp(bio, iso_path=c)
                exe = bio.getvalue()
                break
            except PyCdlibException:
                continue
        return base, length, exe
    finally:
        iso.close()


def read_disc_file(disc, paths):
    """The bytes of the first of `paths` (ISO 9660 paths, e.g. '/DATA/GCMN.PRG;1') on the disc
    image, or None when it has none of them."""
    iso, PyCdlibException = _open_iso(disc)
    try:
        for p in paths:
            try:
                bio = io.BytesIO()
                iso.get_file_from_iso_fp(bio, iso_path=p)
                return bio.getvalue()
            except PyCdlibException:
                continue
        return None
    finally:
        iso.close()


def open_corpus(data=None, image=None, disc=None, use_cache=True, image_symbols=None) -> Corpus:
    """Open DATA.BIN (data=path), optionally with the executable's index tables (image=path), or an
    ISO 9660 image (disc=path) holding DATA/DATA.BIN and SLUS_202.67 (used unless image= is given).
    With no arguments: the synthetic corpus build/synth/DATA.BIN."""
    img = None
    if disc is not None:
        base, length, exe = find_on_disc(disc)
        arc = ArchiveBytes(disc, base, length)
        label = f"{disc}:/DATA/DATA.BIN"
        if image is None and exe is not None:
            img = ElfImage(exe, f"{disc}:/SLUS_202.67")
    else:
        if data is None:
            data = os.path.join(ROOT, "build", "synth", "DATA.BIN")
        arc = ArchiveBytes(data)
        label = os.fspath(data)
    if image is not None:
        refuse_non_regular(os.fspath(image), "executable")
        try:
            with open(image, "rb") as f:
                img = ElfImage(f.read(), os.fspath(image), image_symbols)
        except OSError as e:
            raise CorpusError(f"cannot read executable: {e.strerror}", member=os.fspath(image),
                              kind="elf") from None
    return Corpus(arc, img, label, use_cache)
