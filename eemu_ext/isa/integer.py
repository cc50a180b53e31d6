"""Integer rows of the R5900 table: MIPS III user integer, loads/stores, branches, EE integer extras.

Semantics follow r5900.md §3 (upper-64 rule: rows write R only, so bits 64-127 stay), §5 and §9.

MMI-space rows owned HERE (mmi.py owns every other op-0x1C row, i.e. all P* instructions incl.
PLZCW): MADD, MADDU (funct 0x00, 0x01), MFHI1, MTHI1, MFLO1, MTLO1 (0x10-0x13), MULT1, MULTU1,
DIV1, DIVU1 (0x18-0x1B), MADD1, MADDU1 (0x20, 0x21).  Also here: LQ/SQ (op 0x1E/0x1F), MFSA/MTSA,
MTSAB/MTSAH, SYNC/SYNC.P, EI/DI, MFC0/MTC0, 3-operand MULT/MULTU.
"""
from __future__ import annotations

from eemu_ext.isa.row import Row, OPERAND_FORMATS

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def SX(e: str) -> str:
    """Inline source: the low 32 bits of e sign-extended to an unsigned 64-bit value."""
    return f"((((({e}) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000) & 0xFFFFFFFFFFFFFFFF)"


def SET(dst: str, e: str, indent: str = "", nl: bool = False) -> str:
    """Source statements: dst := the low 32 bits of e, sign-extended to 64 (cheaper than SX: the
    common non-negative case stays a small int)."""
    return (f"{indent}_x = ({e}) & 0xFFFFFFFF\n"
            f"{indent}{dst} = _x | 0xFFFFFFFF00000000 if _x & 0x80000000 else _x" + ("\n" if nl else ""))


def S32(e: str) -> str:
    """Inline source: the low 32 bits of e as a signed Python int."""
    return f"(((({e}) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000)"


def S64(e: str) -> str:
    """Inline source: e (a u64) as a signed Python int."""
    return f"((({e}) ^ 0x8000000000000000) - 0x8000000000000000)"


ADDR = "a = (R[rs] + imm) & 0xFFFFFFFF\n"
ROWS = []


def row(mn, mask, match, ops, cls, sem, owner="capstone", writes=(), flow="", link="", note="", c="", py=""):
    ROWS.append(Row(mn, mask, match, tuple(ops), cls, sem, owner, tuple(writes), flow, link, note, c, py))


def CSET(dst: str, e: str) -> str:
    """C statement: dst := the low 32 bits of e, sign-extended to 64."""
    return f"{dst} = SX32({e});"


# --- SPECIAL (op 0) ------------------------------------------------------------------------------
RTYPE = 0xFC0007FF          # op, sa, funct fixed (sa must be zero)
SHIFT = 0xFFE0003F          # op, rs, funct fixed (rs must be zero)


def special(mn, funct, ops, cls, sem, mask=RTYPE, **kw):
    row(mn, mask, funct, ops, cls, sem, **kw)


special("sll", 0x00, ("rd", "rt", "sa"), "shift", SET("R[rd]", 'R[rt] << sa'), SHIFT, writes=("rd",),
        c=CSET("R[rd]", "R[rt] << sa"))
special("srl", 0x02, ("rd", "rt", "sa"), "shift", SET("R[rd]", '(R[rt] & 0xFFFFFFFF) >> sa'), SHIFT,
        writes=("rd",), c=CSET("R[rd]", "(uint32_t)R[rt] >> sa"))
special("sra", 0x03, ("rd", "rt", "sa"), "shift", SET("R[rd]", S32('R[rt]') + ' >> sa'), SHIFT,
        writes=("rd",), c=CSET("R[rd]", "S32(R[rt]) >> sa"))
special("sllv", 0x04, ("rd", "rt", "rs"), "shift", SET("R[rd]", 'R[rt] << (R[rs] & 31)'), writes=("rd",),
        c=CSET("R[rd]", "R[rt] << (R[rs] & 31)"))
special("srlv", 0x06, ("rd", "rt", "rs"), "shift", SET("R[rd]", '(R[rt] & 0xFFFFFFFF) >> (R[rs] & 31)'),
        writes=("rd",), c=CSET("R[rd]", "(uint32_t)R[rt] >> (R[rs] & 31)"))
special("srav", 0x07, ("rd", "rt", "rs"), "shift", SET("R[rd]", S32('R[rt]') + ' >> (R[rs] & 31)'),
        writes=("rd",), c=CSET("R[rd]", "S32(R[rt]) >> (R[rs] & 31)"))
special("jr", 0x08, ("rs",), "jump", "tgt = R[rs] & 0xFFFFFFFF", 0xFC1FFFFF, flow="jump_reg", c="tgt = (uint32_t)R[rs];")
special("jalr", 0x09, ("rd", "rs"), "jump", "tgt = R[rs] & 0xFFFFFFFF", 0xFC1F07FF, flow="jump_reg",
        link="rd", writes=("rd",), note="target read before the link and the delay slot (r5900.md §9)",
        c="tgt = (uint32_t)R[rs];")
special("movz", 0x0A, ("rd", "rs", "rt"), "alu", "if R[rt] == 0:\n    R[rd] = R[rs]", writes=("rd",),
        c="if (R[rt] == 0) R[rd] = R[rs];")
special("movn", 0x0B, ("rd", "rs", "rt"), "alu", "if R[rt] != 0:\n    R[rd] = R[rs]", writes=("rd",),
        c="if (R[rt] != 0) R[rd] = R[rs];")
