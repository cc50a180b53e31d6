"""Instruction decoding: R5900 word -> table row id, our own decoder in front of capstone.

Rows with owner 'ee' are matched by mask/match alone, and every word in an *EE space* (the
function selectors those rows live in: all of MMI, LQ/SQ, COP2, LQC2/SQC2, the R5900 COP1 functions,
3-operand MULT, MFSA/MTSA, MTSAB/MTSAH, SYNC, EI/DI, ...) is decided by them alone: capstone never
sees those words, because it silently decodes several as MSA, DSP or Octeon instructions.  Every
other word goes to capstone (MIPS64, little endian); its mnemonic is normalised (move, nop, b, bnez
... -> canonical) and must name a table row whose mask/match fits the word.  Mnemonics the EE lacks
(dmult, ll, sc, ldc1, ...) are rejected, as are words whose must-be-zero fields are set.

``decode(word)`` returns a row id (index into ``ROWS``) or -1; ``reason(word)`` says why a word
is rejected. Both are memoised per word, so code is decoded once.
"""
from __future__ import annotations

import struct
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import capstone

from eemu_ext.isa import ROWS, OPERAND_FORMATS, fields_of
from eemu_ext.isa.row import Row

# capstone alias -> canonical table mnemonics it may stand for
ALIASES: Dict[str, Tuple[str, ...]] = {
    "nop": ("sll",), "ssnop": ("sll",), "ehb": ("sll",), "pause": ("sll",),
    "move": ("or", "addu", "daddu"), "dmove": ("or", "daddu"),
    "b": ("beq",), "bal": ("bgezal",), "beqz": ("beq",), "bnez": ("bne",),
    "beqzl": ("beql",), "bnezl": ("bnel",), "negu": ("subu",), "neg": ("sub",),
    "dnegu": ("dsubu",), "dneg": ("dsub",), "not": ("nor",),
    "trunc.w.s": ("cvt.w.s",), "jalr.hb": ("jalr",), "jr.hb": ("jr",), "jr": ("jr", "jalr"),
    "sync": ("sync",), "li": ("addiu", "ori"), "mtc0": ("mtc0",), "mfc0": ("mfc0",),
}

# Primary opcodes of MIPS III instructions the EE lacks (r5900.md §1). capstone would call several
# of them Octeon or MIPS64r6 instructions (op 0x32 'bbit0'), so they are named here instead.
LACKING_OPS = {0x13: "cop3/cop1x", 0x30: "ll", 0x32: "lwc2", 0x34: "lld", 0x35: "ldc1", 0x38: "sc",
               0x3A: "swc2", 0x3B: "cop3 store", 0x3C: "scd", 0x3D: "sdc1", 0x1D: "jalx"}

# Per primary opcode: which bits select the instruction (the rest are operands). An EE space is
# (selector mask, selector value) of an 'ee' row; None = the whole primary opcode.
_SELECTORS = {0x00: 0xFC00003F, 0x01: 0xFC1F0000, 0x10: 0xFFE0003F, 0x11: 0xFFE0003F}


