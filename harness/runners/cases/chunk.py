"""check_chunk: every check on one Anime chunk, as the per-chunk record of interfaces.md §4."""
from __future__ import annotations

import time as _time
import traceback
from collections import Counter

from harness import EXPLAINED, checks
from harness.checks import parse_reference  # noqa: F401  (runners.chunk.parse_reference: the model a chunk is checked against)
from harness.compare import draw
from harness.compare.mismatch import CaseContext
from harness.profiles import rng
from harness.compare.tally import Tally


def check_chunk(game, ch, ctx: CaseContext, prof, only=None, index=None, speed=None, plots=True):
    """Run the applicable (or `only` the named) checks on corpus chunk `ch`; never raises.
    plots: record the reference channels the report plots for its mismatches (`draw`)."""
    t0, cpu0 = _time.time(), _time.process_time()
    tally = Tally()
    timing, error = {}, None
    steps0 = game.steps if game is not None else 0
    mcpu0 = dict(game.cpu) if game is not None else {}
    loads0 = dict(game.loads) if game is not None else {}
    try:
        anim = parse_reference(ch, ctx.float_model)
    except Exception as exc:                      # the reference or corpus refused the chunk
        return result(ch, index, t0, tally, timing, describe_refusal(exc), ctx, {})
    wanted = {checks.resolve(w).name for w in only} if only else None
    tally.applicable = checks.applicable(checks.Case(anim, prof))
    if game is not None:
        game.reload = prof.reload
    runs = [c for c in tally.applicable if wanted is None or c in wanted]
    for k, check in enumerate(runs):
        c0 = _time.time()
        tally.checks.append(check)
        before = Counter(tally.counters)
        try:
            run_one(check, game, ch, anim, ctx, tally, prof, speed, tuple(runs[k + 1:]))
        except Exception as exc:
            error = error or describe_error(exc, check)
            tally.count("errors")
        timing[check] = round(_time.time() - c0, 4)
        tally.by_check[check] = dict(tally.counters - before)
    if game is not None:
        count_loads(game, loads0, tally)
    info = {"machine_steps": (game.steps - steps0) if game is not None else 0,
            "cpu_seconds": round(_time.process_time() - cpu0, 4),
            "machine_cpu": {k: round(v - mcpu0.get(k, 0.0), 4) for k, v in game.cpu.items()
                            if v - mcpu0.get(k, 0.0) > 0} if game is not None else {}}
    info.update(ledger_fields(anim, ch, tally, prof))
    drawn = draw.of_chunk(anim, ch, tally.mismatches, plots)
    if drawn:
        info["draw"] = drawn
    return result(ch, index, t0, tally, timing, error, ctx, info)


def count_loads(game, loads0, tally):
    """The chunk's loads since `loads0` (the game's load counts before it), by how each was made."""
    for how in ("fresh", "restored", "reloaded"):
        if game.loads[how] - loads0.get(how, 0):
            tally.count(f"loads {how}", game.loads[how] - loads0.get(how, 0))


def ledger_fields(anim, ch, tally, prof):
    """The chunk record's ledger (harness/compare/ledger.py) and whether its profile compares every record."""
    from harness.compare import ledger
    return {"ledger": ledger.of_chunk(anim, lambda: ch.file, tally),
            "every_record": bool(getattr(prof, "every_record", False))}


def run_one(check, game, ch, anim, ctx, tally, prof, speed=None, later=()):
    checks.get(check).run(checks.Case(anim, prof, game, ch, ctx, tally, rng(ctx.seed, ch.id, check), speed, later))




def describe_error(exc, check):
    kind = type(exc).__name__
    tb = traceback.extract_tb(exc.__traceback__)
    where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    expected = isinstance(exc, EXPLAINED)
    return {"type": kind, "message": str(exc), "check": check,
            "where": None if expected else where}


def describe_refusal(exc):
    """The error of a chunk the reference would not parse. A malformed chunk (CorpusError) is bad
    input, check "input", with its offset in the chunk: the run lists it with the bad members
    (reports.summary.refused)."""
    from corpus import CorpusError
    if not isinstance(exc, CorpusError):
        return describe_error(exc, "reference")
    return {"type": "bad chunk", "message": f"malformed Anime chunk: {exc}", "check": "input",
            "where": None, "offset": exc.offset}


def setup_failed(cid, index, exc):
    """The record of a chunk that never reached a check: a broken image, an unreadable chunk."""
    return {"chunk": cid, "index": index, "seconds": 0.0, "counters": {}, "quirks": {}, "mismatches": [],
            "error": {"type": type(exc).__name__, "message": str(exc), "check": "setup"}}


def result(ch, index, t0, tally, timing, error, ctx, info):
    return {"chunk": ch.id, "index": index, "seconds": round(_time.time() - t0, 4),
            "counters": dict(tally.counters), "quirks": dict(tally.quirks),
            "counters_by_check": counters_by_check(tally),
            "mismatches": tally.mismatches, "dropped_mismatches": tally.dropped,
            "worst_keyed_rotation": tally.worst_keyed, "rotation_deviation": tally.rotation_deviation(),
            "checks": list(tally.checks) + [a for c in tally.checks for a in checks.get(c).aliases],
            "applicable": list(getattr(tally, "applicable", None) or []),
            "timing": timing, "error": error,
            "repro": ctx.repro(), **info}


def counters_by_check(tally):
    """check -> the counters it added on this chunk (a record of one check: all of them)."""
    if tally.by_check:
        return {c: dict(v) for c, v in tally.by_check.items()}
    return {tally.checks[0]: dict(tally.counters)} if len(tally.checks) == 1 else {}
