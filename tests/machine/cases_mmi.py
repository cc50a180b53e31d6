"""Executable MMI and SA cases: one or more per row, run as instruction words on the Machine.

``CASES`` maps every MMI/SA row mnemonic to a list of callables; each builds
``Machine(coverage=True)``, runs the instruction words, asserts the result and returns the machine
(test_coverage.py checks ``m.coverage`` on it). Two kinds of case:

* spec examples (``EXAMPLES``): the [HW] examples and rules of r5900.md §5.3 and §6 with literal
  expected values;
* model cases: seeded edge-heavy inputs, expected state from tests/machine/mmi_ref.py (the
  lane-list model of the spec).

The same cases also run through ``run_sem`` (the rows' sem source executed on a plain state,
without the Machine), which is how test_mmi_lanes.py checks thousands of random inputs fast.
"""
from __future__ import annotations

import random
import re
import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from eemu_ext.isa import ROWS
from eemu_ext.isa import mmi
from eemu_ext.isa.row import fields_of

from tests.machine.mmi_ref import St, ref

M64 = 2**64 - 1
M128 = 2**128 - 1

MMI_ROWS = [r for r in ROWS if r.cls == "mmi"]
SA_ROWS = [r for r in ROWS if r.cls == "sa"]
ROW = {r.mnemonic: r for r in ROWS}


def enc(mn: str, rd: int = 0, rs: int = 0, rt: int = 0, sa: int = 0, imm: int = 0) -> int:
    """The instruction word of row ``mn`` with the given fields (only the operands it has)."""
    r = ROW[mn]
    ops = r.operands
    w = r.match
    if "rs" in ops:
        w |= rs << 21
    if "rt" in ops:
        w |= rt << 16
    if "rd" in ops:
        w |= rd << 11
    if "sa" in ops:
        w |= sa << 6
    if "imm" in ops or "uimm" in ops:
        w |= imm & 0xFFFF
    assert r.matches(w), (mn, hex(w))
    return w


# --- run_sem: a row's sem on a plain state (no Machine) -------------------------------------------

_TOKENS = re.compile(r"(?<![.\w])(rs|rt|rd|sa|funct|imm|uimm|target|code|ft|fs|fd|dest|bc|fsf|ftf|"
                     r"imm5|imm11|imm15|pc|btarget|jtarget)\b")


class _S:
    """The scalar state the sem sources see as S (only sa matters to MMI)."""
    def __init__(self, sa=0):
        self.sa = sa


def _sx32(x):
    x &= 0xFFFFFFFF
    return x | 0xFFFFFFFF00000000 if x & 0x80000000 else x


_NS = dict(mmi.namespace(None), M32=0xFFFFFFFF, M64=M64, sx32=_sx32)
_compiled: Dict[int, object] = {}


def _code(word: int):
    c = _compiled.get(word)
    if c is None:
        row = next(r for r in ROWS if r.matches(word))
        f = fields_of(word)
        src = _TOKENS.sub(lambda m: str(f[m.group(1)]), row.sem)
        c = _compiled[word] = (compile(src, f"<{row.mnemonic} {word:#010x}>", "exec"), row, f)
    return c


def run_sem(words, st: St) -> St:
    """Execute instruction words by their rows' sem on a copy of ``st`` (r0 rule included)."""
    R = [0] * 32
    RH = [0] * 32
    for i, v in st.gpr.items():
        if i:
            R[i], RH[i] = v & M64, v >> 64
    HI = [st.hi & M64, st.hi >> 64]
    LO = [st.lo & M64, st.lo >> 64]
    S = _S(st.sa)
    env = dict(_NS, R=R, RH=RH, HI=HI, LO=LO, S=S)
    for w in words:
        code, row, f = _code(w)
        exec(code, env)
        for fld in row.gpr_writes:
            if f[fld] == 0:
                R[0] = RH[0] = 0
    out = St({i: R[i] | RH[i] << 64 for i in range(1, 32)}, HI[0] | HI[1] << 64,
             LO[0] | LO[1] << 64, S.sa)
    return out


# --- run_machine: the same on the Machine, through its documented interface only -------------------

DATA = 0x00200000
CODE, CODE_STRIDE, CODE_SLOTS = 0x00400000, 0x800, 0x3000     # code slots 0x00400000-0x01C00000
OUT = DATA + 0x400
SCRATCH = (1, 26, 31)            # at (data base), k0 (HI/LO/SA transfers), ra: never test registers
CALL_SET = (28, 29)              # gp, sp: set by the call protocol (interfaces.md §1), not compared