class Decoder:
    """Decodes words against a row table (default: the full merged table)."""

    def __init__(self, rows: Sequence[Row] = ROWS):
        self.rows = list(rows)
        self.by_op: Dict[int, List[int]] = {}
        for i, r in enumerate(self.rows):
            if r.mask & 0xFC000000 != 0xFC000000:
                raise ValueError(f"row {r.mnemonic}: mask 0x{r.mask:08x} does not fix the primary opcode")
            self.by_op.setdefault(r.match >> 26, []).append(i)
        # second level: per opcode, the bits every row of that opcode fixes -> candidate rows
        self.sub_mask: Dict[int, int] = {}
        self.sub: Dict[int, Dict[int, List[Tuple[int, int, int]]]] = {}
        for op, ids in self.by_op.items():
            common = 0xFFFFFFFF
            for i in ids:
                common &= self.rows[i].mask
            self.sub_mask[op] = common
            tab: Dict[int, List[Tuple[int, int, int]]] = {}
            for i in ids:
                r = self.rows[i]
                tab.setdefault(r.match & common, []).append((r.mask, r.match, i))
            self.sub[op] = tab
        spaces = set()
        for r in self.rows:
            if r.owner == "ee":
                sel = _SELECTORS.get(r.match >> 26, 0xFC000000) & r.mask
                spaces.add((sel, r.match & sel))
        self.ee_spaces = sorted(spaces)
        self.ee_ops = {m >> 26 for s, m in self.ee_spaces if s == 0xFC000000}
        self.ee_spaces_by_op: Dict[int, List[Tuple[int, int]]] = {}
        for sm in self.ee_spaces:
            self.ee_spaces_by_op.setdefault(sm[1] >> 26, []).append(sm)
        self.mnemonics = {r.mnemonic for r in self.rows}
        self.cs = capstone.Cs(capstone.CS_ARCH_MIPS, capstone.CS_MODE_MIPS64 | capstone.CS_MODE_LITTLE_ENDIAN)
        self._memo: Dict[int, int] = {}
        self._why: Dict[int, str] = {}

    # -- single words ---------------------------------------------------------------------------
    def in_ee_space(self, word: int) -> bool:
        op = word >> 26
        if op in self.ee_ops:
            return True
        return any(word & s == m for s, m in self.ee_spaces_by_op.get(op, ()))

    def capstone_text(self, word: int) -> Optional[Tuple[str, str]]:
        for _, _, mn, ops in self.cs.disasm_lite(word.to_bytes(4, "little"), 0, 1):
            return mn, ops
        return None

    def decode(self, word: int) -> int:
        """Row id for word, or -1 (see ``reason``)."""
        r = self._memo.get(word)
        if r is None:
            r, why = self._decide(word, None)
            self._memo[word] = r
            if why:
                self._why[word] = why
        return r

    def reason(self, word: int) -> str:
        if self.decode(word) >= 0:
            return ""
        return self._why.get(word, "not an R5900 instruction")

    def _decide(self, word: int, cs_result) -> Tuple[int, str]:
        op = word >> 26
        tab = self.sub.get(op)
        cands = []
        if tab is not None:
            for mask, match, i in tab.get(word & self.sub_mask[op], ()):
                if word & mask == match:
                    if self.rows[i].owner == "ee":
                        return i, ""
                    cands.append(i)
        if self.in_ee_space(word):
            return -1, "reserved encoding in an R5900-specific opcode space"
        if op in LACKING_OPS:
            return -1, f"the EE lacks '{LACKING_OPS[op]}' (r5900.md §1)"
        if cs_result is None:
            cs_result = self.capstone_text(word)
        if not cs_result:
            return -1, "not an instruction"
        mn = cs_result[0]
        want = ALIASES.get(mn, (mn,))
        for i in cands:
            if self.rows[i].mnemonic in want:
                return i, ""
        if any(w in self.mnemonics for w in want):
            return -1, f"'{mn} {cs_result[1]}' with a reserved field set"
        return -1, f"the EE lacks '{mn}' ({mn} {cs_result[1]})"

    # -- many words at once (tests) ---------------------------------------------------------------
    def decode_many(self, words: Sequence[int]) -> List[int]:
        """Row ids for many words; uses one batched capstone pass (skipdata) for speed."""
        out = [0] * len(words)
        need = []
        for k, w in enumerate(words):
            r = self._memo.get(w)
            if r is None:
                need.append(k)
            out[k] = r
        if need:
            buf = struct.pack(f"<{len(need)}I", *(words[k] for k in need))
            self.cs.skipdata = True
            try:
                res = [None if mn == ".byte" else (mn, ops) for _, _, mn, ops in self.cs.disasm_lite(buf, 0)]
            finally:
                self.cs.skipdata = False
            if len(res) != len(need):       # skipdata steps 4 bytes for MIPS; be safe anyway
                res = [self.capstone_text(words[k]) for k in need]
            decide = self._decide
            for k, c in zip(need, res):
                out[k] = decide(words[k], c if c is not None else ())[0]
        return out

    # -- text -------------------------------------------------------------------------------------
    def disasm(self, word: int, pc: int = 0, symbolize: Optional[Callable[[int], str]] = None) -> str:
        """Assembly text of word at pc: 'addu v0, a0, a1'; rejected words as '.word 0x...  # why'."""
        i = self.decode(word)
        if i < 0:
            c = (self.capstone_text(word) if not self.in_ee_space(word) and word >> 26 not in LACKING_OPS
                 else None)
            txt = f"{c[0]} {c[1]}".strip() if c else "?"
            return f".word 0x{word:08x}  # {txt}: {self.reason(word)}"
        return format_row(self.rows[i], word, pc, symbolize)


def format_row(row: Row, word: int, pc: int = 0, symbolize=None) -> str:
    f = fields_of(word, pc)
    ops = []
    for kind in row.operands:
        if symbolize is not None and kind in ("btarget", "jtarget"):
            ops.append(symbolize(f[kind]))
            continue
        fmt = OPERAND_FORMATS.get(kind)
        ops.append(fmt(f) if fmt else f"{kind}={f.get(kind, '?')}")
    return f"{row.mnemonic} {', '.join(ops)}".rstrip()


_default: Optional[Decoder] = None


def default_decoder() -> Decoder:
    global _default
    if _default is None:
        _default = Decoder()
    return _default
