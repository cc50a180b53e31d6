"""The machine's memory as its users see it: byte and word reads and writes, snapshots.

``MemoryAccess`` is the part of Machine (machine.py) over ``self.mem`` (memory.Memory): an access
outside mapped memory raises the machine's MemoryFault, and a write over code tells the engines
(``self._code_changed``), so that code written by the harness or a loader is translated afresh.
"""
from __future__ import annotations

from eemu_ext.errors import MemoryFault
from eemu_ext.memory import PAGE_SHIFT, AccessFault

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


class MemoryAccess:
    """Reads, writes and snapshots of a Machine's memory (see the module docstring)."""

    def ram_view(self) -> memoryview:
        """Physical RAM (32 MiB) as a writable byte view, for reading many words at once
        (e.g. ``numpy.frombuffer``): no copy, no data floor, and a write through it marks no page."""
        return memoryview(self.mem.ram)

    def read(self, addr: int, n: int) -> bytes:
        try:
            return self.mem.read(addr, n)
        except AccessFault:
            raise MemoryFault(f"read of {n} bytes at 0x{addr & M32:08x}: address not mapped",
                              None, addr, n) from None

    def write(self, addr: int, data) -> None:
        data = bytes(data)
        try:
            self.mem.write(addr, data)
        except AccessFault:
            raise MemoryFault(f"write of {len(data)} bytes at 0x{addr & M32:08x}: address not mapped",
                              None, addr, len(data)) from None
        if data and (self.python.code_pages or self.native is not None):
            self._code_changed(addr, addr + len(data))

    def read_u8(self, a):
        return self.read(a, 1)[0]

    def read_u16(self, a):
        return int.from_bytes(self.read(a, 2), "little")

    def read_u32(self, a):
        return int.from_bytes(self.read(a, 4), "little")

    def read_u64(self, a):
        return int.from_bytes(self.read(a, 8), "little")

    def and_u8(self, addrs, mask: int) -> None:
        """byte &= mask at every address of addrs, as write_u8(a, read_u8(a) & mask) each, in one
        call: one page mark and one code check per page touched rather than per byte."""
        mem, mask = self.mem, mask & 0xFF
        ram, size, pages = mem.ram, len(mem.ram), set()
        for a in addrs:
            if 0 <= a < size:
                ram[a] &= mask
                pages.add(a >> PAGE_SHIFT)
            else:                                     # not kuseg RAM: the plain path
                self.write_u8(a, self.read_u8(a) & mask)
        check = self.python.code_pages or self.native is not None
        for p in pages:                               # (code on a touched page: the whole page afresh)
            mem.dirty[p] = 1
            if check:
                self._code_changed(p << PAGE_SHIFT, (p + 1) << PAGE_SHIFT)

    def read_u16s(self, addrs) -> list:
        """[read_u16(a) for a in addrs] in one call: kuseg RAM read in place, any other address
        as read_u16 reads it (a fault names the address)."""
        ram = self.mem.ram
        end = len(ram) - 1
        return [ram[a] | ram[a + 1] << 8 if 0 <= a < end else self.read_u16(a) for a in addrs]

    def zero_u32s(self, addrs) -> None:
        """write_u32(a, 0) at every address of addrs, in one call: one page mark and one code
        check per page touched rather than per word (as and_u8)."""
        mem = self.mem
        ram, end, zero = mem.ram, len(mem.ram) - 3, bytes(4)
        inram = [a for a in addrs if 0 <= a < end]
        for a in inram:
            ram[a:a + 4] = zero
        if len(inram) < len(addrs):                   # not kuseg RAM: the plain path
            for a in addrs:
                if not 0 <= a < end:
                    self.write_u32(a, 0)
        pages = {a >> PAGE_SHIFT for a in inram} | {(a + 3) >> PAGE_SHIFT for a in inram}
        check = self.python.code_pages or self.native is not None
        for p in pages:                               # (code on a touched page: the whole page afresh)
            mem.dirty[p] = 1
            if check:
                self._code_changed(p << PAGE_SHIFT, (p + 1) << PAGE_SHIFT)

    def write_u8(self, a, v):
        self.write(a, (v & 0xFF).to_bytes(1, "little"))

    def write_u16(self, a, v):
        self.write(a, (v & 0xFFFF).to_bytes(2, "little"))

    def write_u32(self, a, v):
        self.write(a, (v & M32).to_bytes(4, "little"))

    def write_u64(self, a, v):
        self.write(a, (v & M64).to_bytes(8, "little"))

    def snapshot(self, skip=()):
        """The memory as it is now: every RAM page ever written, the scratchpad and VU0 memory.
        ``skip``: [lo, hi) ranges whose whole pages are left out, and which restore leaves as
        they are then (e.g. the image's code, so a patch made after the snapshot stays).
        DECISION: memory only. Registers are not part of it; every call sets its own arguments,
        stack pointer and return address, and a state a caller cares about lives in memory."""
        pages = set()
        for lo, hi in skip:
            pages.update(range(((lo & 0x1FFFFFFF) + 0xFFF) >> 12, (hi & 0x1FFFFFFF) >> 12))
        return self.mem.snapshot(frozenset(pages))

    def restore(self, snap) -> int:
        """Memory exactly as ``snapshot()`` saw it. Only the pages written since are copied back
        (both engines mark the page of every store); code on them is translated afresh. Returns
        the number of pages rewritten."""
        pages = self.mem.restore(snap)
        if self.python.code_pages or self.native is not None:
            for p in pages:
                self._code_changed(p << 12, (p + 1) << 12)
        return len(pages)

    def differences(self, snap, limit: int = 8):
        """Up to ``limit`` (address, now, then) bytes where memory differs from ``snap``."""
        return self.mem.differences(snap, limit)
