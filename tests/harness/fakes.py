"""A memory-only stand-in for eemu_ext.Machine: enough of interfaces.md §1 for harness unit tests."""
import struct


class FakeImage:
    def __init__(self, symbols, path="fake.elf"):
        self.symbols, self.path, self.entry, self.gp = symbols, path, 0, 0


class FakeHooks(dict):
    """eemu_ext.core.hooks.Hooks's address hooks: add("address", fn, addr), remove(addr); address -> fn.
    A bump hook is its Python allocator, an address hook (the fake machine serves nothing itself)."""

    def add(self, kind, fn, addr, heap=None, size=None):
        assert kind in ("address", "bump"), f"the fake machine has address and bump hooks only, not {kind!r}"
        assert (heap is None and size is None) == (kind == "address")
        self[addr] = fn

    def remove(self, addr):
        self.pop(addr, None)


class FakeMemory(dict):
    """Bytes by address, and the dirty-page map a call's ABI check reads (harness/driver/abi.py)."""

    def __init__(self):
        super().__init__()
        self.dirty = bytearray(0x02000000 >> 12)


class FakeMachine:
    """No code runs here: a call is not made, so it returns the registers as the protocol set them."""

    def __init__(self, symbols=None):
        self.mem = FakeMemory()
        self.hooks = FakeHooks()
        self.symbols = symbols or {}
        self.steps = 0
        self._args = [0] * 8

    def load_elf(self, path, syms=None, overlay=None):
        return FakeImage(self.symbols, path)

    def snapshot(self, skip=()):
        return None

    def returned_gprs(self):
        R = [0] * 32
        R[29], R[31] = 0x01FFF000, 0xFFFFFFFFFFFFFFF0
        return R

    def args(self, n):
        return self._args[:n]

    def call_hook(self, addr, *args):
        self._args = list(args) + [0] * (8 - len(args))
        return self.hooks[addr](self)

    def write(self, addr, data):
        for i, b in enumerate(data):
            self.mem[addr + i] = b

    def read(self, addr, n):
        return bytes(self.mem.get(addr + i, 0) for i in range(n))

    def read_u8(self, a):
        return self.read(a, 1)[0]

    def read_u16(self, a):
        return struct.unpack("<H", self.read(a, 2))[0]

    def read_u32(self, a):
        return struct.unpack("<I", self.read(a, 4))[0]

    def write_u8(self, a, v):
        self.write(a, bytes([v & 0xFF]))

    def write_u16(self, a, v):
        self.write(a, struct.pack("<H", v & 0xFFFF))

    def write_u32(self, a, v):
        self.write(a, struct.pack("<I", v & 0xFFFFFFFF))
