"""The stubs of executable-abi.md §6: bump allocator, frees, OpenData and GetWork, hooked by address."""
from . import memory_map as mm
from .errors import HeapExhausted

# mangled symbol -> (what the stub does, which argument is the size)
ALLOCATORS = {
    "ccMalloc__FUi": 0,          # a0 = size
    "__nw__FUi": 0,              # a0 = size
    "ccMemalign__FUiUi": 0,      # a0 = size (executable-abi.md §6: the other argument is ignored)
    "GetWork__16ccDrawPacketCtrlFi": 1,   # a1 = size (a0 is this)
}
FREES = ("ccFree__FPv", "__dl__FPv")
OPEN_DATA = "OpenData__14ccRingBufferThFPv"
STUB_SYMBOLS = tuple(ALLOCATORS) + FREES + (OPEN_DATA,)


class Heap:
    """Bump allocator over [HEAP, HEAP_END): 16-aligned, zero-filled blocks."""

    def __init__(self, machine, start=mm.HEAP, end=mm.HEAP_END):
        self.m, self.start, self.end = machine, start, end
        self.ptr = start
        self.high_water = start

    def reset(self):
        self.ptr = self.start

    def alloc(self, n, who="harness"):
        n &= 0xFFFFFFFF
        size = (n + 15) & ~15
        addr = self.ptr
        if addr + size > self.end:
            raise HeapExhausted(
                f"heap exhausted: {who} asked for {n} bytes at heap pointer 0x{addr:08X} "
                f"(HEAP_END 0x{self.end:08X})")
        if n:
            self.m.write(addr, bytes(n))
        self.ptr = addr + size
        self.high_water = max(self.high_water, self.ptr)
        return addr


def install(machine, heap, symbols):
    """Hook every stub by its symbol's address; `symbols` maps name -> address (all present)."""
    def allocator(name, argn):
        def hook(m):
            return heap.alloc(m.args(argn + 1)[argn], who=name)
        return hook

    for name, argn in ALLOCATORS.items():
        machine.hook(symbols[name], allocator(name, argn))
    for name in FREES:
        machine.hook(symbols[name], lambda m: 0)

    def open_data(m):
        this, data = m.args(2)
        m.write_u32(this + mm.READER_PTR, data)
        m.write_u32(this + mm.READER_END, mm.HEAP_END)
        return 0
    machine.hook(symbols[OPEN_DATA], open_data)