# DECISION: the SYSCALL/BREAK code is the 20-bit field of bits 25-6 (MIPS III, row.py 'code').
_HANDLER = "calls the machine's syscall handler (Python)"
special("syscall", 0x0C, ("code",), "system", "machine.hooks.syscall('syscall', pc, code)", 0xFC00003F, flow="stop",
        py=_HANDLER)
special("break", 0x0D, ("code",), "system", "machine.hooks.syscall('break', pc, code)", 0xFC00003F, flow="stop",
        py=_HANDLER)
row("sync", 0xFFFFFFFF, 0x0000000F, (), "system", "pass", "ee", note="SYNC.L: no-op", c=";")
row("sync.p", 0xFFFFFFFF, 0x0000040F, (), "system", "pass", "ee", note="SYNC.P: no-op", c=";")
special("mfhi", 0x10, ("rd",), "muldiv", "R[rd] = HI[0]", 0xFFFF07FF, writes=("rd",), c="R[rd] = HI[0];")
# DECISION: MTHI/MTLO copy all 64 bits of rs (MIPS III, and as MTHI1/MTLO1 in r5900.md §5.1); the
# "sign-extended 32-bit value" of r5900.md §3 describes the multiply/divide results.
special("mthi", 0x11, ("rs",), "muldiv", "HI[0] = R[rs]", 0xFC1FFFFF, c="HI[0] = R[rs];")
special("mflo", 0x12, ("rd",), "muldiv", "R[rd] = LO[0]", 0xFFFF07FF, writes=("rd",), c="R[rd] = LO[0];")
special("mtlo", 0x13, ("rs",), "muldiv", "LO[0] = R[rs]", 0xFC1FFFFF, c="LO[0] = R[rs];")
special("dsllv", 0x14, ("rd", "rt", "rs"), "shift", "R[rd] = (R[rt] << (R[rs] & 63)) & 0xFFFFFFFFFFFFFFFF",
        writes=("rd",), c="R[rd] = R[rt] << (R[rs] & 63);")
special("dsrlv", 0x16, ("rd", "rt", "rs"), "shift", "R[rd] = R[rt] >> (R[rs] & 63)", writes=("rd",),
        c="R[rd] = R[rt] >> (R[rs] & 63);")
special("dsrav", 0x17, ("rd", "rt", "rs"), "shift",
        f"R[rd] = ({S64('R[rt]')} >> (R[rs] & 63)) & 0xFFFFFFFFFFFFFFFF", writes=("rd",),
        c="R[rd] = (uint64_t)(S64(R[rt]) >> (R[rs] & 63));")


def mult_sem(pipe, signed, acc=False):
    a = S32("R[rs]") if signed else "(R[rs] & 0xFFFFFFFF)"
    b = S32("R[rt]") if signed else "(R[rt] & 0xFFFFFFFF)"
    p = f"{a} * {b}"
    if acc:
        p = f"((HI[{pipe}] & 0xFFFFFFFF) << 32 | (LO[{pipe}] & 0xFFFFFFFF)) + {p}"
    return (f"p = {p}\n"
            + SET(f"LO[{pipe}]", "p", nl=True)
            + SET(f"HI[{pipe}]", "p >> 32", nl=True)
            + f"R[rd] = LO[{pipe}]")


def mult_c(pipe, signed, acc=False):
    a, b = ("S32(R[rs])", "S32(R[rt])") if signed else ("(uint64_t)(uint32_t)R[rs]", "(uint64_t)(uint32_t)R[rt]")
    p = f"(uint64_t)({a} * {b})"
    if acc:
        p = f"((((HI[{pipe}] & M32) << 32) | (LO[{pipe}] & M32)) + {p})"
    return (f"uint64_t p = {p}; LO[{pipe}] = SX32(p); HI[{pipe}] = SX32(p >> 32); R[rd] = LO[{pipe}];")


def div_c(pipe, signed):
    if signed:
        return ("int64_t a = S32(R[rs]), b = S32(R[rt]);\n"
                f"if (b == 0) {{ LO[{pipe}] = a < 0 ? 1 : M64; HI[{pipe}] = (uint64_t)a; }}\n"
                f"else if (a == -0x80000000LL && b == -1) {{ LO[{pipe}] = 0xFFFFFFFF80000000ULL; HI[{pipe}] = 0; }}\n"
                f"else {{ int64_t q = a / b; LO[{pipe}] = (uint64_t)q; HI[{pipe}] = (uint64_t)(a - q * b); }}")
    return ("uint32_t a = (uint32_t)R[rs], b = (uint32_t)R[rt];\n"
            f"if (b == 0) {{ LO[{pipe}] = M64; HI[{pipe}] = SX32(a); }}\n"
            f"else {{ LO[{pipe}] = SX32(a / b); HI[{pipe}] = SX32(a % b); }}")


