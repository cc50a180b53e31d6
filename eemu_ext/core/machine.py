"""The R5900 machine: its state, its memory, its image and symbols, calls and hooks (executable-abi.md §3).

Public surface (interfaces.md §1): Machine(float_model, coverage, data_floor, engine), load_elf,
symbol, symbolize, call, call_each, run, step, hooks (eemu_ext/core/hooks.py), the register files R, RH
(and the 128-bit view gpr), HI, LO, F, VF, VI, S, fcr31, args, read/write (+ u8..u64), steps,
coverage, code_coverage (eemu_ext/engines/coverage.py). The code runs in an engine: the Python engine
(python_engine.py), the native one (native/engine.py) or both in lockstep (native/lockstep.py).
"""
from __future__ import annotations

import collections
import os
import struct
import sys
from typing import List, Optional

from eemu_ext.isa.decode import Decoder, default_decoder
from eemu_ext.errors import ElfError, EmulationError
from eemu_ext.core.hooks import Hooks
from eemu_ext.memory import AccessFault, Memory
from eemu_ext.core.memory_access import MemoryAccess
from eemu_ext.engines.python_engine import M32, M64, SENTINEL, PythonEngine, sx32

__all__ = ["Machine", "choose_engine", "SENTINEL", "STACK_TOP", "DEFAULT_LIMIT", "sx32", "M32", "M64"]

STACK_TOP = 0x01FFF000
DEFAULT_LIMIT = 5_000_000
# DECISION: a nested call (made from a hook) starts its stack this far below the caller's sp, so
# the frames of the code that called the hooked function stay intact (the spec's fixed 0x01FFF000
# would overwrite them).
NESTED_STACK_GAP = 0x100
# a call's argument registers a0..a7, each the low 32 bits of its argument sign-extended: packed
# as an int64 (x ^ 2^31) - 2^31, the same bits as sx32(x) as a uint64
_ARGS = [struct.Struct(f"<{n}q") for n in range(9)]
ENGINES = ("native", "python", "lockstep")
_NOTICE_SHOWN = []


def choose_engine(engine: Optional[str]) -> str:
    """The engine a new Machine runs: the argument, else $EEMU_ENGINE, else native where a host C
    compiler exists (otherwise python, with a one-line notice on stderr, once per process)."""
    if engine is None:
        engine = os.environ.get("EEMU_ENGINE") or "native"
        if engine == "native":
            from eemu_ext.engines.native.build import compiler
            if compiler() is None:
                if not _NOTICE_SHOWN:
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


