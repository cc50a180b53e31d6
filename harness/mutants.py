"""Mutant self-test: every stand-in mutant must be caught by the check it names (interfaces.md §5)."""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from typing import List

from .chunk import check_chunk
from .errors import HarnessError
from .options import ROOT, Options
from .profiles import profile
from .selection import has_record

MUTANTS_DIR = os.path.join(ROOT, "standin", "mutants")
MUTANT_ELF_DIR = os.path.join(ROOT, "standin", "build", "mutants")
# Which records expose a check's mutants, for default cases (a mutant without `# Cases:`).
CHECK_KINDS = {"controllers": ("object",), "multistep": ("object",), "materials": ("material",),
               "playback": ("object", "morph"), "notes": ("note",), "morph": ("morph",), "fobj": ("fobj",)}
DEFAULT_CASES = 3


@dataclass
class Mutant:
    name: str
    patch: str
    catches: str
    why: str = ""
    cases: List[str] = field(default_factory=list)

    @property
    def elf(self):
        return os.path.join(MUTANT_ELF_DIR, f"{self.name}.elf")


def parse_patch(path) -> Mutant:
    name = os.path.splitext(os.path.basename(path))[0]
    catches = why = None
    cases = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*(Catches|Why|Cases):\s*(.*)", line.strip())
            if not m:
                continue
            if m.group(1) == "Catches":
                catches = m.group(2).strip()
            elif m.group(1) == "Why":
                why = m.group(2).strip()
            else:
                cases = [c.strip() for c in m.group(2).split(",") if c.strip()]
    if catches not in CHECK_KINDS:
        raise HarnessError(f"{path}: first lines must name '# Catches: <check>' with one of "
                           f"{', '.join(CHECK_KINDS)} (got {catches!r})")
    return Mutant(name, path, catches, why or "", cases)


def find_mutants(names=None):
    out = [parse_patch(p) for p in sorted(glob.glob(os.path.join(MUTANTS_DIR, "*.patch")))]
    if names:
        out = [m for m in out if m.name in names]
    return out


def default_cases(corpus, check, n=DEFAULT_CASES):
    kinds = CHECK_KINDS[check]
    out = []
    for cid in corpus.chunk_ids():
        if any(has_record(corpus.chunk(cid).data, k) for k in kinds):
            out.append(cid)
            if len(out) >= n:
                break
    return out


def run_mutant(mut: Mutant, opts: Options, shrink=False):
    """Quick profile on the mutant's cases with the mutant ELF; returns (caught, results)."""
    from .game import Game
    if not os.path.isfile(mut.elf):
        raise HarnessError(f"mutant {mut.name}: {mut.elf} not built (make -C standin mutants)")
    corpus = opts.open_corpus()
    cases = mut.cases or default_cases(corpus, mut.catches)
    known = set(corpus.chunk_ids())
    missing = [c for c in cases if c not in known]
    if missing:
        raise HarnessError(f"mutant {mut.name}: # Cases name chunks not in the corpus: {', '.join(missing)}")
    game = Game(mut.elf, opts.float_model)
    prof = profile("quick")
    results = []
    for cid in cases:
        ctx = opts.context(cid)
        ctx.image = mut.elf
        res = check_chunk(game, corpus.chunk(cid), ctx, prof)
        results.append(res)
        if res.get("error"):
            game = Game(mut.elf, opts.float_model)
        if any(m["check"] == mut.catches for m in res["mismatches"]):
            if shrink:
                from .shrink import shrink_mismatch
                first = next(m for m in res["mismatches"] if m["check"] == mut.catches)
                first["shrunk"] = shrink_mismatch(game, corpus.chunk(cid), ctx, first)
            return True, results
    return False, results