def _w(op, rs, rt, imm):
    return (op << 26) | (rs << 21) | (rt << 16) | (imm & 0xFFFF)


def run_machine(words, st: St, regs=None, m=None, slot: int = 0):
    """Load ``st`` (GPRs by LQ, HI/LO by PMTHI/PMTLO, SA by MTSA), run ``words``, read everything
    back (SQ, PMFHI/PMFLO, MFSA). Returns (machine, state after). Pass ``m`` to reuse a machine
    (building one costs ~50 ms); ``slot`` picks a distinct code address for each program."""
    if m is None:
        from eemu_ext import Machine
        m = Machine(coverage=True)
    return m, run_program(m, put_program(m, words, sorted(set(regs or ()) | set(st.gpr)), slot), st)


def put_program(m, words, regs, slot: int = 0):
    """Write run_machine's program for ``words`` (loading the GPRs ``regs``) at code slot ``slot``;
    returns its address. Programs put first and declared entries (Machine.declare_entries) are
    one native program, where each new start alone is a compile of its own."""
    assert 0 <= slot < CODE_SLOTS, slot
    code_at = CODE + CODE_STRIDE * slot
    code = program_words(words, regs)
    assert 4 * len(code) <= CODE_STRIDE, len(code)
    m.write(code_at, struct.pack(f"<{len(code)}I", *code))
    return code_at


def program_words(words, regs) -> List[int]:
    """run_machine's program for ``words``: load the GPRs ``regs`` (LQ), HI, LO and SA, run the
    words, store every GPR, HI, LO and SA back (SQ, SD) and return (jr ra)."""
    return program_head(regs) + list(words) + program_tail()


def program_head(regs) -> List[int]:
    """The loads before a program's words: the GPRs ``regs`` by LQ, HI/LO by PMTHI/PMTLO, SA by MTSA."""
    assert not set(regs) & set(SCRATCH), regs
    LQ, LUI = 0x1E, 0x0F
    k0 = 26
    code = [_w(LUI, 0, 1, DATA >> 16)]
    code += [_w(LQ, 1, r, 16 * r) for r in regs if r]
    code += [_w(LQ, 1, k0, 0x200), enc("pmthi", rs=k0),
             _w(LQ, 1, k0, 0x210), enc("pmtlo", rs=k0),
             _w(LQ, 1, k0, 0x220), enc("mtsa", rs=k0)]
    return code


def program_tail() -> List[int]:
    """The stores after a program's words (every GPR by SQ, HI/LO by PMFHI/PMFLO, SA by MFSA),
    then jr ra."""
    SQ, SD, LUI = 0x1F, 0x3F, 0x0F
    k0 = 26
    code = [_w(LUI, 0, 1, DATA >> 16)]
    code += [_w(SQ, 1, r, 0x400 + 16 * r) for r in range(2, 32) if r not in SCRATCH]
    code += [enc("pmfhi", rd=k0), _w(SQ, 1, k0, 0x600), enc("pmflo", rd=k0), _w(SQ, 1, k0, 0x610),
             enc("mfsa", rd=k0), _w(SD, 1, k0, 0x620)]
    code += [(31 << 21) | 8, 0]                          # jr ra; nop
    return code


def run_program(m, code_at, st: St) -> St:
    """Run the program put at code_at from state ``st``; the state after."""
    data = bytearray(0x240)
    for r in range(32):
        v = st.g(r)
        data[16 * r:16 * r + 16] = v.to_bytes(16, "little")
    data[0x200:0x210] = st.hi.to_bytes(16, "little")
    data[0x210:0x220] = st.lo.to_bytes(16, "little")
    data[0x220:0x230] = st.sa.to_bytes(16, "little")
    m.write(DATA, bytes(data))
    m.call(code_at, limit=10_000)
    raw = m.read(OUT, 0x230)
    gpr = {r: int.from_bytes(raw[16 * r:16 * r + 16], "little")
           for r in range(2, 32) if r not in SCRATCH}
    return St(gpr, int.from_bytes(raw[0x200:0x210], "little"),
              int.from_bytes(raw[0x210:0x220], "little"), int.from_bytes(raw[0x220:0x228], "little"))