def div_sem(pipe, signed):
    if signed:
        return (f"a = {S32('R[rs]')}\n"
                f"b = {S32('R[rt]')}\n"
                "if b == 0:\n"
                f"    LO[{pipe}] = 1 if a < 0 else 0xFFFFFFFFFFFFFFFF\n"
                f"    HI[{pipe}] = a & 0xFFFFFFFFFFFFFFFF\n"
                "elif a == -0x80000000 and b == -1:\n"
                f"    LO[{pipe}] = 0xFFFFFFFF80000000\n"
                f"    HI[{pipe}] = 0\n"
                "else:\n"
                "    q = abs(a) // abs(b)\n"
                "    if (a < 0) != (b < 0):\n"
                "        q = -q\n"
                f"    LO[{pipe}] = q & 0xFFFFFFFFFFFFFFFF\n"
                f"    HI[{pipe}] = (a - q * b) & 0xFFFFFFFFFFFFFFFF")
    return ("a = R[rs] & 0xFFFFFFFF\n"
            "b = R[rt] & 0xFFFFFFFF\n"
            "if b == 0:\n"
            f"    LO[{pipe}] = 0xFFFFFFFFFFFFFFFF\n"
            + SET(f"HI[{pipe}]", "a", "    ", nl=True)
            + "else:\n"
            + SET(f"LO[{pipe}]", "a // b", "    ", nl=True)
            + SET(f"HI[{pipe}]", "a % b", "    "))


row("mult", 0xFC0007FF, 0x18, ("rd", "rs", "rt"), "muldiv", mult_sem(0, True), "ee", ("rd",),
    note="3-operand: rd := LO0 (r5900.md §5.1)", c=mult_c(0, True))
row("multu", 0xFC0007FF, 0x19, ("rd", "rs", "rt"), "muldiv", mult_sem(0, False), "ee", ("rd",),
    note="HI0/LO0 sign-extended from bit 31", c=mult_c(0, False))
special("div", 0x1A, ("rs", "rt"), "muldiv", div_sem(0, True), 0xFC00FFFF, c=div_c(0, True))
special("divu", 0x1B, ("rs", "rt"), "muldiv", div_sem(0, False), 0xFC00FFFF, c=div_c(0, False))


def add_trap(name, a, b, width):
    lo, hi = (-(1 << 31), (1 << 31) - 1) if width == 32 else (-(1 << 63), (1 << 63) - 1)
    s = S32 if width == 32 else S64
    return (f"t = {s(a)} {'-' if name.endswith('sub') else '+'} {s(b)}\n"
            f"if t < {lo} or t > {hi}:\n"
            f"    fault('overflow', '{name.upper()} integer overflow')\n")


def add_trap_c(op, a, b, width):
    """C: t := a op b, leaving native code (the Python row raises the trap) on signed overflow."""
    if width == 32:
        return (f"int64_t t = S32({a}) {op} S32({b});\n"
                "if (t < -2147483648LL || t > 2147483647LL) TO_PYTHON;\n")
    fn = "__builtin_add_overflow" if op == "+" else "__builtin_sub_overflow"
    return f"int64_t t;\nif ({fn}(S64({a}), S64({b}), &t)) TO_PYTHON;\n"


special("add", 0x20, ("rd", "rs", "rt"), "alu", add_trap("add", "R[rs]", "R[rt]", 32) + "R[rd] = t & 0xFFFFFFFFFFFFFFFF",
        writes=("rd",), c=add_trap_c("+", "R[rs]", "R[rt]", 32) + "R[rd] = (uint64_t)t;")
special("addu", 0x21, ("rd", "rs", "rt"), "alu", SET("R[rd]", 'R[rs] + R[rt]'), writes=("rd",),
        c=CSET("R[rd]", "R[rs] + R[rt]"))
special("sub", 0x22, ("rd", "rs", "rt"), "alu", add_trap("sub", "R[rs]", "R[rt]", 32) + "R[rd] = t & 0xFFFFFFFFFFFFFFFF",
        writes=("rd",), c=add_trap_c("-", "R[rs]", "R[rt]", 32) + "R[rd] = (uint64_t)t;")
special("subu", 0x23, ("rd", "rs", "rt"), "alu", SET("R[rd]", 'R[rs] - R[rt]'), writes=("rd",),
        c=CSET("R[rd]", "R[rs] - R[rt]"))
special("and", 0x24, ("rd", "rs", "rt"), "alu", "R[rd] = R[rs] & R[rt]", writes=("rd",), c="R[rd] = R[rs] & R[rt];")
special("or", 0x25, ("rd", "rs", "rt"), "alu", "R[rd] = R[rs] | R[rt]", writes=("rd",), c="R[rd] = R[rs] | R[rt];")
special("xor", 0x26, ("rd", "rs", "rt"), "alu", "R[rd] = R[rs] ^ R[rt]", writes=("rd",), c="R[rd] = R[rs] ^ R[rt];")
special("nor", 0x27, ("rd", "rs", "rt"), "alu", "R[rd] = (R[rs] | R[rt]) ^ 0xFFFFFFFFFFFFFFFF", writes=("rd",),
        c="R[rd] = ~(R[rs] | R[rt]);")
row("mfsa", 0xFFFF07FF, 0x28, ("rd",), "sa", "R[rd] = S.sa", "ee", ("rd",), c="R[rd] = S.sa;")
row("mtsa", 0xFC1FFFFF, 0x29, ("rs",), "sa", "S.sa = R[rs] & 15", "ee", note="SA keeps 4 bits [HW]",
    c="S.sa = R[rs] & 15;")
special("slt", 0x2A, ("rd", "rs", "rt"), "alu",
        "R[rd] = 1 if (R[rs] ^ 0x8000000000000000) < (R[rt] ^ 0x8000000000000000) else 0", writes=("rd",),
        c="R[rd] = S64(R[rs]) < S64(R[rt]);")
special("sltu", 0x2B, ("rd", "rs", "rt"), "alu", "R[rd] = 1 if R[rs] < R[rt] else 0", writes=("rd",),
        c="R[rd] = R[rs] < R[rt];")
