"""Game: drives the executable's ccAnm functions in one Machine (checks.md §8.3 procedures)."""
from __future__ import annotations

import struct
import time
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from eemu_ext import CallIO
from harness.driver import abi
from harness.driver import budgets as bud
from harness.driver import memory_map as mm
from harness.driver import stubs
from harness.driver import volumes
from harness import EXPLAINED, HarnessError

# The functions the harness calls (executable-abi.md §4) with the spec's step budgets (the ceiling;
# the budgets used are derived from measured need, harness/driver/budgets.py).
CONV = "ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs"
INIT_WORK = "InitAnmCtrlWork__5ccAnmFP9ccAnmCtrlP10ccAnmIndex"
RESET_WORK = "ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork"
SET_WORK = "SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki"
FORWARD = "_AnimateForward__5ccAnmFUi"
NOTE_PROCESS = "NoteProcess__5ccAnmFv"
MODIFY = "Modify__9ccMorpherFP16ccDrawModelParam"
CCSYS = "ccSys"
BUDGET = {CONV: 2_000_000_000, INIT_WORK: 5_000_000, RESET_WORK: 5_000_000,
          SET_WORK: 200_000_000, FORWARD: 500_000_000, NOTE_PROCESS: 5_000_000,
          MODIFY: 500_000_000}
SHORT = {CONV: "ConvLCNum2ALCNum", INIT_WORK: "InitAnmCtrlWork", RESET_WORK: "ResetAnmCtrlWork",
         SET_WORK: "SetAnmCtrlWork", FORWARD: "_AnimateForward", NOTE_PROCESS: "NoteProcess",
         MODIFY: "Modify"}
REQUIRED = tuple(BUDGET) + stubs.STUB_SYMBOLS + (CCSYS,)
FRAME_SPD_MAX = 0xFFFF


def derived_budgets(overrides=None):
    """Mangled name -> steps: MARGIN x the stand-in's measured largest count (harness/driver/budgets.py),
    never above the spec's budget; `overrides` ({short or mangled name: steps}) win."""
    out = {}
    for name, spec in BUDGET.items():
        try:
            out[name] = min(spec, bud.budget(SHORT[name]))
        except KeyError:
            out[name] = spec
    by_short = {v: k for k, v in SHORT.items()}
    for k, v in (overrides or {}).items():
        name = by_short.get(k, k)
        if name not in BUDGET:
            raise HarnessError(f"budget override {k!r}: not a function the harness calls "
                               f"({', '.join(SHORT.values())})")
        out[name] = int(v)
    return out


def lowest_segment(img):
    """The lowest address a PT_LOAD segment of the image occupies (the data floor), or 0."""
    segs = [v for v, data in getattr(img, "segments", ()) if data]
    return min(segs) if segs else 0


@dataclass
class Entry:
    """One ccAnmIndexCntTbl entry after load: object index and compiled controller address."""
    position: int
    object: int
    ctrl: int
    kind: Optional[int]      # the ctrl's u16 kind, None when ctrl == 0


@dataclass
class Scratch:
    """The object-record results SetAnmCtrlWork leaves in the scratch area (executable-abi.md §5.6)."""
    pos: Tuple[int, int, int]
    scale: Tuple[int, int, int]          # words 0, 5, 10 of the scale matrix
    rot: Tuple[int, ...]                  # all 16 words, column-major
    alpha: int

    @property
    def rot9(self):
        """The 3x3 rotation words in interfaces.md §3 order: word 4*col+row for col, row in 0..2."""
        return tuple(self.rot[4 * c + r] for c in range(3) for r in range(3))

    def words(self):
        return self.pos + self.scale + self.rot + (self.alpha,)


def load_machine(image, float_model="hw", coverage=False, syms=None, overlay=None):
    """A fresh Machine with `image` loaded (imported lazily so the harness imports without eemu_ext);
    coverage: count executions per instruction and branch direction (m.code_coverage); syms, overlay:
    the symbol sidecar and the resident overlay (harness/executable.py)."""
    from eemu_ext import Machine
    m = Machine(float_model=float_model, coverage=coverage)
    img = m.load_elf(image, syms=syms, overlay=overlay)
    # any data access below the executable's lowest segment faults, naming pc and symbol
    m.data_floor = lowest_segment(img)
    return m, img


# the loads and stores (and addiu) whose 16-bit offset may address a global: lb lh lwl lw lbu lhu
# lwr lwu sb sh swl sw swr lq sq ld sd lwc1 swc1 addiu
_ADDRESSING = frozenset((0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2E,
                         0x1E, 0x1F, 0x37, 0x3F, 0x31, 0x39, 0x09))


