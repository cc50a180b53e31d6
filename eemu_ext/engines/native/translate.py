"""R5900 code to C: basic blocks found by walking the code from the executable's functions, each
block a C function built from its rows' compiled semantics (``Row.c``).

A native block has the Python engine's boundaries (engine.py: it ends after a control-flow row and
its delay slot, or after MAX_BLOCK instructions) and ends early before any instruction the native
engine leaves to Python: a Python-only row, an undecodable word, or a control-flow row whose delay
slot is one of those. Steps are counted per instruction, exactly as engine.py counts them, so a
block's boundaries never change a step count.

Each unit (an instruction, or a control-flow row with its delay slot) sets ``_upc``/``_done``
before it runs. A load or store the fast path cannot serve, or a rare path a row leaves to Python
(TO_PYTHON), jumps to the block's ``fault`` label: the link register a control-flow row already
wrote is restored, the steps of the finished units are counted, and the block returns with
``why = WHY_UNIT`` and ``pc`` = that unit, which the Python engine then runs.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from eemu_ext.engines.engine import MAX_BLOCK, FIELD_TOKENS
from eemu_ext.isa.row import Row, fields_of

_FIELD_RE = re.compile(r"(?<![\w.])(?<!->)(" + "|".join(sorted(FIELD_TOKENS, key=len, reverse=True)) + r")(?!\w)")
_FLOWS = ("branch", "likely", "jump", "jump_reg")


def c_substitute(c: str, fields: Dict[str, int]) -> str:
    """Row.c with every field token replaced by its value (negative values parenthesised)."""
    def one(mo):
        v = fields[mo.group(1)]
        return str(v) if v >= 0 else f"({v})"
    return _FIELD_RE.sub(one, c)


@dataclass
class Unit:
    pc: int                  # the unit's first instruction
    n: int                   # instructions it runs (2 for a control-flow row with its slot)
    text: str                # disassembly, for messages


@dataclass
class Block:
    start: int
    n: int                                   # instructions when every slot runs
    end: int                                 # one past the last instruction
    units: List[Unit] = field(default_factory=list)
    succ: Tuple[int, ...] = ()               # statically known successors
    code: str = ""                           # the C function body
    taken: int = 1                           # coverage: the pc a taken conditional branch returns
                                             # (1: none, or the same as not taken)


class Translator:
    """Turns code in a machine's memory into C blocks (the machine supplies decoding)."""

    def __init__(self, machine):
        self.m = machine
        self.rows: Sequence[Row] = machine.decoder.rows

    # -- one instruction ------------------------------------------------------------------------
    def native_row(self, pc: int) -> Optional[Tuple[int, int, Row]]:
        """(row id, word, row) when the instruction at pc has compiled semantics, else None."""
        d = self.m.decoded(pc)
        if d is None or d[0] < 0:
            return None
        row = self.rows[d[0]]
        if not row.c or row.python_only:
            return None
        return d[0], d[1], row

    def _insn_c(self, pc: int, word: int, row: Row) -> List[str]:
        f = fields_of(word, pc)
        out = ["{", c_substitute(row.c, f), "}"]
        for w in row.gpr_writes:
            v = int(w) if w.isdigit() else f[w]
            if v == 0:
                out.append("R[0] = 0; RH[0] = 0;")
                break
        return out

    def _comment(self, pc: int) -> str:
        return f"/* {pc:08x}: {self.m.disasm(pc).replace('*/', '* /')} */"

    # -- one block ------------------------------------------------------------------------------
    def block(self, start: int, limit: int = MAX_BLOCK, text: bool = True) -> Optional[Block]:
        """The native block at start, or None when its first unit must run in Python. With
        text=False only its extent and successors (the walk's need): no C, no disassembly."""
        if not text:
            return self._extent(start, limit)
        body: List[str] = []
        units: List[Unit] = []
        pc, n = start, 0
        succ: List[int] = []
        taken = 1
        while True:
            if n >= limit:
                body.append(f"st->steps += {n}; return {pc:#x}u;")
                succ.append(pc)
                break
            nr = self.native_row(pc)
            if nr is None:
                if not units:
                    return None
                body.append(f"st->steps += {n}; return {pc:#x}u;")
                succ.append(pc)
                break
            rid, word, row = nr
            f = fields_of(word, pc)
            if not row.flow:
                units.append(Unit(pc, 1, self.m.disasm(pc)))
                body += [self._comment(pc), f"_upc = {pc:#x}u; _done = {n};"]
                body += self._insn_c(pc, word, row)
                n += 1
                pc = (pc + 4) & 0xFFFFFFFF
                continue
            if row.flow not in _FLOWS:            # 'stop' rows are Python-only
                if not units:
                    return None
                body.append(f"st->steps += {n}; return {pc:#x}u;")
                succ.append(pc)
                break
            slot = (pc + 4) & 0xFFFFFFFF
            sr = self.native_row(slot)
            if sr is None or sr[2].flow:
                # the slot must run in Python (or is itself a branch, r5900.md §9): so does the unit
                if not units:
                    return None
                body.append(f"st->steps += {n}; return {pc:#x}u;")
                succ.append(pc)
                break
            units.append(Unit(pc, 2, self.m.disasm(pc)))
            body += [self._comment(pc), f"_upc = {pc:#x}u; _done = {n};"]
            body += self._insn_c(pc, word, row)
            nxt = (pc + 8) & 0xFFFFFFFF
            if row.link:
                reg = 31 if row.link.isdigit() else f[row.link]
                if reg:
                    link = (pc + 8) & 0xFFFFFFFF
                    body.append(f"_lreg = {reg}; _lold = R[{reg}]; R[{reg}] = SX32({link:#x}u);")
                    succ.append(nxt)
            if row.flow == "likely":
                body.append(f"if (!cond) {{ st->steps += {n + 1}; st->annulled = 1; return {nxt:#x}u; }}")
            body += [self._comment(slot)]
            body += self._insn_c(slot, sr[1], sr[2])
            n += 2
            if row.flow == "branch":
                if f["btarget"] == nxt:           # coverage tells the directions apart by the flag
                    body.append("if (cond) st->annulled = 2;")
                else:
                    taken = f["btarget"]
                body.append(f"st->steps += {n}; return cond ? {f['btarget']:#x}u : {nxt:#x}u;")
                succ += [f["btarget"], nxt]
            elif row.flow == "likely":
                if f["btarget"] == nxt:
                    body.append("if (cond) st->annulled = 2;")
                else:
                    taken = f["btarget"]
                body.append(f"st->steps += {n}; return {f['btarget']:#x}u;")
                succ += [f["btarget"], nxt]
            elif row.flow == "jump":
                body.append(f"st->steps += {n}; return {f['jtarget']:#x}u;")
                succ.append(f["jtarget"])
            else:
                body.append(f"st->steps += {n}; return tgt;")
            pc = (pc + 8) & 0xFFFFFFFF
            break
        end = pc
        code = "\n".join(body)
        return Block(start, n, end, units, tuple(succ), code, taken)

    def _extent(self, start: int, limit: int) -> Optional[Block]:
        """block() without its text: the same boundaries, decided by the same rules."""
        pc, n = start, 0
        succ: List[int] = []
        while True:
            if n >= limit:
                succ.append(pc)
                break
            nr = self.native_row(pc)
            if nr is None:
                if not n:
                    return None
                succ.append(pc)
                break
            rid, word, row = nr
            if not row.flow:
                n += 1
                pc = (pc + 4) & 0xFFFFFFFF
                continue
            slot = (pc + 4) & 0xFFFFFFFF
            sr = self.native_row(slot) if row.flow in _FLOWS else None
            if sr is None or sr[2].flow:
                if not n:
                    return None
                succ.append(pc)
                break
            f = fields_of(word, pc)
            nxt = (pc + 8) & 0xFFFFFFFF
            if row.link and (31 if row.link.isdigit() else f[row.link]):
                succ.append(nxt)
            n += 2
            if row.flow in ("branch", "likely"):
                succ += [f["btarget"], nxt]
            elif row.flow == "jump":
                succ.append(f["jtarget"])
            pc = nxt
            break
        return Block(start, n, pc, [], tuple(succ), "")

    # -- whole program --------------------------------------------------------------------------
    def discover(self, roots: Iterable[int], inside, max_blocks: int = 200_000,
                 text: bool = True, python_units: Optional[List[int]] = None) -> Dict[int, Block]:
        """Every native block reachable from roots through statically known control flow.
        ``inside(pc)`` says whether pc is code the translator may read (a loaded segment).
        text=False: extents only (block()). python_units, when given, gets the start of every
        unit the walk passed that runs in Python."""
        blocks: Dict[int, Block] = {}
        todo = [r & 0xFFFFFFFF for r in roots]
        seen = set()
        while todo and len(blocks) < max_blocks:
            pc = todo.pop()
            if pc in seen or pc & 3 or not inside(pc):
                continue
            seen.add(pc)
            b = self.block(pc, text=text)
            if b is None:
                # the unit at pc runs in Python; carry on after it
                if python_units is not None:
                    python_units.append(pc)
                todo.extend(self._python_unit_successors(pc))
                continue
            blocks[pc] = b
            todo.extend(b.succ)
        return blocks

    def _python_unit_successors(self, pc: int) -> List[int]:
        d = self.m.decoded(pc)
        if d is None or d[0] < 0:
            return []
        row = self.rows[d[0]]
        if not row.flow or row.flow == "stop":
            return [(pc + 4) & 0xFFFFFFFF]
        f = fields_of(d[1], pc)
        nxt = (pc + 8) & 0xFFFFFFFF
        if row.flow in ("branch", "likely"):
            return [f["btarget"], nxt]
        if row.flow == "jump":
            return [f["jtarget"]] + ([nxt] if row.link else [])
        return [nxt] if row.link else []


