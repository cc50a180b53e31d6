"""The Python engine: the machine's code as Python functions (engine.BlockCompiler), and its run loop.

Blocks are compiled once per address and cached here, with a cache of one-unit functions for
single-stepping (a step hook, a budget about to run out, a hook's address). A fault raised in
a block is located at its instruction through the compiler's line maps, and reported as the
machine's EmulationError naming pc, symbol and disassembly (``located``).

DECISION: steps count executed instructions: a delay slot counts when it runs, an annulled one
(likely branch not taken) does not, a hook counts as one, and the steps of a nested call made by
a hook are that call's own (they are neither added to the outer m.steps nor its budget).
"""
from __future__ import annotations

import struct
from typing import Dict, Tuple

from eemu_ext import isa
from eemu_ext.engines.engine import BlockCompiler, sem_template, substitute
from eemu_ext.errors import KINDS, DelaySlotError, EemuError, EmulationError, MemoryFault, StepLimitExceeded, \
    UnimplementedInstruction
from eemu_ext.isa.row import fields_of
from eemu_ext.memory import RAM_MIRRORS, AccessFault

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
SENTINEL = 0xFFFFFFF0
STORES = ("ld8", "ld16", "ld32", "ld64", "ld128", "st8", "st16", "st32", "st64", "st128")


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


def _fault(kind, msg):
    raise KINDS.get(kind, EmulationError)(msg)


