"""`make bench`: instructions per second of the eemu_ext engine next to unicorn's on the same code.

Both engines run the same machine code in one process, so the ratio is measured on one machine in
one run. Times are CPU time of this process (time.process_time), robust on a shared machine. Goal for the engine: at least 2M instructions/s on the integer loop.
"""
from __future__ import annotations

import os
import struct
import time

from eemu_ext.core.machine import SENTINEL, STACK_TOP, Machine, sx32
from eemu_ext.core.testing import CODE_BASE, program, put_words
from benchmarks.goals import goal, verdict

LOOP_ITERATIONS = 3_000_000
DATA = 0x00200000
INT_PROG = os.path.join(os.path.dirname(__file__), os.pardir, "tests", "machine", "cprog", "int_prog.elf")


def integer_loop_words(iterations=LOOP_ITERATIONS):
    """A load/ALU/store loop typical of compiled code (8 instructions per iteration)."""
    b = CODE_BASE
    return program([
        f"lui t0, {iterations >> 16:#x}", f"ori t0, t0, {iterations & 0xFFFF:#x}",
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


def ours_loop(engine="python", coverage=False, iterations=LOOP_ITERATIONS):
    m = Machine(engine=engine, coverage=coverage)
    put_words(m, CODE_BASE, integer_loop_words(iterations))
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


def ours_c_program(engine="python", coverage=False, n=22):
    m = Machine(engine=engine, coverage=coverage)
    m.load_elf(INT_PROG)
    t = time.process_time()
    r = m.call("fib", n, limit=10**9)
    dt = time.process_time() - t
    return m.steps, dt, r


# The coverage cost: the same work with Machine(coverage=True) and without, per engine, in this
# run (best of COVERAGE_REPEATS, on and off alternating). Goal: coverage costs at most 10%.
COVERAGE_REPEATS = 3
COVERAGE_WORK = {"python": {"loop": 1_000_000, "fib": 24}, "native": {"loop": 30_000_000, "fib": 30}}


def coverage_cost(engs) -> dict:
    """{engine: {workload: (seconds off, seconds on)}}, printed with the ratio on / off."""
    out = {}
    print("coverage cost (Machine(coverage=True) against coverage off, best of "
          f"{COVERAGE_REPEATS}, CPU seconds)")
    for e in engs:
        work = COVERAGE_WORK[e]
        runs = {
            "integer loop": lambda cov, e=e: ours_loop(e, cov, work["loop"]),
            f"C program fib({work['fib']})": lambda cov, e=e: ours_c_program(e, cov, work["fib"]),
        }
        out[e] = {}
        for name, run in runs.items():
            if "fib" in name and not os.path.exists(INT_PROG):
                continue
            run(True)                                 # translate and compile outside the timing
            best = {False: float("inf"), True: float("inf")}
            steps = 0
            for _ in range(COVERAGE_REPEATS):
                for cov in (False, True):
                    steps, dt, _r = run(cov)
                    best[cov] = min(best[cov], dt)
            ratio = best[True] / best[False]
            out[e][name] = (best[False], best[True])
            print(f"  {e:7s} {name:22s} {steps:>11,} instr  off {best[False]:7.3f} s  on {best[True]:7.3f} s  "
                  f"on/off {ratio:5.3f}  goal <= 1.10 -> {goal(f'coverage on/off <= 1.10 ({e} {name})', ratio <= 1.10)}")
    return out


def unicorn_c_program():
    import unicorn
    from unicorn import mips_const as MC
    from eemu_ext.loading.elf import load_image
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


def warm(engine):
    """Translate and compile both programs once, so the timed runs measure running, not building."""
    if engine != "python":
        ours_loop(engine)
        if os.path.exists(INT_PROG):
            ours_c_program(engine)


def report(name, steps, times, uc_dt):
    """times: {engine: CPU seconds} for the same work; unicorn's time uc_dt."""
    uc_ips = steps / uc_dt
    print(f"{name}: {steps:,} instructions")
    out = {}
    for eng, dt in times.items():
        ips = out[eng] = steps / dt
        print(f"  eemu_ext {eng:7s}: {ips / 1e6:8.2f} M instr/s  ({dt:.3f} s)  {ips / uc_ips:7.3f} x unicorn")
    print(f"  unicorn         : {uc_ips / 1e6:8.2f} M instr/s  ({uc_dt:.4f} s)")
    if "native" in out:
        print(f"  native / python : {out['native'] / out['python']:.1f}x")
    return out


def engines():
    from eemu_ext.engines.native.build import compiler
    return ("python", "native") if compiler() is not None else ("python",)


def main() -> int:
    os.environ["EEMU_COMPILE_AFTER"] = "0"      # the native figures are compiled code, compiled in warm()
    engs = engines()
    for e in engs:
        warm(e)
    times, v0s = {}, {}
    for e in engs:
        steps, times[e], v0s[e] = ours_loop(e)
    uc_dt, uc_v0 = unicorn_loop()
    for e, v0 in v0s.items():
        if (v0 & 0xFFFFFFFFFFFFFFFF) != (uc_v0 & 0xFFFFFFFFFFFFFFFF):
            print(f"WARNING: results differ: eemu ({e}) v0={v0:#x} unicorn v0={uc_v0:#x}")
    ips = report("integer loop", steps, times, uc_dt)
    uc_ips = steps / uc_dt
    print(f"  goal     : python >= 2.00 M instr/s -> {goal('python >= 2.00 M instr/s', ips['python'] >= 2e6)}")
    if "native" in ips:
        print(f"  goal     : native >= 0.5 x unicorn -> {goal('native >= 0.5 x unicorn', ips['native'] >= 0.5 * uc_ips)}")
    if os.path.exists(INT_PROG):
        times, rs = {}, {}
        for e in engs:
            steps, times[e], rs[e] = ours_c_program(e)
        uc_dt, uc_r = unicorn_c_program()
        for e, r in rs.items():
            if r != uc_r:
                print(f"WARNING: fib(22) differs: eemu ({e}) {r} unicorn {uc_r}")
        report("C program fib(22) (calls, stack traffic)", steps, times, uc_dt)
    coverage_cost(engs)
    from benchmarks.float_ops import float_bench
    float_bench(engines=engs)
    return verdict("benchmarks.machine")


if __name__ == "__main__":
    raise SystemExit(main())