PRELUDE_HEADERS = ("ee.h", "eefloat.h", "model.h", "vu0.h", "mmi.h", "block.h")
PRELUDE = "prelude.h"        # csrc/prelude.h: PRELUDE_HEADERS, then runtime.h (precompiled by build.py)


def c_unit(blocks: Sequence[Block], name_of, export: bool = False) -> str:
    """One translation unit: the blocks as C functions and the table the run loop indexes."""
    return c_functions(blocks, name_of, export) + c_tables(blocks, name_of)


def c_functions(blocks: Sequence[Block], name_of, export: bool = False) -> str:
    """The prelude's include and the blocks as C functions (c_unit without the tables)."""
    out = [f'#include "{PRELUDE}"']
    for b in blocks:
        out.append(f"{'' if export else 'static '}uint32_t {name_of(b)}(ee_state *st) {{")
        out.append("uint32_t _upc = 0, _done = 0; int _lreg = 0; uint64_t _lold = 0; int cond = 0; uint32_t tgt = 0;")
        out.append("(void)cond; (void)tgt;")
        out.append(b.code)
        out.append("fault:")
        out.append("if (_lreg) R[_lreg] = _lold;")
        out.append("st->steps += _done; st->pc = _upc; st->why = WHY_UNIT; return _upc;")
        out.append("}")
    return "\n".join(out) + "\n"


