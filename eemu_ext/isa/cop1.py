"""COP1 rows: the EE's single-precision FPU (r5900.md §4.6, §7; arithmetic and flags ee-float.md).

Every sem here runs the machine's float model through names from ``namespace(machine)``:
``f_add`` ... ``f_max`` (raw u32 in, ``bits | flags`` out, see eefloat) and ``fcr_*`` (FCR31
bookkeeping; no-ops under trunc, where FCR31 holds only C). FPU ACC is ``S.acc``; its hidden
overflow latch (ee-float.md §3.6) is ``S.acc_ovf``; FCR31 is ``S.fcr31`` and always reads with
bits 0 and 24 set.

Every row's ``c`` is its compiled semantics (eemu_ext/engines/native/csrc/ee.h), statement for statement
the same as ``sem``, with the model names of eemu_ext/engines/native/csrc/model.h. DECISION: a ``c`` that
needs a local (the flagged result ``r``) is one braced block, so consecutive rows in one C
function never redeclare a name.
"""
from __future__ import annotations

from eemu_ext import eefloat
from eemu_ext.isa.row import OPERAND_FORMATS, Row

OP_COP1 = 0x11 << 26
S_FMT = OP_COP1 | (16 << 21)          # .S functions
W_FMT = OP_COP1 | (20 << 21)          # .W functions
MASK_FUNCT = 0xFFE0003F               # op, rs, funct fixed
M_FD0 = MASK_FUNCT | (31 << 6)        # ... and fd must be zero
M_FT0 = MASK_FUNCT | (31 << 16)       # ... and ft must be zero
M_FS0 = MASK_FUNCT | (31 << 11)       # ... and fs must be zero

OPERAND_FORMATS.setdefault("fcr", lambda f: f"${f['fs']}")

# Sem fragments. ``r`` is a flagged result (bits | flags) from the model.
_ARITH_FLAGS = ("\nif r >> 32: S.fcr31 = fcr_arith(S.fcr31, r)"
                "\nelif S.fcr31 & 0xC000: S.fcr31 &= 0xFFFF3FFF")
_CLEAR_OU = "\nif S.fcr31 & 0xC000: S.fcr31 &= 0xFFFF3FFF"
# The same fragments in C.
_ARITH_FLAGS_C = ("\nif (r >> 32) S.fcr31 = fcr_arith(S.fcr31, r);"
                  "\nelse if (S.fcr31 & 0xC000) S.fcr31 &= 0xFFFF3FFF;")
_CLEAR_OU_C = "\nif (S.fcr31 & 0xC000) S.fcr31 &= 0xFFFF3FFF;"


def _binary(name, funct, f):
    """fd := f(fs, ft) with the ADD/SUB/MUL flag rules."""
    return Row(name, MASK_FUNCT, S_FMT | funct, ("fd", "fs", "ft"), "cop1",
               f"r = {f}(F[fs], F[ft])\nF[fd] = r & 0xFFFFFFFF" + _ARITH_FLAGS, owner="ee",
               c=f"{{ uint64_t r = {f}(F[fs], F[ft]);\nF[fd] = (uint32_t)r;" + _ARITH_FLAGS_C + " }")


def _acc_binary(name, funct, f):
    """ACC := f(fs, ft); the latch takes this instruction's overflow outcome."""
    return Row(name, M_FD0, S_FMT | funct, ("fs", "ft"), "cop1",
               f"r = {f}(F[fs], F[ft])\nS.acc = r & 0xFFFFFFFF\nS.acc_ovf = r & F_OVF" + _ARITH_FLAGS,
               owner="ee", note="writes FPU ACC and its overflow latch (ee-float.md §3.6)",
               c=f"{{ uint64_t r = {f}(F[fs], F[ft]);\nS.acc = (uint32_t)r;\nS.acc_ovf = r & F_OVF;"
                 + _ARITH_FLAGS_C + " }")


