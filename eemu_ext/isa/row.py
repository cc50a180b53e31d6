"""One row per R5900 instruction: the single table behind decode, execute, disassembly, coverage.

A ``Row`` says how an instruction is encoded (``mask``/``match``), how it is written in assembly
(``mnemonic`` plus ``operands``), what class it belongs to, and what it does (``sem``, Python source).
Modules under ``eemu_ext.isa`` each export ``ROWS`` (a list of rows) and ``namespace(machine)``
(a dict of helper names their ``sem`` sources use, built once per machine, e.g. for the float model).
The executor merges every module's rows into one table and every namespace into the globals that
compiled instruction code runs in.

Contract for ``sem`` (the semantics source)
------------------------------------------
``sem`` is one or more Python statements. Before compiling, the executor replaces every whole-word
*field token* by the instruction's integer field value, so ``"R[rd] = R[rs] | R[rt]"`` becomes
``"R[2] = R[4] | R[5]"``. Field tokens (derived from the word; all unsigned unless stated):

    rs rt rd sa funct   bits 25-21, 20-16, 15-11, 10-6, 5-0
    imm                 bits 15-0 sign-extended (Python int, may be negative)
    uimm                bits 15-0 zero-extended
    target              bits 25-0
    code                bits 25-6 (SYSCALL/BREAK code)
    ft fs fd            COP1/COP2 register fields: bits 20-16, 15-11, 10-6 (same bits as rt, rd, sa)
    dest                VU0 dest mask, bits 24-21 (x = 8, y = 4, z = 2, w = 1)
    bc                  VU0 broadcast lane, bits 1-0 (0 = x ... 3 = w)
    fsf ftf             VU0 lane selectors, bits 22-21 and 24-23
    imm5                bits 10-6 sign-extended (VIADDI)
    imm11               bits 10-0 sign-extended (VU integer offsets)
    imm15               bits 20-6 (VCALLMS)
    pc                  the instruction's own address
    btarget             pc + 4 + (imm << 2), masked to 32 bits (branch target)
    jtarget             ((pc + 4) & 0xF0000000) | (target << 2) (J/JAL target)

State names visible to ``sem`` (all raw unsigned integers, never floats):

    R, RH      lists of 32: the low and high 64 bits of each 128-bit GPR. Most instructions touch
               only R, which gives the upper-64-bit rule for free; 128-bit writers also set RH.
    HI, LO     lists of 2: [HI0, HI1] and [LO0, LO1], each 64 bits (pipeline 0 and pipeline 1).
    F          list of 32 FPR patterns (u32).
    VF         list of 32 lists [x, y, z, w] of u32 patterns. VF[0] is (0, 0, 0, 0x3F800000) and
               must not change: rows that write VF skip register 0.
    VI         list of 16 VU0 integer registers (u16). VI[0] stays 0.
    S          the machine's scalar state, as attributes: S.sa, S.fcr31, S.acc, S.acc_ovf,
               S.vacc (list of 4), S.q, S.i, S.r, S.mac, S.status, S.clip, S.cop0 (list of 32),
               S.cmsar0. Modules may add attributes in their namespace() set-up.
    ld8 ld16 ld32 ld64 ld128(addr)        loads, unsigned; addr is a 32-bit virtual address
    st8 st16 st32 st64 st128(addr, value)  stores; ld/st 16/32/64 raise on misalignment,
                                            ld128/st128 expect the caller to clear bits 0-3
    sx32(x)    the low 32 bits of x sign-extended to an unsigned 64-bit value
    s8 s16 s32 s64(x)                       the low bits of x read as a signed value
    M32 M64    0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF
    machine    the Machine itself (for rare, slow paths: errors, syscalls, VU0 memory ...)
    fault(kind, msg)                      raise the machine's EmulationError subclass for ``kind``

Writes to GPR 0 are discarded by the executor: for every field named in ``gpr_writes`` whose value
is 0, it restores R[0] = RH[0] = 0 after the instruction (side effects such as HI/LO still happen).

Control flow: a row with ``flow`` set ends a basic block. Its ``sem`` runs *before* the delay slot
and must set ``cond`` (branches) or ``tgt`` (register jumps); the executor then runs the delay slot
and continues at the target. ``link`` names the register field (or a literal 31) that receives
pc + 8 before the delay slot runs.

    flow = "branch"    conditional, delay slot always runs; target = btarget when cond
    flow = "likely"    conditional, delay slot annulled when not taken
    flow = "jump"      unconditional to jtarget
    flow = "jump_reg"  unconditional to tgt (sem sets it from the register before the delay slot)
    flow = "stop"      SYSCALL, BREAK, traps taken: sem raises or calls the machine's handler
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Tuple


@dataclass(frozen=True)
class Row:
    mnemonic: str                 # canonical, lower case: 'addu', 'vmaddaw', 'pmaddh', 'madd.s'
    mask: int                     # the row matches a word w when w & mask == match
    match: int
    operands: Tuple[str, ...]     # operand kinds in assembler order (see OPERAND_FORMATS)
    cls: str                      # 'alu', 'shift', 'muldiv', 'branch', 'jump', 'load', 'store',
                                  # 'system', 'cop0', 'cop1', 'vu0', 'mmi', 'sa', 'trap'
    sem: str                      # Python source, see the module docstring
    owner: str = "capstone"       # 'ee': our own decoder owns the encoding; 'capstone': plain MIPS
    gpr_writes: Tuple[str, ...] = ()   # GPR fields written ('rd', 'rt', ...) for the r0 rule
    flow: str = ""                # '', 'branch', 'likely', 'jump', 'jump_reg', 'stop'
    link: str = ""                # '', 'rd', or '31': register that receives pc + 8
    note: str = ""                # one line: anything a reader of the table should know
    c: str = ""                   # compiled semantics: C in the same field-token language as sem
                                  # (eemu_ext/engines/native/csrc/ee.h states the names it may use)
    python_only: str = ""         # why this row has no compiled form (it ends a native block and
                                  # runs in the Python engine); empty for rows that have ``c``

    def matches(self, word: int) -> bool:
        return (word & self.mask) == self.match


def fields_of(word: int, pc: int = 0) -> Dict[str, int]:
    """Every field token of the semantics contract, decoded from one instruction word."""
    imm = word & 0xFFFF
    simm = imm - 0x10000 if imm & 0x8000 else imm
    i5 = (word >> 6) & 0x1F
    i11 = word & 0x7FF
    return {
        "rs": (word >> 21) & 31, "rt": (word >> 16) & 31, "rd": (word >> 11) & 31,
        "sa": (word >> 6) & 31, "funct": word & 63,
        "imm": simm, "uimm": imm, "target": word & 0x3FFFFFF, "code": (word >> 6) & 0xFFFFF,
        "ft": (word >> 16) & 31, "fs": (word >> 11) & 31, "fd": (word >> 6) & 31,
        "dest": (word >> 21) & 15, "bc": word & 3,
        "fsf": (word >> 21) & 3, "ftf": (word >> 23) & 3,
        "imm5": i5 - 32 if i5 & 16 else i5,
        "imm11": i11 - 0x800 if i11 & 0x400 else i11,
        "imm15": (word >> 6) & 0x7FFF,
        "pc": pc & 0xFFFFFFFF,
        "btarget": (pc + 4 + (simm << 2)) & 0xFFFFFFFF,
        "jtarget": ((pc + 4) & 0xF0000000) | ((word & 0x3FFFFFF) << 2),
    }


# Operand kinds -> formatter(fields) for disassembly. Modules may register more kinds.
GPR_NAMES = ("zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4",
             "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9",
             "k0", "k1", "gp", "sp", "fp", "ra")

OPERAND_FORMATS: Dict[str, Callable[[Dict[str, int]], str]] = {
    "rs": lambda f: GPR_NAMES[f["rs"]],
    "rt": lambda f: GPR_NAMES[f["rt"]],
    "rd": lambda f: GPR_NAMES[f["rd"]],
    "sa": lambda f: str(f["sa"]),
    "imm": lambda f: str(f["imm"]),
    "uimm": lambda f: hex(f["uimm"]),
    "mem": lambda f: f"{f['imm']}({GPR_NAMES[f['rs']]})",
    "btarget": lambda f: f"0x{f['btarget']:08x}",
    "jtarget": lambda f: f"0x{f['jtarget']:08x}",
    "code": lambda f: hex(f["code"]),
    "fs": lambda f: f"$f{f['fs']}",
    "ft": lambda f: f"$f{f['ft']}",
    "fd": lambda f: f"$f{f['fd']}",
}