class Machine(MemoryAccess):
    """An R5900 (EE core + VU0 macro mode) with 32 MiB of RAM. See the module docstring."""

    def __init__(self, float_model: str = "hw", coverage: bool = False, decoder: Optional[Decoder] = None,
                 engine: Optional[str] = None, data_floor: int = 0):
        """engine: 'native' (the default where a host C compiler exists), 'python' or 'lockstep'.
        data_floor: a data load or store below this RAM address raises a MemoryFault naming pc,
        symbol and instruction (0: off); settable later as ``m.data_floor`` (Memory.data_floor)."""
        if float_model not in ("hw", "trunc"):
            raise ValueError(f"float_model must be 'hw' or 'trunc', not {float_model!r}")
        from eemu_ext.engines.coverage import BlockCounts, CodeCoverage
        self.engine = choose_engine(engine)
        self.float_model = float_model
        self.mem = Memory()
        self.R, self.RH, self.HI, self.LO = [0] * 32, [0] * 32, [0, 0], [0, 0]
        # FPU, VU0 and scalar registers: read them as m.F, m.VF, m.VI, m.S (under the native
        # engine they may still be in its C state after a run, and are fetched on use)
        self._F, self._VF, self._VI, self._S = [0] * 32, [[0, 0, 0, 0] for _ in range(32)], [0] * 16, Scalars()
        self.native = None
        self.reset()
        self.gpr = GprView(self.R, self.RH)
        self.coverage_enabled = bool(coverage)
        self._coverage = collections.Counter()          # per mnemonic (m.coverage)
        self._code_coverage = CodeCoverage()            # per address and branch direction
        self._block_counts = BlockCounts()              # the Python engine's block exit counters
        self.image, self._code_ranges = None, None
        self.pc = self.steps = 0
        self.single_step = False                        # the Python engine runs one unit per block
        self.hooks = Hooks(self)
        self._call_gpr = {}                             # gp -> a call's R, RH image before its arguments
        self._depth = 0
        self._batch = False              # inside the engine's call_each (returned_gprs)
        self._call_target = None
        self.decoder = decoder or default_decoder()
        self._decoded = {}                              # address -> (row id, word)
        self.python = PythonEngine(self)
        self._engine = self.python                      # the engine that takes the runs
        if self.engine != "python":
            from eemu_ext.engines.native.engine import NativeEngine
            self.native = self._engine = NativeEngine(self, self.python)
            if self.engine == "lockstep":
                from eemu_ext.engines.native.lockstep import LockstepEngine
                self._engine = LockstepEngine(self.native, self.python)
        if data_floor:
            self.data_floor = data_floor

    # ---------------------------------------------------------------- registers
    def reset(self):
        """Registers back to power-on values (memory, image and hooks are kept)."""
        self.R[:], self.RH[:], self.HI[:], self.LO[:] = [0] * 32, [0] * 32, [0, 0], [0, 0]
        self.F[:] = [0] * 32
        for v in self.VF:
            v[:] = [0, 0, 0, 0]
        self.VF[0][3] = 0x3F800000
        self.VI[:] = [0] * 16
        self.S.reset()

    def _pull(self):
        """The native engine left newer FPU/VU0/scalar registers in its C state: fetch them."""
        if self.native is not None and self.native.c_owns:
            self.native.pull()

    @property
    def F(self):
        self._pull()
        return self._F

    def f_bits(self, i: int) -> int:
        """The 32 bits of FPU register $f<i>, read where they live: a hook that needs one float
        argument does not fetch the whole FPU/VU0 state out of the native engine for it."""
        if self.native is not None and self.native.c_owns:
            return self.native.f_bits(i)
        return self._F[i] & M32

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
    def fcr31(self):
        return self.S.fcr31

    @fcr31.setter
    def fcr31(self, v):
        self.S.fcr31 = v & M32

    def args(self, n: int):
        """[a0, a1, ...] (the EABI argument registers $4..$11), masked to 32 bits."""
        return [self.R[4 + i] & M32 for i in range(n)]

    # ---------------------------------------------------------------- memory
    @property
    def data_floor(self) -> int:
        return self.mem.data_floor

    @data_floor.setter
    def data_floor(self, addr: int) -> None:
        self.mem.data_floor = addr
        self.python.set_data_floor()
        self.flush_code_cache()

    @property
    def data_hole(self):
        return self.mem.data_hole

    @data_hole.setter
    def data_hole(self, hole) -> None:
        """(lo, hi, why) or None: data accesses in [lo, hi) fault with why (memory.py), under both
        engines; set with the floor's machinery."""
        self.mem.data_hole = hole
        self.data_floor = self.mem.data_floor

    # ---------------------------------------------------------------- images and symbols
    def load_elf(self, path, syms=None, overlay=None):
        """Load an R5900 ELF (PT_LOAD segments, symbols, gp); returns the image. syms: its symbol
        sidecar (default <path>.syms when it exists); overlay: the overlay made resident (layout.py)."""
        from eemu_ext.loading.elf import load_image
        img = load_image(path, syms=syms, overlay=overlay)
        for vaddr, data in img.segments:
            try:
                self.mem.write(vaddr, data)
            except AccessFault:
                raise ElfError(f"{img.path}: segment at 0x{vaddr:08x} ({len(data)} bytes) lies outside "
                               f"EE memory") from None
            self._code_changed(vaddr, vaddr + len(data))
        self.image = img
        # instructions come only from the file bytes of executable segments, never from zero fill
        # or memory a program or harness writes data to (allow_fetch declares more)
        self._code_ranges = list(img.executable)
        hole = img.layout.hole() if img.layout is not None else None
        if hole is not None or self.mem.data_hole is not None:
            self.data_hole = hole
        return img

    def allow_fetch(self, lo: int, hi: int) -> None:
        """Declare [lo, hi) code too (a trampoline a test or tool writes outside the image)."""
        if self._code_ranges is None:
            return
        self._code_ranges.append((lo & M32, hi & M32))
        if self.native is not None:
            self.native.invalidate_code()

    def declare_entries(self, addrs) -> None:
        """Code written without an image (no function symbols) starts at these addresses too:
        the native engine translates them at once, with the run's own start, rather than one
        program per new start. No effect on the Python engine, or with an image loaded."""
        if self.native is not None and self.image is None:
            self.native.declare_entries(addrs)

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
        if self.image is None:
            raise ElfError(f"no image loaded: cannot look up symbol {name!r}")
        return self.image.symbol(name)

    def symbolize(self, addr: int) -> str:
        if self.image is not None:
            return self.image.symbolize(addr)
        return f"0x{addr & M32:08x}"

    def resolve(self, target) -> int:
        """An address, or a symbol's."""
        if isinstance(target, str):
            return self.symbol(target)
        return int(target) & M32

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
            self.python.code_pages.add((addr & 0x1FFFFFFF) >> 12)
        return d

    def disasm(self, addr: int) -> str:
        """Our disassembly of the instruction at addr (for messages and debugging)."""
        try:
            word = self.mem.fetch(addr)
        except AccessFault:
            return "<unmapped>"
        return self.decoder.disasm(word, addr, self.symbolize if self.image is not None else None)

    # ---------------------------------------------------------------- calls and runs
    def call(self, target, *args, limit: int = DEFAULT_LIMIT) -> int:
        """EE EABI call (executable-abi.md §3.1); returns v0 & 0xFFFFFFFF."""
        addr = self.resolve(target)
        image = self._call_image(target, args)
        if self._fast(addr):
            return self._call_whole(target, addr, image, limit)
        if self._depth:
            return self._call_nested(target, addr, image, limit)
        with _Calling(self, target):
            self.R[:], self.RH[:] = _unpack_image(image)
            self.steps = self._run(addr, limit)
        return self.R[2] & M32

    def _call_whole(self, target, addr: int, image, limit: int) -> int:
        """An outermost call in the engine's own form: the registers go straight into its state."""
        with _Calling(self, target):
            self.pc, self.steps = self._guarded(self._engine.call, addr, image, limit)
        return self.R[2] & M32

    def _call_nested(self, target, addr: int, image, limit: int) -> int:
        """A call made from a hook: its own stack below the caller's, the caller's state kept."""
        R, RH = self.R, self.RH
        saved = (R[:], RH[:], self.pc, self.steps)
        R[:], RH[:] = _unpack_image(image)
        R[29] = (((saved[0][29] & M32) - NESTED_STACK_GAP) & ~0xF) & M32
        try:
            with _Calling(self, target):
                self._run(addr, limit)
            return R[2] & M32
        finally:
            R[:], RH[:], self.pc, self.steps = saved

    def call_each(self, target, arglists, limit: int = DEFAULT_LIMIT, after=None, io=None):
        """call(target, *args, limit=limit) for each args of arglists, in order, as one outermost
        call after another; returns [(v0, steps)] of each (m.steps is the last one's). The native
        engine keeps its state in C from one call to the next, so a call costs little more than
        its own code; any other engine makes the calls one by one.

        target and limit may also be lists, one per call (a batch that alternates functions);
        after(i), when given, runs after the i-th call, with memory as that call left it (it may
        read and write memory, not registers). io (a core.callio.CallIO), instead of after: the
        guard and the memory ops between the calls described as data, which the native engine
        does in C, with no Python between the calls (callio.py); io's outputs are set after, also
        when a call raises (then they hold the calls' before it)."""
        n = len(arglists)
        targets = list(target) if isinstance(target, (list, tuple)) else [target] * n
        limits = list(limit) if isinstance(limit, (list, tuple)) else [limit] * n
        if len(targets) != n or len(limits) != n:
            raise ValueError(f"call_each: {n} calls but {len(targets)} targets and {len(limits)} limits")
        if io is not None and after is not None:
            raise ValueError("call_each: after and io are two ways of the same thing; give one")
        where = {t: self.resolve(t) for t in set(targets)}      # a batch names few functions
        addrs = [where[t] for t in targets]
        fast = self._depth == 0 and all(self._fast(a) for a in set(addrs))
        run, batch = self._engine.call_each, False
        if io is not None:
            if fast and n and self._io_native(io):
                run, batch = self.native.call_batch, True
            else:
                after = io.callback(self, n)
        try:
            if not fast:
                out = []
                for i, (t, args, lim) in enumerate(zip(targets, arglists, limits)):
                    out.append((self.call(t, *args, limit=lim), self.steps))
                    if after is not None:
                        after(i)
            elif n:
                images = self._call_images(targets, arglists)
                self._batch = True
                try:
                    with _Calling(self, targets[0]):
                        out = self._guarded(run, addrs, images, limits, io if batch else after)
                finally:
                    self._batch = False
                self.pc, self.steps = SENTINEL, out[-1][1]
            else:
                out = []
        finally:
            if io is not None and not batch:
                io.finish()          # a call that raised: the outputs of the calls before it
        return out

    def _io_native(self, io) -> bool:
        """Whether the native engine may do io's ops itself: it takes the runs (not lockstep,
        which checks every block from Python) and no write lands on code or a hooked page.
        DECISION: judged when the batch starts; the ops write the harness's data, never code."""
        nat = self.native
        if nat is None or self._engine is not nat or nat.lockstep:
            return False
        for op in io.ops:
            if op[0] in (1, 2):
                offs = [op[2]] if op[0] == 1 else op[3]
                size = len(op[3]) if op[0] == 1 else 1
                for lo in offs:
                    if nat.covers(lo, lo + size) or any(
                            p in self.python.code_pages or p in self.hooks.pages
                            for p in range(lo >> 12, ((lo + size - 1) >> 12) + 1)):
                        return False
        return True

    def returned_gprs(self):
        """The GPRs' low 64 bits as the outermost call that just ended left them: after call(),
        and inside call_each's after(i), whichever engine ran it."""
        return self._engine.gprs() if self._batch else self.R

    def run(self, pc: int, limit: int = DEFAULT_LIMIT) -> int:
        """Run from pc with the current registers until pc reaches the sentinel; returns steps.
        Counts as an outermost call: hooks reached from here may make nested calls."""
        with _Calling(self, f"0x{pc & M32:08x}"):
            self.steps = self._run(pc & M32, limit)
        return self.steps

    def step(self) -> int:
        """Execute one instruction at self.pc (a branch with its delay slot); returns the new pc."""
        self.pc = self._guarded(self.python.step, self.pc)
        return self.pc

    def call_target(self) -> str:
        """The function the current call runs (for messages)."""
        t = self._call_target
        return t if isinstance(t, str) else "?" if t is None else self.symbolize(t)

    def _fast(self, addr: int) -> bool:
        """Whether an outermost call goes to the engine whole (no hook watching each unit)."""
        return (self._depth == 0 and self.native is not None and not self.single_step
                and not self.hooks.watching and self._engine.ready(addr))

    def _run(self, pc: int, limit: int) -> int:
        """Run from pc with the registers in the lists; returns the steps."""
        rec = self.hooks.recording
        if rec is not None:
            self.pc, steps = self._guarded(rec.run, pc, limit)
            return steps
        if self.hooks.steps:
            pc, steps = self._guarded(self.python.run_stepping, pc, limit)
        elif self.native is not None and not self.single_step and self._engine.ready(pc):
            pc, steps = self._guarded(self._engine.run, pc, limit)
            self.pc = pc
            return steps
        else:
            pc, steps = self._guarded(self.python.run, pc, limit)
        self.pc = pc
        if self.native is not None and not self.single_step:
            self.native.waited(steps)
        return steps

    def _guarded(self, run, *args):
        """run(*args), its errors located at the instruction that raised them (PythonEngine.located)."""
        try:
            return run(*args)
        except BaseException as exc:
            out = self.python.located(exc, self.pc)
            if out is exc and not isinstance(exc, EmulationError):
                raise
            raise out from (None if isinstance(exc, (AccessFault, EmulationError)) else exc)

    def _call_base(self) -> bytes:
        """The R, RH image every call starts from: zero but for gp, sp and ra."""
        gp = self.image.gp if self.image is not None else 0
        base = self._call_gpr.get(gp)
        if base is None:
            img = bytearray(512)
            for reg, v in ((28, sx32(gp)), (29, STACK_TOP), (31, sx32(SENTINEL))):
                struct.pack_into("<Q", img, 8 * reg, v)
            base = self._call_gpr[gp] = bytes(img)
        return base

    def _call_image(self, target, args) -> bytearray:
        """A call's R, RH (executable-abi.md §3.1): zero but for gp, sp, ra and the arguments."""
        if len(args) > 8:
            raise ValueError(f"call {target!r}: at most 8 integer arguments, got {len(args)}")
        gpr = bytearray(self._call_base())
        if args:
            _ARGS[len(args)].pack_into(gpr, 32, *[((int(a) & M32) ^ 0x80000000) - 0x80000000 for a in args])
        return gpr

    def _call_images(self, targets, arglists) -> List[memoryview]:
        """_call_image of each call of a batch, as views of one buffer (the base copied once)."""
        buf = bytearray(self._call_base() * len(arglists))
        for i, (target, args) in enumerate(zip(targets, arglists)):
            if len(args) > 8:
                raise ValueError(f"call {target!r}: at most 8 integer arguments, got {len(args)}")
            if args:
                _ARGS[len(args)].pack_into(buf, 512 * i + 32,
                                           *[((int(a) & M32) ^ 0x80000000) - 0x80000000 for a in args])
        view = memoryview(buf)
        return [view[512 * i:512 * (i + 1)] for i in range(len(arglists))]

    # ---------------------------------------------------------------- coverage and the code cache
    @property
    def coverage(self) -> collections.Counter:
        """Executions per mnemonic (Machine(coverage=True); empty otherwise)."""
        self._flush_coverage()
        return self._coverage

    @property
    def code_coverage(self):
        """Executions per instruction address and per conditional branch direction
        (eemu_ext.engines.coverage.CodeCoverage; Machine(coverage=True), empty otherwise)."""
        self._flush_coverage()
        return self._code_coverage

    def _flush_coverage(self) -> None:
        if self.coverage_enabled:
            self._block_counts.flush(self._code_coverage, self._coverage)
            if self.native is not None:
                self.native.flush_coverage()

    def hooks_changed(self, addr: int) -> None:
        """A hook went in or out at addr: the Python engine translates that code afresh, the
        native engine indexes its blocks afresh (its code is unchanged)."""
        self._code_changed(addr, addr + 4)
        if self.native is not None:
            self.native.invalidate_hooks()

    def _code_changed(self, lo: int, hi: int) -> None:
        """Memory on [lo, hi) changed: the engines forget the code they translated from it (the
        native engine keeps a program whose code bytes the write left as they were)."""
        nat, py = self.native, self.python
        page = (lo & 0x1FFFFFFF) >> 12
        if nat is not None and nat.covers(lo, hi):
            nat.code_written(lo, hi)
        elif (page == ((hi - 1) & 0x1FFFFFFF) >> 12 and page not in py.code_pages
              and page not in self.hooks.pages):
            return                          # the common case: a write to data
        py.invalidate(lo, hi)

    def flush_code_cache(self) -> None:
        """Forget every compiled block (after code was changed behind the machine's back)."""
        if self.native is not None:
            self.native.invalidate_code()
        self.python.flush()


class _Calling:
    """The extent of a call: its depth and its target (for messages)."""

    def __init__(self, m: Machine, target):
        self.m, self.target = m, target

    def __enter__(self):
        m = self.m
        self.saved = m._call_target
        m._call_target = self.target
        m._depth += 1

    def __exit__(self, *exc):
        m = self.m
        m._depth -= 1
        if m._depth:
            m._call_target = self.saved


def _unpack_image(image):
    """R, RH of a call image (Machine._call_image)."""
    v = struct.unpack_from("<64Q", image)
    return list(v[:32]), list(v[32:])
