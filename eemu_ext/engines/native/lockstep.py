"""Lockstep: every native block also runs in the Python engine from the same state, and the two
must agree on every register, every FPU/VU0 and control register, and every byte stored.

On a difference both engines are stepped one unit at a time through the block from its starting
state, and the first unit whose effects differ is named: pc, symbol+offset, disassembly and each
differing value in both engines (LockstepMismatch). This is the two-engines-in-lockstep check of
DiffTest and risu, applied to our own two engines.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from eemu_ext.engines.engine import BlockCompiler
from eemu_ext.errors import LockstepMismatch
from eemu_ext.engines.native import build
from eemu_ext.engines.native.state import element_names
from eemu_ext.engines.native.translate import PRELUDE, Translator, c_unit

M32 = 0xFFFFFFFF


# NAMES follows ee_state's layout (state.py), so the native side reads straight from the C state:
# the register run R..VI (less VJUNK, which Python does not keep) and the scalars.
NAMES = element_names("R", "VI") + element_names("acc_ovf", "vi24")


def snapshot(m) -> tuple:
    """Every register the two engines share, in NAMES order (raw unsigned values)."""
    S = m.S
    VF = m.VF
    return (*m.R, *m.RH, *m.HI, *m.LO, *m.F, *VF[0], *VF[1], *VF[2], *VF[3], *VF[4], *VF[5], *VF[6], *VF[7],
            *VF[8], *VF[9], *VF[10], *VF[11], *VF[12], *VF[13], *VF[14], *VF[15], *VF[16], *VF[17], *VF[18],
            *VF[19], *VF[20], *VF[21], *VF[22], *VF[23], *VF[24], *VF[25], *VF[26], *VF[27], *VF[28], *VF[29],
            *VF[30], *VF[31], *m.VI, int(S.acc_ovf), S.sa, S.fcr31, S.acc, *S.vacc, S.q, S.i, S.r, S.mac,
            S.status, S.clip, *S.cop0, S.cmsar0, int(getattr(S, "cpcond0", 1)), getattr(S, "vi24", 0))


def restore(m, snap: tuple) -> None:
    S = m.S
    m.R[:] = snap[0:32]
    m.RH[:] = snap[32:64]
    m.HI[:] = snap[64:66]
    m.LO[:] = snap[66:68]
    m.F[:] = snap[68:100]
    for i in range(32):
        m.VF[i][:] = snap[100 + 4 * i:104 + 4 * i]
    m.VI[:] = snap[228:244]
    S.acc_ovf, S.sa, S.fcr31, S.acc = snap[244:248]
    S.vacc[:] = snap[248:252]
    S.q, S.i, S.r, S.mac, S.status, S.clip = snap[252:258]
    S.cop0[:] = snap[258:290]
    S.cmsar0, S.cpcond0, S.vi24 = snap[290:293]


def _bytes_of(log) -> Dict[int, Tuple[int, int]]:
    """{byte address: (value before the first store, value after the last)} of a store log."""
    out: Dict[int, Tuple[int, int]] = {}
    for a, n, old, new in log:
        for k in range(n):
            b = (a + k) & M32
            ov, nv = (old >> (8 * k)) & 0xFF, (new >> (8 * k)) & 0xFF
            out[b] = (out[b][0] if b in out else ov, nv)
    return out


def compare(snap_py, snap_nat, log_py, log_nat) -> List[Tuple[str, int, int]]:
    """(what, python value, native value) for every register and stored byte that differs."""
    diffs = [] if snap_py == snap_nat else [
        (NAMES[k], v, snap_nat[k]) for k, v in enumerate(snap_py) if snap_nat[k] != v]
    if log_py == log_nat:
        return diffs
    bp, bn = _bytes_of(log_py), _bytes_of(log_nat)
    for b in sorted(set(bp) | set(bn)):
        p = bp[b][1] if b in bp else bn[b][0]
        n = bn[b][1] if b in bn else bp[b][0]
        if p != n:
            diffs.append((f"mem[0x{b:08x}]", p, n))
    return diffs


class _LoggedView:
    """A memoryview cast that logs each item written (Python rows' RAM fast paths)."""

    def __init__(self, mv, size, log):
        self.mv, self.size, self.log = mv, size, log

    def __getitem__(self, i):
        return self.mv[i]

    def __setitem__(self, i, v):
        old = self.mv[i]
        self.mv[i] = v
        self.log.append((i * self.size, self.size, old, self.mv[i]))


class LockstepEngine:
    """The native and the Python engine composed: the native engine runs the machine, and every
    native block it would run goes through a Checker, which runs it in both engines and compares.
    The same protocol as either engine (engine.Engine)."""

    def __init__(self, native, python):
        self.native, self.python = native, python
        self.checker = Checker(native, python)
        native.attach_checker(self.checker)

    def ready(self, pc: int) -> bool:
        return self.native.ready(pc)

    def run(self, pc: int, limit: int):
        return self.native.run(pc, limit)

    def call(self, pc: int, image, limit: int):
        return self.native.call(pc, image, limit)

    def call_each(self, pc, images, limit, after=None):
        return self.native.call_each(pc, images, limit, after)

    def gprs(self):
        return self.native.gprs()


class Checker:
    """The Python side of lockstep for one machine: units compiled with every store logged."""

    def __init__(self, eng, python):
        self.eng = eng
        m = self.m = eng.m
        self.log: List[tuple] = []
        G = dict(python.G)
        mem, log = m.mem, self.log
        for n in (1, 2, 4, 8, 16):
            G[f"st{8 * n}"] = self._logged_store(getattr(mem, f"st{8 * n}"), getattr(mem, f"ld{8 * n}"), n)
        for n in (1, 2, 4, 8):
            if f"MV{8 * n}" in G:
                G[f"MV{8 * n}"] = _LoggedView(G[f"MV{8 * n}"], n, log)
        self.comp = BlockCompiler(m, m.decoder, G, False)
        self.units: Dict[int, object] = {}
        self.blocks: Dict[int, list] = {}
        self.unit_libs: Dict[int, object] = {}
        self.checked = 0

    def forget(self) -> None:
        """The code or the hooks changed: translate every unit afresh."""
        self.units.clear()
        self.blocks.clear()
        self.unit_libs.clear()
        self.comp.linemaps.clear()

    def _logged_store(self, st, ld, n):
        log = self.log
        mask = (1 << (8 * n)) - 1

        def store(a, v):
            try:
                old = ld(a)
            except Exception:
                old = 0                    # the store below raises the same fault
            st(a, v)
            log.append((a & M32, n, old, v & mask))
        return store

    def py_unit(self, pc):
        fn = self.units.get(pc)
        if fn is None:
            fn = self.units[pc] = self.comp.compile(pc, True, self.m.hooks.at)[0]
        return fn

    def _units_of(self, pc):
        u = self.blocks.get(pc)
        if u is None:
            b = Translator(self.m).block(pc)
            u = self.blocks[pc] = b.units if b is not None else []
        return u

    def _run_python(self, units):
        """Run the units in Python: (units run, next pc, error): error is (unit, exception) if one
        raised (the native block must stop there too)."""
        self.log.clear()
        nxt = None
        for k, u in enumerate(units):
            try:
                nxt = self.py_unit(u.pc)()
            except Exception as e:
                return k, nxt, (k, e)
        return len(units), nxt, None

    def _undo(self, log):
        m = self.m
        for a, n, old, _new in reversed(log):
            m.mem.write(a, old.to_bytes(n, "little"))

    def check(self, pc: int, steps: int, limit: int):
        """Run the native block at pc in both engines from the Python lists' state; the machine is
        left in the (agreed) result. Returns (pc, steps, why) of the native run."""
        eng, m = self.eng, self.m
        units = self._units_of(pc)
        # the native run of the block from the Python lists' state; its stores undone afterwards
        why, npc, nsteps, log_nat = eng.run_one_logged(pc, steps, limit)
        snat = eng.native_snapshot()
        self._undo(log_nat)
        done = len(units) if why == eng.WHY_ONE else next(
            (k for k, u in enumerate(units) if u.pc == npc), len(units))
        # the Python run of the same units, from the same state (the lists were not touched)
        s0 = snapshot(m)
        ran, nxt, py_err = self._run_python(units[:done])
        log_py = list(self.log)
        if py_err is not None:
            self._undo(log_py)
            restore(m, s0)
            self._localize(pc, units, s0, [], f"the Python engine raises at unit {py_err[0]} "
                                             f"({py_err[1]}), the native engine ran {done} units")
        diffs = compare(snapshot(m), snat, log_py, log_nat)
        if why == eng.WHY_ONE and nxt != npc:
            diffs.append(("next pc", nxt, npc))
        if diffs:
            self._undo(log_py)
            restore(m, s0)
            self._localize(pc, units, s0, [], None, diffs)
        self.checked += 1
        return npc, nsteps, why

    # -- localisation -------------------------------------------------------------------------------
    def _unit_lib(self, pc, units):
        lib = self.unit_libs.get(pc)
        if lib is None:
            tr = Translator(self.m)
            blocks = [tr.block(u.pc, limit=1) for u in units]
            sources = build.runtime_headers()
            sources["units.c"] = c_unit(blocks, lambda b: f"u_{b.start:08x}", export=True)
            model = "-DEE_MODEL_HW=1" if self.m.float_model == "hw" else "-DEE_MODEL_TRUNC=1"
            lib = self.unit_libs[pc] = build.shared_library("units", sources, flags=(model,), prelude=PRELUDE)
        return lib

    def _localize(self, pc, units, s0, log_nat, reason=None, block_diffs=()):
        """Undo the native block, then step both engines unit by unit from s0; raise at the first
        unit that differs (or at the block, if no single unit does)."""
        eng, m = self.eng, self.m
        self._undo(log_nat)
        restore(m, s0)
        lib = self._unit_lib(pc, units)
        for u in units:
            before = snapshot(m)
            self.log.clear()
            try:
                nxt_py = self.py_unit(u.pc)()
                py_err = None
            except Exception as e:
                nxt_py, py_err = None, e
            sp, lp = snapshot(m), list(self.log)
            self._undo(lp)
            restore(m, before)
            why, nxt_nat, _steps, ln = eng.run_unit_logged(getattr(lib, f"u_{u.pc:08x}"))
            sn = snapshot(m)
            if py_err is not None or why == eng.WHY_UNIT:
                if (py_err is None) != (why != eng.WHY_UNIT):
                    self._raise(u, [("stops here", int(py_err is not None), int(why == eng.WHY_UNIT))],
                                f"one engine stops at this instruction and the other does not ({py_err!r})")
                break
            diffs = compare(sp, sn, lp, ln)
            if nxt_py != nxt_nat:
                diffs.append(("next pc", nxt_py, nxt_nat))
            if diffs:
                self._raise(u, diffs)
        self._raise(units[0] if units else None, list(block_diffs) or [("block", 0, 0)],
                    reason or "the block differs but no single instruction does", pc=pc)

    def _raise(self, u, diffs, reason="", pc=None):
        m = self.m
        at = u.pc if u is not None else pc
        lines = [f"{what}: python 0x{p:x}, native 0x{n:x}" for what, p, n in diffs[:12]]
        more = f" (and {len(diffs) - 12} more)" if len(diffs) > 12 else ""
        slot = f" (delay slot: {m.disasm(at + 4)})" if u is not None and u.n == 2 else ""
        msg = (f"lockstep: the native and Python engines differ at pc 0x{at:08x} ({m.symbolize(at)}): "
               f"{m.disasm(at)}{slot}" + (f"; {reason}" if reason else "") + ": " + "; ".join(lines) + more)
        raise LockstepMismatch(msg, at, diffs)
