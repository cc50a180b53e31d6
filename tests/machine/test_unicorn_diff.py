"""Differential run against unicorn (MIPS64 little endian) on plain MIPS III integer code.

Random straight-line and forward-branching sequences of MIPS III integer and load/store instructions
run on both engines from the same registers and memory; all GPRs (low 64 bits), HI/LO and every
byte of the data region must agree. R5900-different instructions are kept out by construction and
tested against the spec instead (test_integer_rules.py): 3-operand MULT/MULTU (rd = 0 only here),
MADD*, pipeline-1 ops, LQ/SQ, SA ops, LWR (the EE keeps bits 32-63 for an unaligned LWR, r5900.md
§5.2), and anything that traps (ADD/ADDI/SUB/DADD/DADDI/DSUB overflow, traps, SYSCALL/BREAK).
DIV/DIVU get a nonzero divisor (`ori rt, rt, 1` first): r5900.md §5.1 defines the zero case.
"""
from __future__ import annotations

import random
import struct
import time

import pytest

unicorn = pytest.importorskip("unicorn")
from unicorn import mips_const as MC                          # noqa: E402

from eemu_ext import Machine                                  # noqa: E402
from eemu_ext.core.machine import SENTINEL, sx32                   # noqa: E402
from eemu_ext.core.testing import asm                   # noqa: E402
from eemu_ext.isa.row import GPR_NAMES                        # noqa: E402

CODE = 0x00040000
DATA = 0x00010000
DATA_SIZE = 0x1000
BASE_REG = 16                      # s0 holds DATA + 0x800 and is never written
BASE = DATA + 0x800
M64 = (1 << 64) - 1

STORES = {"sb": 1, "sh": 2, "sw": 4, "sd": 8, "swl": 1, "swr": 1, "sdl": 1, "sdr": 1}
BR2 = ["beq", "bne", "beql", "bnel"]
BR1 = ["blez", "bgtz", "bltz", "bgez", "blezl", "bgtzl", "bltzl", "bgezl", "bltzal", "bgezal", "bltzall",
       "bgezall"]


class Regs:
    """Register groups of one sequence. MIPS III leaves 32-bit operations on values that are not
    sign-extended 32-bit numbers UNPREDICTABLE (QEMU/unicorn then copies 64 bits for `addu rd, zero,
    rt`), so 32-bit consumers read only the 'clean' group, and 64-bit producers write only the
    'wide' group. r0, s0 (the base) and ra (links) are always clean."""

    def __init__(self, rnd):
        self.rnd = rnd
        others = [r for r in range(32) if r not in (0, BASE_REG, 31)]
        rnd.shuffle(others)
        half = len(others) // 2
        self.clean = [0, BASE_REG, 31] + others[:half]
        self.wide = others[half:]

    def any(self):
        return GPR_NAMES[self.rnd.randrange(32)]

    def src32(self):
        return GPR_NAMES[self.rnd.choice(self.clean)]

    def dst(self):
        return GPR_NAMES[self.rnd.choice([r for r in range(32) if r not in (BASE_REG, 31)])]

    def dst64(self):
        return GPR_NAMES[self.rnd.choice(self.wide)]

    def is_clean(self, name):
        return GPR_NAMES.index(name) in self.clean


ALU32 = ["addu", "subu"]
ALU64 = ["daddu", "dsubu", "dsllv", "dsrlv", "dsrav"]
LOGIC = ["and", "or", "xor", "nor"]
SHIFTS32 = ["sll", "srl", "sra"]
SHIFTS64 = ["dsll", "dsrl", "dsra", "dsll32", "dsrl32", "dsra32"]
LOADS_ANY = {"lb": 1, "lbu": 1, "lh": 2, "lhu": 2, "lw": 4, "lwl": 1}
LOADS_WIDE = {"lwu": 4, "ld": 8, "ldl": 1, "ldr": 1}