def addressed(m, img, addr) -> bool:
    """Whether an instruction of the image's code addresses `addr`: gp-relative (base gp), or by a
    `lui` of its upper half into the base register within the 64 instructions before.
    DECISION: a sidecar's ccSys is trusted only when the code uses it so; the symbol table's is."""
    hi16 = ((addr + 0x8000) >> 16) & 0xFFFF
    off = addr - (img.gp or 0)
    gp_rel = off & 0xFFFF if img.gp and -0x8000 <= off < 0x8000 else None
    for c_lo, c_hi in getattr(img, "code", ()):
        code = m.read(c_lo, c_hi - c_lo)
        for imm in {addr & 0xFFFF, gp_rel} - {None}:
            needle = struct.pack("<H", imm)
            i = code.find(needle)
            while i >= 0:
                w = struct.unpack_from("<I", code, i)[0] if i % 4 == 0 else 0
                base = (w >> 21) & 31
                if i % 4 == 0 and w >> 26 in _ADDRESSING:
                    if base == 28 and imm == gp_rel:
                        return True
                    if imm == addr & 0xFFFF and any(
                            u >> 26 == 0x0F and (u >> 16) & 31 == base and u & 0xFFFF == hi16
                            for u in struct.unpack_from(f"<{min(64, i // 4)}I", code, i - 4 * min(64, i // 4))):
                        return True
                i = code.find(needle, i + 1)
    return False


def symbols_of(img, required, path, what, where) -> Dict[str, int]:
    """{name: address} of every `required` symbol of a loaded image; a HarnessError naming the
    file and each missing one (`what` missing, `where` in the spec) when any is absent."""
    symbols = getattr(img, "symbols", {})
    missing = [s for s in required if s not in symbols]
    if missing:
        raise HarnessError(f"{path}: {what} missing: {', '.join(missing)} ({where})")
    return {name: symbols[name] for name in required}


_POISON_FILL = struct.pack(f"<{mm.SCRATCH_BYTES // 4}I", *[mm.POISON] * (mm.SCRATCH_BYTES // 4))
# step_times' CallIO ops, the same for every track: the scratch poisoned after each reset and its
# words gathered after each step. DECISION: made once and copied into each track's CallIO (its
# `ops`), so the 53 addresses are checked here once, not for every track's batch (CallIO.gather
# checks each address in Python: ~30 us a batch)
_STEP_OPS = CallIO(period=2)
_STEP_OPS.write(0, mm.SCRATCH, _POISON_FILL)
_STEP_OPS.gather(1, [mm.SCRATCH + 4 * k for k in range(mm.SCRATCH_BYTES // 4)])


class Game:
    """One loaded executable with the stubs installed and ccSys wired to the harness's SYS."""

    def __init__(self, image, float_model="hw", machine=None, budgets=None, unbounded=False,
                 coverage=False, syms=None, overlay=None, load_once=True, confirm=()):
        """budgets: {function: steps} overrides of the derived budgets; unbounded: the spec's
        budgets of executable-abi.md §4 (for measuring need); coverage: Machine(coverage=True);
        confirm: sidecar names confirmed though carried by an untrusted pass (harness/executable.py)."""
        self.image_path = str(image)
        self.float_model = float_model
        self.machine_args = {"syms": syms, "overlay": overlay}
        if machine is None:
            self.m, self.img = load_machine(image, float_model, coverage, syms, overlay)
        else:
            self.m, self.img = machine, machine.load_elf(image, syms=syms, overlay=overlay)
        self.img.gp = volumes.gp_of(self.img)   # a stripped volume without .reginfo: its row's gp
        reach = mm.harness_overlap(getattr(self.img, "segments", ()))
        if reach is not None:
            raise HarnessError(f"{self.image_path}: a loaded segment 0x{reach[0]:08x}-0x{reach[1]:08x} overlaps the "
                               f"harness's memory 0x{mm.HARNESS_LOW:08x}-0x{mm.HARNESS_HIGH:08x} "
                               f"(executable-abi.md §1.3, checks.md §8.1)")
        self.sym = symbols_of(self.img, REQUIRED, self.image_path, "required symbols", "executable-abi.md §4, §6")
        from harness.executable import refuse_carried
        refuse_carried(self.img, REQUIRED, confirm)
        self.confirm = confirm
        self.short = dict(SHORT)             # function -> the name its time and steps are kept under
        lay = getattr(self.img, "layout", None)
        if lay is not None and lay.source.get(CCSYS) == "sidecar" and not addressed(self.m, self.img, self.sym[CCSYS]):
            raise HarnessError(f"{lay.origin(CCSYS)}: ccSys at 0x{self.sym[CCSYS]:08x}: no instruction of the game's "
                               f"code addresses it (gp-relative or by lui and offset); the harness wires its "
                               f"ccSys there (executable-abi.md §1.3, §5.6), so the sidecar's address is wrong")
        self.heap = stubs.Heap(self.m)
        stubs.install(self.m, self.heap, self.sym)
        self.notes: List[tuple] = []
        self.inst: Dict[int, int] = {}
        self.m.hooks.add("address", self._note_hook, mm.NOTE_FUNC)
        self._wire_sys()
        self.abi = abi.Contract(self.m, self.img)     # checked after every call (harness/driver/abi.py)
        self.calls = 0
        self.steps = 0
        self.cpu = Counter()       # seconds in the machine per game function (perf_counter, see call)
        self.budget = dict(BUDGET) if unbounded else derived_budgets(budgets)
        self.max_steps = Counter()  # largest steps of one call per function (short name)
        self.note_calls: List[tuple] = []    # a0-a3 of every note-hook call (reset by note_process)
        self.note_flags: List[str] = []      # note-hook calls whose a0 does not point into the heap
        self.out_buffer = (0, 0)             # (start, end) of the last load's output buffer
        self.out_high = 0                    # bytes of it the cursor reached (the high-water mark)
        self._plain = set()                  # playback's zeroed instance blocks
        self.object_hooks = None             # the anm objects' hooks, once installed (driver/objects.py)
        # Load once per chunk: the state ConvLCNum2ALCNum left, restored before every
        # further check and speed of the same chunk. reload: load afresh each time and require the
        # fresh state to equal the restored one byte for byte (the shortcut checks itself).
        # load_once=False turns the shortcut off (make bench measures against it)
        self.load_once = load_once
        self.reload = False
        self._loaded = None                  # (chunk bytes, machine snapshot, harness-side state)
        self.loads = Counter()               # "fresh", "restored", "reloaded" (verified)

    # -- low level ---------------------------------------------------------------------------
    def _wire_sys(self):
        m = self.m
        m.write(mm.SYS, bytes(mm.SYS_SIZE))
        # ccSys lives on a page the executable's code shares: a store there, even of the word it
        # holds, leaves the page written, so that the next snapshot restore rewrites it and the
        # engines translate the code afresh. The pointer is written only when it is not SYS
        # already: the memory is the same either way.
        if m.read_u32(self.sym[CCSYS]) != mm.SYS:
            m.write_u32(self.sym[CCSYS], mm.SYS)
        m.write_u32(mm.SYS + mm.SYS_SCRATCH_PTR, mm.SCRATCH)

    def call(self, name, *args):
        # DECISION: a call's machine time is read with perf_counter, the wall clock of the call:
        # in a single-threaded worker it is the call's CPU time unless the worker is preempted.
        # process_time is a system call (2.3 us here), 14% of the note check's CPU at two per call.
        self.calls += 1
        c0 = time.perf_counter()
        try:
            self.abi.before()
            v0 = self.m.call(self.sym[name], *args, limit=self.budget[name])
            self.abi.check(SHORT.get(name, name))
            return v0
        finally:
            n = getattr(self.m, "steps", 0) or 0
            self.steps += n
            short = self.short.get(name, name)
            if n > self.max_steps[short]:
                self.max_steps[short] = n
            self.cpu[short] += time.perf_counter() - c0

    def call_each(self, name, arglists, after=None, io=None):
        """call(name, *args) for each args of arglists, in order, as the machine's call_each (the
        native engine keeps its state in C between them); returns the v0s. name may be a list
        (one function per call); after(i) runs after the i-th call (Machine.call_each), or io (a
        machine CallIO) does its memory ops between the calls. Every call's ABI check runs after
        it either way: with io, the CallIO's guard is the check's fast test (the registers and
        pages it looks at), and the check itself runs for any call that does not pass it. A batch
        with neither after nor io gets an empty CallIO, its guard the check's fast test: the
        native engine makes the whole batch in C."""
        if not arglists:
            return []
        if io is None and after is None:
            io = CallIO()
        names = name if isinstance(name, (list, tuple)) else None
        self.calls += len(arglists)
        self.abi.before()

        def check(i):
            self.abi.check(SHORT.get(names[i] if names else name, names[i] if names else name))

        def each(i):
            check(i)
            if after is not None:
                after(i)
        if io is not None:
            io.guard(dict(self.abi.expect), self.abi.clean_runs(), check)
        how = {"io": io} if io is not None else {"after": each}
        c0 = time.perf_counter()
        out = []
        try:
            if names is None:
                out = self.m.call_each(self.sym[name], arglists, limit=self.budget[name], **how)
            else:
                out = self.m.call_each([self.sym[n] for n in names], arglists,
                                       limit=[self.budget[n] for n in names], **how)
        finally:
            spent = time.perf_counter() - c0
            steps = [n for _, n in out]
            if names is None:
                self.cpu[self.short.get(name, name)] += spent
                per = {name: (sum(steps), max(steps, default=0))}
            else:
                per = batch_steps(names, steps)
                # DECISION: a mixed batch's time is shared among its functions by their instructions
                total = sum(s for s, _ in per.values()) or 1
                if out:
                    for n_, (s, _) in per.items():
                        self.cpu[self.short.get(n_, n_)] += spent * s / total
        for n_, (s, top) in per.items():
            short = self.short.get(n_, n_)
            self.steps += s
            if top > self.max_steps[short]:
                self.max_steps[short] = top
        return [v0 for v0, _ in out]

    def zero(self, addr, n):
        self.m.write(addr, bytes(n))

    def u32(self, addr):
        return self.m.read_u32(addr)

    def words(self, addr, n):
        return struct.unpack(f"<{n}I", self.m.read(addr, 4 * n))

    # -- load / new_anm / work / step (checks.md §8.3) ----------------------------------------
    def load(self, chunk: bytes) -> List[Entry]:
        """Compile a chunk with ConvLCNum2ALCNum; return the table entries in table order.

        The same chunk loaded again is the snapshot of its first load, restored (``load_once``);
        with ``reload`` it is loaded afresh from that state and the two must agree exactly."""
        got = self._loaded
        if not self.load_once or got is None or got[0] != chunk:
            entries = self._load(chunk)
            if self.load_once:
                # DECISION: the executable's code is not part of the snapshot: a patch the
                # harness (or a test) makes to it after the first load stays, as it would
                # under a fresh load; only the state the load and the checks wrote is restored.
                self._loaded = (bytes(chunk), self.m.snapshot(skip=self.img.code), self._load_state())
            self.loads["fresh"] += 1
            return entries
        _, snap, state = got
        self.m.restore(snap)
        self._set_load_state(state)
        if not self.reload:
            self.loads["restored"] += 1
            return list(self.entries)
        self._load(chunk)
        self._verify_reload(snap, state)
        self.loads["reloaded"] += 1
        return list(self.entries)

    def _load_state(self):
        h = self.heap
        return (h.ptr, h.high_water, list(h.log), self.out_buffer, self.out_high, list(self.entries))

    def _set_load_state(self, state):
        h = self.heap
        h.ptr, h.high_water, log, self.out_buffer, self.out_high, entries = state
        h.log, self.entries = list(log), list(entries)

    def _verify_reload(self, snap, state):
        """The fresh load's memory and harness state against the restored snapshot."""
        diff = self.m.differences(snap)
        if diff:
            where = ", ".join(f"0x{a:08x} fresh 0x{now:02x} restored 0x{then:02x}" for a, now, then in diff[:4])
            raise HarnessError(
                f"load once: a fresh {SHORT[CONV]} of this chunk left memory different from the "
                f"restored state of its first load at {where}"
                f"{' ...' if len(diff) > 4 else ''} (run without --reload trusts the restored state)")
        now = self._load_state()
        if now != state:
            names = ("heap pointer", "heap high-water mark", "allocator log", "output buffer",
                     "output cursor high-water mark", "table entries")
            bad = [n for n, a, b in zip(names, now, state) if a != b]
            raise HarnessError(f"load once: a fresh {SHORT[CONV]} of this chunk left a different "
                               f"{', '.join(bad)} than its first load")

    def _load(self, chunk: bytes) -> List[Entry]:
        m = self.m
        self.prepare_chunk(chunk)
        self.call(CONV, mm.CHUNK, mm.RB, mm.DATAPTR, mm.TBL, mm.NUM, 0)
        self.check_output_buffer()
        count = self.u32(mm.NUM)
        if count > min(mm.TBL_MAX_ENTRIES, mm.IDX_MAX_ENTRIES):
            raise HarnessError(f"ConvLCNum2ALCNum reported {count} table entries; the harness "
                               f"layout holds {min(mm.TBL_MAX_ENTRIES, mm.IDX_MAX_ENTRIES)}")
        entries = []
        for i in range(count):
            lc, ctrl = self.words(mm.TBL + 8 * i, 2)
            kind = m.read_u16(ctrl) if ctrl else None
            entries.append(Entry(i, ((lc - 1) & 0xFFFFFFFF) >> 2, ctrl, kind))
        self.entries = entries
        return entries

    def prepare_chunk(self, chunk: bytes):
        """executable-abi.md §5.3: ccSys wired, the heap reset, the chunk's data words in DATA_BUF
        behind the reader, the ccAnmChunk zeroed with N, W, the 4W + 64-byte guarded output buffer
        and the +0x24 word set, and the cursor at the buffer (ConvLCNum2ALCNum's preconditions)."""
        m = self.m
        self._wire_sys()
        self.heap.reset()
        n_frames, w = struct.unpack_from("<II", chunk, 12)
        body = chunk[20:20 + 4 * w]
        if len(body) != 4 * w or 4 * w > mm.DATA_BUF_END - mm.DATA_BUF:
            raise HarnessError(f"chunk of {len(chunk)} bytes cannot hold W={w} data words "
                               f"(DATA_BUF holds {mm.DATA_BUF_END - mm.DATA_BUF} bytes)")
        m.write(mm.DATA_BUF, body)
        self.zero(mm.RB, mm.RB_SIZE)
        m.write_u32(mm.RB + mm.READER_PTR, mm.DATA_BUF)
        m.write_u32(mm.RB + mm.READER_END, mm.HEAP_END)
        self.zero(mm.CHUNK, mm.CHUNK_SIZE)
        size = 4 * w + mm.OUT_SPARE
        out = self.heap.alloc(size + 4 * mm.GUARD_WORDS, "load")
        m.write(out + size, struct.pack(f"<{mm.GUARD_WORDS}I", *[mm.GUARD] * mm.GUARD_WORDS))
        self.out_buffer = (out, out + size)
        m.write_u32(mm.CHUNK + mm.CHUNK_N, n_frames)
        m.write_u32(mm.CHUNK + mm.CHUNK_W, w)
        m.write_u32(mm.CHUNK + mm.CHUNK_OUT, out)
        m.write_u32(mm.CHUNK + mm.CHUNK_FLAG, 0x80000000)
        m.write_u32(mm.DATAPTR, out)
        m.write_u32(mm.NUM, 0)

    def check_output_buffer(self):
        """The guard words after the 4W + 64-byte output buffer are intact and the cursor stayed
        inside it; else a HarnessError naming the function, the buffer and the first bad word."""
        out, end = self.out_buffer
        cursor = self.u32(mm.DATAPTR)
        self.out_high = max(0, cursor - out)
        guards = self.words(end, mm.GUARD_WORDS)
        bad = [i for i, g in enumerate(guards) if g != mm.GUARD]
        if bad:
            i = bad[0]
            raise HarnessError(
                f"output-buffer overrun: {SHORT[CONV]} ({self.sym[CONV]:#010x}) wrote 0x{guards[i]:08x} "
                f"over guard word {i} at 0x{end + 4 * i:08x}, past the end of its "
                f"{end - out}-byte buffer 0x{out:08x}..0x{end:08x} (4W + 64, executable-abi.md §5.3)")
        if not out <= cursor <= end:
            raise HarnessError(
                f"output-buffer overrun: {SHORT[CONV]} left its cursor at 0x{cursor:08x}, outside its "
                f"{end - out}-byte buffer 0x{out:08x}..0x{end:08x} (4W + 64, executable-abi.md §5.3)")

    def poison_scratch(self):
        """Fill the scratch results with mm.POISON, so a word the game does not write shows up."""
        self.m.write(mm.SCRATCH, _POISON_FILL)

    def new_anm(self, speed=256):
        self.zero(mm.ANM, mm.ANM_SIZE)
        self.m.write_u16(mm.ANM + mm.ANM_FRAME_SPD, speed & 0xFFFF)

    def work(self, ctrl, index=None):
        """A work for one compiled controller; returns (work, coord)."""
        coord = self.heap.alloc(mm.COORD_SIZE, "work coord")
        if index is None:
            index = self.heap.alloc(16, "work index")
        self.m.write_u32(index + mm.INDEX_SUBST, coord)
        self.m.write_u16(index + mm.INDEX_KIND, mm.INDEX_KIND_OBJ)
        self.call(INIT_WORK, mm.ANM, ctrl, index)
        return self.u32(mm.ANM + mm.ANM_WORKS), coord

    def reset_work(self, work):
        self.call(RESET_WORK, mm.ANM, work)

    def set_work(self, work, dt):
        self.poison_scratch()
        self.call(SET_WORK, mm.ANM, work, dt & 0xFFFFFFFF)

    def scratch(self) -> Scratch:
        w = self.words(mm.SCRATCH, mm.SCRATCH_BYTES // 4)
        return Scratch(tuple(w[0:3]), (w[20], w[25], w[30]), tuple(w[36:52]), w[52])

    def step(self, work, dt) -> Scratch:
        self.set_work(work, dt)
        return self.scratch()

    def step_times(self, work, coord, times):
        """checks.md §2.1 step 4.4 at every time of `times`: ResetAnmCtrlWork, SetAnmCtrlWork(work, t),
        then the scratch results, all in one batch of machine calls whose work between the calls
        is described as data (a machine CallIO, which the native engine does in C): after each
        reset the scratch poisoned, as set_work does right before each step; after each step the
        scratch words and the coord's localtp gathered. Returns ((n, 53) uint32 words of scratch
        +0x00 .. +0xD0, the coord's localtp (n,) after each step)."""
        import numpy as np
        nw = mm.SCRATCH_BYTES // 4
        io = CallIO(period=2)
        io.ops = list(_STEP_OPS.ops)
        io.gather(1, [coord + mm.COORD_LOCALTP])      # after the scratch words: one row a step
        args = [a for t in times for a in ((mm.ANM, work), (mm.ANM, work, t & 0xFFFFFFFF))]
        self.call_each([RESET_WORK, SET_WORK] * len(times), args, io=io)
        got = io.gathered.reshape(len(times), nw + 1)
        return np.ascontiguousarray(got[:, :nw]), np.ascontiguousarray(got[:, nw])

    def set_work_each(self, work, deltas):
        """SetAnmCtrlWork(work, dt) for each dt in one batch (call_each); the scratch is poisoned
        once, before the first. DECISION: a word the last step does not write then holds an
        earlier step's value, not the poison; the single-time compare of that time sees the poison."""
        self.poison_scratch()
        self.call_each(SET_WORK, [(mm.ANM, work, dt & 0xFFFFFFFF) for dt in deltas])

    def material_work(self, ctrl, crop_u, crop_v):
        """checks.md §2.2 step 2-3: the five blocks wired, InitAnmCtrlWork; returns (work, material)."""
        a = self.heap.alloc
        mat, chunk, lst, arr, index = (a(mm.MATERIAL_BLOCK, "material") for _ in range(5))
        m = self.m
        m.write_u32(mat + mm.MATERIAL_CHUNK, chunk)
        m.write_u16(chunk + mm.MATCHUNK_CROP_U, crop_u)
        m.write_u16(chunk + mm.MATCHUNK_CROP_V, crop_v)
        m.write_u32(arr, mat)                                   # element 0: the ccMaterial
        m.write_u32(lst + mm.MODIFYMAT_ARRAY, arr)
        m.write_u16(lst + mm.MODIFYMAT_COUNT, 1)
        m.write_u32(index + mm.INDEX_SUBST, lst)
        self.call(INIT_WORK, mm.ANM, ctrl, index)
        return self.u32(mm.ANM + mm.ANM_WORKS), mat

    def light_work(self, ctrl):
        """A work for a compiled direct light on a fresh light block (docs/lights.md); returns
        (work, light)."""
        light = self.heap.alloc(mm.LIGHT_SIZE, "light")
        index = self.heap.alloc(16, "light index")
        self.m.write_u32(index + mm.INDEX_SUBST, light)
        self.m.write_u16(index + mm.INDEX_KIND, mm.INDEX_KIND_LIGHT)
        self.call(INIT_WORK, mm.ANM, ctrl, index)
        return self.u32(mm.ANM + mm.ANM_WORKS), light

    def light_times(self, work, light, times):
        """ResetAnmCtrlWork, SetAnmCtrlWork(work, t) at every time of `times`, the light's words
        poisoned before each step: ((n, 15) uint32 words of mm.LIGHT_WORDS after each). One batch
        of machine calls, the poison and the reads a CallIO (as step_times)."""
        lo, hi = mm.LIGHT_WORDS[0], mm.LIGHT_WORDS[-1] + 4
        fill = struct.pack(f"<{(hi - lo) // 4}I", *[mm.POISON] * ((hi - lo) // 4))
        io = CallIO(period=2)
        io.write(0, light + lo, fill)          # an absent channel's field must keep what it had
        io.gather(1, [light + off for off in mm.LIGHT_WORDS])
        args = [a for t in times for a in ((mm.ANM, work), (mm.ANM, work, t & 0xFFFFFFFF))]
        self.call_each([RESET_WORK, SET_WORK] * len(times), args, io=io)
        return io.gathered.reshape(len(times), len(mm.LIGHT_WORDS))

    def material_uv(self, mat):
        return self.m.read_u16(mat + mm.MATERIAL_U), self.m.read_u16(mat + mm.MATERIAL_V)

    # -- playback (checks.md §8.3) -----------------------------------------------------------
    def playback(self, entries, names, speed=256):
        """Set up playback; returns a Playback with coords per entry, morphers and models."""
        m = self.m
        self.new_anm(speed)
        self.zero(mm.STREAM, mm.STREAM_SIZE)
        pb = Playback()
        for e in entries:
            index = mm.IDX + mm.INDEX_SIZE * e.position
            self.zero(index, mm.INDEX_SIZE)
            m.write_u8(index + mm.INDEX_LIVE, 1)
            if e.ctrl and e.kind == mm.KIND_OBJECT:
                pb.works[e.position], pb.coords[e.position] = self.work(e.ctrl, index)
            elif is_morpher(e, names):
                addr = self.heap.alloc(mm.MORPHER_SIZE, "morpher")
                m.write_u32(index + mm.INDEX_SUBST, addr)
                pb.morphers[e.position] = addr
            elif is_model(e, names):
                addr = self.heap.alloc(mm.MODEL_SIZE, "model")
                m.write_u32(index + mm.INDEX_SUBST, addr)
                pb.models[addr] = e.object
            else:
                # every object the game may decode a record into (F_Ambient, F_Camera,
                # light, note and F_Obj instances) is a real block, never address 0
                addr = self.heap.alloc(mm.INSTANCE_SIZE, "instance")
                m.write_u32(index + mm.INDEX_SUBST, addr)
                pb.instances[e.position] = addr
        self._plain = set(pb.instances.values())
        m.write_u32(mm.ANM + mm.ANM_CHUNK, mm.CHUNK)
        m.write_u32(mm.ANM + mm.ANM_INDEX, mm.IDX)
        m.write_u32(mm.ANM + mm.ANM_STREAM, mm.STREAM)
        self.open_reader()
        return pb

    def open_reader(self):
        """Open the reader at ANM +0xB0 on the u32 at CHUNK +0x18 (as the OpenData stub does)."""
        reader = mm.ANM + mm.ANM_READER
        self.m.write_u32(reader + mm.READER_PTR, self.u32(mm.CHUNK + mm.CHUNK_OUT))
        self.m.write_u32(reader + mm.READER_END, mm.HEAP_END)

    def give_every_entry_an_instance(self, entries, size=0x100, kind=None):
        """checks.md §6.1 step 2 and §7.2: a block for every index entry whose subst is 0."""
        inst = {}
        for e in entries:
            index = mm.IDX + mm.INDEX_SIZE * e.position
            subst = self.u32(index + 4)
            fresh = subst == 0 or subst in self._plain     # no instance, or playback's plain block
            if subst == 0 or fresh and size > mm.INSTANCE_SIZE:
                subst = self.heap.alloc(size, "instance")
                self.m.write_u32(index + mm.INDEX_SUBST, subst)
            if fresh and kind is not None:
                self.m.write_u16(index + mm.INDEX_KIND, kind)
            inst.setdefault(subst, e.object)
        self.inst = inst
        return inst

    def time(self):
        m = self.m
        return ((m.read_u32(mm.ANM + mm.ANM_FRAME_NOW) << 8) | m.read_u16(mm.ANM + mm.ANM_FRAME_CNT)) & 0xFFFFFFFF

    def forward(self, dt):
        """_AnimateForward(ANM, dt) -> (time, return value).

        The spec says the caller passes the step; a seed says the function adds ccAnm::frameSpd.
        frameSpd := dt before each call makes both readings agree (the probe measures which holds).
        """
        dt &= 0xFFFFFFFF
        # DECISION: a step above frameSpd's u16 range writes 0xFFFF; the probe says not ready for
        # a game that adds frameSpd, so only a game that takes the step ever sees such steps.
        self.m.write_u16(mm.ANM + mm.ANM_FRAME_SPD, min(dt, FRAME_SPD_MAX))
        ret = self.call(FORWARD, mm.ANM, dt)
        return self.time(), ret

    def play(self, steps, gather=()):
        """_AnimateForward(ANM, s) for each step size s of `steps`, frameSpd written before each as
        forward() writes it, as one batch of machine calls (call_each: the ABI checked after each)
        whose work between the calls is described as data (a machine CallIO, which the native engine
        does in C): after each step the time words and the u32 words at the addresses of `gather`
        gathered, then frameSpd written for the next step. Returns ([(time, return value)] of the
        steps that returned, their words of `gather` ((len(forwards), len(gather)) uint32, a row per
        step), the exception that stopped the batch or None): a caller compares the steps that ran
        before it raises what stopped the game, as a step by step run would.

        DECISION: the CallIO's ops repeat with the shortest period of the steps' frameSpd words (1
        for n steps of one speed), so frameSpd is also written after the last step; nothing reads
        it (each check loads the chunk afresh)."""
        import numpy as np
        spd = [min(s & 0xFFFFFFFF, FRAME_SPD_MAX).to_bytes(2, "little") for s in steps]
        words = [mm.ANM + mm.ANM_FRAME_NOW, mm.ANM + mm.ANM_FRAME_SPD] + list(gather)
        if not steps:
            return [], np.zeros((0, len(words) - 2), dtype=np.uint32), None
        n = len(spd)
        io = CallIO(period=next(p for p in range(1, n + 1) if spd[p:] == spd[:n - p]))
        for ph in range(io.period):
            io.gather(ph, words)
            io.write(ph, mm.ANM + mm.ANM_FRAME_SPD, spd[(ph + 1) % io.period])
        self.m.write(mm.ANM + mm.ANM_FRAME_SPD, spd[0])
        stopped = None
        try:
            v0s = self.call_each(FORWARD, [(mm.ANM, s & 0xFFFFFFFF) for s in steps], io=io)
        except EXPLAINED as exc:           # the game stopped at step len(io.returned); a defect of ours raises
            v0s, stopped = io.returned, exc
        got = io.gathered[:len(v0s) * len(words)].reshape(len(v0s), len(words))
        return list(zip(anm_times(got[:, 0], got[:, 1]).tolist(), v0s)), got[:, 2:], stopped

    def restart(self):
        """checks.md §6.2 step 9: mimic a loop's reset (works reset, reader rewound, time 0)."""
        works = self.works()
        self.call_each(RESET_WORK, [(mm.ANM, w) for w in works])
        after = self.works()
        if after != works:
            # DECISION: the works are reset in one batch, so the list is walked before the resets;
            # an executable whose ResetAnmCtrlWork relinks the works (work +0) is named, not followed
            raise HarnessError(
                f"{SHORT[RESET_WORK]} changed the work list at anm +0x{mm.ANM_WORKS:X} (linked through "
                f"work +0): {len(works)} works before the resets, {len(after)} after "
                f"(first before 0x{(works or [0])[0]:08x}, after 0x{(after or [0])[0]:08x})")
        self.open_reader()
        self.m.write_u32(mm.ANM + mm.ANM_FRAME_NOW, 0)
        self.m.write_u16(mm.ANM + mm.ANM_FRAME_CNT, 0)

    def works(self):
        """The works of the list at anm +0x104, linked through work +0 (each once)."""
        work = self.u32(mm.ANM + mm.ANM_WORKS)
        seen, out = set(), []
        while work and work not in seen:
            seen.add(work)
            out.append(work)
            work = self.u32(work)
        return out

    def coord_matrix(self, coord):
        return self.words(coord + mm.COORD_MATRIX, 16)

    def _ram_u32(self):
        import numpy as np
        view = getattr(self, "_ram_np", None)
        if view is None:
            view = self._ram_np = np.frombuffer(self.m.ram_view(), dtype=np.uint32)
        return view

    def _word_index(self, addrs, offset, n):
        import numpy as np
        base = (np.asarray(addrs, dtype=np.int64).reshape(-1) & 0x1FFFFFFF) + offset
        return (base[:, None] + 4 * np.arange(n)) >> 2

    def morph_state(self, morpher, models):
        """[(target object or model address, weight bits)] read from a ccMorpher (checks.md §4.1)."""
        return morph_pairs([self.u32(a) for a in morpher_words(morpher)], models)

    # -- notes (checks.md §6.1) --------------------------------------------------------------
    def _note_hook(self, m):
        args = tuple(m.args(4))
        note = args[0]
        self.note_calls.append(args)
        if not self.heap.contains(note):
            self.note_flags.append(
                f"funcNoteProcess called with a0 = 0x{note:08x}, not a heap block (a1-a3 = "
                f"{', '.join(f'0x{a:08x}' for a in args[1:])})")
        event, param, time, coord = self.words(note + 4, 4)
        self.notes.append((event, param, time, self.inst.get(coord, -1)))
        return 0

    def enable_notes(self):
        self.m.write_u32(mm.ANM + mm.ANM_FUNC_NOTE, mm.NOTE_FUNC)

    def note_process(self):
        self.notes = []
        self.note_calls = []
        self.call(NOTE_PROCESS, mm.ANM)
        return list(self.notes)

    # -- modify (checks.md §8.3) -------------------------------------------------------------
    def modify(self, base, base_scale, targets, in_place=False):
        """ccMorpher::Modify on a base and (positions, scale bits, weight bits) targets."""
        m, a = self.m, self.heap.alloc
        self.heap.reset()
        if len(targets) > 16:
            raise HarnessError(f"Modify case with {len(targets)} targets; a 0x94 ccMorpher holds 16")
        mph = a(mm.MORPHER_SIZE, "modify morpher")
        m.write_u16(mph + mm.MORPHER_COUNT, len(targets))
        for i, (positions, scale, weight) in enumerate(targets):
            model, index = a(mm.MODEL_SIZE), a(mm.CHUNKINDEX_SIZE)
            chunk, mmat = a(mm.MODELCHUNK_SIZE), a(mm.MMAT_SIZE)
            vdata = a(6 * len(positions) + mm.VERTEX_PAD)
            m.write(vdata, pack_s16(positions))
            m.write_u32(model + mm.MODEL_INDEX, index)
            m.write_u32(index + mm.CHUNKINDEX_CHUNK, chunk)
            m.write_u32(chunk + mm.MODELCHUNK_SCALE, scale)
            m.write_u32(model + mm.MODEL_MMATS, mmat)
            m.write_u32(model + mm.MODEL_SCALE, scale)
            m.write_u16(model + mm.MODEL_MMAT_NUM, 1)
            m.write_u32(mmat + mm.MMAT_VERTEX_NUM, len(positions))
            m.write_u32(mmat + mm.MMAT_VERTICES, vdata)
            m.write_u32(mph + mm.MORPHER_PAIRS + 8 * i, model)
            m.write_u32(mph + mm.MORPHER_PAIRS + 4 + 8 * i, weight)
        n = len(base)
        block = a(6 * n + mm.VERTEX_PAD)
        m.write(block, pack_s16(base))
        layer = a(mm.LAYER_SIZE)
        p = mm.MORPH_PARAM
        self.zero(p, mm.MORPH_PARAM_SIZE)
        m.write_u32(p + mm.PARAM_LAYER, layer)
        m.write_u32(p + mm.PARAM_BASE_SCALE, base_scale)
        m.write_u32(p + mm.PARAM_VERTEX_NUM, n)
        m.write_u32(p + mm.PARAM_VERTICES, block)
        if in_place:
            m.write_u16(p + mm.PARAM_RWFLAG, 1)
        self.call(MODIFY, mph, p)
        out = self.u32(p + mm.PARAM_VERTICES)
        raw = struct.unpack(f"<{3 * n}h", m.read(out, 6 * n)) if n else ()
        return [tuple(raw[3 * i:3 * i + 3]) for i in range(n)]


def batch_steps(names, steps):
    """{function: (its calls' steps summed, the most steps of one call)} of a mixed batch, call i
    of function names[i] having run steps[i] (steps may be shorter: a batch that stopped). Names
    that repeat with a short period (ResetAnmCtrlWork, SetAnmCtrlWork, ...) are summed in slices."""
    names = list(names[:len(steps)])
    n = len(names)
    period = next((p for p in (1, 2, 3, 4) if names[p:] == names[:n - p]), None)
    per = {}
    if period is None:
        for name, s in zip(names, steps):
            got = per.get(name)
            per[name] = (s, s) if got is None else (got[0] + s, max(got[1], s))
        return per
    for ph in range(min(period, n)):
        part = steps[ph::period]
        got = per.get(names[ph])
        s, top = sum(part), max(part)
        per[names[ph]] = (s, top) if got is None else (got[0] + s, max(got[1], top))
    return per


def anm_times(now, spd_cnt):
    """The times (Game.time) of gathered anm words: the words at ANM_FRAME_NOW and at ANM_FRAME_SPD
    (frameCnt its upper half), as arrays."""
    import numpy as np
    now, spd_cnt = np.asarray(now, dtype=np.uint64), np.asarray(spd_cnt, dtype=np.uint64)
    return ((now << np.uint64(8)) | (spd_cnt >> np.uint64(16))) & np.uint64(0xFFFFFFFF)


MORPH_PAIRS_READ = 64       # the pairs a morph state reads at most (checks.md §4.1)


def is_morpher(e, names) -> bool:
    """Whether Game.playback gives entry `e` a ccMorpher: an MPH_ object without an object record's work."""
    return not (e.ctrl and e.kind == mm.KIND_OBJECT) and bool(names) and names.get(e.object, "").startswith("MPH_")


def is_model(e, names) -> bool:
    """Whether Game.playback gives entry `e` a ccModel (a morph target it names): an MDL_ object
    without an object record's work that is no morpher."""
    return not (e.ctrl and e.kind == mm.KIND_OBJECT) and not is_morpher(e, names) and bool(names) \
        and names.get(e.object, "").startswith("MDL_")


def morpher_words(morpher):
    """The addresses of a ccMorpher's words a morph state is read from: the word holding the u16
    count (its low half), then MORPH_PAIRS_READ (model, weight) pairs."""
    return [morpher + mm.MORPHER_COUNT] + [morpher + mm.MORPHER_PAIRS + 4 * k for k in range(2 * MORPH_PAIRS_READ)]


def morph_pairs(words, models):
    """[(target object or model address, weight bits)] of a ccMorpher's words (morpher_words's, as
    ints): the count's pairs, at most MORPH_PAIRS_READ; a model address the playback made names its
    object (models)."""
    n = min(words[0] & 0xFFFF, MORPH_PAIRS_READ)
    return [(models.get(model, model), weight) for model, weight in zip(words[1:2 * n:2], words[2:2 * n + 1:2])]


class Playback:
    """What playback() set up: works and coords per table position, morphers, model addresses."""

    def __init__(self):
        self.works: Dict[int, int] = {}
        self.coords: Dict[int, int] = {}
        self.morphers: Dict[int, int] = {}     # table position -> ccMorpher address
        self.models: Dict[int, int] = {}       # ccModel address -> object
        self.instances: Dict[int, int] = {}    # table position -> zeroed instance block


def pack_s16(positions):
    flat = [c for xyz in positions for c in xyz]
    return struct.pack(f"<{len(flat)}h", *flat) + bytes(8)
