"""Coverage of code: how often each instruction address ran and which way each conditional branch went.

``Machine(coverage=True)`` keeps a ``CodeCoverage`` (``m.code_coverage``) under both engines, with
the same counts: an instruction counts each time it runs (one that faults too: it ran and raised);
an annulled delay slot does not count; a conditional branch (``flow`` branch or likely) counts
once per completed execution in ``taken`` or ``not_taken``. The engines count per block exit,
not per instruction (the Python engine: one list increment per block; the native engine: one
counter per block in C), and the counts are spread over the block's instructions when read.

Counts merge by summing (``a.merge(b)``, ``a + b``: one run's workers into one) and round-trip
through JSON (``to_json`` / ``from_json``). ``function_report`` turns them, with an ELF's symbols,
into per-function figures and an annotated disassembly.
"""
from __future__ import annotations

import collections
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

FORMAT = "eemu-code-coverage/1"
CONDITIONAL = ("branch", "likely")


class CodeCoverage:
    """Per-address execution counts and per-branch direction counts (addresses are u32 ints)."""

    def __init__(self):
        self.insns: collections.Counter = collections.Counter()
        self.taken: collections.Counter = collections.Counter()
        self.not_taken: collections.Counter = collections.Counter()

    def merge(self, other: "CodeCoverage") -> "CodeCoverage":
        """Add other's counts into this one (a worker's coverage into the run's); returns self."""
        self.insns.update(other.insns)
        self.taken.update(other.taken)
        self.not_taken.update(other.not_taken)
        return self

    def __add__(self, other):
        return CodeCoverage().merge(self).merge(other)

    def __eq__(self, other):
        return isinstance(other, CodeCoverage) and (
            +self.insns, +self.taken, +self.not_taken) == (+other.insns, +other.taken, +other.not_taken)

    def clear(self):
        self.insns.clear()
        self.taken.clear()
        self.not_taken.clear()

    def directions(self, pc: int) -> Tuple[int, int]:
        """(taken, not taken) of the conditional branch at pc."""
        return self.taken[pc], self.not_taken[pc]

    def to_json(self) -> dict:
        def enc(c):
            return {f"0x{a:08x}": n for a, n in sorted(c.items()) if n}
        return {"format": FORMAT, "insns": enc(self.insns), "taken": enc(self.taken),
                "not_taken": enc(self.not_taken)}

    @classmethod
    def from_json(cls, d: dict) -> "CodeCoverage":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"not code coverage in the {FORMAT} format "
                             f"(format field {d.get('format') if isinstance(d, dict) else type(d).__name__!r})")
        out = cls()
        for name in ("insns", "taken", "not_taken"):
            c = getattr(out, name)
            for a, n in d.get(name, {}).items():
                if not isinstance(n, int) or n < 0:
                    raise ValueError(f"code coverage: {name}[{a}] is not a count")
                c[int(a, 16)] = n
        return out

    def __repr__(self):
        return (f"CodeCoverage({len(+self.insns)} addresses, {sum(self.insns.values())} executions, "
                f"{len(set(self.taken) | set(self.not_taken))} branches)")


class BlockCounts:
    """The Python engine's counters: three per compiled block, bumped at its exits.

    ``counts[3k]`` the block completed (a conditional branch not taken), ``counts[3k + 1]`` a
    likely branch not taken (its slot annulled), ``counts[3k + 2]`` a conditional branch taken.
    Block k ran ``pcs`` (its instructions in order, their mnemonics ``mns``); ``branch`` is its
    conditional branch, ``slot`` the delay slot an annul skips, ``flow`` its control-flow row."""

    def __init__(self):
        self.counts: List[int] = []
        self.blocks: List[tuple] = []

    def new(self) -> int:
        k = len(self.blocks)
        self.blocks.append(None)
        self.counts.extend((0, 0, 0))
        return k

    def define(self, k: int, pcs, mns, branch=None, slot=None, flow=None):
        self.blocks[k] = (tuple(pcs), tuple(mns), branch, slot, flow)

    def flush(self, cov: CodeCoverage, by_mnemonic: collections.Counter) -> None:
        c = self.counts
        for k, b in enumerate(self.blocks):
            full, ann, taken = c[3 * k], c[3 * k + 1], c[3 * k + 2]
            if not (full or ann or taken) or b is None:
                continue
            spread(cov, by_mnemonic, b, full, ann, taken)
            c[3 * k] = c[3 * k + 1] = c[3 * k + 2] = 0

    def fault(self, k: int, pc: int, cov: CodeCoverage, by_mnemonic: collections.Counter) -> None:
        """Block k raised at instruction pc: it and the instructions before it ran."""
        b = self.blocks[k] if 0 <= k < len(self.blocks) else None
        if b is None:
            return
        pcs, mns = b[0], b[1]
        for p, mn in zip(pcs, mns):
            if p > pc:
                break
            cov.insns[p] += 1
            by_mnemonic[mn] += 1


