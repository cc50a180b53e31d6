"""DATA.BIN: a run of sector-aligned gzip members (formats.md §1.1-1.2): find, describe, inflate.

Layer 1 of the readers: bytes in, `Member` descriptions and inflated CCSF bytes out. The archive
may be a window of a larger file (an ISO 9660 image), given as (path, base, length).
"""
from __future__ import annotations

import mmap
import os
import struct
import zlib
from dataclasses import dataclass
from typing import List, Optional

from .errors import CorpusError

SECTOR = 2048
GZIP_MAGIC = b"\x1f\x8b\x08"
FTEXT, FHCRC, FEXTRA, FNAME, FCOMMENT = 1, 2, 4, 8, 16


@dataclass
class Member:
    """One gzip member of the archive."""
    index: int                 # archive order
    name: str                  # FNAME (lower case, ".cmp")
    offset: int                # byte offset inside DATA.BIN (a multiple of 2048)
    span: int                  # bytes up to the next member start or the end (padding included)
    mtime: int = 0
    header_len: int = 0        # gzip header bytes
    csize: Optional[int] = None   # exact member length without padding (known after inflating or from a table)
    usize: Optional[int] = None   # ISIZE
    category: Optional[int] = None


class ArchiveBytes:
    """A read-only window [base, base + length) of a file, memory-mapped."""

    def __init__(self, path, base=0, length=None):
        self.path = os.fspath(path)
        refuse_non_regular(self.path, "archive")
        try:
            self._f = open(self.path, "rb")
        except OSError as e:
            raise CorpusError(f"cannot open archive {self.path}: {e.strerror}", member=None,
                              kind="archive") from None
        size = os.fstat(self._f.fileno()).st_size
        self.base = base
        self.length = size - base if length is None else length
        if base + self.length > size or self.length < 0:
            raise CorpusError(f"archive window 0x{base:X}+0x{self.length:X} exceeds {self.path} "
                              f"({size} bytes)", kind="archive")
        self._mm = mmap.mmap(self._f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""

    def __len__(self):
        return self.length

    def read(self, offset, n):
        if offset < 0 or offset > self.length:
            return b""
        n = max(0, min(n, self.length - offset))
        a = self.base + offset
        return bytes(self._mm[a:a + n])

    def close(self):
        if isinstance(self._mm, mmap.mmap):
            self._mm.close()
        self._f.close()


def refuse_non_regular(path, what):
    """A FIFO, a directory or a device is refused by name before it is opened (opening a FIFO
    blocks until a writer comes; reading a device never ends)."""
    import stat
    try:
        st = os.stat(path)
    except OSError as e:
        raise CorpusError(f"cannot open {what} {path}: {e.strerror}", member=None, kind=what) from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise CorpusError(f"{what} {path} is {kind}, not a regular file", member=None, kind=what)


def parse_gzip_header(buf: bytes, where=None, offset=0):
    """(header length, FNAME, MTIME, FLG) of a member starting at buf[0]."""
    def fail(msg, at=0):
        raise CorpusError(msg, member=where, offset=offset + at, kind="gzip")
    if len(buf) < 10:
        fail("truncated gzip header")
    if buf[:3] != GZIP_MAGIC:
        fail(f"no gzip magic (bytes {buf[:3].hex()})")
    flg = buf[3]
    if flg & 0xE0:
        fail(f"reserved gzip FLG bits set (0x{flg:02X})", 3)
    mtime = struct.unpack_from("<I", buf, 4)[0]
    p = 10
    if flg & FEXTRA:
        if p + 2 > len(buf):
            fail("truncated FEXTRA", p)
        p += 2 + struct.unpack_from("<H", buf, p)[0]
    name = ""
    if flg & FNAME:
        e = buf.find(b"\0", p)
        if e < 0:
            fail("FNAME not terminated", p)
        name = buf[p:e].decode("latin-1")
        p = e + 1
    if flg & FCOMMENT:
        e = buf.find(b"\0", p)
        if e < 0:
            fail("FCOMMENT not terminated", p)
        p = e + 1
    if flg & FHCRC:
        p += 2
    if p > len(buf):
        fail("truncated gzip header", p)
    return p, name, mtime, flg


def scan_members(arc: ArchiveBytes, where="DATA.BIN") -> List[Member]:
    """Sector scan (formats.md §1.2): a member starts at every multiple of 2048 holding 1F 8B 08."""
    n = len(arc)
    starts = [off for off in range(0, n, SECTOR) if arc.read(off, 3) == GZIP_MAGIC]
    if n and not starts:
        raise CorpusError(f"no gzip member on a 2048-byte boundary in {arc.path}", member=where,
                          offset=0, kind="gzip")
    if starts and starts[0] != 0:
        raise CorpusError("the archive does not start with a gzip member", member=where,
                          offset=0, kind="gzip")
    members = []
    for i, off in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else n
        hl, name, mtime, _ = parse_gzip_header(arc.read(off, min(end - off, 4096)),
                                               where=f"member #{i} at 0x{off:X}", offset=off)
        members.append(Member(i, name, off, end - off, mtime, hl))
    return members


# DECISION: no member inflates to more than 64 MiB (the disc's largest is about 4 MiB,
# corpus-stats.md §1); a member that would is refused before it can take the memory.
MAX_INFLATED = 64 << 20


def inflate_cap(raw: bytes, m: Member) -> int:
    """The most bytes a member may inflate to: its ISIZE, capped at MAX_INFLATED.

    The ISIZE is the index record's usize when the executable's tables give one; otherwise it is
    read from the trailer, which ends within four bytes after the last non-zero byte of the span
    (zero padding follows it; ISIZE's own high bytes may be zero), so the largest of those
    candidates bounds it. DECISION: that bound is exact for an ISIZE of 16 MiB or more (its top
    byte is not zero), where memory matters; a smaller one may bound loosely (at most
    MAX_INFLATED) and is checked exactly once the stream ends."""
    if m.usize is not None:
        return min(m.usize, MAX_INFLATED)
    end = len(raw.rstrip(b"\0"))
    cands = [int.from_bytes(raw[e - 4:e], "little") for e in range(max(4, end), min(len(raw), end + 4) + 1)
             if e - 4 >= 0]
    return min(max(cands, default=MAX_INFLATED), MAX_INFLATED)


def inflate_member(arc: ArchiveBytes, m: Member) -> bytes:
    """Inflate one member; check CRC32 and ISIZE, that the deflate stream ends inside the member's
    span, and that only zero padding follows. Sets m.csize and m.usize."""
    raw = arc.read(m.offset, m.span)
    where = m.name or f"member #{m.index}"
    hl, name, mtime, _ = parse_gzip_header(raw, where=where, offset=m.offset)
    cap = inflate_cap(raw, m)
    d = zlib.decompressobj(-15)
    try:
        out = d.decompress(raw[hl:], cap + 1)
    except zlib.error as e:
        raise CorpusError(f"corrupt deflate data: {e}", member=where, offset=m.offset + hl,
                          kind="gzip") from None
    if len(out) > cap:
        raise CorpusError(f"the member inflates past {cap} bytes (its ISIZE, or the bound of "
                          f"{MAX_INFLATED >> 20} MiB per member): a corrupt or hostile member",
                          member=where, offset=m.offset + hl, kind="gzip")
    if not d.eof:
        raise CorpusError("truncated gzip member: the deflate stream does not end inside the member",
                          member=where, offset=m.offset + len(raw), kind="gzip")
    rest = d.unused_data
    if len(rest) < 8:
        raise CorpusError("truncated gzip trailer", member=where,
                          offset=m.offset + len(raw) - len(rest), kind="gzip")
    crc, isize = struct.unpack_from("<II", rest, 0)
    csize = len(raw) - len(rest) + 8
    if crc != zlib.crc32(out):
        raise CorpusError(f"CRC32 mismatch (stored 0x{crc:08X}, computed 0x{zlib.crc32(out):08X})",
                          member=where, offset=m.offset + csize - 8, kind="gzip")
    if isize != len(out) & 0xFFFFFFFF:
        raise CorpusError(f"ISIZE {isize} but {len(out)} bytes inflated", member=where,
                          offset=m.offset + csize - 4, kind="gzip")
    pad = rest[8:]
    # DECISION: formats.md §1.1 says zero bytes pad each member; anything else after the trailer
    # is reported (a stray or overlapping member) rather than ignored.
    if pad.count(0) != len(pad):
        nz = next(i for i, c in enumerate(pad) if c)
        raise CorpusError("non-zero bytes in the padding after the member", member=where,
                          offset=m.offset + csize + nz, kind="gzip")
    m.csize, m.usize = csize, len(out)
    return out