def _madd(name, funct, f):
    return Row(name, MASK_FUNCT, S_FMT | funct, ("fd", "fs", "ft"), "cop1",
               f"r = {f}(S.acc, F[fs], F[ft], S.acc_ovf)\nF[fd] = r & 0xFFFFFFFF" + _ARITH_FLAGS,
               owner="ee", note="ACC +/- fs*ft, product rounded first; ee-float.md §3.6 overflow rules",
               c=f"{{ uint64_t r = {f}(S.acc, F[fs], F[ft], S.acc_ovf);\nF[fd] = (uint32_t)r;"
                 + _ARITH_FLAGS_C + " }")


def _madda(name, funct, f):
    return Row(name, M_FD0, S_FMT | funct, ("fs", "ft"), "cop1",
               f"r = {f}(S.acc, F[fs], F[ft], S.acc_ovf)\nS.acc = r & 0xFFFFFFFF\nS.acc_ovf = r & F_OVF"
               "\nS.fcr31 = fcr_acc(S.fcr31, r)",
               owner="ee", note="ACC := ACC +/- fs*ft; underflow sets SU only (ee-float.md §3.9)",
               c=f"{{ uint64_t r = {f}(S.acc, F[fs], F[ft], S.acc_ovf);\nS.acc = (uint32_t)r;"
                 "\nS.acc_ovf = r & F_OVF;\nS.fcr31 = fcr_acc(S.fcr31, r); }")


def _compare(name, funct, sem, c):
    return Row(name, M_FD0, S_FMT | funct, ("fs", "ft"), "cop1", sem, owner="ee", c=c)


def _compare_key(name, funct, op):
    """C := f_key(fs) <op> f_key(ft) (ee-float.md §3.7)."""
    return _compare(name, funct,
                    f"if f_key(F[fs]) {op} f_key(F[ft]): S.fcr31 |= 0x800000\nelse: S.fcr31 &= 0xFF7FFFFF",
                    f"if (f_key(F[fs]) {op} f_key(F[ft])) S.fcr31 |= 0x800000;"
                    "\nelse S.fcr31 &= 0xFF7FFFFF;")


def _bc1(name, rt, cond, flow, cond_c):
    return Row(name, 0xFFFF0000, OP_COP1 | (8 << 21) | (rt << 16), ("btarget",), "cop1",
               f"cond = {cond}", owner="ee", flow=flow, note="C is FCR31 bit 23",
               c=f"cond = {cond_c};")


