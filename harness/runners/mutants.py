"""Mutant self-test: every stand-in mutant must be caught by the check it names (interfaces.md §5)."""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from typing import List

from harness.runners.cases.chunk import check_chunk
from harness import HarnessError, checks
from harness.options import ROOT, Options
from harness.profiles import PROFILES, profile
from harness.runners.bulk.selection import QUICK_TESTS

MUTANTS_DIR = os.path.join(ROOT, "standin", "mutants")
MUTANT_ELF_DIR = os.path.join(ROOT, "standin", "build", "mutants")
# DECISION: '# Catches: probe' mutants (standin/mutants/probe-*.patch) are broken set-ups the
# differential checks need not see; `make mutants` counts one caught when the readiness probe
# prints a finding of the kind its '# Finding:' line names.
DEFAULT_CASES = 3


@dataclass
class Mutant:
    name: str
    patch: str
    catches: str
    why: str = ""
    cases: List[str] = field(default_factory=list)
    finding: str = ""        # probe mutants: the kind of finding that names the problem
    profile: str = "quick"   # '# Profile:': the profile it must be caught under (a sampled one may miss it)

    @property
    def elf(self):
        return os.path.join(MUTANT_ELF_DIR, f"{self.name}.elf")


def parse_patch(path) -> Mutant:
    name = os.path.splitext(os.path.basename(path))[0]
    catches = why = None
    finding, prof = "", "quick"
    cases = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*(Catches|Why|Cases|Finding|Profile):\s*(.*)", line.strip())
            if not m:
                continue
            if m.group(1) == "Catches":
                catches = m.group(2).strip()
            elif m.group(1) == "Why":
                why = m.group(2).strip()
            elif m.group(1) == "Finding":
                finding = m.group(2).strip()
            elif m.group(1) == "Profile":
                prof = m.group(2).strip()
            else:
                cases = [c.strip() for c in m.group(2).split(",") if c.strip()]
    if catches not in catchers():
        raise HarnessError(f"{path}: first lines must name '# Catches: <check>' with one of "
                           f"{', '.join(catchers())} (got {catches!r})")
    if catches == "probe" and not finding:
        raise HarnessError(f"{path}: a '# Catches: probe' mutant needs '# Finding: <kind>'")
    if prof not in PROFILES:
        raise HarnessError(f"{path}: '# Profile: {prof}' is not one of {', '.join(PROFILES)}")
    return Mutant(name, path, catches, why or "", cases, finding, prof)


def find_mutants(names=None):
    out = [parse_patch(p) for p in sorted(glob.glob(os.path.join(MUTANTS_DIR, "*.patch")))]
    if names:
        out = [m for m in out if m.name in names]
    return out


def catchers():
    """What a mutant's '# Catches:' may name: a check (or an alias), or the probe."""
    return checks.names() + ("probe",)


def exposing_kinds(check):
    """The records that expose a check's mutants, for default cases (a mutant without `# Cases:`);
    none for the probe's."""
    return () if check == "probe" else checks.resolve(check).kinds


_RICHEST = {}


def default_cases(corpus, check, n=DEFAULT_CASES):
    """The n chunks with the most records the check compares (ties: archive order)."""
    key = (id(corpus), check)
    if key not in _RICHEST:
        pats = [QUICK_TESTS[k] for k in exposing_kinds(check)]
        scored = []
        for i, cid in enumerate(corpus.chunk_ids()):
            data = corpus.chunk(cid).data
            count = sum(aligned_count(data, p) for p in pats)
            if count:
                scored.append((-count, i, cid))
        _RICHEST[key] = [cid for _, _, cid in sorted(scored)]
    return _RICHEST[key][:n]


def aligned_count(data, pat):
    n, i = 0, data.find(pat, 20)
    while i != -1:
        n += i % 4 == 0
        i = data.find(pat, i + 1)
    return n


def run_mutant(mut: Mutant, opts: Options, shrink=False):
    """Quick profile on the mutant's cases with the mutant ELF; returns (caught, results)."""
    from harness.driver.game import Game
    if not os.path.isfile(mut.elf):
        raise HarnessError(f"mutant {mut.name}: {mut.elf} not built (make -C standin mutants)")
    if mut.catches == "probe":
        return run_probe_mutant(mut, opts)
    corpus = opts.open_corpus()
    cases = mut.cases or default_cases(corpus, mut.catches)
    known = set(corpus.chunk_ids())
    missing = [c for c in cases if c not in known]
    if missing:
        raise HarnessError(f"mutant {mut.name}: # Cases name chunks not in the corpus: {', '.join(missing)}")
    game = Game(mut.elf, opts.float_model)
    # DECISION: the quick profile with the restored load trusted, as the nightly runs: a mutant
    # must be caught through the load-once shortcut, not only by fresh loads. A mutant that only
    # a profile comparing every record can see names it ('# Profile: nightly').
    prof = profile(mut.profile, reload=False)
    results = []
    # DECISION: the named cases first, then default cases for the check (the first chunks in
    # archive order with its records) if the named ones do not expose the mutant; for morph, also
    # the synthetic blends of checks.md §5.2 (saturation and wrapping rarely occur in real models).
    extra = [c for c in default_cases(corpus, mut.catches) if c not in cases]
    for cid in cases + extra:
        ctx = opts.context(cid)
        ctx.image = mut.elf
        ctx.profile = mut.profile           # the repro line runs the profile that caught it
        res = check_chunk(game, corpus.chunk(cid), ctx, prof)
        results.append(res)
        if res.get("error"):
            game = Game(mut.elf, opts.float_model)
        if any(m["check"] == mut.catches for m in res["mismatches"]):
            if shrink:
                from harness.shrinking import shrink_mismatch
                first = next(m for m in res["mismatches"] if m["check"] == mut.catches)
                first["shrunk"] = shrink_mismatch(game, corpus.chunk(cid), ctx, first)
            return True, results
    if mut.catches == "morph":
        res = synthetic_morph(game, opts)
        results.append(res)
        if res["mismatches"]:
            return True, results
    return False, results


def run_probe_mutant(mut: Mutant, opts: Options):
    """The readiness probe on the mutant: caught when a finding of the named kind is reported."""
    from harness.runners.probing.probe import probe
    r = probe(mut.elf, opts.open_corpus(), opts.float_model)
    hits = [f for f in r.findings if f.kind == mut.finding]
    res = {"chunk": "probe", "mismatches": [{"check": "probe", "field": f.kind, "repro": f.line()}
                                             for f in hits],
           "counters": {"findings": len(r.findings)}, "error": None, "findings": [f.line() for f in r.findings]}
    return bool(hits), [res]


def synthetic_morph(game, opts):
    """The fixed edge cases, Generator A and a slice of Generator B as one pseudo-chunk result."""
    from harness.runners.cases.suite_runs import morph_synthetic_suite
    t = morph_synthetic_suite(game, opts, b_count=40, a_count=3, image=game.image_path)
    return {"chunk": "synthetic::morph", "mismatches": t.mismatches, "counters": dict(t.counters),
            "error": None}