def _off(rnd, size):
    return rnd.randrange(-0x800 // size, 0x7F8 // size) * size


def straight(rnd, g):
    """One non-branch instruction (two for the guarded DIV)."""
    k = rnd.random()
    b = GPR_NAMES[BASE_REG]
    if k < 0.10:
        return [f"{rnd.choice(ALU32)} {g.dst()}, {g.src32()}, {g.src32()}"]
    if k < 0.17:
        return [f"{rnd.choice(['sllv', 'srlv', 'srav'])} {g.dst()}, {g.src32()}, {g.any()}"]
    if k < 0.25:
        return [f"{rnd.choice(ALU64)} {g.dst64()}, {g.any()}, {g.any()}"]
    if k < 0.32:
        a, c = g.any(), g.any()
        d = g.dst() if g.is_clean(a) and g.is_clean(c) else g.dst64()
        return [f"{rnd.choice(LOGIC)} {d}, {a}, {c}"]
    if k < 0.35:
        return [f"{rnd.choice(['slt', 'sltu'])} {g.dst()}, {g.any()}, {g.any()}"]
    if k < 0.38:
        a = g.any()
        d = g.dst64() if not g.is_clean(a) else g.dst()
        return [f"{rnd.choice(['movz', 'movn'])} {d}, {a}, {g.any()}"]
    if k < 0.44:
        return [f"{rnd.choice(SHIFTS32)} {g.dst()}, {g.src32()}, {rnd.randrange(32)}"]
    if k < 0.48:
        return [f"{rnd.choice(SHIFTS64)} {g.dst64()}, {g.any()}, {rnd.randrange(32)}"]
    if k < 0.53:
        return [f"addiu {g.dst()}, {g.src32()}, {rnd.randrange(-0x8000, 0x8000)}"]
    if k < 0.55:
        return [f"daddiu {g.dst64()}, {g.any()}, {rnd.randrange(-0x8000, 0x8000)}"]
    if k < 0.58:
        return [f"{rnd.choice(['slti', 'sltiu'])} {g.dst()}, {g.any()}, {rnd.randrange(-0x8000, 0x8000)}"]
    if k < 0.62:
        a = g.any()
        d = g.dst() if g.is_clean(a) else g.dst64()
        return [f"{rnd.choice(['andi', 'ori', 'xori'])} {d}, {a}, {rnd.randrange(0x10000):#x}"]
    if k < 0.64:
        return [f"lui {g.dst()}, {rnd.randrange(0x10000):#x}"]
    if k < 0.72:
        op = rnd.choice(list(LOADS_ANY))
        return [f"{op} {g.dst()}, {_off(rnd, LOADS_ANY[op])}({b})"]
    if k < 0.77:
        op = rnd.choice(list(LOADS_WIDE))
        return [f"{op} {g.dst64()}, {_off(rnd, LOADS_WIDE[op])}({b})"]
    if k < 0.88:
        op = rnd.choice(list(STORES))
        return [f"{op} {g.any()}, {_off(rnd, STORES[op])}({b})"]
    if k < 0.93:
        if rnd.random() < 0.6:
            return [f"{rnd.choice(['mfhi', 'mflo'])} {g.dst()}"]
        return [f"{rnd.choice(['mthi', 'mtlo'])} {g.src32()}"]
    if k < 0.97:
        return [f"{rnd.choice(['mult', 'multu'])} zero, {g.src32()}, {g.src32()}"]
    rt = GPR_NAMES[rnd.choice(g.clean[3:])]
    return [f"ori {rt}, {rt}, 0x1", f"{rnd.choice(['div', 'divu'])} {g.src32()}, {rt}"]


def sequence(rnd, n, branching):
    """Instruction texts with symbolic forward targets ('@k' = index k), and the register groups."""
    g = Regs(rnd)
    out = []
    while len(out) < n:
        if branching and rnd.random() < 0.15 and len(out) < n - 2:
            here = len(out)
            tgt = rnd.randrange(here + 2, n + 1)
            if rnd.random() < 0.5:
                out.append(f"{rnd.choice(BR2)} {g.any()}, {g.any()}, @{tgt}")
            elif rnd.random() < 0.9:
                out.append(f"{rnd.choice(BR1)} {g.any()}, @{tgt}")
            else:
                out.append(f"{rnd.choice(['j', 'jal'])} @{tgt}")
            slot = straight(rnd, g)
            while len(slot) != 1:                      # the delay slot: one plain instruction
                slot = straight(rnd, g)
            out.extend(slot)
        else:
            out.extend(straight(rnd, g))
    out = out[:n]
    if out and any(out[-1].startswith(x + " ") for x in BR2 + BR1 + ["j", "jal"]):
        out[-1] = "nop"
    for i, t in enumerate(out):
        # A branch may not land between a divide's guard and the divide: skipping the
        # `ori rt, rt, 1` could leave a zero divisor, whose result only the EE defines.
        if "@" in t:
            head, k = t.rsplit("@", 1)
            if int(k) < len(out) and out[int(k)].split()[0] in ("div", "divu"):
                out[i] = f"{head}@{int(k) - 1}"
    return out, g


TRAMP = CODE - 0x100               # every case ends with `j TRAMP; nop`: the end of the run


def assemble(texts, base=CODE):
    """The case's words at base, then ``j TRAMP; nop`` (so its last block ends there)."""
    words = []
    for i, t in enumerate(texts):
        if "@" in t:
            head, k = t.rsplit("@", 1)
            t = head + hex(base + 4 * int(k))
        words.append(asm(t, base + 4 * i))
    return words + [asm(f"j {TRAMP:#x}", base + 4 * len(texts)), 0]


UC_GPR = [getattr(MC, f"UC_MIPS_REG_{i}") for i in range(32)]


class Unicorn:
    def __init__(self):
        self.uc = unicorn.Uc(unicorn.UC_ARCH_MIPS, unicorn.UC_MODE_MIPS64 | unicorn.UC_MODE_LITTLE_ENDIAN)
        # unicorn's default MIPS64 CPU is an R4000 (MIPS III), which lacks MOVZ/MOVN (MIPS IV, on the EE):
        # use the VR5432 (MIPS IV, no MIPS32/64 extras).
        self.uc.ctl_set_cpu_model(MC.UC_CPU_MIPS64_VR5432)
        self.uc.mem_map(0, 0x100000)

    def load(self, lo, code):
        self.uc.mem_write(lo, code)
        self.uc.ctl_remove_cache(lo, lo + len(code))           # drop translations of the last batch

    def run(self, start, n, regs, data, hi, lo):
        uc = self.uc
        uc.mem_write(DATA, data)
        for i in range(1, 32):
            uc.reg_write(UC_GPR[i], regs[i])
        uc.reg_write(MC.UC_MIPS_REG_HI, hi)
        uc.reg_write(MC.UC_MIPS_REG_LO, lo)
        uc.emu_start(start, TRAMP, count=10 * n + 10)
        return ([uc.reg_read(UC_GPR[i]) & M64 for i in range(32)], bytes(uc.mem_read(DATA, DATA_SIZE)),
                uc.reg_read(MC.UC_MIPS_REG_HI) & M64, uc.reg_read(MC.UC_MIPS_REG_LO) & M64)


class Ours:
    def __init__(self):
        self.m = None
        self.saved = {}

    def load(self, lo, code, starts):
        """A fresh machine per batch, holding every case of it: each case's start is an entry, so
        under the native engine one program serves the whole batch."""
        m = self.m = Machine()
        m.write(lo, code)
        m.declare_entries(starts)

        def stop(mm):                           # at TRAMP: return to the sentinel
            self.saved["ra"] = mm.R[31]
            mm.R[31] = sx32(SENTINEL)
        m.hooks.add("address", stop, TRAMP)

    def run(self, start, n, regs, data, hi, lo):
        m = self.m
        m.write(DATA, data)
        m.R[:] = list(regs)
        m.R[0] = 0
        m.HI[0], m.LO[0] = hi, lo
        m.run(start, limit=10 * n + 10)
        m.R[31] = self.saved["ra"]
        return list(m.R), m.read(DATA, DATA_SIZE), m.HI[0], m.LO[0]


def state(rnd, g):
    regs = [sx32(rnd.getrandbits(32)) if r in g.clean else rnd.getrandbits(64) for r in range(32)]
    regs[0] = 0
    regs[BASE_REG] = BASE
    data = rnd.getrandbits(8 * DATA_SIZE).to_bytes(DATA_SIZE, "little")
    return regs, data, sx32(rnd.getrandbits(32)), sx32(rnd.getrandbits(32))


def diff_report(texts, words, a, b, base=CODE):
    lines = [f"  {base + 4 * i:08x}: {w:08x}  {t}" for i, (t, w) in enumerate(zip(texts, words))]
    ra, da, ha, la = a
    rb, db, hb, lb = b
    for i in range(32):
        if ra[i] != rb[i]:
            lines.append(f"  {GPR_NAMES[i]}: unicorn {ra[i]:#018x} ours {rb[i]:#018x}")
    if (ha, la) != (hb, lb):
        lines.append(f"  HI/LO: unicorn {ha:#x}/{la:#x} ours {hb:#x}/{lb:#x}")
    for k in range(DATA_SIZE):
        if da[k] != db[k]:
            lines.append(f"  mem {DATA + k:08x}: unicorn {da[k]:02x} ours {db[k]:02x}")
            break
    return "\n".join(lines)


def run_cases(seed_prefix, count, length=16, batch=500, first=0):
    """Cases seed_prefix:first .. count-1, laid out `batch` at a time from CODE, one per stride."""
    uc, ours = Unicorn(), Ours()
    stride = 1 << (4 * (length + 2) - 1).bit_length()
    for b0 in range(first, count, batch):
        cases, code = [], b""
        for k in range(b0, min(count, b0 + batch)):
            rnd = random.Random(f"{seed_prefix}:{k}")
            texts, g = sequence(rnd, length, branching=k % 2 == 1)
            base = CODE + len(code)
            words = assemble(texts, base)
            cases.append((k, texts, words, base, state(rnd, g)))
            code += struct.pack(f"<{len(words)}I", *words).ljust(stride, b"\0")
        uc.load(CODE, code)
        ours.load(CODE, code, [c[3] for c in cases])
        for k, texts, words, base, (regs, data, hi, lo) in cases:
            a = uc.run(base, len(words), regs, data, hi, lo)
            b = ours.run(base, len(words), regs, data, hi, lo)
            assert a == b, f"case {seed_prefix}:{k} differs:\n{diff_report(texts, words, a, b, base)}"


# DECISION: under the native engine every case is new code to compile: 20,000 cases are about
# 60,000 blocks, a quarter of an hour of gcc; in the Python engine they are 60,000 blocks to
# translate (22 s). The default suite runs the first PYTHON_CASES of the 20,000 cases in the Python
# engine and the first NATIVE_CASES in the native engine; --slow runs the rest of them.
PYTHON_CASES = 5_000
NATIVE_CASES = 1_000


def test_unicorn_agrees_5k_sequences(engine):
    """The first 5,000 (native: 1,000) of the 20,000 random sequences (half straight-line, half with
    forward branches and likely slots)."""
    n = PYTHON_CASES if engine == "python" else NATIVE_CASES
    t0 = time.time()
    run_cases("unicorn", n, length=12)
    print(f"{n} sequences in {time.time() - t0:.1f}s")


@pytest.mark.slow
def test_unicorn_agrees_200k_sequences(engine):
    """--slow: the cases of the 20,000 that the default suite leaves out, then in the Python engine
    200,000 longer sequences."""
    run_cases("unicorn", 20_000, length=12, first=PYTHON_CASES if engine == "python" else NATIVE_CASES)
    if engine == "python":
        run_cases("unicorn-slow", 200_000, length=24)