def spread(cov: CodeCoverage, by_mnemonic, block, full: int, ann: int, taken: int) -> None:
    """A block's exit counts onto its instructions: block = (pcs, mnemonics, conditional branch
    pc or None, slot an annul skips or None, ...); full/ann/taken as in BlockCounts."""
    pcs, mns, branch, slot = block[:4]
    total = full + ann + taken
    for pc, mn in zip(pcs, mns):
        n = total - ann if pc == slot else total
        cov.insns[pc] += n
        by_mnemonic[mn] += n
    if branch is not None:
        cov.taken[branch] += taken
        cov.not_taken[branch] += full + ann


_BLOCK_NAME = re.compile(r"<eemu block 0x[0-9a-f]+ #(\d+)>")


def block_of_filename(filename: str) -> Optional[int]:
    """The counter block k of an instrumented block's code filename, else None."""
    mo = _BLOCK_NAME.fullmatch(filename)
    return int(mo.group(1)) if mo else None


# ------------------------------------------------------------------------------- per function
@dataclass
class FunctionCoverage:
    name: str
    start: int
    end: int
    insns_covered: int
    insns_total: int
    directions_covered: int
    directions_total: int
    lines: List[str] = field(default_factory=list)      # annotated disassembly

    def summary(self) -> str:
        return (f"{self.name}: instructions {self.insns_covered}/{self.insns_total}, "
                f"branch directions {self.directions_covered}/{self.directions_total}")


def _callees(m, start: int, end: int, funcs: Dict[int, tuple]) -> List[int]:
    out = []
    rows = m.decoder.rows
    for pc in range(start, end, 4):
        d = m.decoded(pc)
        if d is None or d[0] < 0:
            continue
        row = rows[d[0]]
        if row.flow == "jump" or row.flow in CONDITIONAL:
            from eemu_ext.isa.row import fields_of
            f = fields_of(d[1], pc)
            t = f["jtarget"] if row.flow == "jump" else f["btarget"]
            if t in funcs and t != start:
                out.append(t)
    return out


def function_report(m, cov: CodeCoverage, entries: Iterable, reachable: bool = True) -> List[FunctionCoverage]:
    """Per function (the entries, and with ``reachable`` every function they call or jump to,
    by the ELF's symbols on machine m): instructions covered/total, branch directions
    covered/total, and the disassembly with each line's count; never-executed instructions are
    marked '!!', a never-taken direction 'never taken' / 'never not-taken'."""
    img = m.image
    if img is None:
        raise ValueError("function_report needs an image with symbols (Machine.load_elf)")
    funcs = {a: (a, s, n) for a, s, n in img._funcs if s}
    todo = []
    for e in entries:
        a = m.resolve(e)
        if a not in funcs:
            raise ValueError(f"{e!r} is not the start of a function symbol of {img.path}")
        todo.append(a)
    seen, order = set(), []
    while todo:
        a = todo.pop(0)
        if a in seen:
            continue
        seen.add(a)
        order.append(a)
        if reachable:
            todo.extend(_callees(m, a, a + funcs[a][1], funcs))
    rows = m.decoder.rows
    out = []
    for a in order:
        _a, size, name = funcs[a]
        end = a + size
        lines = [f"{name}:"]
        covered = total = dcov = dtot = 0
        for pc in range(a, end, 4):
            d = m.decoded(pc)
            n = cov.insns.get(pc, 0)
            total += 1
            covered += n > 0
            text = m.disasm(pc)
            mark = "  " if n else "!!"
            note = ""
            if d is not None and d[0] >= 0 and rows[d[0]].flow in CONDITIONAL:
                t, nt = cov.directions(pc)
                dtot += 2
                dcov += (t > 0) + (nt > 0)
                missing = [w for w, c in (("never taken", t), ("never not-taken", nt)) if not c]
                note = f"   [taken {t}, not taken {nt}{'; ' + ', '.join(missing) if missing else ''}]"
            lines.append(f"{mark} {pc:08x} {n:>8} {text}{note}")
        out.append(FunctionCoverage(name, a, end, covered, total, dcov, dtot, lines))
    return out
