"""EE memory: 32 MiB RAM with its mirrors, the 16 KiB scratchpad and VU0 data memory (r5900.md §10).

The ld*/st* functions built here are the fast paths that compiled instruction code calls. They
raise ``AccessFault`` (address, size, why); the engine turns it into a ``MemoryFault`` naming the pc
and the instruction, which only it knows.

``data_floor``: a data load or store at a physical RAM address below it faults (why 'below the data
floor 0x...'), so a null or low-memory pointer cannot read zeroes silently. 0 (the default) turns the
check off. Instruction fetch (``fetch``) and the debugger-style ``read``/``write`` are not floored.
Setting it rebuilds the fast paths with the floor captured in their closures.

``data_hole``: (lo, hi, why) or None: a data load or store at a physical RAM address in [lo, hi)
faults with that why (the overlay window with no resident overlay, layout.py). Set like the floor.
"""
from __future__ import annotations

import mmap
import sys
from typing import List

RAM_SIZE = 0x02000000          # 32 MiB
SPR_BASE, SPR_SIZE = 0x70000000, 0x4000
VU0_BASE, VU0_SIZE = 0x11004000, 0x1000
# DECISION: VU0 data memory answers at 0x11004000-0x11007FFF, addresses wrapping modulo 0x1000
# (r5900.md §8.3 says it wraps; the spec is silent on how far the window reaches).
VU0_WINDOW = 0x4000
# RAM mirrors: virtual base -> the RAM they show. r5900.md §10 names KSEG0, KSEG1 and 0x20000000.
# DECISION: 0x30000000 (the EE's uncached-accelerated mirror) is mapped as well; it is harmless.
RAM_MIRRORS = (0x00000000, 0x20000000, 0x30000000, 0x80000000, 0xA0000000)

PAGE_SHIFT = 12
PAGE = 1 << PAGE_SHIFT
RAM_PAGES = RAM_SIZE >> PAGE_SHIFT
M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF

if sys.byteorder != "little":        # the memoryview casts below read native order
    raise ImportError("eemu_ext needs a little-endian host")


class AccessFault(Exception):
    """Raw fault from a load or store: ``address``, ``size``, ``why`` ('unmapped' or 'misaligned')."""

    def __init__(self, address, size, why, store=False):
        super().__init__(address, size, why)
        self.address, self.size, self.why, self.store = address, size, why, store