special("dadd", 0x2C, ("rd", "rs", "rt"), "alu",
        add_trap("dadd", "R[rs]", "R[rt]", 64) + "R[rd] = t & 0xFFFFFFFFFFFFFFFF", writes=("rd",),
        c=add_trap_c("+", "R[rs]", "R[rt]", 64) + "R[rd] = (uint64_t)t;")
special("daddu", 0x2D, ("rd", "rs", "rt"), "alu", "R[rd] = (R[rs] + R[rt]) & 0xFFFFFFFFFFFFFFFF", writes=("rd",),
        c="R[rd] = R[rs] + R[rt];")
special("dsub", 0x2E, ("rd", "rs", "rt"), "alu",
        add_trap("dsub", "R[rs]", "R[rt]", 64) + "R[rd] = t & 0xFFFFFFFFFFFFFFFF", writes=("rd",),
        c=add_trap_c("-", "R[rs]", "R[rt]", 64) + "R[rd] = (uint64_t)t;")
special("dsubu", 0x2F, ("rd", "rs", "rt"), "alu", "R[rd] = (R[rs] - R[rt]) & 0xFFFFFFFFFFFFFFFF", writes=("rd",),
        c="R[rd] = R[rs] - R[rt];")

TRAPS = {"tge": ">=", "tgeu": ">=", "tlt": "<", "tltu": "<", "teq": "==", "tne": "!="}


def trap_sem(name, a, b):
    signed = not name.endswith("u")
    if signed:
        a, b = f"({a} ^ 0x8000000000000000)", f"({b} ^ 0x8000000000000000)"
    base = name[:-2] + "u" if name.endswith("iu") else name.rstrip("i")
    return f"if {a} {TRAPS[base]} {b}:\n    fault('trap', '{name.upper()} trap taken')"


def trap_c(name, a, b):
    """C: leave native code when the trap is taken (the Python row raises it)."""
    signed = not name.endswith("u")
    if signed:
        a, b = f"S64({a})", f"S64({b})"
    base = name[:-2] + "u" if name.endswith("iu") else name.rstrip("i")
    return f"if ({a} {TRAPS[base]} {b}) TO_PYTHON;"


for fn, name in ((0x30, "tge"), (0x31, "tgeu"), (0x32, "tlt"), (0x33, "tltu"), (0x34, "teq"), (0x36, "tne")):
    special(name, fn, ("rs", "rt"), "trap", trap_sem(name, "R[rs]", "R[rt]"), 0xFC00003F,
            c=trap_c(name, "R[rs]", "R[rt]"))

special("dsll", 0x38, ("rd", "rt", "sa"), "shift", "R[rd] = (R[rt] << sa) & 0xFFFFFFFFFFFFFFFF", SHIFT,
        writes=("rd",), c="R[rd] = R[rt] << sa;")
special("dsrl", 0x3A, ("rd", "rt", "sa"), "shift", "R[rd] = R[rt] >> sa", SHIFT, writes=("rd",),
        c="R[rd] = R[rt] >> sa;")
special("dsra", 0x3B, ("rd", "rt", "sa"), "shift", f"R[rd] = ({S64('R[rt]')} >> sa) & 0xFFFFFFFFFFFFFFFF", SHIFT,
        writes=("rd",), c="R[rd] = (uint64_t)(S64(R[rt]) >> sa);")
special("dsll32", 0x3C, ("rd", "rt", "sa"), "shift", "R[rd] = (R[rt] << (sa + 32)) & 0xFFFFFFFFFFFFFFFF", SHIFT,
        writes=("rd",), c="R[rd] = R[rt] << (sa + 32);")
special("dsrl32", 0x3E, ("rd", "rt", "sa"), "shift", "R[rd] = R[rt] >> (sa + 32)", SHIFT, writes=("rd",),
        c="R[rd] = R[rt] >> (sa + 32);")
special("dsra32", 0x3F, ("rd", "rt", "sa"), "shift",
        f"R[rd] = ({S64('R[rt]')} >> (sa + 32)) & 0xFFFFFFFFFFFFFFFF", SHIFT, writes=("rd",),
        c="R[rd] = (uint64_t)(S64(R[rt]) >> (sa + 32));")

# --- REGIMM (op 1) -------------------------------------------------------------------------------
NEG = "R[rs] >= 0x8000000000000000"
CNEG = "S64(R[rs]) < 0"
for rt, name, cond, ccond, flow, link in (
        (0x00, "bltz", NEG, CNEG, "branch", ""), (0x01, "bgez", "not " + NEG, "!(" + CNEG + ")", "branch", ""),
        (0x02, "bltzl", NEG, CNEG, "likely", ""), (0x03, "bgezl", "not " + NEG, "!(" + CNEG + ")", "likely", ""),
        (0x10, "bltzal", NEG, CNEG, "branch", "31"), (0x11, "bgezal", "not " + NEG, "!(" + CNEG + ")", "branch", "31"),
        (0x12, "bltzall", NEG, CNEG, "likely", "31"),
        (0x13, "bgezall", "not " + NEG, "!(" + CNEG + ")", "likely", "31")):
    row(name, 0xFC1F0000, 0x04000000 | rt << 16, ("rs", "btarget"), "branch", f"cond = {cond}",
        flow=flow, link=link, writes=("31",) if link else (), c=f"cond = {ccond};")
