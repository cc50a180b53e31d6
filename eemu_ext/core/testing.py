"""Test helpers: run a raw sequence of instruction words on a Machine (for per-instruction tests)."""
from __future__ import annotations

import struct
from typing import Callable, Iterable, Optional

from eemu_ext.core.machine import SENTINEL, STACK_TOP, Machine, sx32

CODE_BASE = 0x00080000
JR_RA = 0x03E00008
NOP = 0x00000000


def put_words(m: Machine, addr: int, words: Iterable[int]) -> int:
    """Write instruction words at addr; returns the address after the last one."""
    words = [w & 0xFFFFFFFF for w in words]
    m.write(addr, struct.pack(f"<{len(words)}I", *words))
    return addr + 4 * len(words)


def run_words(m: Optional[Machine], words: Optional[Iterable[int]], setup: Optional[Callable[[Machine], None]] = None,
              base: int = CODE_BASE, limit: int = 1_000_000) -> Machine:
    """Run ``words`` then ``jr ra; nop`` at ``base`` and return the machine (``words`` None: the
    code is already there, written with put_words and ending in ``jr ra; nop``).

    Registers are NOT zeroed, so set them before the call or in ``setup(m)``; ra is set to the
    return sentinel and sp to the stack top (if sp is 0) before ``setup`` runs. ``m`` may be None
    for a fresh Machine(). Example::

        m = run_words(None, [0x00851021], setup=lambda m: (m.gpr.__setitem__(4, 2), m.gpr.__setitem__(5, 3)))
        assert m.gpr[2] == 5
    """
    if m is None:
        m = Machine()
    if words is not None:
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
    from eemu_ext.isa.row import GPR_NAMES
    for name, v in regs.items():
        i = int(name[1:]) if name[0] == "r" and name[1:].isdigit() else GPR_NAMES.index(name)
        m.gpr[i] = v


# -- a small assembler over the instruction table (tests only) ------------------------------------
def _reg(tok: str) -> int:
    from eemu_ext.isa.row import GPR_NAMES
    t = tok.strip().lstrip("$")
    if t in GPR_NAMES:
        return GPR_NAMES.index(t)
    if t == "s8":
        return 30
    if t.startswith("r") and t[1:].isdigit():
        return int(t[1:])
    if t.isdigit():
        return int(t)
    raise ValueError(f"not a GPR: {tok!r}")


def _fpr(tok: str) -> int:
    t = tok.strip().lstrip("$")
    if t.startswith("f") and t[1:].isdigit():
        return int(t[1:])
    raise ValueError(f"not an FPR: {tok!r}")


_BY_MNEMONIC: dict = {}
_FIELD_SHIFT = {"rs": 21, "rt": 16, "rd": 11, "sa": 6, "fs": 11, "ft": 16, "fd": 6}


def asm(text: str, pc: int = 0) -> int:
    """Assemble one instruction written as our disassembler prints it: 'addu v0, a0, a1',
    'lw v0, -4(sp)', 'beq a0, a1, 0x100010' (absolute target), 'mult v0, a0, a1'.

    Uses the first table row with that mnemonic; operand kinds rs rt rd sa imm uimm mem btarget
    jtarget code fs ft fd cop0 code5 are understood. Fields not named by operands are zero."""
    from eemu_ext.isa import ROWS
    if text.strip() == "nop":
        return 0
    mn, _, rest = text.strip().partition(" ")
    mn = mn.lower()
    if not _BY_MNEMONIC:
        for r in ROWS:
            _BY_MNEMONIC.setdefault(r.mnemonic, r)
    row = _BY_MNEMONIC.get(mn)
    if row is None:
        raise ValueError(f"no table row for {mn!r}")
    ops = [o.strip() for o in rest.split(",")] if rest.strip() else []
    if len(ops) != len(row.operands):
        raise ValueError(f"{mn} takes {len(row.operands)} operands {row.operands}, got {ops}")
    w = row.match
    for kind, tok in zip(row.operands, ops):
        if kind in ("rs", "rt", "rd"):
            w |= _reg(tok) << _FIELD_SHIFT[kind]
        elif kind in ("fs", "ft", "fd"):
            w |= _fpr(tok) << _FIELD_SHIFT[kind]
        elif kind == "sa":
            w |= (int(tok, 0) & 31) << 6
        elif kind in ("imm", "uimm"):
            w |= int(tok, 0) & 0xFFFF
        elif kind == "mem":
            off, _, base = tok.partition("(")
            w |= (int(off or "0", 0) & 0xFFFF) | _reg(base.rstrip(")")) << 21
        elif kind == "btarget":
            d = (int(tok, 0) - (pc + 4)) >> 2
            w |= d & 0xFFFF
        elif kind == "jtarget":
            w |= (int(tok, 0) >> 2) & 0x3FFFFFF
        elif kind == "code":
            w |= (int(tok, 0) & 0xFFFFF) << 6
        elif kind == "cop0":
            from eemu_ext.isa.integer import COP0_NAMES
            w |= (COP0_NAMES.index(tok) if tok in COP0_NAMES else int(tok.lstrip("$"))) << 11
        elif kind == "code5":
            w |= (int(tok, 0) & 31) << 16
        else:
            raise ValueError(f"asm: operand kind {kind!r} of {mn} is not supported")
    return w


def program(lines, base: int = CODE_BASE):
    """Assemble a list of instruction texts placed from base (branch targets are absolute)."""
    return [asm(t, base + 4 * i) for i, t in enumerate(lines)]