ROWS = [
    # moves between the GPRs and COP1 (r5900.md §7)
    Row("mfc1", 0xFFE007FF, OP_COP1 | (0 << 21), ("rt", "fs"), "cop1",
        "R[rt] = sx32(F[fs])", owner="ee", gpr_writes=("rt",), c="R[rt] = SX32(F[fs]);",
        note="sign-extends into bits 0-63, keeps bits 64-127"),
    Row("cfc1", 0xFFE007FF, OP_COP1 | (2 << 21), ("rt", "fcr"), "cop1",
        "R[rt] = sx32(FCR0_VALUE if fs < 16 else S.fcr31)", owner="ee", gpr_writes=("rt",),
        c="R[rt] = SX32(fs < 16 ? FCR0_VALUE : S.fcr31);",
        note="FCR0-15 read FCR0 (0x2E30), FCR16-31 read FCR31 [HW]"),
    Row("mtc1", 0xFFE007FF, OP_COP1 | (4 << 21), ("rt", "fs"), "cop1",
        "F[fs] = R[rt] & 0xFFFFFFFF", owner="ee", c="F[fs] = (uint32_t)R[rt];"),
    Row("ctc1", 0xFFE007FF, OP_COP1 | (6 << 21), ("rt", "fcr"), "cop1",
        "if fs == 31: S.fcr31 = (R[rt] & FCR31_MASK) | 0x01000001", owner="ee",
        c="if (fs == 31) S.fcr31 = ((uint32_t)R[rt] & FCR31_MASK) | 0x01000001;",
        note="writes FCR31 through 0x0083C078 (trunc: C only), bits 0 and 24 forced; others ignored"),
    _bc1("bc1f", 0, "not S.fcr31 & 0x800000", "branch", "!(S.fcr31 & 0x800000)"),
    _bc1("bc1t", 1, "S.fcr31 & 0x800000 != 0", "branch", "(S.fcr31 & 0x800000) != 0"),
    _bc1("bc1fl", 2, "not S.fcr31 & 0x800000", "likely", "!(S.fcr31 & 0x800000)"),
    _bc1("bc1tl", 3, "S.fcr31 & 0x800000 != 0", "likely", "(S.fcr31 & 0x800000) != 0"),
    # loads and stores of raw bits
    Row("lwc1", 0xFC000000, 0x31 << 26, ("ft", "mem"), "cop1",
        "F[ft] = ld32((R[rs] + imm) & 0xFFFFFFFF)", owner="ee",
        c="F[ft] = (uint32_t)LD32((R[rs] + imm) & 0xFFFFFFFF);"),
    Row("swc1", 0xFC000000, 0x39 << 26, ("ft", "mem"), "cop1",
        "st32((R[rs] + imm) & 0xFFFFFFFF, F[ft])", owner="ee",
        c="ST32((R[rs] + imm) & 0xFFFFFFFF, F[ft]);"),
    # .S arithmetic (ee-float.md §3)
    _binary("add.s", 0x00, "f_add"),
    _binary("sub.s", 0x01, "f_sub"),
    _binary("mul.s", 0x02, "f_mul"),
    Row("div.s", MASK_FUNCT, S_FMT | 0x03, ("fd", "fs", "ft"), "cop1",
        "r = f_div(F[fs], F[ft])\nF[fd] = r & 0xFFFFFFFF\nif r >> 32: S.fcr31 = fcr_div(S.fcr31, r)",
        owner="ee", note="never sets O or U; D or I by a zero divisor",
        c="{ uint64_t r = f_div(F[fs], F[ft]);\nF[fd] = (uint32_t)r;"
          "\nif (r >> 32) S.fcr31 = fcr_div(S.fcr31, r); }"),
    Row("sqrt.s", M_FS0, S_FMT | 0x04, ("fd", "ft"), "cop1",
        "r = f_sqrt(F[ft])\nF[fd] = r & 0xFFFFFFFF\nS.fcr31 = fcr_sqrt(S.fcr31, r)",
        owner="ee",
        c="{ uint64_t r = f_sqrt(F[ft]);\nF[fd] = (uint32_t)r;\nS.fcr31 = fcr_sqrt(S.fcr31, r); }",
        note="operand in ft (r5900.md §4.6); DECISION: fs must be 0 (GNU as puts the operand in fs)"),
    Row("abs.s", M_FT0, S_FMT | 0x05, ("fd", "fs"), "cop1",
        "F[fd] = F[fs] & 0x7FFFFFFF" + _CLEAR_OU, owner="ee",
        c="F[fd] = F[fs] & 0x7FFFFFFF;" + _CLEAR_OU_C),
    Row("mov.s", M_FT0, S_FMT | 0x06, ("fd", "fs"), "cop1", "F[fd] = F[fs]", owner="ee",
        c="F[fd] = F[fs];"),
    Row("neg.s", M_FT0, S_FMT | 0x07, ("fd", "fs"), "cop1",
        "F[fd] = F[fs] ^ 0x80000000" + _CLEAR_OU, owner="ee",
        c="F[fd] = F[fs] ^ 0x80000000;" + _CLEAR_OU_C),
    Row("rsqrt.s", MASK_FUNCT, S_FMT | 0x16, ("fd", "fs", "ft"), "cop1",
        "r = f_rsqrt(F[fs], F[ft])\nF[fd] = r & 0xFFFFFFFF\nS.fcr31 = fcr_sqrt(S.fcr31, r)",
        owner="ee", note="fs / sqrt|ft| (ee-float.md §3.5)",
        c="{ uint64_t r = f_rsqrt(F[fs], F[ft]);\nF[fd] = (uint32_t)r;"
          "\nS.fcr31 = fcr_sqrt(S.fcr31, r); }"),
    _acc_binary("adda.s", 0x18, "f_add"),
    _acc_binary("suba.s", 0x19, "f_sub"),
    _acc_binary("mula.s", 0x1A, "f_mul"),
    _madd("madd.s", 0x1C, "f_madd"),
    _madd("msub.s", 0x1D, "f_msub"),
    _madda("madda.s", 0x1E, "f_madd"),
    _madda("msuba.s", 0x1F, "f_msub"),
    Row("cvt.w.s", M_FT0, S_FMT | 0x24, ("fd", "fs"), "cop1",
        "F[fd] = f_to_int(F[fs])", owner="ee", c="F[fd] = f_to_int(F[fs]);",
        note="always truncates, saturates; GNU as and rabbitizer call it trunc.w.s"),
    Row("max.s", MASK_FUNCT, S_FMT | 0x28, ("fd", "fs", "ft"), "cop1",
        "F[fd] = f_max(F[fs], F[ft])" + _CLEAR_OU, owner="ee", note="raw-bit order (ee-float.md §3.7)",
        c="F[fd] = f_max(F[fs], F[ft]);" + _CLEAR_OU_C),
    Row("min.s", MASK_FUNCT, S_FMT | 0x29, ("fd", "fs", "ft"), "cop1",
        "F[fd] = f_min(F[fs], F[ft])" + _CLEAR_OU, owner="ee",
        c="F[fd] = f_min(F[fs], F[ft]);" + _CLEAR_OU_C),
    _compare("c.f.s", 0x30, "S.fcr31 &= 0xFF7FFFFF", "S.fcr31 &= 0xFF7FFFFF;"),
    _compare_key("c.eq.s", 0x32, "=="),
    _compare_key("c.lt.s", 0x34, "<"),
    _compare_key("c.le.s", 0x36, "<="),
    Row("cvt.s.w", M_FT0, W_FMT | 0x20, ("fd", "fs"), "cop1",
        "F[fd] = f_from_int(F[fs])", owner="ee", note="truncates to 24 significant bits",
        c="F[fd] = f_from_int(F[fs]);"),
]