class Memory:
    """The EE's address space. ``ram``, ``spr`` and ``vu0`` are bytearrays; ld/st are fast closures."""

    def __init__(self, data_floor: int = 0):
        # an anonymous mapping: zero pages cost nothing until touched (bytearray would memset 32 MiB)
        self.ram = mmap.mmap(-1, RAM_SIZE)
        self.spr = bytearray(SPR_SIZE)
        self.vu0 = bytearray(VU0_SIZE)
        # one byte per 4 KiB RAM page, set by every store there since the last snapshot or restore
        # (both engines' fast paths, the st* closures and write()); never rebound: compiled code
        # holds it
        self.dirty = bytearray(RAM_PAGES)
        self._written = set()        # pages that may hold a nonzero byte, as of the last sync
        self._line = []              # [(token, pages dirtied before it)]: how the current state came about
        self._floor = 0
        self._hole = None
        self.data_floor = data_floor

    @property
    def data_floor(self) -> int:
        return self._floor

    @data_floor.setter
    def data_floor(self, addr: int) -> None:
        addr = int(addr)
        if not 0 <= addr <= RAM_SIZE:
            raise ValueError(f"data_floor 0x{addr:x} lies outside RAM (0..0x{RAM_SIZE:x})")
        self._floor = addr
        self._build()

    @property
    def data_hole(self):
        return self._hole

    @data_hole.setter
    def data_hole(self, hole) -> None:
        if hole is not None:
            lo, hi, why = hole
            if not 0 <= lo <= hi <= RAM_SIZE:
                raise ValueError(f"data_hole 0x{lo:x}-0x{hi:x} lies outside RAM (0..0x{RAM_SIZE:x})")
            hole = (int(lo), int(hi), str(why)) if lo < hi else None
        self._hole = hole
        self._build()

    def hole_span(self):
        """(lo, length) of the data hole, (0, 0) without one."""
        return (self._hole[0], self._hole[1] - self._hole[0]) if self._hole else (0, 0)

    # -- address translation (slow path) ------------------------------------------------------
    def locate(self, addr: int, size: int, store: bool = False):
        """(buffer, offset) for an access of ``size`` bytes at virtual ``addr``; AccessFault if none."""
        addr &= M32
        for base in RAM_MIRRORS:
            off = addr - base
            if 0 <= off and off + size <= RAM_SIZE:
                return self.ram, off
        off = addr - SPR_BASE
        if 0 <= off and off + size <= SPR_SIZE:
            return self.spr, off
        off = addr - VU0_BASE
        if 0 <= off < VU0_WINDOW:
            off &= VU0_SIZE - 1
            if off + size <= VU0_SIZE:
                return self.vu0, off
        raise AccessFault(addr, size, "unmapped", store)

    def mapped(self, addr: int, size: int = 1) -> bool:
        try:
            self.locate(addr, size)
        except AccessFault:
            return False
        return True

    def read(self, addr: int, n: int) -> bytes:
        """n bytes from addr; the range may cross into nothing but one region."""
        if n <= 0:
            return b""
        if 0 <= addr and addr + n <= RAM_SIZE:        # kuseg RAM, the common case
            return bytes(self.ram[addr:addr + n])
        buf, off = self.locate(addr, n)
        return bytes(buf[off:off + n])

    def write(self, addr: int, data) -> None:
        data = bytes(data)
        if not data:
            return
        n = len(data)
        if 0 <= addr and addr + n <= RAM_SIZE:        # kuseg RAM, the common case
            self.ram[addr:addr + n] = data
            lo, hi = addr >> PAGE_SHIFT, (addr + n - 1) >> PAGE_SHIFT
            if lo == hi:
                self.dirty[lo] = 1
            else:
                self.dirty[lo:hi + 1] = b"\1" * (hi - lo + 1)
            return
        buf, off = self.locate(addr, len(data), True)
        buf[off:off + len(data)] = data
        if buf is self.ram:
            self._mark(off, len(data))

    def _mark(self, off: int, n: int) -> None:
        lo, hi = off >> PAGE_SHIFT, (off + n - 1) >> PAGE_SHIFT
        self.dirty[lo:hi + 1] = b"\1" * (hi - lo + 1)

    # -- fast paths -------------------------------------------------------------------------------
    def _build(self):
        ram = self.ram
        m8 = memoryview(ram)
        m16 = m8.cast("H")
        m32 = m8.cast("I")
        m64 = m8.cast("Q")
        locate = self.locate
        frm = int.from_bytes
        RS = RAM_SIZE
        FL = self._floor
        floor_why = f"below the data floor 0x{FL:08x}"
        HL, HH, hole_why = self._hole or (0, 0, "")
        D = self.dirty

        def slow_ld(a, n):
            if a & (n - 1):
                raise AccessFault(a, n, "misaligned")
            buf, off = locate(a, n)
            if off < FL and buf is ram:
                raise AccessFault(a, n, floor_why)
            if HL <= off < HH and buf is ram:
                raise AccessFault(a, n, hole_why)
            return frm(buf[off:off + n], "little")

        def slow_st(a, n, v):
            if a & (n - 1):
                raise AccessFault(a, n, "misaligned", True)
            buf, off = locate(a, n, True)
            if off < FL and buf is ram:
                raise AccessFault(a, n, floor_why, True)
            if HL <= off < HH and buf is ram:
                raise AccessFault(a, n, hole_why, True)
            buf[off:off + n] = (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
            if buf is ram:
                D[off >> 12] = 1

        spr = memoryview(self.spr)
        s16, s32, s64 = spr.cast("H"), spr.cast("I"), spr.cast("Q")
        SB, SS = SPR_BASE, SPR_SIZE

        # RAM first, then the scratchpad (the game keeps matrices there), then everything else
        def ld8(a):
            if FL <= a < RS and not HL <= a < HH:
                return m8[a]
            o = a - SB
            if 0 <= o < SS:
                return spr[o]
            return slow_ld(a, 1)

        def ld16(a):
            if not a & 1:
                if FL <= a < RS and not HL <= a < HH:
                    return m16[a >> 1]
                o = a - SB
                if 0 <= o < SS:
                    return s16[o >> 1]
            return slow_ld(a, 2)

        def ld32(a):
            if not a & 3:
                if FL <= a < RS and not HL <= a < HH:
                    return m32[a >> 2]
                o = a - SB
                if 0 <= o < SS:
                    return s32[o >> 2]
            return slow_ld(a, 4)

        def ld64(a):
            if not a & 7:
                if FL <= a < RS and not HL <= a < HH:
                    return m64[a >> 3]
                o = a - SB
                if 0 <= o < SS:
                    return s64[o >> 3]
            return slow_ld(a, 8)

        def ld128(a):
            if not a & 15:
                if FL <= a < RS and not HL <= a < HH:
                    i = a >> 3
                    return m64[i] | (m64[i + 1] << 64)
                o = a - SB
                if 0 <= o < SS:
                    i = o >> 3
                    return s64[i] | (s64[i + 1] << 64)
            return slow_ld(a, 16)

        def st8(a, v):
            if FL <= a < RS and not HL <= a < HH:
                m8[a] = v & 0xFF
                D[a >> 12] = 1
                return
            o = a - SB
            if 0 <= o < SS:
                spr[o] = v & 0xFF
                return
            slow_st(a, 1, v)

        def st16(a, v):
            if not a & 1:
                if FL <= a < RS and not HL <= a < HH:
                    m16[a >> 1] = v & 0xFFFF
                    D[a >> 12] = 1
                    return
                o = a - SB
                if 0 <= o < SS:
                    s16[o >> 1] = v & 0xFFFF
                    return
            slow_st(a, 2, v)

        def st32(a, v):
            if not a & 3:
                if FL <= a < RS and not HL <= a < HH:
                    m32[a >> 2] = v & 0xFFFFFFFF
                    D[a >> 12] = 1
                    return
                o = a - SB
                if 0 <= o < SS:
                    s32[o >> 2] = v & 0xFFFFFFFF
                    return
            slow_st(a, 4, v)

        def st64(a, v):
            if not a & 7:
                if FL <= a < RS and not HL <= a < HH:
                    m64[a >> 3] = v & 0xFFFFFFFFFFFFFFFF
                    D[a >> 12] = 1
                    return
                o = a - SB
                if 0 <= o < SS:
                    s64[o >> 3] = v & 0xFFFFFFFFFFFFFFFF
                    return
            slow_st(a, 8, v)

        def st128(a, v):
            if not a & 15:
                if FL <= a < RS and not HL <= a < HH:
                    i = a >> 3
                    m64[i] = v & 0xFFFFFFFFFFFFFFFF
                    m64[i + 1] = (v >> 64) & 0xFFFFFFFFFFFFFFFF
                    D[a >> 12] = 1
                    return
                o = a - SB
                if 0 <= o < SS:
                    i = o >> 3
                    s64[i] = v & 0xFFFFFFFFFFFFFFFF
                    s64[i + 1] = (v >> 64) & 0xFFFFFFFFFFFFFFFF
                    return
            slow_st(a, 16, v)

        self._fetch32 = m32
        self.ld8, self.ld16, self.ld32, self.ld64, self.ld128 = ld8, ld16, ld32, ld64, ld128
        self.st8, self.st16, self.st32, self.st64, self.st128 = st8, st16, st32, st64, st128

    def fetch(self, addr: int) -> int:
        """The instruction word at addr (AccessFault when unmapped or misaligned; never floored)."""
        addr &= M32
        if addr < RAM_SIZE and not addr & 3:
            return self._fetch32[addr >> 2]
        if addr & 3:
            raise AccessFault(addr, 4, "misaligned")
        buf, off = self.locate(addr, 4)
        return int.from_bytes(buf[off:off + 4], "little")

    def clear(self):
        """Zero every byte (a fresh machine's memory)."""
        self.ram[:] = bytes(RAM_SIZE)
        self.spr[:] = bytes(SPR_SIZE)
        self.vu0[:] = bytes(VU0_SIZE)
        self.dirty[:] = bytes(RAM_PAGES)
        self._written = set()
        self._line = []

    # -- snapshots ---------------------------------------------------------------------------
    def _dirty_pages(self) -> set:
        d, out, i = self.dirty, set(), self.dirty.find(1)
        while i >= 0:
            out.add(i)
            i = d.find(1, i + 1)
        return out

    def _take_dirty(self) -> set:
        """The pages dirtied since the last sync; the marks are cleared."""
        out = self._dirty_pages()
        if out:
            self.dirty[:] = bytes(RAM_PAGES)
        return out

    def snapshot(self, skip=frozenset()) -> "Snapshot":
        """The contents of every RAM page ever written, the scratchpad and VU0 memory; the RAM
        pages in ``skip`` are neither saved nor, later, restored (they keep what they hold)."""
        fresh = self._take_dirty()
        self._written |= fresh
        snap = Snapshot({p: bytes(self.ram[p << PAGE_SHIFT:(p + 1) << PAGE_SHIFT])
                         for p in self._written if p not in skip},
                        bytes(self.spr), bytes(self.vu0), frozenset(skip))
        self._line.append((snap.token, fresh))
        return snap

    def restore(self, snap: "Snapshot") -> List[int]:
        """Memory exactly as at ``snap``; returns the RAM pages rewritten (ascending). Only pages
        dirtied since then are copied back, when the current state descends from ``snap``;
        otherwise every page either one holds."""
        fix = self._take_dirty()
        at = next((i for i, (tok, _) in enumerate(self._line) if tok == snap.token), None)
        if at is None:
            fix |= self._written | set(snap.pages)
            self._line = [(snap.token, set())]
        else:
            for _, pages in self._line[at + 1:]:
                fix |= pages
            del self._line[at + 1:]
        ram, pages, zero = self.ram, snap.pages, bytes(PAGE)
        kept = fix & snap.skip
        fix -= kept
        for p in fix:
            ram[p << PAGE_SHIFT:(p + 1) << PAGE_SHIFT] = pages.get(p, zero)
        self.spr[:] = snap.spr
        self.vu0[:] = snap.vu0
        self._written = set(pages) | (self._written & snap.skip) | kept
        return sorted(fix)

    def differences(self, snap: "Snapshot", limit: int = 8) -> List[tuple]:
        """Where memory now differs from ``snap``: up to ``limit`` (address, now, then) byte triples,
        address ascending, over the scratchpad, VU0 memory and every RAM page either one holds."""
        out = []
        zero = bytes(PAGE)
        for p in sorted((self._written | self._dirty_pages() | set(snap.pages)) - snap.skip):
            now = self.ram[p << PAGE_SHIFT:(p + 1) << PAGE_SHIFT]
            then = snap.pages.get(p, zero)
            if now != then:
                out += _bytes_differ(p << PAGE_SHIFT, now, then, limit - len(out))
                if len(out) >= limit:
                    return out
        for base, now, then in ((SPR_BASE, self.spr, snap.spr), (VU0_BASE, self.vu0, snap.vu0)):
            if bytes(now) != then:
                out += _bytes_differ(base, bytes(now), then, limit - len(out))
                if len(out) >= limit:
                    break
        return out[:limit]


def _bytes_differ(base, now, then, limit):
    out = []
    for i, (a, b) in enumerate(zip(now, then)):
        if a != b:
            out.append((base + i, a, b))
            if len(out) >= limit:
                break
    return out


class Snapshot:
    """What ``Memory.snapshot`` saved: ``pages`` {RAM page: 4096 bytes}, ``spr``, ``vu0``."""
    _tokens = 0

    def __init__(self, pages, spr, vu0, skip=frozenset()):
        Snapshot._tokens += 1
        self.token = Snapshot._tokens
        self.pages, self.spr, self.vu0, self.skip = pages, spr, vu0, skip

    @property
    def size(self) -> int:
        return len(self.pages) * PAGE + len(self.spr) + len(self.vu0)