# --- comparing states ------------------------------------------------------------------------------

def diff(got: St, want: St, regs) -> List[str]:
    """Human-readable differences (raw hex) between two states, over ``regs``, HI, LO and SA."""
    out = []
    for r in regs:
        if r in SCRATCH or r in CALL_SET or r == 0:
            continue
        if got.g(r) != want.g(r):
            out.append(f"r{r}: got {got.g(r):#034x} want {want.g(r):#034x}")
    for name in ("hi", "lo", "sa"):
        g, w = getattr(got, name), getattr(want, name)
        if g != w:
            out.append(f"{name.upper()}: got {g:#034x} want {w:#034x}")
    return out


# --- spec examples --------------------------------------------------------------------------------

def W(*words):
    """A 128-bit value from 32-bit words, word 0 first (the spec's {w0, w1, w2, w3})."""
    return sum((w & 0xFFFFFFFF) << (32 * i) for i, w in enumerate(words))


def H(*halves):
    return sum((h & 0xFFFF) << (16 * i) for i, h in enumerate(halves))


@dataclass
class Example:
    """One spec example: words to run, the state before, and the expected changes."""
    name: str
    mnemonics: tuple           # the rows it exercises (for CASES)
    words: list
    before: St
    want: Dict[str, int] = field(default_factory=dict)     # 'r5', 'hi', 'lo', 'sa' -> value
    cite: str = ""

    def expected(self) -> St:
        st = self.before.copy()
        for k, v in self.want.items():
            if k.startswith("r"):
                st.gpr[int(k[1:])] = v
            else:
                setattr(st, k, v)
        return st

    def regs(self):
        return sorted(set(range(2, 26)) | set(range(27, 31)))


A_, B_, D_ = 4, 5, 6          # a0 (rs), a1 (rt), a2 (rd)


def _ex(name, mns, words, before, want, cite):
    return Example(name, tuple(mns), words, before, want, cite)


QF = W(0x12345678, 0x9ABCDEF0, 0x11223344, 0xDEADBEEF)
HILO = St({A_: W(0x00010002, 0xFFFF8000, 0x7FFF0003, 0x80008000),
           B_: W(0x00030004, 0x00027FFF, 0xFFFF0005, 0x80007FFF)},
          hi=W(0x11111111, 0x22222222, 0x33333333, 0x44444444),
          lo=W(0x55555555, 0x66666666, 0x77777777, 0x88888888))

