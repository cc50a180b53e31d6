"""The stubs of executable-abi.md §6: bump allocator, frees, OpenData and GetWork, hooked by address."""
import struct

from harness import HarnessError
from harness.driver import memory_map as mm


_U32, _U16 = struct.Struct("<I"), struct.Struct("<H")


class HeapExhausted(HarnessError):
    """The bump allocator ran past HEAP_END (executable-abi.md §6)."""


# mangled symbol -> which argument is the size
ALLOCATORS = {
    "ccMalloc__FUi": 0,          # a0 = size
    "__nw__FUi": 0,              # a0 = size
    "ccMemalign__FUiUi": None,   # max(a0, a1), aligned to the power-of-two argument (see memalign)
    "GetWork__16ccDrawPacketCtrlFi": 1,   # a1 = size (a0 is this)
}
MEMALIGN = "ccMemalign__FUiUi"
FREES = ("ccFree__FPv", "__dl__FPv")
OPEN_DATA = "OpenData__14ccRingBufferThFPv"
STUB_SYMBOLS = tuple(ALLOCATORS) + FREES + (OPEN_DATA,)


class Heap:
    """Bump allocator over [HEAP, HEAP_END): 16-aligned, zero-filled blocks."""

    def __init__(self, machine, start=mm.HEAP, end=mm.HEAP_END):
        self.m, self.start, self.end = machine, start, end
        self.ptr = start
        self.high_water = start
        self.log = []            # (symbol, args, caller ra, address) of every allocator stub call
        self.frees = []          # (symbol, pointer) of every free stub call, in order
        self.stub_names = {}     # allocator stub address -> its symbol (install)

    def reset(self):
        """Back to the start (before every chunk load and Modify case); the log starts afresh."""
        self.ptr = self.start
        self.log = []
        self.frees = []

    def contains(self, addr):
        return self.start <= addr < self.ptr

    def bumped(self, addr, args, ra, block):
        """An allocator stub's call the machine served itself (eemu_ext's "bump" hook): logged as
        the stub's own would be."""
        self.log.append((self.stub_names[addr], args, ra, block))

    def alloc(self, n, who="harness", align=16, fill=True):
        """A block of n bytes (16-aligned size, `align`-aligned start), zero-filled unless `fill`
        is False (the caller writes the whole block itself, as a Staged layout does)."""
        n &= 0xFFFFFFFF
        size = (n + 15) & ~15
        addr = (self.ptr + align - 1) & ~(align - 1)
        if addr + size > self.end:
            raise HeapExhausted(
                f"heap exhausted: {who} asked for {n} bytes at heap pointer 0x{addr:08X} "
                f"(HEAP_END 0x{self.end:08X})")
        if n and fill:
            self.m.write(addr, bytes(n))
        self.ptr = addr + size
        self.high_water = max(self.high_water, self.ptr)
        return addr


class Staged:
    """Fresh heap blocks laid out in one buffer and written to the machine at once by commit():
    a layout of thousands of words costs one machine write instead of one a word. Blocks come
    from heap.alloc at the same addresses; the buffer starts as the memory under them (the
    blocks zeroed, as alloc does), so memory after commit is what alloc and the word-by-word
    writes would have left. A write outside the blocks goes to the machine at once. Nothing may
    read the blocks back before commit.

    The memory beyond the blocks is read READ_AHEAD bytes at a time (a layout of thousands of
    blocks reads a few times, not once a block); only the blocks are written back."""

    READ_AHEAD = 0x10000

    def __init__(self, machine, heap):
        self.m, self.heap = machine, heap
        self.base = heap.ptr
        self.top = 0                 # the blocks' end, from base
        self.buf = bytearray()

    def alloc(self, n, who="harness"):
        heap = self.heap
        addr = heap.alloc(n, who, fill=False)
        top = heap.ptr - self.base
        have = len(self.buf)
        if top > have:
            self.buf += self.m.read(self.base + have, min(max(top - have, self.READ_AHEAD), heap.end - self.base - have))
        self.top = top
        lo = addr - self.base
        self.buf[lo:lo + n] = bytes(n)
        return addr

    def write(self, addr, data):
        lo = addr - self.base
        if 0 <= lo and lo + len(data) <= self.top:
            self.buf[lo:lo + len(data)] = data
            return
        self.m.write(addr, data)
        a, b = max(lo, self.top), min(lo + len(data), len(self.buf))
        if a < b:                    # the memory read ahead, not a block yet, holds it too
            self.buf[a:b] = data[a - lo:b - lo]

    def write_u32(self, addr, v):
        lo = addr - self.base
        if 0 <= lo and lo + 4 <= self.top:
            _U32.pack_into(self.buf, lo, v & 0xFFFFFFFF)
        else:
            self.write(addr, (v & 0xFFFFFFFF).to_bytes(4, "little"))

    def write_u16(self, addr, v):
        lo = addr - self.base
        if 0 <= lo and lo + 2 <= self.top:
            _U16.pack_into(self.buf, lo, v & 0xFFFF)
        else:
            self.write(addr, (v & 0xFFFF).to_bytes(2, "little"))

    def commit(self):
        if self.top:
            self.m.write(self.base, bytes(self.buf[:self.top]))
        self.buf = bytearray()
        self.base = self.heap.ptr
        self.top = 0


def is_pow2(x):
    return x > 0 and not x & (x - 1)


def memalign(a0, a1):
    """(size, alignment) for ccMemalign(a0, a1): executable-abi.md §6 reads a0 as the size, but the
    order may be (align, size), so the stub takes max(a0, a1) bytes aligned to the argument that is
    a power of two. DECISION: when both are, the smaller is the alignment; alignment is at least 16
    (the bump allocator's) and at most 4096 (a larger power of two is taken as a size)."""
    cands = [x for x in (a0, a1) if is_pow2(x) and x <= 4096]
    align = max(16, min(cands)) if cands else 16
    return max(a0, a1), align


def install(machine, heap, symbols):
    """Hook every stub by its symbol's address; `symbols` maps name -> address (all present).
    Every allocator call is logged in heap.log with its arguments, caller and result. The
    allocators are bump hooks: the native engine serves them without entering Python, as the
    hook here would (the size rule is the hook's argn, or memalign's), and tells the heap."""
    def allocator(name, argn):
        def hook(m):
            args = tuple(m.args(2 if argn is None else argn + 1))
            if argn is None:
                size, align = memalign(*args)
            else:
                size, align = args[argn], 16
            addr = heap.alloc(size, who=name, align=align)
            ra = m.R[31] & 0xFFFFFFFF if hasattr(m, "R") else 0
            heap.log.append((name, args, ra, addr))
            return addr
        return hook

    for name, argn in ALLOCATORS.items():
        heap.stub_names[symbols[name]] = name
        machine.hooks.add("bump", allocator(name, argn), symbols[name], heap=heap,
                          size="memalign" if argn is None else argn)
    def free(name):
        def hook(m):
            heap.frees.append((name, m.args(1)[0]))
            return 0
        return hook

    for name in FREES:
        machine.hooks.add("address", free(name), symbols[name])

    def open_data(m):
        this, data = m.args(2)
        m.write_u32(this + mm.READER_PTR, data)
        m.write_u32(this + mm.READER_END, mm.HEAP_END)
        return 0
    machine.hooks.add("address", open_data, symbols[OPEN_DATA])
