"""The block translator: basic blocks of R5900 code into Python functions, once per address; and
``Engine``, the protocol the machine's engines follow (python_engine.py, native/engine.py,
native/lockstep.py).

Each table row's ``sem`` (row.py) gets its field tokens replaced by the instruction's field values;
a block's instructions become one Python function that returns the next pc. Every source line is
mapped back to the pc of the instruction it came from, so a fault raised anywhere in a block is
reported at the exact instruction. Blocks end at a control-flow row (after its delay slot), before
a hooked address, at an undecodable word, or after MAX_BLOCK instructions.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Protocol, Sequence, Tuple

from eemu_ext.isa.row import Row, fields_of

MAX_BLOCK = 64
FIELD_TOKENS = frozenset(("rs", "rt", "rd", "sa", "funct", "imm", "uimm", "target", "code", "ft", "fs",
                          "fd", "dest", "bc", "fsf", "ftf", "imm5", "imm11", "imm15", "pc", "btarget",
                          "jtarget"))
# state names bound as fast locals (default arguments) of each block function, when used
FAST_NAMES = ("R", "RH", "HI", "LO", "S", "F", "VF", "VI", "ld8", "ld16", "ld32", "ld64", "ld128",
              "st8", "st16", "st32", "st64", "st128", "COV", "MV8", "MV16", "MV32", "MV64", "DIRTY")
_NAME_RE = re.compile(r"\b(" + "|".join(FAST_NAMES) + r")\b")
# reads of R[0] are the constant 0 (writes to it are undone after every instruction)
_R0_READ = re.compile(r"(?<![\w.])R\[0\](?!\s*(?:=(?!=)|[-+*/%&|^]=|<<=|>>=))")


_CODE_CACHE: Dict[tuple, object] = {}     # (filename, source) -> code object, process-wide


def sem_template(sem: str) -> List[object]:
    """Split sem into literal text and field-token names (a str piece is text, a 1-tuple a field).

    Tokens are whole Python NAME tokens that are not attributes (``S.sa`` keeps its ``sa``) and not
    inside strings, so messages and attribute names are safe.
    """
    if not sem.strip():
        return ["pass"]
    lines = sem.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    hits = []
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(sem).readline):
        if tok.type == tokenize.NAME and tok.string in FIELD_TOKENS and not (
                prev is not None and prev.type == tokenize.OP and prev.string == "."):
            (r, c), (_, c2) = tok.start, tok.end
            hits.append((starts[r - 1] + c, starts[r - 1] + c2, tok.string))
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            prev = tok
    out: List[object] = []
    pos = 0
    for a, b, name in hits:
        out.append(sem[pos:a])
        out.append((name,))
        pos = b
    out.append(sem[pos:])
    return [p for p in out if p != ""]


def substitute(template: List[object], fields: Dict[str, int]) -> str:
    parts = []
    for p in template:
        if type(p) is tuple:
            v = fields[p[0]]
            parts.append(str(v) if v >= 0 else f"({v})")
        else:
            parts.append(p)
    return "".join(parts)


def _sx32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v | 0xFFFFFFFF00000000 if v & 0x80000000 else v


class BlockCompiler:
    """Turns code at an address into (function, instruction count, end address)."""

    def __init__(self, machine, decoder, globals_: dict, coverage: bool):
        self.m = machine
        self.dec = decoder
        self.G = globals_
        self.coverage = coverage
        self.rows: List[Row] = decoder.rows
        # templates depend only on the rows: share them between machines using the same decoder
        templates = getattr(decoder, "_sem_templates", None)
        if templates is None or len(templates) != len(self.rows):
            templates = [sem_template(r.sem) for r in self.rows]
            decoder._sem_templates = templates
        self.templates = templates
        self.linemaps: Dict[str, Tuple[int, List[int]]] = {}   # filename -> (start, pc per line)
        # coverage (Machine(coverage=True)): machine._block_counts, and per block being compiled its
        # counter number k and the pcs / mnemonics it runs (coverage.BlockCounts)
        self._cov = None
        self._k = 0

    # one instruction -> source lines (without indentation)
    def _insn(self, pc: int, row_id: int, word: int) -> List[str]:
        row = self.rows[row_id]
        f = fields_of(word, pc)
        src = substitute(self.templates[row_id], f)
        if "R[0]" in src:
            fast = _R0_READ.sub("0", src)
            try:
                compile(fast, "<r0>", "exec")
                src = fast
            except SyntaxError:               # e.g. a tuple target 'R[0], RH[0] = ...': keep it
                pass
        out = []
        if self._cov is not None:
            self._cov[0].append(pc)
            self._cov[1].append(row.mnemonic)
        out.extend(src.splitlines())
        for w in row.gpr_writes:
            v = int(w) if w.isdigit() else f[w]
            if v == 0:
                out.append("R[0] = 0")
                out.append("RH[0] = 0")
                break
        return out

    def _fetch(self, pc: int):
        """(row_id, word) or (None, error-raising source line)."""
        if not self.m.fetchable(pc):
            return None, f"engine._fetch_outside({pc:#x})"
        d = self.m.decoded(pc)
        if d is None:
            return None, f"engine._fetch_fault({pc:#x})"
        rid, word = d
        if rid < 0:
            return None, f"engine._unimplemented({pc:#x}, {word:#x})"
        return rid, word

    # DECISION: a hook on the address of a delay slot is not honoured when the slot runs as part
    # of its branch (hooks replace functions; a function never starts in a delay slot).
    # DECISION: stores made by emulated code do not invalidate compiled blocks (self-modifying code
    # is out of scope); Machine.write and load_elf do.
    def compile(self, start: int, single: bool = False, hooks=()) -> Tuple[object, int, int]:
        body: List[Tuple[int, str]] = []      # (pc, line) at function-body indentation

        def emit(pc, lines):
            for ln in lines:
                body.append((pc, ln))

        pc = start
        n = 0
        limit = 1 if single else MAX_BLOCK
        if self.coverage:
            # DECISION: coverage counts per block exit (COV[3k]: completed, COV[3k+1]: a likely
            # branch's slot annulled, COV[3k+2]: a conditional branch taken), one list increment
            # per block instead of one per instruction; coverage.BlockCounts spreads them
            self._k = self.m._block_counts.new()
            self._cov = ([], [], None, None, None)
        k = self._k
        done = self._exit
        while True:
            if n and pc in hooks:
                emit(pc, done(0) + [f"return {pc:#x}"])
                break
            rid, word = self._fetch(pc)
            if rid is None:
                emit(pc, [word])
                n += 1
                break
            row = self.rows[rid]
            n += 1
            if not row.flow:
                emit(pc, self._insn(pc, rid, word))
                if n >= limit:
                    emit(pc, done(0) + [f"return {pc + 4 & 0xFFFFFFFF:#x}"])
                    break
                pc = (pc + 4) & 0xFFFFFFFF
                continue
            n += self._flow(emit, pc, rid, word, row)
            break
        if self.coverage:
            pcs, mns, branch, slot, flow = self._cov
            self.m._block_counts.define(k, pcs, mns, branch, slot, flow)
            self._cov = None
        return self._build(start, body, n)

    def _exit(self, j: int) -> List[str]:
        """The counter line of one exit of the block being compiled (none without coverage)."""
        return [f"COV[{3 * self._k + j}] += 1"] if self.coverage else []

    def _flow(self, emit, pc: int, rid: int, word: int, row: Row) -> int:
        """Emit a control-flow instruction with its delay slot; returns 1 if a delay slot counts."""
        f = fields_of(word, pc)
        nxt = (pc + 8) & 0xFFFFFFFF
        flow = row.flow
        done = self._exit
        cov = self._cov
        if flow == "stop":
            emit(pc, self._insn(pc, rid, word))
            emit(pc, done(0) + [f"return {pc + 4 & 0xFFFFFFFF:#x}"])
            return 0
        if cov is not None:
            self._cov = cov = (cov[0], cov[1], pc if flow in ("branch", "likely") else None,
                               (pc + 4) & 0xFFFFFFFF if flow == "likely" else None, pc)
        if row.sem.strip():
            emit(pc, self._insn(pc, rid, word))
        elif cov is not None:
            cov[0].append(pc)
            cov[1].append(row.mnemonic)
        if row.link:
            reg = 31 if row.link.isdigit() else f[row.link]
            if reg:
                emit(pc, [f"R[{reg}] = {_sx32(pc + 8):#x}"])
        if flow == "likely":
            emit(pc, ["if not cond:", "    S.annul += 1"] + ["    " + x for x in done(1)] + [f"    return {nxt:#x}"])
        slot = (pc + 4) & 0xFFFFFFFF
        srid, sword = self._fetch(slot)
        if srid is None:
            emit(slot, [sword])
        elif self.rows[srid].flow in ("branch", "likely", "jump", "jump_reg"):
            # r5900.md §9: a branch in a delay slot runs in the pc/npc model (engine._delay_chain)
            if flow in ("branch", "likely"):
                tgt = f"({f['btarget']:#x} if cond else {nxt:#x})"
            elif flow == "jump":
                tgt = f"{f['jtarget']:#x}"
            else:
                tgt = "tgt"
            if cov is not None:              # the chain counts the slot and what follows
                self._cov = (cov[0], cov[1], cov[2], None, pc)
                if flow in ("branch", "likely"):
                    emit(pc, [f"COV[{3 * self._k} + (2 if cond else 0)] += 1"])
                else:
                    emit(pc, done(0))
            emit(slot, [f"return engine._delay_chain({slot:#x}, {tgt})"])
            return 1
        else:
            emit(slot, self._insn(slot, srid, sword))
        if flow in ("branch",):
            if self.coverage:
                emit(slot, ["if cond:", f"    COV[{3 * self._k + 2}] += 1", f"    return {f['btarget']:#x}"]
                     + done(0) + [f"return {nxt:#x}"])
            else:
                emit(slot, [f"return {f['btarget']:#x} if cond else {nxt:#x}"])
        elif flow == "likely":
            emit(slot, done(2) + [f"return {f['btarget']:#x}"])
        elif flow == "jump":
            emit(slot, done(0) + [f"return {f['jtarget']:#x}"])
        elif flow == "jump_reg":
            emit(slot, done(0) + ["return tgt"])
        else:
            raise ValueError(f"row {row.mnemonic}: unknown flow {flow!r}")
        return 1

    def _build(self, start: int, body: List[Tuple[int, str]], n: int):
        src_body = "\n".join("    " + ln for _, ln in body)
        used = sorted(set(_NAME_RE.findall(src_body)))
        head = f"def _blk({', '.join(f'{u}={u}' for u in used)}):"
        src = head + "\n" + src_body + "\n"
        fname = f"<eemu block {start:#010x}>" if not self.coverage else f"<eemu block {start:#010x} #{self._k}>"
        pcs = [start] + [pc for pc, _ in body]          # line k (1-based) -> pcs[k-1]
        key = (fname, src)
        code = _CODE_CACHE.get(key)
        if code is None:                      # compiling is the expensive part: share it between machines
            code = _CODE_CACHE[key] = compile(src, fname, "exec")
            if len(_CODE_CACHE) > 200_000:
                _CODE_CACHE.clear()
        ns = {}
        exec(code, self.G, ns)
        self.linemaps[fname] = (start, pcs)
        end = max(pc for pc, _ in body) + 4 if body else start + 4
        return ns["_blk"], n, end, src

    def pc_of(self, filename: str, lineno: int):
        lm = self.linemaps.get(filename)
        if lm is None:
            return None
        pcs = lm[1]
        return pcs[lineno - 1] if 0 < lineno <= len(pcs) else lm[0]


class Engine(Protocol):
    """What the Machine asks of an engine. Runs start with the registers in the machine's lists
    (run) or in a call's R, RH image (call, call_each: executable-abi.md §3.1, Machine._call_image)
    and end at the sentinel return address; every method returns the steps it ran (the run's
    final pc too, where it has one). Faults propagate; the Machine locates them."""

    def ready(self, pc: int) -> bool:
        """Whether this engine takes a run from pc now (else the Python engine does)."""

    def run(self, pc: int, limit: int) -> Tuple[int, int]:
        """(pc, steps) of a run from pc with the current registers."""

    def call(self, pc: int, image: bytes, limit: int) -> Tuple[int, int]:
        """(pc, steps) of an outermost call from pc with the registers of image."""

    def gprs(self) -> Sequence[int]:
        """The GPRs' low 64 bits as the call that just ended left them (after call(), and inside
        call_each's after(i))."""

    def call_each(self, pc, images: Sequence[bytes], limit, after=None) -> List[Tuple[int, int]]:
        """(v0, steps) of each call, one after the other; pc and limit may be lists (one per
        call), after(i) runs after the i-th call (memory only)."""