EXAMPLES: List[Example] = [
    _ex("qfsrv SA=1 example", ["mtsa", "qfsrv"], [enc("mtsa", rs=7), enc("qfsrv", rd=D_, rs=A_, rt=A_)],
        St({A_: QF, 7: 1}), {"r6": W(0xF0123456, 0x449ABCDE, 0xEF112233, 0x78DEADBE), "sa": 1},
        "r5900.md §5.3 example [HW]"),
    _ex("qfsrv SA=0 is rt", ["qfsrv"], [enc("qfsrv", rd=D_, rs=A_, rt=B_)],
        St({A_: QF, B_: W(1, 2, 3, 4)}), {"r6": W(1, 2, 3, 4)}, "§5.3"),
    _ex("qfsrv SA=15", ["qfsrv"], [enc("qfsrv", rd=D_, rs=A_, rt=B_)],
        St({A_: QF, B_: W(0xAABBCCDD, 2, 3, 0x99887766)}, sa=15),
        {"r6": (QF << 8 | 0x99) & M128}, "§5.3: low 128 bits of (rs:rt) >> 8*SA"),
    _ex("mtsa 16 reads back 0", ["mtsa", "mfsa"], [enc("mtsa", rs=7), enc("mfsa", rd=D_)],
        St({7: 16, D_: W(9, 9, 9, 9)}, sa=5), {"sa": 0, "r6": W(0, 0, 9, 9)},
        "r5900.md §2 [HW]; MFSA writes 64 bits (§3)"),
    _ex("mtsa 0xFFFF reads back 15", ["mtsa", "mfsa"], [enc("mtsa", rs=7), enc("mfsa", rd=D_)],
        St({7: 0xFFFF}), {"sa": 15, "r6": 15}, "r5900.md §2 [HW]"),
    _ex("mtsab xor imm, byte count", ["mtsab"], [enc("mtsab", rs=7, imm=0x1235)],
        St({7: 0xABCD0003}), {"sa": (0x0003 ^ 0x1235) & 0xF}, "§5.3"),
    _ex("mtsah xor imm, halfword count", ["mtsah"], [enc("mtsah", rs=7, imm=0x000C)],
        St({7: 0xF0000009}), {"sa": ((9 ^ 0xC) & 7) * 2}, "§5.3"),
    _ex("mtsab then qfsrv: byte funnel", ["mtsab", "qfsrv"],
        [enc("mtsab", rs=0, imm=3), enc("qfsrv", rd=D_, rs=A_, rt=B_)],
        St({A_: W(0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C),
            B_: W(0x13121110, 0x17161514, 0x1B1A1918, 0x1F1E1D1C)}),
        {"sa": 3, "r6": W(0x16151413, 0x1A191817, 0x1E1D1C1B, 0x0201001F)}, "§5.3: no hazard between MTSA and QFSRV"),
    _ex("plzcw example, upper words kept", ["plzcw"], [enc("plzcw", rd=D_, rs=A_)],
        St({A_: W(0x7FFFFFFF, 0, 5, 6), D_: W(1, 2, 0xAAAAAAAA, 0xBBBBBBBB)}),
        {"r6": W(0, 0x1F, 0xAAAAAAAA, 0xBBBBBBBB)}, "r5900.md §6.2 [HW]"),
    _ex("plzcw negative words", ["plzcw"], [enc("plzcw", rd=D_, rs=A_)],
        St({A_: W(0xFFFFFFFF, 0xC0000000)}), {"r6": W(31, 1)}, "§6.2"),
    _ex("pabsh/pabsw most negative saturates", ["pabsh", "pabsw"],
        [enc("pabsh", rd=D_, rt=A_), enc("pabsw", rd=7, rt=B_)],
        St({A_: H(0x8000, 0xFFFF, 5, 0x7FFF, 0x8001, 0, 0x8000, 2),
            B_: W(0x80000000, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000001)}),
        {"r6": H(0x7FFF, 1, 5, 0x7FFF, 0x7FFF, 0, 0x7FFF, 2),
         "r7": W(0x7FFFFFFF, 2, 0x7FFFFFFF, 0x7FFFFFFF)}, "r5900.md §6.1 [HW]"),
    _ex("paddsh/psubsh clamp", ["paddsh", "psubsh"],
        [enc("paddsh", rd=D_, rs=A_, rt=B_), enc("psubsh", rd=7, rs=A_, rt=B_)],
        St({A_: H(0x7FFF, 0x8000, 100, 0xFFFF, 0x4000, 0xC000, 0, 0x8000),
            B_: H(1, 0xFFFF, 0xFF9C, 1, 0x4000, 0xC000, 0x8000, 0x8000)}),
        {"r6": H(0x7FFF, 0x8000, 0, 0, 0x7FFF, 0x8000, 0x8000, 0x8000),
         "r7": H(0x7FFE, 0x8001, 200, 0xFFFE, 0, 0, 0x7FFF, 0)}, "§6.1"),
    _ex("paddsb/psubub/paddsw/padduw clamp", ["paddsb", "psubub", "paddsw", "padduw"],
        [enc("paddsb", rd=D_, rs=A_, rt=B_), enc("psubub", rd=7, rs=A_, rt=B_),
         enc("paddsw", rd=9, rs=A_, rt=B_), enc("padduw", rd=11, rs=A_, rt=B_)],
        St({A_: W(0x807F7F01, 0x7FFFFFFF, 0x80000000, 0xFFFF0001),
            B_: W(0xFF017FFF, 0x00000001, 0x00000001, 0x00020002)}),
        {"r6": W(0x807F7F00, 0x7FFFFF00, 0x80000001, 0xFF010003),
         "r7": W(0x007E0000, 0x7FFFFFFE, 0x80000000, 0xFFFD0000),
         "r9": W(0x80000000, 0x7FFFFFFF, 0x80000001, 0x00010003),
         "r11": W(0xFFFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF)}, "r5900.md §6.1"),
    # products p0..p7 = 8, 3, -0x3FFF8000, -2, 15, -32767, -0x3FFF8000, 0x40000000
    _ex("phmadh odd words", ["phmadh"], [enc("phmadh", rd=D_, rs=A_, rt=B_)], HILO.copy(),
        {"lo": W(11, 3, 0xFFFF8010, 0xFFFF8001), "hi": W(0xC0007FFE, 0xFFFFFFFE, 0x8000, 0x40000000),
         "r6": W(11, 0xC0007FFE, 0xFFFF8010, 0x8000)}, "r5900.md §6.4 [HW]: first word p(2j+1)+p(2j), second p(2j+1)"),
    _ex("phmsbh odd words", ["phmsbh"], [enc("phmsbh", rd=D_, rs=A_, rt=B_)], HILO.copy(),
        {"lo": W(0xFFFFFFFB, 0xFFFFFFFC, 0xFFFF7FF2, 0x7FFE), "hi": W(0x3FFF7FFE, 1, 0x7FFF8000, 0xBFFFFFFF),
         "r6": W(0xFFFFFFFB, 0x3FFF7FFE, 0xFFFF7FF2, 0x7FFF8000)}, "r5900.md §6.4 [HW]: first word p(2j+1)-p(2j), second NOT p(2j+1)"),
    _ex("pmthl.lw keeps odd words", ["pmthl.lw"], [enc("pmthl.lw", rs=A_)],
        St({A_: W(0xA0, 0xA1, 0xA2, 0xA3)}, hi=W(0x10, 0x11, 0x12, 0x13), lo=W(0x20, 0x21, 0x22, 0x23)),
        {"lo": W(0xA0, 0x21, 0xA2, 0x23), "hi": W(0xA1, 0x11, 0xA3, 0x13)}, "r5900.md §6.4 [HW]"),
    _ex("pdivbw zero divisor and overflow", ["pdivbw"], [enc("pdivbw", rs=A_, rt=B_)],
        St({A_: W(0x80000005, 7, 0xFFFFFFF9, 0x80000000), B_: W(0xFFFF0000)}),
        {"lo": W(1, 0xFFFFFFFF, 1, 1), "hi": W(0x80000005, 7, 0xFFFFFFF9, 0x80000000)},
        "r5900.md §6.4: d = 0"),
    _ex("pdivbw by -1 and by 3", ["pdivbw"],
        [enc("pdivbw", rs=A_, rt=B_), enc("pmflo", rd=7), enc("pmfhi", rd=8), enc("pdivbw", rs=A_, rt=9)],
        St({A_: W(0x80000000, 7, 0xFFFFFFF9, 100), B_: W(0x1234FFFF), 9: W(3)}),
        {"r7": W(0x80000000, 0xFFFFFFF9, 7, 0xFFFFFF9C), "r8": W(0, 0, 0, 0),
         "lo": W(0xD5555556, 2, 0xFFFFFFFE, 33), "hi": W(0xFFFFFFFE, 1, 0xFFFFFFFF, 1)},
        "r5900.md §6.4: 0x80000000 / -1; remainders take the dividend's sign"),
    _ex("pdivw / pdivuw rules", ["pdivw", "pdivuw"],
        [enc("pdivw", rs=A_, rt=B_), enc("pmflo", rd=7), enc("pmfhi", rd=8), enc("pdivuw", rs=A_, rt=B_)],
        St({A_: W(0x80000000, 0, 0xFFFFFFF9, 0), B_: W(0xFFFFFFFF, 0, 0, 0)}),
        {"r7": W(0x80000000, 0xFFFFFFFF, 1, 0), "r8": W(0, 0, 0xFFFFFFF9, 0xFFFFFFFF),
         "lo": W(0, 0, 0xFFFFFFFF, 0xFFFFFFFF), "hi": W(0x80000000, 0xFFFFFFFF, 0xFFFFFFF9, 0xFFFFFFFF)},
        "r5900.md §5.1 DIV/DIVU rules applied by §6.4"),
    _ex("pmfhl formats", ["pmfhl.lw", "pmfhl.uw", "pmfhl.slw", "pmfhl.lh", "pmfhl.sh"],
        [enc("pmfhl.lw", rd=D_), enc("pmfhl.uw", rd=7), enc("pmfhl.slw", rd=8),
         enc("pmfhl.lh", rd=9), enc("pmfhl.sh", rd=10)],
        St(hi=W(0xFFFFFFFF, 0x00010002, 0x00000001, 0xFFFF7FFF),
           lo=W(0x80000000, 0x00008000, 0x7FFFFFFF, 0xFFFF8000)),
        {"r6": W(0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x00000001),
         "r7": W(0x00008000, 0x00010002, 0xFFFF8000, 0xFFFF7FFF),
         "r8": W(0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0),
         "r9": H(0x0000, 0x8000, 0xFFFF, 0x0002, 0xFFFF, 0x8000, 0x0001, 0x7FFF),
         "r10": H(0x8000, 0x7FFF, 0xFFFF, 0x7FFF, 0x7FFF, 0x8000, 0x0001, 0x8000)},
        "r5900.md §6.4 PMFHL.LW/UW/SLW/LH/SH"),
    _ex("psllvw/psrlvw/psravw use words 0 and 2", ["psllvw", "psrlvw", "psravw"],
        [enc("psllvw", rd=D_, rt=B_, rs=A_), enc("psrlvw", rd=7, rt=B_, rs=A_),
         enc("psravw", rd=8, rt=B_, rs=A_)],
        St({A_: W(33, 99, 4, 99), B_: W(0x40000001, 0xEEEEEEEE, 0x87654321, 0xDDDDDDDD)}),
        {"r6": W(0x80000002, 0xFFFFFFFF, 0x76543210, 0),
         "r7": W(0x20000000, 0, 0x08765432, 0),
         "r8": W(0x20000000, 0, 0xF8765432, 0xFFFFFFFF)}, "r5900.md §6.2"),
    _ex("pmaddh accumulates wrapping words; rd=0 still updates HI/LO", ["pmaddh"],
        [enc("pmaddh", rd=0, rs=A_, rt=B_), enc("pmaddh", rd=D_, rs=A_, rt=B_)],
        St({A_: H(0x7FFF, 0x8000, 2, 3, 4, 5, 6, 7), B_: H(0x7FFF, 0x8000, 2, 3, 4, 5, 6, 0xFFFF)},
           lo=W(0x80000000, 0, 0, 0), hi=W(0, 0, 0, 0)),
        {"lo": W(0x80000000 + 2 * 0x3FFF0001 & 0xFFFFFFFF, 0x80000000, 32, 50),
         "hi": W(8, 18, 72, (-14) & 0xFFFFFFFF),
         "r6": W(0x80000000 + 2 * 0x3FFF0001 & 0xFFFFFFFF, 8, 32, 72)},
        "r5900.md §6.4 and §6 (r0 write discarded, HI/LO updated)"),
]

