"""driver: the checks.md §8 memory layout and helper procedures (load, new_anm, work, step,
playback, forward, modify) on eemu_ext's Machine, written here so the stand-in's tests depend on
the machine alone (not on the harness)."""
from __future__ import annotations

import struct

from eemu_ext import Machine

SYS, RB, CHUNK, DATAPTR, NUM = 0x01000000, 0x01000400, 0x01000800, 0x01000840, 0x01000844
NOTE_FUNC, TBL, ANM, STREAM, IDX = 0x01000900, 0x01001000, 0x01003000, 0x01003400, 0x01004000
MORPH_PARAM, SCRATCH, DATA_BUF, HEAP, HEAP_END = 0x01008000, 0x01010000, 0x01100000, 0x01200000, 0x01F00000

CONV = "ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs"
INIT = "InitAnmCtrlWork__5ccAnmFP9ccAnmCtrlP10ccAnmIndex"
RESET = "ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork"
SET = "SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki"
FORWARD = "_AnimateForward__5ccAnmFUi"
NOTES = "NoteProcess__5ccAnmFv"
MODIFY = "Modify__9ccMorpherFP16ccDrawModelParam"


class Driver:
    def __init__(self, elf, float_model="hw"):
        self.m = Machine(float_model=float_model)
        self.img = self.m.load_elf(elf)
        self.heap = HEAP
        self.steps = {}          # function -> instructions of its last call
        self.allocs = []
        self.frees = 0
        m = self.m
        for name in ("ccMalloc__FUi", "__nw__FUi", "ccMemalign__FUiUi"):
            m.hooks.add("address", lambda mm, name=name: self.alloc(mm.args(1)[0], name), m.symbol(name))
        m.hooks.add("address", lambda mm: self.alloc(mm.args(2)[1], "GetWork"), m.symbol("GetWork__16ccDrawPacketCtrlFi"))
        for name in ("ccFree__FPv", "__dl__FPv"):
            m.hooks.add("address", self._free, m.symbol(name))
        m.hooks.add("address", self._open, m.symbol("OpenData__14ccRingBufferThFPv"))
        self.delivered = []
        m.hooks.add("address", self._note, NOTE_FUNC)
        m.write_u32(m.symbol("ccSys"), SYS)
        m.write_u32(SYS + 0x25C, SCRATCH)

    # stubs (executable-abi.md §6)
    def alloc(self, n, who="test"):
        addr = self.heap
        size = (n + 15) & ~15
        assert addr + size <= HEAP_END, "heap exhausted"
        self.m.write(addr, bytes(n))
        self.heap += size
        self.allocs.append((who, n))
        return addr

    def _free(self, m):
        self.frees += 1
        return 0

    def _open(self, m):
        this, data = m.args(2)
        m.write_u32(this + 0x24, data)
        m.write_u32(this + 0x28, HEAP_END)
        return 0

    def _note(self, m):
        (note,) = m.args(1)
        r = m.read_u32
        self.delivered.append((r(note + 4), r(note + 8), r(note + 12), r(note + 16), r(note + 20)))
        return 0

    def call(self, name, *args):
        v = self.m.call(self.m.symbol(name), *args, limit=500_000_000)
        self.steps[name] = self.m.steps
        return v

    def u32(self, a):
        return self.m.read_u32(a)

    def words(self, a, n):
        return list(struct.unpack(f"<{n}I", self.m.read(a, 4 * n)))

    # checks.md §8.3
    def load(self, chunk: bytes):
        self.heap = HEAP
        n, w = struct.unpack_from("<II", chunk, 12)
        m = self.m
        m.write(DATA_BUF, chunk[20:20 + 4 * w])
        m.write(RB, bytes(64))
        m.write_u32(RB + 0x24, DATA_BUF)
        m.write_u32(RB + 0x28, HEAP_END)
        m.write(CHUNK, bytes(48))
        out = self.alloc(4 * w + 64, "load")
        m.write_u32(CHUNK + 0x10, n)
        m.write_u32(CHUNK + 0x14, w)
        m.write_u32(CHUNK + 0x18, out)
        m.write_u32(CHUNK + 0x24, 0x80000000)
        m.write_u32(DATAPTR, out)
        m.write_u32(NUM, 0)
        self.call(CONV, CHUNK, RB, DATAPTR, TBL, NUM, 0)
        return [((self.u32(TBL + 8 * i) - 1) >> 2, self.u32(TBL + 8 * i + 4)) for i in range(self.u32(NUM))]

    def kind(self, ctrl):
        return self.m.read_u16(ctrl)

    def new_anm(self, speed=256):
        self.m.write(ANM, bytes(0x110))
        self.m.write_u16(ANM + 0x9C, speed)

    def work(self, ctrl, index=None):
        coord = self.alloc(0x100, "coord")
        if index is None:
            index = self.alloc(16, "index")
            self.m.write_u32(index + 4, coord)
            self.m.write_u16(index + 8, 0x100)
        self.call(INIT, ANM, ctrl, index)
        return self.u32(ANM + 0x104), coord

    def step(self, work, dt):
        self.call(SET, ANM, work, dt)
        w = self.words(SCRATCH, 0x35)
        return {"pos": w[0:3], "scale": [w[20], w[25], w[30]], "scale16": w[20:36], "rot": w[36:52], "alpha": w[52]}

    def playback(self, table, names, speed=256):
        self.new_anm(speed)
        m = self.m
        m.write(STREAM, bytes(0x200))
        inst = {}
        for i, (obj, ctrl) in enumerate(table):
            index = IDX + 12 * i
            m.write(index, bytes(12))
            m.write_u8(index + 10, 1)
            name = names.get(obj, "")
            if ctrl and self.kind(ctrl) == 0x0102:
                _, coord = self.work(ctrl, index)
                m.write_u32(index + 4, coord)
                m.write_u16(index + 8, 0x100)
                inst[coord] = obj
            elif name.startswith(("MPH_", "MDL_", "OBJ_")):
                blk = self.alloc({"MPH_": 0x94, "MDL_": 0x40}.get(name[:4], 0x100), name)
                m.write_u32(index + 4, blk)
                if name.startswith("OBJ_"):
                    m.write_u16(index + 8, 0x100)
                inst[blk] = obj
        m.write_u32(ANM + 0x94, CHUNK)
        m.write_u32(ANM + 0xAC, IDX)
        m.write_u32(ANM + 0xF8, STREAM)
        self.call("OpenData__14ccRingBufferThFPv", ANM + 0xB0, self.u32(CHUNK + 0x18))
        return inst

    def forward(self, dt):
        ret = self.call(FORWARD, ANM, dt)
        return (self.u32(ANM + 0x98) << 8) | self.m.read_u16(ANM + 0x9E), ret

    def note_process(self):
        self.delivered = []
        self.m.write_u32(ANM + 0xA4, NOTE_FUNC)
        self.call(NOTES, ANM)
        return self.delivered

    def modify(self, base, base_scale, targets, in_place=False):
        """targets: (positions, scale bits, weight bits); returns the blended s16 triples."""
        self.heap = HEAP
        m = self.m
        mph = self.alloc(0x94, "mph")
        m.write_u16(mph + 0x10, len(targets))
        n = len(base)
        for i, (pos, scale, weight) in enumerate(targets):
            model, index, chunk, mmat = (self.alloc(s) for s in (0x40, 0x40, 0x60, 0x40))
            vd = self.alloc(6 * n + 8)
            m.write(vd, b"".join(struct.pack("<3h", *p) for p in pos))
            m.write_u32(model, index); m.write_u32(index + 0x2C, chunk); m.write_u32(chunk + 0x40, scale)
            m.write_u32(model + 8, mmat); m.write_u32(model + 0xC, scale); m.write_u16(model + 0x22, 1)
            m.write_u32(mmat + 4, n); m.write_u32(mmat + 0x10, vd)
            m.write_u32(mph + 0x14 + 8 * i, model); m.write_u32(mph + 0x18 + 8 * i, weight)
        bd = self.alloc(6 * n + 8)
        m.write(bd, b"".join(struct.pack("<3h", *p) for p in base))
        layer = self.alloc(0x40)
        m.write(MORPH_PARAM, bytes(0x1A0))
        m.write_u32(MORPH_PARAM + 0x15C, layer)
        m.write_u32(MORPH_PARAM + 0x16C, base_scale)
        m.write_u32(MORPH_PARAM + 0x180, n)
        m.write_u32(MORPH_PARAM + 0x184, bd)
        m.write_u16(MORPH_PARAM + 0x176, 1 if in_place else 0)
        self.call(MODIFY, mph, MORPH_PARAM)
        out = self.u32(MORPH_PARAM + 0x184)
        return [struct.unpack_from("<3h", m.read(out + 6 * i, 6)) for i in range(n)], out, bd