class PythonEngine:
    """The Python half of one Machine: compiled blocks, the run loop and fault location."""

    def __init__(self, m):
        self.m = m
        mem = m.mem
        G = {
            "R": m.R, "RH": m.RH, "HI": m.HI, "LO": m.LO, "F": m._F, "VF": m._VF, "VI": m._VI, "S": m._S,
            "sx32": sx32, "s8": s8, "s16": s16, "s32": s32, "s64": s64, "M32": M32, "M64": M64,
            "machine": m, "engine": self, "fault": _fault, "COV": m._block_counts.counts,
        }
        G.update({k: getattr(mem, k) for k in STORES})
        G.update(isa.namespace(m))
        self.G = G
        self.compiler = BlockCompiler(m, m.decoder, G, m.coverage_enabled)
        self.blocks: Dict[int, tuple] = {}       # start -> (fn, n, end, src)
        self.single: Dict[int, tuple] = {}       # the same, one unit each
        self.code_pages = set()                  # pages holding compiled or decoded code
        self.prev_block = None                   # start of the block entered last (fault messages)
        self._floored = False

    # -- the run loop ---------------------------------------------------------------------------
    def ready(self, _pc: int) -> bool:
        return True

    def unit(self, pc: int, single: bool) -> tuple:
        """The compiled block (or one unit) at pc: (fn, instruction count, end, source)."""
        cache = self.single if single else self.blocks
        e = cache.get(pc)
        if e is not None:
            return e
        m = self.m
        if pc in m.hooks.at:
            e = ((lambda a=pc: m.hooks.run_at(a)), 1, pc + 4, "hook")
        else:
            fn, n, end, src = self.compiler.compile(pc, single, m.hooks.at)
            e = (fn, n, end, src)
            for p in range((pc & 0x1FFFFFFF) >> 12, (((end - 1) & 0x1FFFFFFF) >> 12) + 1):
                self.code_pages.add(p)
        cache[pc] = e
        return e

    def run(self, pc: int, limit: int) -> Tuple[int, int]:
        """Run from pc to the sentinel in blocks (one unit each when m.single_step); returns
        (pc, steps). The budget is exact: the last stretch goes unit by unit (run_exact)."""
        m = self.m
        m._pull()
        single = m.single_step
        blocks = self.single if single else self.blocks
        unit = self.unit
        S = m._S
        ann0 = S.annul
        steps = 0
        try:
            while pc != SENTINEL:
                e = blocks.get(pc)
                if e is None:
                    e = unit(pc, single)
                steps += e[1]
                if steps > limit:
                    ann = S.annul                 # settle refunds of annulled delay slots first
                    steps -= ann - ann0
                    ann0 = ann
                    if steps > limit:
                        steps -= e[1]
                        pc, steps = self.run_exact(pc, steps, limit)
                        break
                self.prev_block, pc = pc, e[0]()
        except BaseException:
            m.pc = pc
            raise
        return pc, steps - (S.annul - ann0)

    def call(self, pc: int, image: bytes, limit: int) -> Tuple[int, int]:
        """An outermost call: R, RH from the call's image, then run."""
        v = struct.unpack_from("<64Q", image)
        self.m.R[:], self.m.RH[:] = v[:32], v[32:]
        return self.run(pc, limit)

    def gprs(self):
        return self.m.R

    def call_each(self, pc, images, limit, after=None):
        """Each call in turn; (v0, steps) of each. pc and limit may be lists (one per call);
        after(i) runs after the i-th call."""
        n = len(images)
        pcs = list(pc) if isinstance(pc, (list, tuple)) else [pc] * n
        limits = list(limit) if isinstance(limit, (list, tuple)) else [limit] * n
        out = []
        for i, (p, image, lim) in enumerate(zip(pcs, images, limits)):
            _, steps = self.call(p, image, lim)
            out.append((self.m.R[2] & M32, steps))
            if after is not None:
                after(i)
        return out

    def run_stepping(self, pc: int, limit: int) -> Tuple[int, int]:
        """Run unit by unit, the step hooks called before each unit; returns (pc, steps)."""
        m = self.m
        m._pull()
        ann0 = m._S.annul
        pc, steps = self.run_exact(pc, 0, limit, m.hooks.step)
        return pc, steps - (m._S.annul - ann0)

    def run_exact(self, pc: int, steps: int, limit: int, on_step=None) -> Tuple[int, int]:
        """Single-step up to the budget; raise StepLimitExceeded when the next unit would pass it.
        on_step(pc) is called before each unit (an instruction, or a branch with its slot)."""
        m = self.m
        m._pull()
        try:
            while pc != SENTINEL:
                if on_step is not None:
                    m.pc = pc
                    on_step(pc)
                e = self.single.get(pc) or self.unit(pc, True)
                if steps + e[1] > limit:
                    m.pc = pc
                    raise StepLimitExceeded(
                        f"step limit {limit:,} exceeded calling {m.call_target()}: stopped at pc "
                        f"0x{pc:08x} ({m.symbolize(pc)}): {m.disasm(pc)}", pc, limit)
                steps += e[1]
                pc = e[0]()
        except BaseException:
            m.pc = pc
            raise
        return pc, steps

    def step(self, pc: int) -> int:
        """Execute one unit at pc; returns the next pc."""
        self.m._pull()
        e = self.single.get(pc) or self.unit(pc, True)
        return e[0]()

    # -- faults ------------------------------------------------------------------------------------
    def located(self, exc: BaseException, default_pc: int) -> BaseException:
        """The error to raise for exc, raised in a run: the machine's own errors and a hook's
        pass through; anything else becomes an EmulationError at the instruction that raised it."""
        m = self.m
        if (isinstance(exc, (KeyboardInterrupt, SystemExit)) or getattr(exc, "_eemu_passthrough", False)
                or isinstance(exc, EemuError) and not isinstance(exc, EmulationError)):
            return exc                 # not the emulated code's doing: never located at a pc
        if m.coverage_enabled and not getattr(exc, "_eemu_counted", False):
            self._cover_fault(exc)
            exc._eemu_counted = True
        if isinstance(exc, EmulationError) and exc.pc is not None:
            return exc                                   # already located (nested call, our helpers)
        out = self._locate(exc, self._fault_pc(exc, default_pc))
        out._eemu_counted = True
        return out

    def _locate(self, exc, pc: int):
        m = self.m
        m.pc = pc
        where = f"pc 0x{pc:08x} ({m.symbolize(pc)}): {m.disasm(pc)}"
        if isinstance(exc, AccessFault):
            kind = "store" if exc.store else "load"
            what = {"unmapped": "address not mapped", "misaligned": "misaligned address"}.get(exc.why, exc.why)
            return MemoryFault(f"memory fault: {exc.size}-byte {kind} at 0x{exc.address:08x} ({what}) at "
                               f"{where}", pc, exc.address, exc.size)
        if isinstance(exc, EmulationError):
            new = type(exc).__new__(type(exc))
            EmulationError.__init__(new, f"{exc} at {where}", pc)
            for k, v in vars(exc).items():
                if k != "pc":
                    setattr(new, k, v)
            new.pc = pc
            return new
        return EmulationError(f"internal error ({type(exc).__name__}: {exc}) executing {where}", pc)

    def _fault_pc(self, exc, default: int) -> int:
        tb, pc = exc.__traceback__, None
        while tb is not None:
            p = self.compiler.pc_of(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            if p is not None:
                pc = p
            tb = tb.tb_next
        return default if pc is None else pc

    def _cover_fault(self, exc) -> None:
        """A block raised: count the faulting instruction of the innermost block and those before it.
        DECISION: the faulting instruction counts (it ran, and raised), as the per-mnemonic
        coverage always counted it; a branch whose delay slot faulted gets no direction."""
        from eemu_ext.engines.coverage import block_of_filename
        m = self.m
        tb, hit = exc.__traceback__, None
        while tb is not None:
            k = block_of_filename(tb.tb_frame.f_code.co_filename)
            if k is not None:
                hit = (k, self.compiler.pc_of(tb.tb_frame.f_code.co_filename, tb.tb_lineno))
            tb = tb.tb_next
        if hit is not None and hit[1] is not None:
            m._block_counts.fault(hit[0], hit[1], m._code_coverage, m._coverage)

    # called from compiled code (they raise fully located errors)
    def _fetch_fault(self, pc: int):
        m = self.m
        raise MemoryFault(f"memory fault: instruction fetch at 0x{pc:08x} (address not mapped or misaligned)"
                          f" in {m.symbolize(pc)}", pc, pc, 4)

    def _fetch_outside(self, pc: int):
        """Execution reached pc outside every loaded segment (a call through a null or stray
        pointer): name the jump that got there and ra, rather than slide through zeroed memory."""
        m = self.m
        segs = ", ".join(f"0x{a:08x}-0x{b:08x}" for a, b in m._code_ranges)
        via = ""
        prev = self.prev_block
        if prev is not None and prev != pc:
            j = self._jump_after(prev)
            if j is not None:
                via = f", reached by {m.disasm(j)} at 0x{j:08x} ({m.symbolize(j)})"
        ra = m.R[31] & M32
        hole = m.mem.data_hole
        if hole is not None and hole[0] <= pc < hole[1]:
            segs += f"; the fetch is {hole[2]}"
        raise MemoryFault(f"memory fault: instruction fetch at 0x{pc:08x}, outside the executable's loaded "
                          f"segments ({segs}){via}; ra = 0x{ra:08x} ({m.symbolize(ra)})", pc, pc, 4)

    def _jump_after(self, start: int):
        """The control-flow instruction that ends the block starting at start, if any."""
        m = self.m
        pc = start
        for _ in range(70):
            d = m.decoded(pc)
            if d is None or d[0] < 0:
                return None
            if m.decoder.rows[d[0]].flow:
                return pc
            pc = (pc + 4) & M32
        return None

    def _unimplemented(self, pc: int, word: int):
        m = self.m
        txt = m.decoder.disasm(word, pc)
        raise UnimplementedInstruction(
            f"unimplemented instruction at pc 0x{pc:08x} ({m.symbolize(pc)}): word 0x{word:08x} = {txt}",
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
        m = self.m
        executed = 0
        rows = m.decoder.rows
        for _ in range(10_000):
            if npc == (pc + 4) & M32:
                break
            d = m.decoded(pc)
            if d is None or d[0] < 0:
                self._fetch_fault(pc) if d is None else self._unimplemented(pc, d[1])
            row = rows[d[0]]
            executed += 1
            if row.flow in ("branch", "likely", "jump", "jump_reg"):
                cond, tgt = self._flow_decision(pc, d[0], d[1])
                if m.coverage_enabled:            # (the other rows count in their own blocks)
                    cc = m._code_coverage
                    cc.insns[pc] += 1
                    m._coverage[row.mnemonic] += 1
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
                raise DelaySlotError(f"{m.disasm(pc)} at pc 0x{pc:08x} ({m.symbolize(pc)}) in a chain of "
                                     f"delay slots (r5900.md §9)", pc)
            else:
                e = self.single.get(pc) or self.unit(pc, True)
                m.pc = pc
                e[0]()
                pc, npc = npc, (npc + 4) & M32
        else:
            raise DelaySlotError(f"branches in delay slots did not return to sequential flow at 0x{pc:08x}", pc)
        m._S.annul -= executed - 1                    # the unit counted 2: the branch and one slot
        return pc

    def _flow_decision(self, pc: int, rid: int, word: int):
        """(cond, tgt) of the control-flow row at pc, its link written (r5900.md §9 order)."""
        m = self.m
        row = m.decoder.rows[rid]
        src = substitute(sem_template(row.sem), fields_of(word, pc)) if row.sem.strip() else "pass"
        ns = {"cond": None, "tgt": None}
        body = "\n".join("    " + ln for ln in src.splitlines())
        exec(f"def _d():\n    cond = tgt = None\n{body}\n    return cond, tgt", self.G, ns)
        cond, tgt = ns["_d"]()
        if row.link:
            reg = 31 if row.link.isdigit() else fields_of(word, pc)[row.link]
            if reg:
                m.R[reg] = sx32(pc + 8)
        return cond, tgt

    # -- the data floor and the code cache -------------------------------------------------------
    def set_data_floor(self) -> None:
        """The loads and stores inline a RAM fast path ("a < 0x2000000", isa/integer.py); under a
        floor they read "DF <= a < 0x2000000", DF a global of the compiled code, so a floor
        change needs no recompile; below it they fall to mem.ld*/st*, which raise the fault."""
        mem = self.m.mem
        G = self.G
        G.update({k: getattr(mem, k) for k in STORES})
        G["DF"] = mem.data_floor
        G["DH0"], G["DH1"] = (mem.data_hole or (0, 0))[:2]
        if not self._floored:
            self._floored = True
            c = self.compiler
            c.templates = [[p.replace("a < 0x2000000", "DF <= a < 0x2000000 and not DH0 <= a < DH1")
                            if type(p) is str else p for p in t] for t in c.templates]
        self.flush()

    def invalidate(self, lo: int, hi: int) -> None:
        """Forget the compiled and decoded code on [lo, hi) (and every RAM mirror of it)."""
        m = self.m
        plo, phi = (lo & 0x1FFFFFFF) >> 12, ((hi - 1) & 0x1FFFFFFF) >> 12
        if not any(p in self.code_pages for p in range(plo, phi + 1)):
            hooks = m.hooks.at
            hooked = (any(a in hooks for a in range(lo & ~3, hi, 4)) if hi - lo <= 64
                      else any(lo <= a < hi for a in hooks))
            if not hooked and lo not in self.blocks:
                return
        decoded = m._decoded
        if decoded:
            if hi - lo <= 4 * len(decoded):
                for a in range(lo & ~3, hi, 4):
                    a &= M32
                    decoded.pop(a, None)
                    phys = a & 0x1FFFFFFF
                    if phys < 0x02000000:                 # a RAM address: every mirror of it
                        for base in RAM_MIRRORS:
                            decoded.pop(base + phys, None)
            else:
                decoded.clear()
        for cache in (self.blocks, self.single):
            dead = [s for s, e in cache.items()
                    if (s & 0x1FFFFFFF) < ((hi - 1) & 0x1FFFFFFF) + 1 and (lo & 0x1FFFFFFF) < (e[2] & 0x1FFFFFFF)
                    or lo <= s < hi]
            for s in dead:
                del cache[s]

    def flush(self) -> None:
        self.blocks.clear()
        self.single.clear()
        self.code_pages.clear()
        self.m._decoded.clear()