# --- model cases: seeded edge values, expectation from the lane model --------------------------------

EDGE_WORDS = (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00007FFF, 0x00008000, 0xFFFF8000,
              0x7F7F7F7F, 0x80808080, 0x0000FFFF, 0xFFFF0000, 0x12345678)


def edge_value(rng: random.Random) -> int:
    """A 128-bit value biased to lane edges (per-word picks among edge words and random bits)."""
    kind = rng.random()
    if kind < 0.15:
        return rng.getrandbits(128)
    ws = []
    for _ in range(4):
        ws.append(rng.choice(EDGE_WORDS) if rng.random() < 0.6 else rng.getrandbits(32))
    v = W(*ws)
    if rng.random() < 0.3:                           # halfword / byte level edges too
        v ^= rng.choice((0, 0x80, 0x8000, 0x7F00, 0xFF)) << (8 * rng.randrange(15))
    return v & M128


def random_state(rng: random.Random) -> St:
    return St({A_: edge_value(rng), B_: edge_value(rng), D_: edge_value(rng)},
              hi=edge_value(rng), lo=edge_value(rng), sa=rng.randrange(16))


def operand_fields(mn: str, rng: Optional[random.Random] = None) -> dict:
    """Registers for a model case: rd=a2, rs=a0, rt=a1, and a shift amount for the P* shifts."""
    return {"rd": D_, "rs": A_, "rt": B_, "sa": (rng.randrange(32) if rng else 5)}


