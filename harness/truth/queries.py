"""The checks' queries asked of the game, one chunk at a time: what a truth file holds
(docs/truth.md §1-§3) and what a model run compares (harness/runners/cases/model_chunk.py).

Each check's queries are drawn by the check's own functions from the check's own generator
(harness.profiles.rng(seed, chunk id, check)), in the order the check draws them, and the game is
driven through the same Game calls, so the words are the words `make bulk` compares with the same
seed and profile. Nothing is compared here.

DECISION: as the checks do, the reference's parse of a chunk says which checks apply, which
records exist and which steps evaluate a pose (a step that moves no time evaluates nothing, and
the checks read no coord after it); the game's words are never taken from it.
"""
from __future__ import annotations

import time as _time

from ground import vocabulary
from harness import EXPLAINED, HarnessError, checks
from harness.checks import parse_reference
from harness.profiles import rng



# -- a replay: one check on an explicit input (shrinking and `harness replay` with a model) -------
def replay_queries(check, game, ch, anim, items, exact_local=True, **args):
    """The queries of check `check` (a name, not an alias) on chunk `ch` with the replay input
    `items` (checks.Replay: times with track, a plan with a1, or steps), with the game's words;
    numbered from 0. A HarnessError when the protocol cannot say the input."""
    how = checks.get(check).replay
    if how is None or how.queries is None:
        raise HarnessError(f"check {check}: no replay through a model (its Replay declares no queries)")
    qs = how.queries(game, ch, anim, list(items), exact_local, **args)
    for i, q in enumerate(qs):
        q["i"] = i
    return qs


def exporters():
    """check name -> the function that asks the game its queries (Check.queries), in the checks'
    run order."""
    return checks.builders()


def kinds_of(check):
    """The query kinds the queries of check `check` have (docs/truth.md §3), in the vocabulary's order."""
    return tuple(k for k, of in vocabulary.QUERY_KINDS.items() if of == check)


def kinds_by_check():
    """check name -> kinds_of(check), of every check in run order."""
    return {c.name: kinds_of(c.name) for c in checks.CHECKS}


def chunk_line(game, ch, index, opts, prof, only=None, anim=None, timing=None):
    """The truth line of one chunk: its queries with the game's words, or the error that stopped
    the game (the line then says which check and why, and holds the queries asked before it).
    anim: the chunk's parse, when the caller has it; timing: a dict given the seconds of each check."""
    line = {"chunk": ch.id, "index": index, "checks": [], "queries": []}
    if anim is None:
        try:
            anim = parse_reference(ch, opts.float_model)
        except Exception as exc:
            line["error"] = {"type": type(exc).__name__, "message": str(exc), "check": "reference"}
            return line
    exporting = exporters()
    wanted = {checks.resolve(w).name for w in only} if only else {c.name for c in checks.CHECKS}
    game.reload = prof.reload
    for check in checks.applicable(checks.Case(anim, prof)):
        if check not in wanted:
            continue
        if check not in exporting:
            # DECISION: a check that applies but asks no queries is an error, never left out of
            # the line: a truth file or a model run would otherwise pass a check it never asked
            raise HarnessError(f"check {check}: asks the game no queries (its Check declares no `queries`), so "
                               f"it has no truth line and no model run")
        t0 = _time.time()
        try:
            qs = exporting[check](game, ch, anim, prof, rng(opts.seed, ch.id, check))
        except EXPLAINED as exc:
            line["error"] = {"type": type(exc).__name__, "message": str(exc), "check": check}
            break
        finally:
            if timing is not None:
                timing[check] = round(_time.time() - t0, 4)
        line["checks"].append(check)
        for q in qs:
            q["i"] = len(line["queries"])
            line["queries"].append(q)
    return line