def c_tables(blocks: Sequence[Block], name_of) -> str:
    """The table the run loop indexes: every block's function, size, start, end and branch target."""
    out = [f"const uint32_t ee_nblocks = {len(blocks)};"]
    out.append("const ee_block_fn ee_blocks[] = {" + ", ".join(name_of(b) for b in blocks) + (", 0" if not blocks else "") + "};")
    out.append("const uint32_t ee_block_n[] = {" + ", ".join(str(b.n) for b in blocks) + (", 0" if not blocks else "") + "};")
    out.append("const uint32_t ee_block_start[] = {" + ", ".join(f"{b.start:#x}u" for b in blocks)
               + (", 0" if not blocks else "") + "};")
    out.append("const uint32_t ee_block_end[] = {" + ", ".join(f"{b.end:#x}u" for b in blocks)
               + (", 0" if not blocks else "") + "};")
    out.append("const uint32_t ee_block_taken[] = {" + ", ".join(f"{b.taken:#x}u" for b in blocks)
               + (", 0" if not blocks else "") + "};")
    return "\n".join(out) + "\n"


_HASHES: Dict[int, tuple] = {}


def translator_hash(rows: Sequence[Row]) -> str:
    """Changes whenever the translation could: this module, the C runtime and every row's c."""
    key = id(rows)
    got = _HASHES.get(key)
    if got is not None and got[0] is rows:
        return got[1]
    import os
    from eemu_ext.engines.native.build import CSRC
    h = hashlib.sha256()
    with open(__file__, "rb") as f:
        h.update(f.read())
    for fn in sorted(os.listdir(CSRC)):
        with open(os.path.join(CSRC, fn), "rb") as f:
            h.update(fn.encode())
            h.update(f.read())
    for r in rows:
        h.update(f"{r.mnemonic}|{r.mask}|{r.match}|{r.c}|{r.python_only}|{r.gpr_writes}|{r.flow}|{r.link}\0".encode())
    digest = h.hexdigest()[:16]
    _HASHES[key] = (rows, digest)
    return digest