def model_word(mn: str, flds: dict) -> int:
    return enc(mn, rd=flds["rd"], rs=flds["rs"], rt=flds["rt"], sa=flds["sa"])


def model_expect(mn: str, st: St, flds: dict) -> St:
    return ref(mn, st, flds["rd"], flds["rs"], flds["rt"], flds["sa"])


def model_inputs(mn: str, seed: int, n: int = 4):
    """The model case's n (state, fields), drawn from its seed; the last with rd aliasing rs and rt."""
    rng = random.Random(f"cases_mmi:{mn}:{seed}")
    out = []
    for i in range(n):
        st = random_state(rng)
        flds = operand_fields(mn, rng)
        if i == n - 1 and "rd" in ROW[mn].operands:
            flds = dict(flds, rs=D_, rt=D_)        # rd aliases rs and rt: lanes from old values
            st.gpr[D_] = st.gpr[A_]
        out.append((st, flds))
    return out


def _model_case(mn: str, seed: int, n: int = 4):
    """n seeded states, one machine call each; the last one with rd aliasing rs and rt."""
    _BOOK_SOURCES.append(lambda: [([model_word(mn, flds)], st) for st, flds in model_inputs(mn, seed, n)])

    def case():
        m = None
        for i, (st, flds) in enumerate(model_inputs(mn, seed, n)):
            m, got = run_in_book([model_word(mn, flds)], st, m=m)
            want = model_expect(mn, st, flds)
            d = diff(got, want, range(2, 31))
            assert not d, f"{mn} seed {seed} case {i} fields {flds}:\n  " + "\n  ".join(d)
        return m
    case.__name__ = f"model_{mn.replace('.', '_')}"
    return case