def float_model_of(machine) -> eefloat.FloatModel:
    """The FloatModel named by ``machine.float_model`` (a name or a FloatModel)."""
    fm = getattr(machine, "float_model", "hw")
    return fm if isinstance(fm, eefloat.FloatModel) else eefloat.model(fm)


def namespace(machine) -> dict:
    """Model functions for COP1 sem code, chosen by ``machine.float_model``."""
    fm = float_model_of(machine)
    return {
        "f_add": fm.add, "f_sub": fm.sub, "f_mul": fm.mul, "f_div": fm.div,
        "f_sqrt": fm.sqrt, "f_rsqrt": fm.rsqrt, "f_madd": fm.madd, "f_msub": fm.msub,
        "f_from_int": fm.from_int, "f_to_int": fm.to_int, "f_key": fm.key,
        "f_max": fm.fmax, "f_min": fm.fmin,
        "fcr_arith": fm.fcr_arith, "fcr_acc": fm.fcr_acc, "fcr_div": fm.fcr_div,
        "fcr_sqrt": fm.fcr_sqrt,
        "F_OVF": eefloat.OVF,
        "FCR0_VALUE": eefloat.FCR0_VALUE,
        # DECISION: under trunc FCR31 holds only C (ee-float.md §2.2), so CTC1 keeps only bit 23.
        "FCR31_MASK": eefloat.FCR_WRITABLE if fm.flags else eefloat.FCR_C,
    }
