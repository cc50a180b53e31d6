"""The R5900 machine: state, memory, the run loop, calls and hooks (executable-abi.md §3).

Public surface (interfaces.md §1): Machine(float_model, coverage, data_floor), load_elf, symbol, symbolize,
call, hook/unhook, gpr, args, read/write (+ u8..u64), fpr, vf, fcr31, steps, coverage, code_coverage
(eemu_ext/coverage.py), recording() (eemu_ext/record.py).
"""
from __future__ import annotations

import struct
import collections
from typing import Callable, Dict, Optional

from . import isa
from .decode import Decoder, default_decoder
from .engine import BlockCompiler
from .isa.row import fields_of
from .errors import (KINDS, DelaySlotError, EmulationError, MemoryFault, StepLimitExceeded, SyscallError,
                     UnimplementedInstruction)
from .memory import RAM_MIRRORS, AccessFault, Memory

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
SENTINEL = 0xFFFFFFF0          # return address of a call (executable-abi.md §3.1)
STACK_TOP = 0x01FFF000
DEFAULT_LIMIT = 5_000_000
# DECISION: a nested call (made from a hook) starts its stack this far below the caller's sp, so
# the frames of the code that called the hooked function stay intact (the spec's fixed 0x01FFF000
# would overwrite them).
NESTED_STACK_GAP = 0x100
_ARGS = [struct.Struct(f"<{n}Q") for n in range(9)]     # a call's argument registers a0..a7


def sx32(x: int) -> int:
    x &= M32
    return x | 0xFFFFFFFF00000000 if x & 0x80000000 else x


def s8(x):
    x &= 0xFF
    return x - 0x100 if x & 0x80 else x


def s16(x):
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def s32(x):
    x &= M32
    return x - 0x100000000 if x & 0x80000000 else x


def s64(x):
    x &= M64
    return x - 0x10000000000000000 if x & 0x8000000000000000 else x


ENGINES = ("native", "python", "lockstep")
_NOTICE_SHOWN = []


def choose_engine(engine: Optional[str]) -> str:
    """The engine a new Machine runs: the argument, else $EEMU_ENGINE, else native where a host C
    compiler exists (otherwise python, with a one-line notice on stderr, once per process)."""
    if engine is None:
        import os
        engine = os.environ.get("EEMU_ENGINE") or "native"
        if engine == "native":
            from .native.build import compiler
            if compiler() is None:
                if not _NOTICE_SHOWN:
                    import sys
                    print("eemu_ext: no host C compiler (cc/gcc): running the Python engine "
                          "(install gcc for the native engine)", file=sys.stderr)
                    _NOTICE_SHOWN.append(1)
                return "python"
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


class Scalars:
    """The machine's scalar state (row.py ``S``): SA, FPU and VU0 control registers, COP0."""

    def reset(self):
        self.sa = 0
        self.fcr31 = 0x01000001          # ee-float.md §3.9: bits 0 and 24 read as 1
        self.acc = 0
        self.acc_ovf = 0
        self.vacc = [0, 0, 0, 0]
        self.q = 0
        self.i = 0
        self.r = 0x3F800000
        self.mac = 0
        self.status = 0
        self.clip = 0
        # DECISION: COP0 starts all zero: Status KSU = 0 (kernel), so EI/DI take effect.
        self.cop0 = [0] * 32
        self.cmsar0 = 0
        self.annul = 0                   # annulled likely-branch delay slots (step accounting)


class GprView:
    """m.gpr: 32 unsigned 128-bit integers over R (low 64) and RH (high 64); r0 writes ignored."""

    def __init__(self, R, RH):
        self._R, self._RH = R, RH

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(32)[i]]
        return self._R[i] | (self._RH[i] << 64)

    def __setitem__(self, i, v):
        if i % 32 == 0:
            return
        v &= (1 << 128) - 1
        self._R[i] = v & M64
        self._RH[i] = v >> 64

    def __len__(self):
        return 32

    def __iter__(self):
        return (self[i] for i in range(32))

    def __repr__(self):
        return f"GprView({list(self)!r})"