for rt, name in ((0x08, "tgei"), (0x09, "tgeiu"), (0x0A, "tlti"), (0x0B, "tltiu"), (0x0C, "teqi"), (0x0E, "tnei")):
    row(name, 0xFC1F0000, 0x04000000 | rt << 16, ("rs", "imm"), "trap",
        trap_sem(name, "R[rs]", "(imm & 0xFFFFFFFFFFFFFFFF)"), c=trap_c(name, "R[rs]", "(uint64_t)(int64_t)(imm)"))
row("mtsab", 0xFC1F0000, 0x04180000, ("rs", "imm"), "sa", "S.sa = ((R[rs] & 0xFFFFFFFF) ^ uimm) & 15", "ee",
    c="S.sa = ((uint32_t)R[rs] ^ uimm) & 15;")
row("mtsah", 0xFC1F0000, 0x04190000, ("rs", "imm"), "sa", "S.sa = (((R[rs] & 0xFFFFFFFF) ^ uimm) & 7) * 2", "ee",
    c="S.sa = (((uint32_t)R[rs] ^ uimm) & 7) * 2;")

# --- jumps and branches (primary) ----------------------------------------------------------------
row("j", 0xFC000000, 0x08000000, ("jtarget",), "jump", "", flow="jump", c=";")
row("jal", 0xFC000000, 0x0C000000, ("jtarget",), "jump", "", flow="jump", link="31", writes=("31",), c=";")
for op, name, ops, cond, ccond, flow in (
        (0x04, "beq", ("rs", "rt", "btarget"), "R[rs] == R[rt]", "R[rs] == R[rt]", "branch"),
        (0x05, "bne", ("rs", "rt", "btarget"), "R[rs] != R[rt]", "R[rs] != R[rt]", "branch"),
        (0x06, "blez", ("rs", "btarget"), "R[rs] == 0 or R[rs] >= 0x8000000000000000", "S64(R[rs]) <= 0", "branch"),
        (0x07, "bgtz", ("rs", "btarget"), "0 < R[rs] < 0x8000000000000000", "S64(R[rs]) > 0", "branch"),
        (0x14, "beql", ("rs", "rt", "btarget"), "R[rs] == R[rt]", "R[rs] == R[rt]", "likely"),
        (0x15, "bnel", ("rs", "rt", "btarget"), "R[rs] != R[rt]", "R[rs] != R[rt]", "likely"),
        (0x16, "blezl", ("rs", "btarget"), "R[rs] == 0 or R[rs] >= 0x8000000000000000", "S64(R[rs]) <= 0", "likely"),
        (0x17, "bgtzl", ("rs", "btarget"), "0 < R[rs] < 0x8000000000000000", "S64(R[rs]) > 0", "likely")):
    mask = 0xFC000000 if len(ops) == 3 else 0xFC1F0000      # BLEZ/BGTZ: rt must be zero
    row(name, mask, op << 26, ops, "branch", f"cond = {cond}", flow=flow, c=f"cond = {ccond};")

# --- immediates ----------------------------------------------------------------------------------
IT = 0xFC000000
_IMM64 = "(uint64_t)(int64_t)(imm)"
row("addi", IT, 0x08 << 26, ("rt", "rs", "imm"), "alu", add_trap("addi", "R[rs]", "imm", 32) + "R[rt] = t & 0xFFFFFFFFFFFFFFFF",
    writes=("rt",), c=add_trap_c("+", "R[rs]", _IMM64, 32) + "R[rt] = (uint64_t)t;")
row("addiu", IT, 0x09 << 26, ("rt", "rs", "imm"), "alu", SET("R[rt]", 'R[rs] + imm'), writes=("rt",),
    c=CSET("R[rt]", f"R[rs] + {_IMM64}"))
row("slti", IT, 0x0A << 26, ("rt", "rs", "imm"), "alu",
    "R[rt] = 1 if (R[rs] ^ 0x8000000000000000) < ((imm & 0xFFFFFFFFFFFFFFFF) ^ 0x8000000000000000) else 0",
    writes=("rt",), c="R[rt] = S64(R[rs]) < (int64_t)(imm);")
row("sltiu", IT, 0x0B << 26, ("rt", "rs", "imm"), "alu", "R[rt] = 1 if R[rs] < (imm & 0xFFFFFFFFFFFFFFFF) else 0",
    writes=("rt",), c=f"R[rt] = R[rs] < {_IMM64};")
row("andi", IT, 0x0C << 26, ("rt", "rs", "uimm"), "alu", "R[rt] = R[rs] & uimm", writes=("rt",),
    c="R[rt] = R[rs] & uimm;")
row("ori", IT, 0x0D << 26, ("rt", "rs", "uimm"), "alu", "R[rt] = R[rs] | uimm", writes=("rt",),
    c="R[rt] = R[rs] | uimm;")
row("xori", IT, 0x0E << 26, ("rt", "rs", "uimm"), "alu", "R[rt] = R[rs] ^ uimm", writes=("rt",),
    c="R[rt] = R[rs] ^ uimm;")
row("lui", 0xFFE00000, 0x0F << 26, ("rt", "uimm"), "alu", SET("R[rt]", 'uimm << 16'), writes=("rt",),
    c=CSET("R[rt]", "(uint64_t)uimm << 16"))
row("daddi", IT, 0x18 << 26, ("rt", "rs", "imm"), "alu",
    add_trap("daddi", "R[rs]", "(imm & 0xFFFFFFFFFFFFFFFF)", 64) + "R[rt] = t & 0xFFFFFFFFFFFFFFFF", writes=("rt",),
    c=add_trap_c("+", "R[rs]", _IMM64, 64) + "R[rt] = (uint64_t)t;")