_example_runs: Dict[str, object] = {}     # example name -> machine that passed it (run once)


def _example_case(ex: Example):
    _BOOK_SOURCES.append(lambda: [(ex.words, ex.before)])

    def case():
        if ex.name in _example_runs:
            return _example_runs[ex.name]
        m, got = run_in_book(ex.words, ex.before)
        want = expected_state(ex)
        d = diff(got, want, ex.regs())
        assert not d, f"{ex.name} ({ex.cite}):\n  " + "\n  ".join(d)
        _example_runs[ex.name] = m
        return m
    case.__name__ = "example_" + re.sub(r"\W+", "_", ex.name)
    return case


# --- the case book: every case's program on one machine layout ---------------------------------------

_BOOK_SOURCES: List[object] = []    # per case: () -> [(words, state before)] of the runs it makes
_BOOK: Dict[tuple, int] = {}        # (program words) -> address, filled at the first run
_BOOK_IMAGE: List[bytes] = []


def book() -> Dict[tuple, int]:
    """The address of every CASES run's program (its words and the GPRs it loads), laid out one
    after another from CODE after one copy of program_tail, identical programs once: each is
    program_head, the words and a jump to the tail (run_machine's program with the tail shared).
    A case runs its programs on a fresh machine holding the whole book with every start
    declared an entry, so the native engine translates the book once (every machine holds the
    same code and entries) where a program per run was a gcc run each (~385 of them). A machine
    counts only the blocks it executed, so a case's m.coverage is still its own runs'."""
    if not _BOOK:
        words = program_tail()
        J = 0x02 << 26 | (CODE >> 2 & 0x03FFFFFF)               # j CODE (the tail)
        for source in _BOOK_SOURCES:
            for ws, st in source():
                key = (tuple(ws), tuple(sorted(st.gpr)))
                if key not in _BOOK:
                    _BOOK[key] = CODE + 4 * len(words)
                    words += program_head(key[1]) + list(ws) + [J, 0]
        assert 4 * len(words) <= CODE_STRIDE * CODE_SLOTS, len(words)
        _BOOK_IMAGE.append(struct.pack(f"<{len(words)}I", *words))
    return _BOOK


def run_in_book(words, st: St, m=None):
    """run_machine's run of ``words`` from ``st``, at the book's copy of its program (a case
    whose program is not in the book is an error of this module: it registers its runs with
    _BOOK_SOURCES). m: a machine holding the book (None: a fresh one). Returns (machine, state after)."""
    at = book().get((tuple(words), tuple(sorted(st.gpr))))
    assert at is not None, f"no book program for {[hex(w) for w in words]} (a case not in _BOOK_SOURCES)"
    if m is None:
        from eemu_ext import Machine
        m = Machine(coverage=True)
        m.write(CODE, _BOOK_IMAGE[0])
        m.declare_entries(sorted(_BOOK.values()))
    return m, run_program(m, at, st)


def expected_state(ex: Example) -> St:
    return ex.expected()


MODEL_MNEMONICS = sorted(r.mnemonic for r in MMI_ROWS)

CASES: Dict[str, list] = {mn: [_model_case(mn, 1)] for mn in MODEL_MNEMONICS}
for _ex_ in EXAMPLES:
    for _mn in _ex_.mnemonics:
        CASES.setdefault(_mn, []).append(_example_case(_ex_))
