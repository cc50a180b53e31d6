"""A recorder: every executed instruction with the values it read and wrote, and the data flow back.

``with m.hooks.add("record") as rec: m.call(...)`` runs the calls instruction by instruction through the
table (each row's ``sem``, the pc/npc model of r5900.md §9) and keeps, per executed instruction, a
``Line``: pc, word, the raw values of the locations it read (before) and wrote (after) as
eemu_ext/analysis/dataflow.py names them, its loads and stores (address, width, value), and for a
conditional branch whether it was taken. An annulled delay slot did not execute and has no line.

``rec.last_store_to(addr)`` is the last line that stored a byte at addr; ``rec.producer_chain(i)``
walks the data flow backward from line i: the line that produced each value it read (through a
register, or through memory from the store that wrote the loaded bytes), then the producers of
those, up to ``depth`` levels, stopping at loads from the given input ranges, at values the run
started with (entry arguments a0-a7, other registers, memory no recorded store wrote) and at hooks.

DECISION: the recorded run always executes in this module's own instruction-by-instruction loop
on the Python state, whichever engine the machine runs (the native engine syncs from it after);
step hooks are not called while recording. A hook is one line: its writes are the registers it
changed, it reads nothing the recorder can see, and memory it writes has no store line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from eemu_ext.analysis.dataflow import Loc, all_locations, dataflow, get
from eemu_ext.engines.engine import substitute
from eemu_ext.errors import DelaySlotError, StepLimitExceeded
from eemu_ext.isa.row import fields_of
from eemu_ext.memory import AccessFault

M32 = 0xFFFFFFFF
SENTINEL = 0xFFFFFFF0
ARGUMENTS = {Loc("gpr", 4 + i, 0): f"a{i}" if i < 4 else f"t{i - 4}" for i in range(8)}   # EABI a0-a7
_FLOWS = ("branch", "likely", "jump", "jump_reg")


@dataclass
class Line:
    index: int
    pc: int
    word: int
    reads: Dict[Loc, int]                       # location -> value before the instruction
    writes: Dict[Loc, int]                      # location -> value after it
    loads: List[Tuple[int, int, Optional[int]]] = field(default_factory=list)    # (addr, width, value)
    stores: List[Tuple[int, int, Optional[int]]] = field(default_factory=list)   # value after the store
    taken: Optional[bool] = None                # conditional branches: the direction
    hook: str = ""                              # a hooked address: the hook's symbol
    fault: str = ""                             # the instruction raised (its writes are empty)


@dataclass
class Link:
    """One step of a producer chain: line ``index`` at ``depth`` produced ``via`` for ``parent``
    (None for the chain's start). ``index`` None is a leaf outside the recording: ``leaf`` says
    what (an entry argument, an input load, initial memory ...)."""
    index: Optional[int]
    depth: int
    parent: Optional[int]
    via: str
    leaf: str = ""


class Recording:
    """The lines of a recorded run (see the module docstring)."""

    def __init__(self, m):
        self.m = m
        self.lines: List[Line] = []
        self.starts: List[Tuple[int, int]] = []     # (index of the first line, pc) of each run
        self._producers = None                      # per line: {loc or (addr,): producer index or None}
        self._fns: Dict[Tuple[int, int], object] = {}

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i) -> Line:
        return self.lines[i]

    def __iter__(self):
        return iter(self.lines)

    # -- text ----------------------------------------------------------------------------------
    def text(self, i: int) -> str:
        """Line i as 'index pc symbol+off disassembly  reads -> writes'."""
        ln = self.lines[i]
        m = self.m
        sym = m.symbolize(ln.pc) if m.image is not None else ""
        if ln.hook:
            what = f"hook {ln.hook}"
        else:
            what = m.decoder.disasm(ln.word, ln.pc, m.symbolize if m.image is not None else None)
        r = " ".join(f"{loc}={v:#x}" for loc, v in sorted(ln.reads.items()))
        r += "".join(f" [{a:#010x}]={v:#x}" for a, _w, v in ln.loads if v is not None)
        w = " ".join(f"{loc}={v:#x}" for loc, v in sorted(ln.writes.items()))
        w += "".join(f" [{a:#010x}]={v:#x}" for a, _w, v in ln.stores if v is not None)
        d = "" if ln.taken is None else (" (taken)" if ln.taken else " (not taken)")
        f = f"  FAULT {ln.fault}" if ln.fault else ""
        return f"{i:6d} {ln.pc:08x} {sym:<24.24} {what}{d}   {r or '-'} -> {w or '-'}{f}"

    def format(self, indices: Optional[Iterable[int]] = None) -> str:
        idx = range(len(self.lines)) if indices is None else indices
        return "\n".join(self.text(i) for i in idx)

    # -- data flow backward -------------------------------------------------------------------------
    def last_store_to(self, addr: int, before: Optional[int] = None) -> Optional[int]:
        """The index of the last line (before line ``before``, if given) that stored a byte at addr."""
        addr &= M32
        end = len(self.lines) if before is None else before
        for i in range(end - 1, -1, -1):
            for a, w, _v in self.lines[i].stores:
                if a <= addr < a + w:
                    return i
        return None

    def _compute_producers(self):
        last: Dict[Loc, int] = {}
        byte: Dict[int, int] = {}
        out = []
        for ln in self.lines:
            p: Dict[object, object] = {}
            for loc in ln.reads:
                p[loc] = last.get(loc)
            for a, w, _v in ln.loads:
                p[(a, w)] = sorted({byte[b] for b in range(a, a + w) if b in byte}) or None
            out.append(p)
            for loc in ln.writes:
                last[loc] = ln.index
            for a, w, _v in ln.stores:
                for b in range(a, a + w):
                    byte[b] = ln.index
        self._producers = out

    def producers(self, i: int) -> Dict[object, object]:
        """Line i's inputs -> where each came from: a Loc -> the producing line's index (None: the
        value the run started with); a load (addr, width) -> the indices of the stores that wrote
        its bytes (None: no recorded store)."""
        if self._producers is None or len(self._producers) != len(self.lines):
            self._compute_producers()
        return self._producers[i]

    def producer_chain(self, index: int, depth: int = 12, inputs: Sequence[Tuple[int, int]] = (),
                       ) -> List[Link]:
        """The data flow backward from line ``index`` (depth first, each line once): the producers
        of what it read, theirs, ... up to ``depth`` levels. Loads from an address in one of
        ``inputs`` ([lo, hi) ranges) and values the run started with are leaves."""
        out = [Link(index, 0, None, "")]
        seen = {index}

        def walk(i, d):
            if d >= depth:
                return
            ln = self.lines[i]
            if ln.hook:
                return
            for key, prod in self.producers(i).items():
                if isinstance(key, Loc):
                    via = str(key)
                    if prod is None:
                        what = (f"entry argument {ARGUMENTS[key]}" if key in ARGUMENTS
                                else "entry value")
                        out.append(Link(None, d + 1, i, via, what))
                        continue
                    prods = [prod]
                else:
                    a, w = key
                    via = f"[{a:#010x}] ({w} bytes)"
                    if any(lo <= a < hi for lo, hi in inputs):
                        out.append(Link(None, d + 1, i, via, "input"))
                        continue
                    if prod is None:
                        out.append(Link(None, d + 1, i, via, "initial memory"))
                        continue
                    prods = prod
                for j in prods:
                    if j in seen:
                        out.append(Link(j, d + 1, i, via, "(above)"))
                        continue
                    seen.add(j)
                    out.append(Link(j, d + 1, i, via))
                    walk(j, d + 1)

        walk(index, 0)
        return out

    def format_chain(self, chain: List[Link]) -> str:
        lines = []
        for k in chain:
            pad = "  " * k.depth
            via = f"{k.via} <- " if k.via else ""
            if k.index is None:
                lines.append(f"{pad}{via}{k.leaf}")
            else:
                lines.append(f"{pad}{via}{self.text(k.index).lstrip()}{'  ' + k.leaf if k.leaf else ''}")
        return "\n".join(lines)

    # -- the recorded run -----------------------------------------------------------------------
    def _fn(self, pc: int, rid: int, word: int):
        key = (pc, word)
        fn = self._fns.get(key)
        if fn is None:
            m = self.m
            row = m.decoder.rows[rid]
            f = fields_of(word, pc)
            src = substitute(m.python.compiler.templates[rid], f) if row.sem.strip() else "pass"
            body = "\n".join("    " + ln for ln in src.splitlines())
            tail = ""
            for w in row.gpr_writes:
                if (int(w) if w.isdigit() else f[w]) == 0:
                    tail = "    R[0] = 0\n    RH[0] = 0\n"
                    break
            ns = {}
            code = compile(f"def _i():\n    cond = tgt = None\n{body}\n{tail}    return cond, tgt\n",
                           f"<eemu recorded 0x{pc:08x}>", "exec")
            exec(code, m.python.G, ns)
            fn = self._fns[key] = ns["_i"]
        return fn

    def _mem_value(self, addr: int, width: int) -> Optional[int]:
        try:
            return int.from_bytes(self.m.mem.read(addr, width), "little")
        except AccessFault:
            return None

    def _hook_line(self, pc: int) -> int:
        m = self.m
        locs = all_locations()
        before = [get(m, x) for x in locs]
        name = m.symbolize(pc)
        npc = m.hooks.run_at(pc)
        writes = {x: get(m, x) for x, v in zip(locs, before) if get(m, x) != v}
        self.lines.append(Line(len(self.lines), pc, 0, {}, writes, hook=name))
        return npc

    def run(self, pc: int, limit: int) -> Tuple[int, int]:
        """Run from pc to the sentinel, one instruction per line; returns (pc, steps)."""
        m = self.m
        m._pull()
        rows = m.decoder.rows
        lines = self.lines
        self.starts.append((len(lines), pc))
        npc = (pc + 4) & M32
        steps = 0
        in_slot = False
        cover = m.coverage_enabled              # a recorded run counts its coverage too
        while pc != SENTINEL:
            if pc in m.hooks.at and not in_slot:
                steps += 1
                pc = self._hook_line(pc)
                npc = (pc + 4) & M32
                continue
            if not m.fetchable(pc):
                m.pc = pc
                m.python._fetch_outside(pc)
            d = m.decoded(pc)
            if d is None:
                m.python._fetch_fault(pc)
            rid, word = d
            if rid < 0:
                m.python._unimplemented(pc, word)
            if steps + 1 > limit:
                m.pc = pc
                raise StepLimitExceeded(
                    f"step limit {limit:,} exceeded calling {m.call_target()}: stopped at pc "
                    f"0x{pc:08x} ({m.symbolize(pc)}): {m.disasm(pc)}", pc, limit)
            row = rows[rid]
            if in_slot and row.flow == "stop":
                raise DelaySlotError(f"{m.disasm(pc)} at pc 0x{pc:08x} ({m.symbolize(pc)}) in a delay slot "
                                     f"(r5900.md §9)", pc)
            flow = dataflow(word, m.decoder)
            # sorted: a location set's order follows str hashing, which differs from process to
            # process; the data flow walks the reads in this order
            reads = {x: get(m, x) for x in sorted(flow.reads)}
            loads, stores = [], []
            for x in flow.mem:
                try:
                    a = x.address(m)
                except Exception:
                    a = None
                if a is None:
                    continue
                (loads if x.kind == "load" else stores).append((a, x.width))
            loads = [(a, w, self._mem_value(a, w)) for a, w in loads]
            line = Line(len(lines), pc, word, reads, {}, loads)
            lines.append(line)
            m.pc = pc
            if cover:
                m._code_coverage.insns[pc] += 1
                m._coverage[row.mnemonic] += 1
            try:
                cond, tgt = self._fn(pc, rid, word)()
            except Exception as exc:
                line.fault = type(exc).__name__
                exc._eemu_counted = True
                raise m.python.located(exc, pc) from None
            steps += 1
            if row.link:
                reg = 31 if row.link.isdigit() else fields_of(word, pc)[row.link]
                if reg:
                    v = (pc + 8) & M32
                    m.R[reg] = v | 0xFFFFFFFF00000000 if v & 0x80000000 else v
            line.writes = {x: get(m, x) for x in sorted(flow.writes)}
            line.stores = [(a, w, self._mem_value(a, w)) for a, w in stores]
            f = row.flow
            if f in ("branch", "likely"):
                line.taken = bool(cond)
                if cover:
                    (m._code_coverage.taken if cond else m._code_coverage.not_taken)[pc] += 1
            if not f or f == "stop":
                pc, npc = npc, (npc + 4) & M32
                in_slot = False
                continue
            target = fields_of(word, pc)
            if f in ("branch", "likely"):
                if f == "likely" and not cond:
                    pc, npc = (npc + 4) & M32, (npc + 8) & M32        # the slot at npc is annulled
                    in_slot = False
                    continue
                t = target["btarget"] if cond else (npc + 4) & M32
                if in_slot and row.mnemonic == "bc1t" and cond:
                    # the Python engine's _delay_chain: the recorded special case: BC1T taken in a delay slot
                    pc, npc = (pc + 4) & M32, t
                    continue
            elif f == "jump":
                t = target["jtarget"]
            else:
                t = tgt & M32
            pc, npc = npc, t
            in_slot = True
        return pc, steps