row("daddiu", IT, 0x19 << 26, ("rt", "rs", "imm"), "alu", "R[rt] = (R[rs] + imm) & 0xFFFFFFFFFFFFFFFF",
    writes=("rt",), c=f"R[rt] = R[rs] + {_IMM64};")

# --- loads and stores ----------------------------------------------------------------------------
MEM = ("rt", "mem")


CADDR = "uint32_t a = (uint32_t)(R[rs] + (uint64_t)(int64_t)(imm));\n"


def load(op, name, sem, c, owner="capstone", note=""):
    row(name, IT, op << 26, MEM, "load", ADDR + sem, owner, ("rt",), note=note, c=CADDR + c)


def store(op, name, sem, c, owner="capstone"):
    row(name, IT, op << 26, MEM, "store", ADDR + sem, owner, c=CADDR + c)


# Fast paths: MV8/MV16/MV32/MV64 are memoryviews of RAM (integer.namespace); anything outside
# physical RAM or misaligned goes through ld*/st*, which map mirrors and raise faults.
def fast_ld(size, a="a"):
    mv, fn = {1: ("MV8", "ld8"), 2: ("MV16", "ld16"), 4: ("MV32", "ld32"), 8: ("MV64", "ld64")}[size]
    if size == 1:
        return f"({mv}[{a}] if {a} < 0x2000000 else {fn}({a}))"
    sh = {2: 1, 4: 2, 8: 3}[size]
    return f"({mv}[{a} >> {sh}] if {a} < 0x2000000 and not {a} & {size - 1} else {fn}({a}))"


def fast_st(size, v):
    mv, fn = {1: ("MV8", "st8"), 2: ("MV16", "st16"), 4: ("MV32", "st32"), 8: ("MV64", "st64")}[size]
    mask = (1 << 8 * size) - 1
    if size == 1:
        return f"if a < 0x2000000:\n    {mv}[a] = {v} & {mask:#x}\n    DIRTY[a >> 12] = 1\nelse:\n    {fn}(a, {v})"
    sh = {2: 1, 4: 2, 8: 3}[size]
    return (f"if a < 0x2000000 and not a & {size - 1}:\n    {mv}[a >> {sh}] = {v} & {mask:#x}\n"
            f"    DIRTY[a >> 12] = 1\nelse:\n    {fn}(a, {v})")


load(0x20, "lb", f"_x = {fast_ld(1)}\nR[rt] = _x | 0xFFFFFFFFFFFFFF00 if _x & 0x80 else _x",
     "R[rt] = (uint64_t)S8(LD8(a));")
load(0x21, "lh", f"_x = {fast_ld(2)}\nR[rt] = _x | 0xFFFFFFFFFFFF0000 if _x & 0x8000 else _x",
     "R[rt] = (uint64_t)S16(LD16(a));")
load(0x22, "lwl", "s = (a & 3) << 3\n"
                  "m = ld32(a & 0xFFFFFFFC)\n"
                  + SET("R[rt]", '(R[rt] & (0x00FFFFFF >> s)) | ((m << (24 - s)) & 0xFFFFFFFF)'),
     "uint32_t s = (a & 3) << 3;\nuint32_t m = LD32(a & 0xFFFFFFFCu);\n"
     + CSET("R[rt]", "((uint32_t)R[rt] & (0x00FFFFFFu >> s)) | (uint32_t)((uint64_t)m << (24 - s))"))
load(0x23, "lw", SET("R[rt]", fast_ld(4)), "R[rt] = SX32(LD32(a));")
load(0x24, "lbu", f"R[rt] = {fast_ld(1)}", "R[rt] = LD8(a);")
load(0x25, "lhu", f"R[rt] = {fast_ld(2)}", "R[rt] = LD16(a);")
load(0x26, "lwr", "s = (a & 3) << 3\n"
                  "m = ld32(a & 0xFFFFFFFC)\n"
                  "t = (R[rt] & ~(0xFFFFFFFF >> s) & 0xFFFFFFFF) | (m >> s)\n"
                  "if s == 0:\n"
                  + SET("R[rt]", "t", "    ", nl=True)
                  + "else:\n"
                  "    R[rt] = (R[rt] & 0xFFFFFFFF00000000) | t",
     "uint32_t s = (a & 3) << 3;\nuint32_t m = LD32(a & 0xFFFFFFFCu);\n"
     "uint32_t t = ((uint32_t)R[rt] & ~(0xFFFFFFFFu >> s)) | (m >> s);\n"
     "if (s == 0) R[rt] = SX32(t); else R[rt] = (R[rt] & 0xFFFFFFFF00000000ULL) | t;",
     note="bits 32-63 kept unless the address is aligned [HW]")
load(0x27, "lwu", f"R[rt] = {fast_ld(4)}", "R[rt] = LD32(a);")
load(0x37, "ld", f"R[rt] = {fast_ld(8)}", "R[rt] = LD64(a);")
load(0x1A, "ldl", "s = (a & 7) << 3\n"
                  "m = ld64(a & 0xFFFFFFF8)\n"
                  "R[rt] = (R[rt] & (0x00FFFFFFFFFFFFFF >> s)) | ((m << (56 - s)) & 0xFFFFFFFFFFFFFFFF)",
     "uint32_t s = (a & 7) << 3;\nuint64_t m = LD64(a & 0xFFFFFFF8u);\n"
     "R[rt] = (R[rt] & (0x00FFFFFFFFFFFFFFULL >> s)) | (m << (56 - s));")
