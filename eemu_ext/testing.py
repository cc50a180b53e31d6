"""Test helpers: run a raw sequence of instruction words on a Machine (for per-instruction tests)."""
from __future__ import annotations

import struct
from typing import Callable, Iterable, Optional

from .machine import SENTINEL, STACK_TOP, Machine, sx32

CODE_BASE = 0x00080000
JR_RA = 0x03E00008
NOP = 0x00000000


def put_words(m: Machine, addr: int, words: Iterable[int]) -> int:
    """Write instruction words at addr; returns the address after the last one."""
    words = [w & 0xFFFFFFFF for w in words]
    m.write(addr, struct.pack(f"<{len(words)}I", *words))
    return addr + 4 * len(words)


def run_words(m: Optional[Machine], words: Iterable[int], setup: Optional[Callable[[Machine], None]] = None,
              base: int = CODE_BASE, limit: int = 1_000_000) -> Machine:
    """Run ``words`` then ``jr ra; nop`` at ``base`` and return the machine.

    Registers are NOT zeroed, so set them before the call or in ``setup(m)``; ra is set to the
    return sentinel and sp to the stack top (if sp is 0) before ``setup`` runs. ``m`` may be None
    for a fresh Machine(). Example::

        m = run_words(None, [0x00851021], setup=lambda m: (m.gpr.__setitem__(4, 2), m.gpr.__setitem__(5, 3)))
        assert m.gpr[2] == 5
    """
    if m is None:
        m = Machine()
    put_words(m, base, list(words) + [JR_RA, NOP])
    m.R[31] = sx32(SENTINEL)
    if m.R[29] == 0:
        m.R[29] = STACK_TOP
    if setup is not None:
        setup(m)
    m.run(base, limit)
    return m


def set_regs(m: Machine, **regs: int) -> None:
    """set_regs(m, a0=1, v1=0x1234, r8=5): 128-bit values by o32 name or rN."""
    from .isa.row import GPR_NAMES
    for name, v in regs.items():
        i = int(name[1:]) if name[0] == "r" and name[1:].isdigit() else GPR_NAMES.index(name)
        m.gpr[i] = v
