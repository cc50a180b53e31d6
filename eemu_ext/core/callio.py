"""What a batch of calls (Machine.call_each(..., io=CallIO)) does to memory between its calls,
described as data, so that the native engine does it in C with no Python between the calls.

    io = CallIO(period=2)
    io.gather(0, [a, b])                  # after calls 0, 2, 4 ...: the u32 words at a and b
    io.and_bytes(0, flag_addrs, 0xFE)     # then byte &= 0xFE at each address
    io.gather_taps(1, tap, regs=(1, 4), arg=1, offset=0, n=16)   # after calls 1, 3 ...: per call
                                          # of the tap hook `tap` the call made: a1, $f12 and the
                                          # 16 words at a1 + 0; those calls leave tap.calls
    io.write(1, addr, data)               # then data at addr
    io.guard({16: 0, ...}, page_runs, check)   # after every call: check(i) unless the GPRs named
                                          # hold their values and no page of the runs is dirty
    m.call_each(targets, arglists, io=io)
    io.gathered, io.tapped, io.tap_counts # uint32 arrays: the words, in call order
    io.returned                           # v0 of each call whose guard and ops ran

After call i, the guard first, then the ops whose phase is i modulo period, in the order they were
added. A tap gather's tuple index names a tap row's word (0-3: a0-a3, 4-7: $f12-$f15, as a tap
hook's calls hold them); its taps are the ones the call itself made, and they are taken out of the
hook's calls (the gathered rows stand for them). tap_counts[i] is how many a call gathered.

A call that raises (its code, its guard's check) stops the batch: call_each raises, and the outputs
then hold what the calls before it gave (io.returned their v0s), as after a batch of those calls.

Every engine does the same: the native engine in C (runtime.h ee_call_batch), any other engine
(and the native one where a call leaves compiled code) through `after_call`, here. Only RAM is
touched: every address is checked when the batch starts (ValueError naming it).
DECISION: check(i) is the guard's authority: the native engine calls it only for a call whose
registers or pages the fast test did not pass, or that ended in the Python engine (its budget met
mid-block); any other engine calls it after every call. It raises, or returns to let the batch go on.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

RAM_SIZE = 0x02000000
M64 = (1 << 64) - 1
WRITE, AND8, GATHER, TAPS = 1, 2, 3, 4          # runtime.h EE_OP_*


def _ram(addr: int, size: int, what: str) -> int:
    """The RAM offset of [addr, addr + size) (kseg0/kseg1 mirrors folded), or a ValueError."""
    a = addr & 0xFFFFFFFF
    off = a & 0x1FFFFFFF if a >= 0x80000000 and a < 0xC0000000 else a
    if not 0 <= off <= RAM_SIZE - size:
        raise ValueError(f"CallIO: {what} at 0x{a:08x} is not in RAM")
    return off


class CallIO:
    """Fills, masks and gathers between the calls of one batch (see the module docstring)."""

    def __init__(self, period: int = 1):
        if period < 1:
            raise ValueError(f"CallIO: the period must be at least 1, not {period}")
        self.period = period
        self.ops: List[tuple] = []
        self.guard_regs: Dict[int, int] = {}
        self.guard_runs: List[Tuple[int, int]] = []
        self.guard_check: Optional[Callable[[int], None]] = None
        self.gathered = np.zeros(0, dtype=np.uint32)
        self.tapped = np.zeros(0, dtype=np.uint32)
        self.tap_counts = np.zeros(0, dtype=np.uint32)
        self.returned: List[int] = []

    def _phase(self, phase: int) -> int:
        if not 0 <= phase < self.period:
            raise ValueError(f"CallIO: phase {phase} is not below the period {self.period}")
        return phase

    def write(self, phase: int, addr: int, data: bytes) -> None:
        data = bytes(data)
        if data:
            self.ops.append((WRITE, self._phase(phase), _ram(addr, len(data), f"a write of {len(data)} bytes"),
                             data))

    def and_bytes(self, phase: int, addrs: Sequence[int], mask: int) -> None:
        offs = [_ram(a, 1, "a masked byte") for a in addrs]
        if offs:
            self.ops.append((AND8, self._phase(phase), mask & 0xFF, offs))

    def gather(self, phase: int, addrs: Sequence[int]) -> None:
        offs = []
        for a in addrs:
            if a & 3:
                raise ValueError(f"CallIO: a gathered word at 0x{a & 0xFFFFFFFF:08x} is not aligned")
            offs.append(_ram(a, 4, "a gathered word"))
        if offs:
            self.ops.append((GATHER, self._phase(phase), offs))

    def gather_taps(self, phase: int, tap, regs: Sequence[int], arg: int, offset: int, n: int) -> None:
        """tap: a tap hook's handle (m.hooks.add("tap", ...)); regs: row words (0-7) per tap; the
        n words at row word `arg` + offset follow them."""
        if tap.kind != "tap":
            raise ValueError(f"CallIO: gather_taps needs a tap hook, not {tap!r}")
        if not 1 <= len(regs) <= 8 or not all(0 <= r < 8 for r in regs) or not 0 <= arg < 8 or n < 0:
            raise ValueError(f"CallIO: a tap row has words 0-7 (regs {tuple(regs)}, arg {arg})")
        if any(op[0] == TAPS and op[2] is tap for op in self.ops):
            raise ValueError(f"CallIO: {tap!r} is gathered twice")
        self.ops.append((TAPS, self._phase(phase), tap, tuple(regs), arg, offset & 0xFFFFFFFF, n))

    def guard(self, regs: Dict[int, int], runs: Sequence[Tuple[int, int]], check: Callable[[int], None]) -> None:
        """After every call: check(i) unless GPR r's low 64 bits are regs[r] for each r and no
        RAM page of the [lo, hi) page runs is dirty."""
        self.guard_regs = {int(r): v & M64 for r, v in regs.items()}
        self.guard_runs = [(int(lo), int(hi)) for lo, hi in runs if hi > lo]
        self.guard_check = check

    # -- what every engine shares ---------------------------------------------------------------
    def per_tap(self) -> Dict[int, int]:
        """{phase: words a call of that phase adds to tapped per tap} (gathered per call: below)."""
        out: Dict[int, int] = {}
        for op in self.ops:
            if op[0] == TAPS:
                out[op[1]] = out.get(op[1], 0) + len(op[3]) + op[6]
        return out

    def per_call(self) -> Dict[int, int]:
        """{phase: words a call of that phase adds to gathered}."""
        out: Dict[int, int] = {}
        for op in self.ops:
            if op[0] == GATHER:
                out[op[1]] = out.get(op[1], 0) + len(op[2])
        return out

    def taps(self):
        """The tap hooks gathered from."""
        return [op[2] for op in self.ops if op[0] == TAPS]

    def start(self, n: int) -> None:
        self._gathered: List[np.ndarray] = []
        self._tapped: List[np.ndarray] = []
        self._returned: List[int] = []
        self.tap_counts = np.zeros(n, dtype=np.uint32)

    def finish(self) -> None:
        self.gathered = np.concatenate(self._gathered) if self._gathered else np.zeros(0, dtype=np.uint32)
        self.tapped = np.concatenate(self._tapped) if self._tapped else np.zeros(0, dtype=np.uint32)
        self.returned = list(self._returned)
        self._gathered = self._tapped = self._returned = []

    def after_call(self, m, i: int, marks: Dict[int, int], check: bool = True) -> None:
        """Call i's guard check (when `check`) and its ops, in Python. marks: tap address -> the
        length of its hook's calls when call i started (the call's taps follow)."""
        if check and self.guard_check is not None:
            self.guard_check(i)
        ph = i % self.period
        ram = m.mem.ram
        for op in self.ops:
            if op[1] != ph:
                continue
            kind = op[0]
            if kind == WRITE:
                m.write(op[2], op[3])
            elif kind == AND8:
                m.and_u8(op[3], op[2])
            elif kind == GATHER:
                self._gathered.append(np.array([int.from_bytes(ram[a:a + 4], "little") for a in op[2]],
                                               dtype=np.uint32))
            else:
                _, _, tap, regs, arg, offset, n = op
                calls = tap.calls
                rows = calls[marks.get(tap.addr, len(calls)):]
                del calls[len(calls) - len(rows):]
                out = np.zeros((len(rows), len(regs) + n), dtype=np.uint32)
                for k, row in enumerate(rows):
                    out[k, :len(regs)] = [row[r] for r in regs]
                    at = _ram((row[arg] + offset) & 0x1FFFFFFF, 4 * n, f"{n} words a tapped call points to")
                    out[k, len(regs):] = np.frombuffer(ram, dtype=np.uint32, count=n, offset=at)
                self._tapped.append(out.reshape(-1))
                self.tap_counts[i] = len(rows)

    def callback(self, m, n: int):
        """The same guard and ops as an `after(i)` callback (engines that call back after each)."""
        self.start(n)
        taps = self.taps()
        marks = {t.addr: len(t.calls) for t in taps}

        def after(i):
            self.after_call(m, i, marks)
            for t in taps:
                marks[t.addr] = len(t.calls)
            self._returned.append(m.returned_gprs()[2] & 0xFFFFFFFF)
        return after