load(0x1B, "ldr", "s = (a & 7) << 3\n"
                  "m = ld64(a & 0xFFFFFFF8)\n"
                  "R[rt] = (R[rt] & ~(0xFFFFFFFFFFFFFFFF >> s) & 0xFFFFFFFFFFFFFFFF) | (m >> s)",
     "uint32_t s = (a & 7) << 3;\nuint64_t m = LD64(a & 0xFFFFFFF8u);\n"
     "R[rt] = (R[rt] & ~(M64 >> s)) | (m >> s);")
row("lq", IT, 0x1E << 26, MEM, "load",
    "a = (R[rs] + imm) & 0xFFFFFFF0\n"
    "if a < 0x2000000:\n    R[rt] = MV64[a >> 3]\n    RH[rt] = MV64[(a >> 3) + 1]\n"
    "else:\n    R[rt] = ld64(a)\n    RH[rt] = ld64(a + 8)", "ee", ("rt",),
    note="low 4 address bits ignored [HW]",
    c="uint32_t a = (uint32_t)(R[rs] + (uint64_t)(int64_t)(imm)) & 0xFFFFFFF0u;\n"
      "u128 v = LD128(a);\nR[rt] = (uint64_t)v;\nRH[rt] = (uint64_t)(v >> 64);")
row("sq", IT, 0x1F << 26, MEM, "store",
    "a = (R[rs] + imm) & 0xFFFFFFF0\n"
    "if a < 0x2000000:\n    MV64[a >> 3] = R[rt]\n    MV64[(a >> 3) + 1] = RH[rt]\n    DIRTY[a >> 12] = 1\n"
    "else:\n    st64(a, R[rt])\n    st64(a + 8, RH[rt])", "ee",
    note="low 4 address bits ignored [HW]",
    c="uint32_t a = (uint32_t)(R[rs] + (uint64_t)(int64_t)(imm)) & 0xFFFFFFF0u;\n"
      "ST128(a, ((u128)RH[rt] << 64) | R[rt]);")
store(0x28, "sb", fast_st(1, "R[rt]"), "ST8(a, R[rt]);")
store(0x29, "sh", fast_st(2, "R[rt]"), "ST16(a, R[rt]);")
store(0x2A, "swl", "s = (a & 3) << 3\n"
                   "b = a & 0xFFFFFFFC\n"
                   "st32(b, (ld32(b) & ~(0xFFFFFFFF >> (24 - s))) | ((R[rt] & 0xFFFFFFFF) >> (24 - s)))",
      "uint32_t s = (a & 3) << 3;\nuint32_t b = a & 0xFFFFFFFCu;\n"
      "ST32(b, (LD32(b) & ~(0xFFFFFFFFu >> (24 - s))) | ((uint32_t)R[rt] >> (24 - s)));")
store(0x2B, "sw", fast_st(4, "R[rt]"), "ST32(a, R[rt]);")
store(0x2C, "sdl", "s = (a & 7) << 3\n"
                   "b = a & 0xFFFFFFF8\n"
                   "st64(b, (ld64(b) & ~(0xFFFFFFFFFFFFFFFF >> (56 - s))) | (R[rt] >> (56 - s)))",
      "uint32_t s = (a & 7) << 3;\nuint32_t b = a & 0xFFFFFFF8u;\n"
      "ST64(b, (LD64(b) & ~(M64 >> (56 - s))) | (R[rt] >> (56 - s)));")
store(0x2D, "sdr", "s = (a & 7) << 3\n"
                   "b = a & 0xFFFFFFF8\n"
                   "st64(b, (ld64(b) & ((1 << s) - 1)) | (R[rt] << s))",
      "uint32_t s = (a & 7) << 3;\nuint32_t b = a & 0xFFFFFFF8u;\n"
      "ST64(b, (LD64(b) & ((1ULL << s) - 1)) | (R[rt] << s));")
store(0x2E, "swr", "s = (a & 3) << 3\n"
                   "b = a & 0xFFFFFFFC\n"
                   "st32(b, (ld32(b) & ((1 << s) - 1)) | ((R[rt] & 0xFFFFFFFF) << s))",
      "uint32_t s = (a & 3) << 3;\nuint32_t b = a & 0xFFFFFFFCu;\n"
      "ST32(b, (LD32(b) & ((1u << s) - 1)) | ((uint32_t)R[rt] << s));")
store(0x3F, "sd", fast_st(8, "R[rt]"), "ST64(a, R[rt]);")
row("cache", IT, 0x2F << 26, ("code5", "mem"), "system", "pass", note="no architectural effect", c=";")
row("pref", IT, 0x33 << 26, ("code5", "mem"), "system", "pass", note="no architectural effect", c=";")

# --- MMI-space integer rows (op 0x1C; r5900.md §4.4, §5.1) ---------------------------------------
MMI = 0x1C << 26
row("madd", RTYPE, MMI | 0x00, ("rd", "rs", "rt"), "muldiv", mult_sem(0, True, True), "ee", ("rd",),
    c=mult_c(0, True, True))
row("maddu", RTYPE, MMI | 0x01, ("rd", "rs", "rt"), "muldiv", mult_sem(0, False, True), "ee", ("rd",),
    c=mult_c(0, False, True))