class Machine:
    """An R5900 (EE core + VU0 macro mode) with 32 MiB of RAM. See the module docstring."""

    def __init__(self, float_model: str = "hw", coverage: bool = False, decoder: Optional[Decoder] = None,
                 engine: Optional[str] = None, data_floor: int = 0):
        """engine: 'native' (the default where a host C compiler exists), 'python' or 'lockstep'.
        data_floor: a data load or store below this RAM address raises a MemoryFault naming pc,
        symbol and instruction (0: off); settable later as ``m.data_floor`` (Memory.data_floor)."""
        if float_model not in ("hw", "trunc"):
            raise ValueError(f"float_model must be 'hw' or 'trunc', not {float_model!r}")
        engine = choose_engine(engine)
        self.float_model = float_model
        self.mem = Memory()
        self.R = [0] * 32
        self.RH = [0] * 32
        self.HI = [0, 0]
        self.LO = [0, 0]
        # The FPU, VU0 and scalar registers: read them as m.F, m.VF, m.VI, m.S (properties: under
        # the native engine they may still be in the C state after a run, and are fetched on use).
        self._F = [0] * 32
        self._VF = [[0, 0, 0, 0] for _ in range(32)]
        self._VI = [0] * 16
        self._S = Scalars()
        self._reset_state()
        self.gpr = GprView(self.R, self.RH)
        self._coverage = collections.Counter()        # per mnemonic (m.coverage)
        self.coverage_enabled = bool(coverage)
        from .coverage import BlockCounts, CodeCoverage
        self._code_coverage = CodeCoverage()            # per address and branch direction
        self._block_counts = BlockCounts()              # the Python engine's block exit counters
        self._recording = None                          # the active m.recording(), if any
        self.image = None
        self.pc = 0
        self.steps = 0
        self.single_step = False
        self.on_syscall: Optional[Callable] = None      # fn(m, kind, code); kind 'syscall' | 'break'
        self.on_step: Optional[Callable] = None         # fn(m, pc) before every unit; runs single-step
        self._hooks: Dict[int, Callable] = {}
        self._hook_pages = set()                 # the pages of the hooked addresses (_invalidate)
        self._call_gpr: Dict[int, bytes] = {}    # gp -> a call's R, RH image before its arguments
        self._depth = 0
        self._call_target = None
        self.decoder = decoder or default_decoder()
        mem = self.mem

        def fault(kind, msg):
            raise KINDS.get(kind, EmulationError)(msg)

        G = {
            "R": self.R, "RH": self.RH, "HI": self.HI, "LO": self.LO, "F": self._F, "VF": self._VF,
            "VI": self._VI, "S": self._S,
            "ld8": mem.ld8, "ld16": mem.ld16, "ld32": mem.ld32, "ld64": mem.ld64, "ld128": mem.ld128,
            "st8": mem.st8, "st16": mem.st16, "st32": mem.st32, "st64": mem.st64, "st128": mem.st128,
            "sx32": sx32, "s8": s8, "s16": s16, "s32": s32, "s64": s64, "M32": M32, "M64": M64,
            "machine": self, "fault": fault, "COV": self._block_counts.counts,
        }
        G.update(isa.namespace(self))
        self._globals = G
        self._compiler = BlockCompiler(self, self.decoder, G, self.coverage_enabled)
        self._blocks: Dict[int, tuple] = {}      # start -> (fn, n, end, src)
        self._single: Dict[int, tuple] = {}
        self._code_pages = set()
        self._decoded: Dict[int, tuple] = {}     # address -> (row id, word)
        self.engine = engine
        self._code_ranges = None
        self._prev_block = None      # start of the block the run loop entered last (fault messages)
        self._native = None
        if engine in ("native", "lockstep"):
            from .native.engine import NativeEngine
            self._native = NativeEngine(self, lockstep=engine == "lockstep")
        self._floored = False
        if data_floor:
            self.data_floor = data_floor

    # ---------------------------------------------------------------- coverage
    def _flush_coverage(self) -> None:
        """Both engines' pending counters into m.coverage and m.code_coverage."""
        self._block_counts.flush(self._code_coverage, self._coverage)
        if self._native is not None:
            self._native._flush_coverage()

    @property
    def coverage(self) -> collections.Counter:
        """Executions per mnemonic (Machine(coverage=True); empty otherwise)."""
        if self.coverage_enabled:
            self._flush_coverage()
        return self._coverage

    @property
    def code_coverage(self):
        """Executions per instruction address and per conditional branch direction
        (eemu_ext.coverage.CodeCoverage; Machine(coverage=True), empty otherwise)."""
        if self.coverage_enabled:
            self._flush_coverage()
        return self._code_coverage

    def recording(self):
        """``with m.recording() as rec: m.call(...)``: every instruction the calls execute, with
        the values it read and wrote (eemu_ext/record.py). Nested recordings stack."""
        import contextlib
        from .record import Recording

        @contextlib.contextmanager
        def ctx():
            rec, prev = Recording(self), self._recording
            self._recording = rec
            try:
                yield rec
            finally:
                self._recording = prev
        return ctx()

    def _cover_fault(self, exc) -> None:
        """A block raised: count the faulting instruction of the innermost block and those before it.
        DECISION: the faulting instruction counts (it ran, and raised), as the per-mnemonic
        coverage always counted it; a branch whose delay slot faulted gets no direction."""
        from .coverage import block_of_filename
        tb, hit = exc.__traceback__, None
        while tb is not None:
            k = block_of_filename(tb.tb_frame.f_code.co_filename)
            if k is not None:
                hit = (k, self._compiler.pc_of(tb.tb_frame.f_code.co_filename, tb.tb_lineno))
            tb = tb.tb_next
        if hit is not None and hit[1] is not None:
            self._block_counts.fault(hit[0], hit[1], self._code_coverage, self._coverage)

    # ---------------------------------------------------------------- the data floor
    @property
    def data_floor(self) -> int:
        return self.mem.data_floor

    @data_floor.setter
    def data_floor(self, addr: int) -> None:
        # The loads and stores inline a RAM fast path ("a < 0x2000000", isa/integer.py); under a
        # floor they read "DF <= a < 0x2000000", DF a global of the compiled code, so a floor
        # change needs no recompile; below it they fall to mem.ld*/st*, which raise the fault.
        mem = self.mem
        mem.data_floor = addr
        G = self._globals
        for k in ("ld8", "ld16", "ld32", "ld64", "ld128", "st8", "st16", "st32", "st64", "st128"):
            G[k] = getattr(mem, k)
        G["DF"] = mem.data_floor
        if not self._floored:
            self._floored = True
            c = self._compiler
            c.templates = [[p.replace("a < 0x2000000", "DF <= a < 0x2000000") if type(p) is str else p
                            for p in t] for t in c.templates]
        self.flush_code_cache()

    # ---------------------------------------------------------------- state
    def _reset_state(self):
        self.R[:] = [0] * 32
        self.RH[:] = [0] * 32
        self.HI[:] = [0, 0]
        self.LO[:] = [0, 0]
        self.F[:] = [0] * 32
        for v in self.VF:
            v[:] = [0, 0, 0, 0]
        self.VF[0][3] = 0x3F800000
        self.VI[:] = [0] * 16
        self.S.reset()

    def reset(self):
        """Registers back to power-on values (memory, image and hooks are kept)."""
        self._reset_state()

    def _pull(self):
        """The native engine left newer FPU/VU0/scalar registers in its C state: fetch them."""
        n = getattr(self, "_native", None)        # (none yet while __init__ resets the registers)
        if n is not None and n.c_owns:
            n.pull()

    @property
    def F(self):
        self._pull()
        return self._F

    @property
    def VF(self):
        self._pull()
        return self._VF

    @property
    def VI(self):
        self._pull()
        return self._VI

    @property
    def S(self):
        self._pull()
        return self._S

    @property
    def fpr(self):
        return self.F

    @property
    def vf(self):
        return self.VF

    @property
    def vi(self):
        return self.VI

    @property
    def fcr31(self):
        return self.S.fcr31

    @fcr31.setter
    def fcr31(self, v):
        self.S.fcr31 = v & M32

    @property
    def hi(self):
        return self.HI

    @property
    def lo(self):
        return self.LO

    @property
    def npc(self):
        return (self.pc + 4) & M32

    def args(self, n: int):
        """[a0, a1, ...] (the EABI argument registers $4..$11), masked to 32 bits."""
        return [self.R[4 + i] & M32 for i in range(n)]

    # ---------------------------------------------------------------- memory
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
        if data and (self._code_pages or self._native is not None):
            self._invalidate(addr, addr + len(data))

    def read_u8(self, a):
        return self.read(a, 1)[0]

    def read_u16(self, a):
        return int.from_bytes(self.read(a, 2), "little")

    def read_u32(self, a):
        return int.from_bytes(self.read(a, 4), "little")

    def read_u64(self, a):
        return int.from_bytes(self.read(a, 8), "little")

    def write_u8(self, a, v):
        self.write(a, (v & 0xFF).to_bytes(1, "little"))

    def write_u16(self, a, v):
        self.write(a, (v & 0xFFFF).to_bytes(2, "little"))

    def write_u32(self, a, v):
        self.write(a, (v & M32).to_bytes(4, "little"))

    def write_u64(self, a, v):
        self.write(a, (v & M64).to_bytes(8, "little"))

    # ---------------------------------------------------------------- snapshots
    def snapshot(self, skip=()):
        """The memory as it is now: every RAM page ever written, the scratchpad and VU0 memory.
        ``skip``: [lo, hi) ranges whose whole pages are left out, and which restore leaves as
        they are then (e.g. the image's code, so a patch made after the snapshot stays).
        DECISION: memory only. Registers are not part of it; every call sets its own arguments,
        stack pointer and return address, and a state a caller cares about lives in memory."""
        pages = set()
        for lo, hi in skip:
            plo, phi = ((lo & 0x1FFFFFFF) + 0xFFF) >> 12, (hi & 0x1FFFFFFF) >> 12
            pages.update(range(plo, phi))
        return self.mem.snapshot(frozenset(pages))

    def restore(self, snap) -> int:
        """Memory exactly as ``snapshot()`` saw it. Only the pages written since are copied back
        (both engines mark the page of every store); code on them is translated afresh. Returns
        the number of pages rewritten."""
        pages = self.mem.restore(snap)
        if self._code_pages or self._native is not None:
            for p in pages:
                self._invalidate(p << 12, (p + 1) << 12)
        return len(pages)

    def differences(self, snap, limit: int = 8):
        """Up to ``limit`` (address, now, then) bytes where memory differs from ``snap``."""
        return self.mem.differences(snap, limit)

    # ---------------------------------------------------------------- images and symbols
    def load_elf(self, path):
        """Load an R5900 ELF (PT_LOAD segments, symbols, gp); returns the image."""
        from .elf import load_image
        img = load_image(path)
        for vaddr, data in img.segments:
            try:
                self.mem.write(vaddr, data)
            except AccessFault:
                from .errors import ElfError
                raise ElfError(f"{img.path}: segment at 0x{vaddr:08x} ({len(data)} bytes) lies outside "
                               f"EE memory") from None
            self._invalidate(vaddr, vaddr + len(data))
        self.image = img
        # instructions come only from the file bytes of executable segments, never from zero fill
        # or memory a program or harness writes data to (allow_fetch declares more)
        self._code_ranges = list(img.executable)
        return img

    def allow_fetch(self, lo: int, hi: int) -> None:
        """Declare [lo, hi) code too (a trampoline a test or tool writes outside the image)."""
        if self._code_ranges is None:
            return
        self._code_ranges.append((lo & M32, hi & M32))
        if self._native is not None:
            self._native.invalidate_code()

    def declare_entries(self, addrs) -> None:
        """Code written without an image (no function symbols) starts at these addresses too:
        the native engine translates them at once, with the run's own start, rather than one
        program per new start. No effect on the Python engine, or with an image loaded."""
        if self._native is not None and self.image is None:
            self._native.declare_entries(addrs)

    def fetchable(self, pc: int) -> bool:
        """Whether instructions may be fetched at pc: inside a loaded segment of the image (any
        mapped address when no image is loaded)."""
        ranges = self._code_ranges
        if ranges is None:
            return True
        for a, b in ranges:
            if a <= pc < b:
                return True
        return False

    def symbol(self, name: str) -> int:
        from .errors import ElfError
        if self.image is None:
            raise ElfError(f"no image loaded: cannot look up symbol {name!r}")
        return self.image.symbol(name)

    def symbolize(self, addr: int) -> str:
        if self.image is not None:
            return self.image.symbolize(addr)
        return f"0x{addr & M32:08x}"

    def decoded(self, addr: int):
        """(row id, word) of the instruction at addr, decoded once per address (row id -1: not an
        instruction the EE has); None when addr cannot be fetched. The row id indexes
        ``self.decoder.rows``; it and the word are all a compiled engine needs."""
        d = self._decoded.get(addr)
        if d is None:
            try:
                word = self.mem.fetch(addr)
            except AccessFault:
                return None
            d = self._decoded[addr] = (self.decoder.decode(word), word)
            self._code_pages.add((addr & 0x1FFFFFFF) >> 12)
        return d

    def disasm(self, addr: int) -> str:
        """Our disassembly of the instruction at addr (for messages and debugging)."""
        try:
            word = self.mem.fetch(addr)
        except AccessFault:
            return "<unmapped>"
        return self.decoder.disasm(word, addr, self.symbolize if self.image is not None else None)

    # ---------------------------------------------------------------- hooks and calls
    def hook(self, addr, fn: Callable) -> None:
        """fn(m) runs instead of the code at addr; an int result -> v0 (sign-extended); pc := ra."""
        addr = self._resolve(addr)
        self._hooks[addr] = fn
        self._hook_pages.add((addr & 0x1FFFFFFF) >> 12)
        self._invalidate(addr, addr + 4)
        if self._native is not None:
            self._native.invalidate_hooks()

    def unhook(self, addr) -> None:
        addr = self._resolve(addr)
        self._hooks.pop(addr, None)
        self._invalidate(addr, addr + 4)          # (its page still counts as hooked here)
        self._hook_pages = {(a & 0x1FFFFFFF) >> 12 for a in self._hooks}
        if self._native is not None:
            self._native.invalidate_hooks()

    def _resolve(self, target) -> int:
        if isinstance(target, str):
            return self.symbol(target)
        return int(target) & M32

    def call(self, target, *args, limit: int = DEFAULT_LIMIT) -> int:
        """EE EABI call (executable-abi.md §3.1); returns v0 & 0xFFFFFFFF."""
        addr = self._resolve(target)
        if len(args) > 8:
            raise ValueError(f"call {target!r}: at most 8 integer arguments, got {len(args)}")
        R, RH = self.R, self.RH
        nested = self._depth > 0
        nat = self._native
        if (not nested and nat is not None and not self.single_step and self._recording is None
                and self.on_step is None and nat.ready(addr)):
            # the native engine's own form of the same call: the registers are written straight
            # into its C state, and the lists get them back when the run ends
            gpr = self._call_image(target, args)
            self._depth += 1
            self._call_target = target
            try:
                self.steps = self._run(addr, limit, gpr)
            finally:
                self._depth -= 1
            return R[2] & M32
        if nested:
            saved = (R[:], RH[:], self.pc, self._call_target)
            sp = (((R[29] & M32) - NESTED_STACK_GAP) & ~0xF) & M32
        else:
            sp = STACK_TOP
        R[:] = [0] * 32
        RH[:] = [0] * 32
        gp = self.image.gp if self.image is not None else 0
        R[28] = sx32(gp)
        R[29] = sp
        R[31] = sx32(SENTINEL)
        for i, a in enumerate(args):
            R[4 + i] = sx32(int(a))
        self._depth += 1
        self._call_target = target
        try:
            steps = self._run(addr, limit)
            v0 = R[2] & M32
        finally:
            self._depth -= 1
            if nested:
                R[:], RH[:], self.pc, self._call_target = saved
        if not nested:
            self.steps = steps
        return v0

    def call_each(self, target, arglists, limit: int = DEFAULT_LIMIT):
        """call(target, *args, limit=limit) for each args of arglists, in order, as one outermost
        call after another; returns [(v0, steps)] of each (m.steps is the last one's). The native
        engine keeps its state in C from one call to the next, so a call costs little more than
        its own code; any other engine makes the calls one by one."""
        addr = self._resolve(target)
        nat = self._native
        if (self._depth > 0 or nat is None or self.single_step or self._recording is not None
                or self.on_step is not None or not nat.ready(addr)):
            out = []
            for args in arglists:
                v0 = self.call(target, *args, limit=limit)
                out.append((v0, self.steps))
            return out
        gprs = [self._call_image(target, args) for args in arglists]
        if not gprs:
            return []
        self._depth += 1
        self._call_target = target
        try:
            out = self._run(addr, limit, gprs)
        finally:
            self._depth -= 1
        self.steps = out[-1][1]
        return out

    def _call_image(self, target, args) -> bytearray:
        """An outermost call's R, RH (executable-abi.md §3.1): zero but for gp, sp, ra and the
        arguments, as the native engine takes them (NativeEngine.call)."""
        if len(args) > 8:
            raise ValueError(f"call {target!r}: at most 8 integer arguments, got {len(args)}")
        gp = self.image.gp if self.image is not None else 0
        base = self._call_gpr.get(gp)
        if base is None:
            img = bytearray(512)
            for reg, v in ((28, sx32(gp)), (29, STACK_TOP), (31, sx32(SENTINEL))):
                struct.pack_into("<Q", img, 8 * reg, v)
            base = bytes(img)
            self._call_gpr = {gp: base}
        gpr = bytearray(base)
        if args:
            _ARGS[len(args)].pack_into(gpr, 32, *[sx32(int(a)) for a in args])
        return gpr

    def run(self, pc: int, limit: int = DEFAULT_LIMIT) -> int:
        """Run from pc with the current registers until pc reaches the sentinel; returns steps.

        Counts as an outermost call: hooks reached from here may make nested calls."""
        self._call_target = f"0x{pc & M32:08x}"
        self._depth += 1
        try:
            self.steps = self._run(pc & M32, limit)
        finally:
            self._depth -= 1
        return self.steps

    def step(self) -> int:
        """Execute one instruction at self.pc (a branch with its delay slot); returns the new pc."""
        self._pull()
        e = self._single.get(self.pc) or self._compile(self.pc, True)
        try:
            self.pc = e[0]()
        except (AccessFault, EmulationError) as exc:
            raise self._translate(exc, self.pc) from None
        except Exception as exc:
            raise self._translate(exc, self.pc) from exc
        return self.pc

    def _do_hook(self, addr: int) -> int:
        self.pc = addr
        try:
            r = self._hooks[addr](self)
        except Exception as e:
            if not isinstance(e, EmulationError):
                e._eemu_passthrough = True      # the hook's own error: re-raised unchanged by _run
            raise
        if r is not None:
            self.R[2] = sx32(int(r))
        return self.R[31] & M32

    # ---------------------------------------------------------------- the run loop
    def _compile(self, pc: int, single: bool = False):
        cache = self._single if single else self._blocks
        if pc in self._hooks:
            e = ((lambda a=pc: self._do_hook(a)), 1, pc + 4, "hook")
        else:
            fn, n, end, src = self._compiler.compile(pc, single, self._hooks)
            e = (fn, n, end, src)
            for p in range((pc & 0x1FFFFFFF) >> 12, (((end - 1) & 0x1FFFFFFF) >> 12) + 1):
                self._code_pages.add(p)
        cache[pc] = e
        return e

    # DECISION: steps count executed instructions: a delay slot counts when it runs, an annulled one
    # (likely branch not taken) does not, a hook counts as one, and the steps of a nested call made
    # by a hook are that call's own (they are neither added to the outer m.steps nor its budget).
    def _run(self, pc: int, limit: int, gpr=None) -> int:
        single = self.single_step
        blocks = self._single if single else self._blocks
        compile_ = self._compile
        S = self._S
        ann0 = S.annul
        steps = 0
        try:
            if self._recording is not None:
                pc, steps = self._recording._run(pc, limit)
                self.pc = pc
                return steps
            if self.on_step is not None:
                self._pull()
                pc, steps = self._run_exact(pc, 0, limit, self.on_step)
            elif gpr is not None:                 # call(), call_each(): the native engine, ready
                if isinstance(gpr, list):
                    out = self._native.call_each(pc, gpr, limit)
                    self.pc = SENTINEL
                    return out
                pc, steps = self._native.call(pc, gpr, limit)
                self.pc = pc
                return steps
            elif self._native is not None and not single and self._native.ready(pc):
                pc, steps = self._native.run(pc, limit)
                self.pc = pc
                return steps
            self._pull()                          # the Python engine runs on the lists
            while pc != SENTINEL:
                e = blocks.get(pc)
                if e is None:
                    e = compile_(pc, single)
                steps += e[1]
                if steps > limit:
                    ann = S.annul                 # settle refunds of annulled delay slots first
                    steps -= ann - ann0
                    ann0 = ann
                    if steps > limit:
                        steps -= e[1]
                        pc, steps = self._run_exact(pc, steps, limit)
                        break
                self._prev_block, pc = pc, e[0]()
        except BaseException as exc:
            self.pc = pc
            if isinstance(exc, (KeyboardInterrupt, SystemExit)) or getattr(exc, "_eemu_passthrough", False):
                raise
            if isinstance(exc, (AccessFault, EmulationError)):
                raise self._translate(exc, pc) from None
            raise self._translate(exc, pc) from exc
        self.pc = pc
        steps -= S.annul - ann0
        if self._native is not None and not single:
            self._native.waited(steps)
        return steps

    def _run_exact(self, pc: int, steps: int, limit: int, on_step=None):
        """Single-step up to the budget; raise StepLimitExceeded when the next unit would pass it.
        on_step(m, pc) is called before each unit (an instruction, or a branch with its slot)."""
        self._pull()
        while pc != SENTINEL:
            if on_step is not None:
                self.pc = pc
                on_step(self, pc)
            e = self._single.get(pc) or self._compile(pc, True)
            if steps + e[1] > limit:
                self.pc = pc
                raise StepLimitExceeded(
                    f"step limit {limit:,} exceeded calling {self._describe_target()}: stopped at pc "
                    f"0x{pc:08x} ({self.symbolize(pc)}): {self.disasm(pc)}", pc, limit)
            steps += e[1]
            pc = e[0]()
        return pc, steps

    def _describe_target(self):
        t = self._call_target
        if isinstance(t, str):
            return t
        if t is None:
            return "?"
        return self.symbolize(t)

    # ---------------------------------------------------------------- errors
    def _where(self, pc: int) -> str:
        return f"pc 0x{pc:08x} ({self.symbolize(pc)}): {self.disasm(pc)}"

    def _fault_pc(self, exc, default: int) -> int:
        tb = exc.__traceback__
        pc = None
        while tb is not None:
            p = self._compiler.pc_of(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            if p is not None:
                pc = p
            tb = tb.tb_next
        return default if pc is None else pc

    def _translate(self, exc, default_pc: int):
        if self.coverage_enabled and not getattr(exc, "_eemu_counted", False):
            self._cover_fault(exc)
            exc._eemu_counted = True
        if isinstance(exc, EmulationError) and exc.pc is not None:
            return exc                                   # already located (nested call, our helpers)
        out = self._translate_located(exc, default_pc)
        out._eemu_counted = True
        return out

    def _translate_located(self, exc, default_pc: int):
        pc = self._fault_pc(exc, default_pc)
        self.pc = pc
        if isinstance(exc, AccessFault):
            kind = "store" if exc.store else "load"
            what = {"unmapped": "address not mapped", "misaligned": "misaligned address"}.get(exc.why, exc.why)
            return MemoryFault(f"memory fault: {exc.size}-byte {kind} at 0x{exc.address:08x} ({what}) at "
                               f"{self._where(pc)}", pc, exc.address, exc.size)
        if isinstance(exc, EmulationError):
            new = type(exc).__new__(type(exc))
            EmulationError.__init__(new, f"{exc} at {self._where(pc)}", pc)
            for k, v in vars(exc).items():
                if k != "pc":
                    setattr(new, k, v)
            new.pc = pc
            return new
        return EmulationError(f"internal error ({type(exc).__name__}: {exc}) executing {self._where(pc)}", pc)

    # helpers called from compiled code (they raise fully located errors)
    def _fetch_fault(self, pc: int):
        raise MemoryFault(f"memory fault: instruction fetch at 0x{pc:08x} (address not mapped or misaligned)"
                          f" in {self.symbolize(pc)}", pc, pc, 4)

    def _fetch_outside(self, pc: int):
        """Execution reached pc outside every loaded segment (a call through a null or stray
        pointer): name the jump that got there and ra, rather than slide through zeroed memory."""
        segs = ", ".join(f"0x{a:08x}-0x{b:08x}" for a, b in self._code_ranges)
        via = ""
        prev = self._prev_block
        if prev is not None and prev != pc:
            j = self._jump_after(prev)
            if j is not None:
                via = f", reached by {self.disasm(j)} at 0x{j:08x} ({self.symbolize(j)})"
        ra = self.R[31] & M32
        raise MemoryFault(f"memory fault: instruction fetch at 0x{pc:08x}, outside the executable's loaded "
                          f"segments ({segs}){via}; ra = 0x{ra:08x} ({self.symbolize(ra)})", pc, pc, 4)

    def _jump_after(self, start: int):
        """The control-flow instruction that ends the block starting at start, if any."""
        pc = start
        for _ in range(70):
            d = self.decoded(pc)
            if d is None or d[0] < 0:
                return None
            if self.decoder.rows[d[0]].flow:
                return pc
            pc = (pc + 4) & M32
        return None

    def _unimplemented(self, pc: int, word: int):
        txt = self.decoder.disasm(word, pc)
        raise UnimplementedInstruction(
            f"unimplemented instruction at pc 0x{pc:08x} ({self.symbolize(pc)}): word 0x{word:08x} = {txt}",
            pc, word)

    # DECISION: a branch in a delay slot follows r5900.md §9's pc/npc model, instruction by
    # instruction, until control is sequential again: the first branch's target becomes the second
    # branch's delay slot. BC1T taken in a delay slot is the recorded special case: it replaces the
    # pending redirection and the next sequential instruction runs as its delay slot (a BC1T that is
    # not taken follows the plain model). The extra instructions are counted as steps through the
    # annul counter (engine.py counts a branch unit as 2).
    def _delay_chain(self, pc: int, npc: int) -> int:
        """Run from pc (a delay slot holding a control-flow row) with npc as its successor, until
        npc == pc + 4; returns the pc to continue at."""
        executed = 0
        rows = self.decoder.rows
        for _ in range(10_000):
            if npc == (pc + 4) & M32:
                break
            d = self.decoded(pc)
            if d is None or d[0] < 0:
                self._fetch_fault(pc) if d is None else self._unimplemented(pc, d[1])
            row = rows[d[0]]
            executed += 1
            if row.flow in ("branch", "likely", "jump", "jump_reg"):
                cond, tgt = self._flow_decision(pc, d[0], d[1])
                if self.coverage_enabled:         # (the other rows count in their own blocks)
                    cc = self._code_coverage
                    cc.insns[pc] += 1
                    self._coverage[row.mnemonic] += 1
                    if row.flow in ("branch", "likely"):
                        (cc.taken if cond else cc.not_taken)[pc] += 1
                f = fields_of(d[1], pc)
                if row.flow in ("branch", "likely"):
                    if row.flow == "likely" and not cond:
                        pc, npc = (npc + 4) & M32, (npc + 8) & M32      # the slot at npc is annulled
                        continue
                    target = f["btarget"] if cond else (npc + 4) & M32
                    if row.mnemonic == "bc1t" and cond:
                        pc, npc = (pc + 4) & M32, target
                        continue
                else:
                    target = f["jtarget"] if row.flow == "jump" else tgt
                pc, npc = npc, target
            elif row.flow:
                raise DelaySlotError(f"{self.disasm(pc)} at pc 0x{pc:08x} ({self.symbolize(pc)}) in a chain of "
                                     f"delay slots (r5900.md §9)", pc)
            else:
                e = self._single.get(pc) or self._compile(pc, True)
                self.pc = pc
                e[0]()
                pc, npc = npc, (npc + 4) & M32
        else:
            raise DelaySlotError(f"branches in delay slots did not return to sequential flow at 0x{pc:08x}", pc)
        self._S.annul -= executed - 1                 # the unit counted 2: the branch and one slot
        return pc

    def _flow_decision(self, pc: int, rid: int, word: int):
        """(cond, tgt) of the control-flow row at pc, its link written (r5900.md §9 order)."""
        from .engine import sem_template, substitute
        row = self.decoder.rows[rid]
        src = substitute(sem_template(row.sem), fields_of(word, pc)) if row.sem.strip() else "pass"
        ns = {"cond": None, "tgt": None}
        body = "\n".join("    " + ln for ln in src.splitlines())
        exec(f"def _d():\n    cond = tgt = None\n{body}\n    return cond, tgt", self._globals, ns)
        cond, tgt = ns["_d"]()
        if row.link:
            reg = 31 if row.link.isdigit() else fields_of(word, pc)[row.link]
            if reg:
                self.R[reg] = sx32(pc + 8)
        return cond, tgt

    def _syscall(self, kind: str, pc: int, code: int):
        if self.on_syscall is not None:
            self.pc = pc
            try:
                self.on_syscall(self, kind, code)
            except Exception as e:
                if not isinstance(e, EmulationError):
                    e._eemu_passthrough = True
                raise
            return
        raise SyscallError(f"{kind.upper()} (code 0x{code:x}) at pc 0x{pc:08x} ({self.symbolize(pc)}) and no "
                           f"handler installed (set Machine.on_syscall)", pc)

    # ---------------------------------------------------------------- code cache
    def _invalidate(self, lo: int, hi: int) -> None:
        plo, phi = (lo & 0x1FFFFFFF) >> 12, ((hi - 1) & 0x1FFFFFFF) >> 12
        # the common case first (a harness write to data): one page with no decoded code, no
        # hook and no native block on it; everything below would find nothing to drop
        if plo == phi and plo not in self._code_pages and plo not in self._hook_pages:
            nat = self._native
            if nat is None or not nat.covers(lo, hi):
                return
        # native blocks may cover code this machine never decoded (a program from the cache)
        if self._native is not None and self._native.covers(lo, hi):
            self._native.invalidate_code()
        if not any(p in self._code_pages for p in range(plo, phi + 1)):
            hooks = self._hooks
            hooked = (any(a in hooks for a in range(lo & ~3, hi, 4)) if hi - lo <= 64
                      else any(lo <= a < hi for a in hooks))
            if not hooked and lo not in self._blocks:
                return
        if self._decoded:
            if hi - lo <= 4 * len(self._decoded):
                for a in range(lo & ~3, hi, 4):
                    a &= M32
                    self._decoded.pop(a, None)
                    phys = a & 0x1FFFFFFF
                    if phys < 0x02000000:                 # a RAM address: every mirror of it
                        for base in RAM_MIRRORS:
                            self._decoded.pop(base + phys, None)
            else:
                self._decoded.clear()
        for cache in (self._blocks, self._single):
            dead = [s for s, e in cache.items()
                    if (s & 0x1FFFFFFF) < ((hi - 1) & 0x1FFFFFFF) + 1 and (lo & 0x1FFFFFFF) < (e[2] & 0x1FFFFFFF)
                    or lo <= s < hi]
            for s in dead:
                del cache[s]

    def flush_code_cache(self) -> None:
        """Forget every compiled block (after code was changed behind the machine's back)."""
        if self._native is not None:
            self._native.invalidate_code()
        self._blocks.clear()
        self._single.clear()
        self._code_pages.clear()
        self._decoded.clear()
