"""`make bench`: instructions per second of the eemu_ext engine next to unicorn's on the same code.

Both engines run the same machine code in one process, so the ratio is measured on one machine in
one run. Times are CPU time of this process (time.process_time), robust on a shared machine. Goal for the engine (issue 2): at least 2M instructions/s on the integer loop.
"""
from __future__ import annotations

import os
import struct
import time

from .machine import SENTINEL, STACK_TOP, Machine, sx32
from .testing import CODE_BASE, program, put_words

LOOP_ITERATIONS = 300_000
DATA = 0x00200000
INT_PROG = os.path.join(os.path.dirname(__file__), os.pardir, "tests", "machine", "cprog", "int_prog.elf")


def integer_loop_words():
    """A load/ALU/store loop typical of compiled code (8 instructions per iteration)."""
    b = CODE_BASE
    return program([
        f"lui t0, {LOOP_ITERATIONS >> 16:#x}", f"ori t0, t0, {LOOP_ITERATIONS & 0xFFFF:#x}",
        f"lui a0, {DATA >> 16:#x}",
        "lw t1, 0(a0)",                       # loop:
        "addu v0, v0, t1",
        "xor v1, v1, v0",
        "sll t2, v1, 3",
        "sw t2, 4(a0)",
        "sltu t3, t2, v0",
        "addiu t0, t0, -1",
        f"bne t0, zero, {b + 12:#x}",
        "addu v0, v0, t3",
        "jr ra", "nop"], b)


def ours_loop():
    m = Machine()
    put_words(m, CODE_BASE, integer_loop_words())
    m.R[31] = sx32(SENTINEL)
    m.R[29] = STACK_TOP
    t = time.process_time()
    m.run(CODE_BASE, limit=10**9)
    dt = time.process_time() - t
    return m.steps, dt, m.R[2]


def unicorn_loop():
    import unicorn
    from unicorn import mips_const as MC
    uc = unicorn.Uc(unicorn.UC_ARCH_MIPS, unicorn.UC_MODE_MIPS64 | unicorn.UC_MODE_LITTLE_ENDIAN)
    uc.mem_map(0, 0x400000)
    words = integer_loop_words()
    end = CODE_BASE + 4 * (len(words) - 2)            # stop at the final jr ra
    uc.mem_write(CODE_BASE, struct.pack(f"<{len(words)}I", *words))
    t = time.process_time()
    uc.emu_start(CODE_BASE, end)
    dt = time.process_time() - t
    return dt, uc.reg_read(MC.UC_MIPS_REG_V0)


def ours_c_program():
    m = Machine()
    m.load_elf(INT_PROG)
    t = time.process_time()
    r = m.call("fib", 22, limit=10**9)
    dt = time.process_time() - t
    return m.steps, dt, r


def unicorn_c_program():
    import unicorn
    from unicorn import mips_const as MC
    from .elf import load_image
    img = load_image(INT_PROG)
    uc = unicorn.Uc(unicorn.UC_ARCH_MIPS, unicorn.UC_MODE_MIPS64 | unicorn.UC_MODE_LITTLE_ENDIAN)
    uc.mem_map(0, 0x02000000)
    for vaddr, data in img.segments:
        uc.mem_write(vaddr, data)
    uc.reg_write(MC.UC_MIPS_REG_28, sx32(img.gp))
    uc.reg_write(MC.UC_MIPS_REG_29, STACK_TOP)
    stop = 0x00001000                                 # unicorn cannot map the sentinel: return here
    uc.reg_write(MC.UC_MIPS_REG_31, stop)
    uc.reg_write(MC.UC_MIPS_REG_4, 22)
    t = time.process_time()
    uc.emu_start(img.symbols["fib"], stop)
    dt = time.process_time() - t
    return dt, uc.reg_read(MC.UC_MIPS_REG_2) & 0xFFFFFFFF


def report(name, steps, ours_dt, uc_dt):
    ours_ips, uc_ips = steps / ours_dt, steps / uc_dt
    print(f"{name}: {steps:,} instructions")
    print(f"  eemu_ext : {ours_ips / 1e6:8.2f} M instr/s  ({ours_dt:.3f} s)")
    print(f"  unicorn  : {uc_ips / 1e6:8.2f} M instr/s  ({uc_dt:.4f} s)")
    print(f"  ratio    : eemu_ext runs at {ours_ips / uc_ips:.4f} x unicorn ({uc_ips / ours_ips:.0f}x slower)")
    return ours_ips


def main() -> int:
    steps, dt, v0 = ours_loop()
    uc_dt, uc_v0 = unicorn_loop()
    if (v0 & 0xFFFFFFFFFFFFFFFF) != (uc_v0 & 0xFFFFFFFFFFFFFFFF):
        print(f"WARNING: results differ: eemu v0={v0:#x} unicorn v0={uc_v0:#x}")
    ips = report("integer loop", steps, dt, uc_dt)
    print(f"  goal     : >= 2.00 M instr/s -> {'met' if ips >= 2e6 else 'NOT met'}")
    if os.path.exists(INT_PROG):
        steps, dt, r = ours_c_program()
        uc_dt, uc_r = unicorn_c_program()
        if r != uc_r:
            print(f"WARNING: fib(22) differs: eemu {r} unicorn {uc_r}")
        report("C program fib(22) (calls, stack traffic)", steps, dt, uc_dt)

    # ---- float-heavy loop: helper B provides eemu_ext/bench_float.py with float_bench() ----------
    try:
        from .bench_float import float_bench
    except ImportError:
        print("float loop: (eemu_ext/bench_float.py not present yet)")
    else:
        float_bench()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