row("mfhi1", 0xFFFF07FF, MMI | 0x10, ("rd",), "muldiv", "R[rd] = HI[1]", "ee", ("rd",), c="R[rd] = HI[1];")
row("mthi1", 0xFC1FFFFF, MMI | 0x11, ("rs",), "muldiv", "HI[1] = R[rs]", "ee", c="HI[1] = R[rs];")
row("mflo1", 0xFFFF07FF, MMI | 0x12, ("rd",), "muldiv", "R[rd] = LO[1]", "ee", ("rd",), c="R[rd] = LO[1];")
row("mtlo1", 0xFC1FFFFF, MMI | 0x13, ("rs",), "muldiv", "LO[1] = R[rs]", "ee", c="LO[1] = R[rs];")
row("mult1", RTYPE, MMI | 0x18, ("rd", "rs", "rt"), "muldiv", mult_sem(1, True), "ee", ("rd",), c=mult_c(1, True))
row("multu1", RTYPE, MMI | 0x19, ("rd", "rs", "rt"), "muldiv", mult_sem(1, False), "ee", ("rd",),
    c=mult_c(1, False))
row("div1", 0xFC00FFFF, MMI | 0x1A, ("rs", "rt"), "muldiv", div_sem(1, True), "ee", c=div_c(1, True))
row("divu1", 0xFC00FFFF, MMI | 0x1B, ("rs", "rt"), "muldiv", div_sem(1, False), "ee", c=div_c(1, False))
row("madd1", RTYPE, MMI | 0x20, ("rd", "rs", "rt"), "muldiv", mult_sem(1, True, True), "ee", ("rd",),
    c=mult_c(1, True, True))
row("maddu1", RTYPE, MMI | 0x21, ("rd", "rs", "rt"), "muldiv", mult_sem(1, False, True), "ee", ("rd",),
    c=mult_c(1, False, True))

# --- COP0 (op 0x10): Status and friends, EI/DI --------------------------------------------------
# DECISION: COP0 registers are plain storage (S.cop0): Count does not advance and Compare raises
# nothing, since the harness never enables interrupts (r5900.md §5.4).
row("mfc0", 0xFFE007FF, 0x40000000, ("rt", "cop0"), "cop0", SET("R[rt]", 'S.cop0[rd]'), "capstone", ("rt",),
    c="R[rt] = SX32(S.cop0[rd]);")
row("mtc0", 0xFFE007FF, 0x40800000, ("rt", "cop0"), "cop0", "S.cop0[rd] = R[rt] & 0xFFFFFFFF",
    c="S.cop0[rd] = (uint32_t)R[rt];")
# EI/DI change Status.EIE only when EDI, EXL or ERL is set or KSU is kernel (r5900.md §5.4).
_EIDI = "st = S.cop0[12]\nif st & 0x20006 or not st & 0x18:\n    S.cop0[12] = "
_CEIDI = "uint32_t _s = S.cop0[12];\nif ((_s & 0x20006) || !(_s & 0x18)) S.cop0[12] = "
row("ei", 0xFFFFFFFF, 0x42000038, (), "cop0", _EIDI + "st | 0x10000", "ee", c=_CEIDI + "_s | 0x10000;")
row("di", 0xFFFFFFFF, 0x42000039, (), "cop0", _EIDI + "st & ~0x10000", "ee", c=_CEIDI + "_s & ~0x10000u;")

# DECISION: the COP0 condition line (CPCOND0, a DMA-controller signal, r5900.md §4.5) reads as
# S.cpcond0, 1 by default: the machine has no DMA, so every transfer is complete.
for rt, name, cond, flow in ((0, "bc0f", "not S.cpcond0", "branch"), (1, "bc0t", "S.cpcond0", "branch"),
                             (2, "bc0fl", "not S.cpcond0", "likely"), (3, "bc0tl", "S.cpcond0", "likely")):
    row(name, 0xFFFF0000, 0x41000000 | rt << 16, ("btarget",), "branch", f"cond = {cond}", "ee", flow=flow,
        c=f"cond = {'!' if cond.startswith('not') else ''}S.cpcond0;")

# Kernel TLB and exception-return instructions: decoded (the EE has them) but not executed.
for fn, name in ((0x01, "tlbr"), (0x02, "tlbwi"), (0x06, "tlbwr"), (0x08, "tlbp"), (0x18, "eret")):
    row(name, 0xFFFFFFFF, 0x42000000 | fn, (), "cop0",
        f"fault('unimplemented', '{name.upper()} is a kernel instruction this user-mode machine does not execute')",
        "ee", py="raises: a kernel instruction")

COP0_NAMES = ("Index", "Random", "EntryLo0", "EntryLo1", "Context", "PageMask", "Wired", "$7", "BadVAddr",
              "Count", "EntryHi", "Compare", "Status", "Cause", "EPC", "PRId", "Config", "$17", "$18",
              "$19", "$20", "$21", "$22", "BadPAddr", "Debug", "Perf", "$26", "$27", "TagLo", "TagHi",
              "ErrorEPC", "$31")
OPERAND_FORMATS.setdefault("cop0", lambda f: COP0_NAMES[f["rd"]])
OPERAND_FORMATS.setdefault("code5", lambda f: hex(f["rt"]))


def namespace(machine):
    machine.S.cpcond0 = 1
    mv = memoryview(machine.mem.ram)
    return {"MV8": mv, "MV16": mv.cast("H"), "MV32": mv.cast("I"), "MV64": mv.cast("Q"),
            "DIRTY": machine.mem.dirty}     # a RAM store marks its 4 KiB page (Memory.snapshot)
