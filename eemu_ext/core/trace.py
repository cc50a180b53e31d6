"""`python -m eemu_ext run ELF SYMBOL|ADDR [ARGS...] [--trace]`: call a function, print v0 and steps.

With --trace, every executed unit (an instruction, or a branch with its delay slot) is printed with
its symbol+offset and disassembly, followed by the GPRs (low 64 bits) it changed.
"""
from __future__ import annotations

import sys

from eemu_ext.errors import EmulationError
from eemu_ext.isa.row import GPR_NAMES
from eemu_ext.core.machine import Machine


def tracer(out=None):
    """A step hook (m.hooks.add("step", ...)) printing each unit and the registers the previous one changed.

    `out` defaults to whatever sys.stdout is when the callback runs, not when this module loaded."""
    last = {}

    def on_step(m, pc):
        regs = list(m.R)
        if "regs" in last:
            ch = [f"{GPR_NAMES[i]}={v:#x}" for i, (a, v) in enumerate(zip(last["regs"], regs)) if a != v]
            if ch:
                print(f"{'':31}{' '.join(ch)}", file=out or sys.stdout)
        last["regs"] = regs
        print(f"  {pc:08x} {m.symbolize(pc):<20.20} {m.disasm(pc)}", file=out or sys.stdout)
    return on_step


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m eemu_ext run", description=__doc__)
    ap.add_argument("elf")
    ap.add_argument("function", help="symbol name or address")
    ap.add_argument("args", nargs="*", help="integer arguments (a0..t3), e.g. 5 0x100 -3")
    ap.add_argument("--trace", action="store_true", help="print every executed instruction")
    ap.add_argument("--limit", type=int, default=5_000_000, help="step budget (default 5,000,000)")
    ap.add_argument("--float-model", choices=("hw", "trunc"), default="hw")
    a = ap.parse_args(argv)
    m = Machine(float_model=a.float_model)
    try:
        m.load_elf(a.elf)
        target = int(a.function, 0) if a.function[:1].isdigit() else a.function
        if a.trace:
            m.hooks.add("step", tracer())
        v0 = m.call(target, *[int(x, 0) for x in a.args], limit=a.limit)
    except (EmulationError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"v0 = {v0:#010x} ({v0 - (1 << 32) if v0 & 0x80000000 else v0}), {m.steps:,} steps")
    return 0
