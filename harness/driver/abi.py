"""The calling convention every call must keep (executable-abi.md §2, §3.1), checked after each one.

A call starts with every GPR zero but gp, sp, ra and the arguments (§3.1). It must end with sp,
s0-s7, fp (s8) and gp as it found them, ra still the return sentinel, and no store outside the
harness's memory. A call that breaks this (a symbol placed past a function's prologue, code that
keeps a stack frame, a stray store) fails its chunk, naming the register or the address.

DECISION: the harness's memory, where a call may store, is (1) 0x01000000 up to the end of RAM
(executable-abi.md §1.3, memory_map.HARNESS_LOW..HARNESS_HIGH: the harness's structures, scratch,
the chunk's data, the heap and the stack) and (2) the executable's own loaded memory (its segments'
data and bss, the resident overlay's) except its functions' code (Image.code). Everything else (the
functions' code, memory below the image, the overlay window past a resident overlay, and the gap
between the image and 0x01000000) is not. The check is per 4 KiB page, from the machine's dirty-page
map: a page of code that also holds data counts as data. The scratchpad (0x70000000) and VU0's
data memory are not RAM and not checked: they are the EE's own work memories, which the game may
use for temporaries, and the harness keeps nothing there.
A page the harness itself wrote before the call (a test's patch to the code) is not the call's.
DECISION: the FPU registers are not checked: §2 lists none as callee-saved, and §3.2 says they
survive between calls. Only the low 64 bits of a GPR are compared: the game saves s0-s7 with sd.
"""
from __future__ import annotations

from harness import HarnessError
from harness.driver import memory_map as mm

PAGE_SHIFT = 12
RAM_PAGES = 0x02000000 >> PAGE_SHIFT
M64 = (1 << 64) - 1
NAMES = {16: "s0", 17: "s1", 18: "s2", 19: "s3", 20: "s4", 21: "s5", 22: "s6", 23: "s7",
         28: "gp", 29: "sp", 30: "fp", 31: "ra"}


class AbiViolation(HarnessError):
    """A call that did not keep the calling convention (callee-saved registers, ra, stores)."""
    _eemu_passthrough = True       # raised between the calls of a batch, at no instruction


def _sx(v):
    return (v | ~0xFFFFFFFF) & M64 if v & 0x80000000 else v


def forbidden_pages(img):
    """[(lo, hi)) runs of RAM pages a call may not store to (see the module's DECISION)."""
    allowed = [(mm.HARNESS_LOW, mm.HARNESS_HIGH)]
    code = sorted((lo & 0x1FFFFFFF, hi & 0x1FFFFFFF) for lo, hi in getattr(img, "code", ()))
    for vaddr, data in getattr(img, "segments", ()):
        lo = vaddr & 0x1FFFFFFF
        hi = min(lo + len(data), mm.HARNESS_HIGH)
        for c_lo, c_hi in code:               # the segment's memory minus its functions' code
            if c_lo < hi and lo < c_hi:
                if lo < c_lo:
                    allowed.append((lo, c_lo))
                lo = max(lo, c_hi)
        if lo < hi:
            allowed.append((lo, hi))
    ok = bytearray(RAM_PAGES)
    for lo, hi in allowed:
        if lo < hi:
            ok[lo >> PAGE_SHIFT:((hi - 1) >> PAGE_SHIFT) + 1] = b"\1" * (((hi - 1) >> PAGE_SHIFT) - (lo >> PAGE_SHIFT) + 1)
    runs, p = [], ok.find(0)
    while p >= 0:
        q = ok.find(1, p)
        q = RAM_PAGES if q < 0 else q
        runs.append((p, q))
        p = ok.find(0, q)
    return runs


class Contract:
    """What a call of one loaded image must leave as it found it; check() after every call."""

    def __init__(self, m, img):
        self.m, self.img = m, img
        self.dirty = m.mem.dirty
        self.runs = forbidden_pages(img)
        gp = _sx(getattr(img, "gp", 0) or 0)
        self.expect = [(r, 0) for r in range(16, 24)] + [(28, gp), (29, 0x01FFF000), (30, 0),
                                                          (31, _sx(0xFFFFFFF0))]
        self.saved = tuple(v for _, v in self.expect[:8])       # s0-s7, then gp sp fp ra
        self.tail = tuple(v for _, v in self.expect[8:])
        self.known = set()                 # forbidden pages dirty already (the harness's own patches)
        m.snapshot()                       # the loader's stores are no call's: the dirty marks start here

    def _any_dirty(self):
        find = self.dirty.find
        for lo, hi in self.runs:
            if find(1, lo, hi) >= 0:
                return True
        return False

    def _dirty(self):
        d, out = self.dirty, set()
        for lo, hi in self.runs:
            p = d.find(1, lo, hi)
            while p >= 0:
                out.add(p)
                p = d.find(1, p + 1, hi)
        return out

    def before(self):
        """Note the forbidden pages dirty before a call (or a batch): only the call's own count."""
        self.known = self._dirty() if self._any_dirty() else ()

    def clean_runs(self):
        """[(lo, hi)) runs of RAM pages a call may not dirty, less those dirty before it (before()):
        the pages check() looks at, for a batch's fast test of them (Machine.call_each's io)."""
        known = sorted(self.known)
        out = []
        for lo, hi in self.runs:
            for p in known:
                if lo <= p < hi:
                    if lo < p:
                        out.append((lo, p))
                    lo = p + 1
            if lo < hi:
                out.append((lo, hi))
        return out

    def check(self, name):
        """AbiViolation naming the function and what it broke, else None."""
        R = self.m.returned_gprs()
        if tuple(R[16:24]) == self.saved and tuple(R[28:32]) == self.tail and not self._any_dirty():
            return                         # the common case, in one comparison and one scan
        for reg, want in self.expect:
            if R[reg] & M64 != want:
                why = "the return sentinel" if reg == 31 else "as it was called"
                raise AbiViolation(f"{name} returned with {NAMES[reg]} 0x{R[reg] & M64:x}, not 0x{want:x} {why} "
                                   f"(executable-abi.md §2: sp, s0-s7, fp and gp are callee-saved)")
        new = self._dirty().difference(self.known)
        if new:
            raise AbiViolation(f"{name} stored outside the harness's memory: {self._where(min(new))} "
                               f"(it may store only at 0x{mm.HARNESS_LOW:08x}-0x{mm.HARNESS_HIGH:08x} and in "
                               f"the executable's data)")

    def _where(self, page):
        """The first byte of the page that differs from what the image loaded there, or the page."""
        lo = page << PAGE_SHIFT
        now = self.m.read(lo, 1 << PAGE_SHIFT)
        then = bytearray(1 << PAGE_SHIFT)
        for vaddr, data in getattr(self.img, "segments", ()):
            a, b = max(lo, vaddr & 0x1FFFFFFF), min(lo + len(then), (vaddr & 0x1FFFFFFF) + len(data))
            if a < b:
                then[a - lo:b - lo] = data[a - (vaddr & 0x1FFFFFFF):b - (vaddr & 0x1FFFFFFF)]
        at = next((lo + i for i, (x, y) in enumerate(zip(now, then)) if x != y), None)
        if at is None:
            return f"the page 0x{lo:08x}-0x{lo + (1 << PAGE_SHIFT):08x}"
        name = self.img.symbolize(at)
        return f"0x{at:08x}" + (f" ({name})" if not name.startswith("0x") else "")
