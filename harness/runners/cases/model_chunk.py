"""A run with a model in place of the built-in reference: `make bulk MODEL='CMD ARGS'` (`--model`),
and `one --model` for its repros (docs/truth.md §5).

Per chunk, the game answers the checks' queries live (harness.truth.queries: the same queries,
drawn by the checks' own functions from the same seeded generators), the model answers them over
the protocol (one request line, one answer line), and the truth comparison (harness.truth.check)
records the mismatches, counters and ledger into the chunk's record. The record is the one
check_chunk writes (harness.runners.cases.chunk.result), so the run directory, its verdict, summary,
reports, fail-fast, resume and repros take it as any other.

A model run shrinks as bulk does (harness.shrinking), each candidate asked of the game and the
model (ModelReplay): the shrunk repro is `replay ... --model`.

The cases built by code are asked too: an edge chunk beyond the disc is an Anime chunk like any
other (its bytes in the request); the synthetic Modify blends (checks.md §5.2, and the morph
edge chunk) are `modify` queries, which carry every input.
DECISION: a request of Modify blends built by code names its case as the chunk and sends no
Anime bytes (`"anime": ""`): there is no chunk, and a modify query needs none (docs/truth.md §2).
"""
from __future__ import annotations

import atexit
import multiprocessing.util
import os
import shutil
import time as _time
import weakref
from collections import Counter

from corpus.names import printable

from harness import HarnessError, checks
from harness.checks import parse_reference
from harness.compare.tally import Tally
from harness.runners.cases.chunk import count_loads, describe_error, describe_refusal, ledger_fields, result, setup_failed
from harness.truth import check as cmp
from harness.truth import probes, protocol
from harness.truth.queries import chunk_line, replay_queries


def preflight(command):
    """Refuse a --model that cannot be started, before a run begins (a bad input, exit 2)."""
    prog = protocol.argv_of(command)[0]
    found = os.access(prog, os.X_OK) if os.sep in prog else shutil.which(prog) is not None
    if not found:
        raise HarnessError(f"--model {printable(command)}: no program {printable(prog)} "
                           f"({'not an executable file' if os.sep in prog else 'not on PATH'})")


_STARTED = weakref.WeakSet()       # the slots of this process, whose programs end with it


class ModelSlot:
    """A worker's model program: started at its first chunk, kept across chunks, and replaced
    after a ModelError (its answers may no longer be in step with the requests). The program
    gets the end of its input when the slot is dropped or the process exits."""

    def __init__(self, command, timeout=protocol.DEFAULT_TIMEOUT):
        self.command, self.timeout = command, timeout
        self.model = None
        _STARTED.add(self)

    def __del__(self):
        self.close()

    def close(self):
        if self.model is not None:
            self.model.close()
            self.model = None

    def get(self):
        if self.model is None:
            _close_at_exit()
            self.model = protocol.external(self.command, self.timeout)
        return self.model

    def discard(self):
        if self.model is not None:
            self.model.kill()
            self.model = None


@atexit.register
def _close_all():
    for slot in list(_STARTED):
        slot.close()


_FINALIZED = set()          # the pids that registered _close_all with multiprocessing


def _close_at_exit():
    """A pool worker ends without running atexit; multiprocessing runs its own exit finalizers
    there (cleared at each fork, so registered once per process, before its first model starts)."""
    if os.getpid() not in _FINALIZED:
        _FINALIZED.add(os.getpid())
        multiprocessing.util.Finalize(None, _close_all, exitpriority=10)


class ModelBlend:
    """The Modify blend of one case (base, base scale, targets) as the model answers it: the
    `blend` of a record of synthetic blends (morph_pseudo, the morph edge chunk), one modify
    query a request."""

    def __init__(self, slot, case_id, float_model):
        self.slot, self.case_id, self.float_model = slot, case_id, float_model

    def __call__(self, base, base_scale, targets):
        q = {"kind": "modify", "i": 0, "morpher": None, "frame": None, "mmat": None,
             "base": [list(v) for v in base], "base_scale": base_scale,
             "targets": [{"positions": [list(p) for p in pos], "scale": sc, "weight": w} for pos, sc, w in targets]}
        try:
            model = self.slot.get()
            model.send(self.case_id, b"", {}, self.float_model, [q])
            a = protocol.checked_answers(self.case_id, [q], model.receive())[0]
        except HarnessError:
            self.slot.discard()
            raise
        return [tuple(int(x) for x in v) for v in a["vertices"]]


def model_record(opts, slot, index, cid, only, chunk_of, game_of, shrink):
    """The record of case `cid` with the model of `slot` as the expected side: a chunk of the
    archive, an edge chunk, or synthetic Modify blends. shrink: shrink the first mismatch of
    each check (harness.shrinking, through the model)."""
    from harness.profiles import run_profile
    from harness.runners.cases import edge_chunks, morph_pseudo
    ctx, prof = opts.context(cid), run_profile(opts)
    try:
        game = game_of()
        if morph_pseudo.is_pseudo(cid):
            return morph_pseudo.check_pseudo(game, cid, ctx, index, blend=ModelBlend(slot, cid, ctx.float_model))
        if edge_chunks.is_blends(cid):
            return edge_chunks.check_edge(game, cid, ctx, prof, index, only, plots=False,
                                          blend=ModelBlend(slot, cid, ctx.float_model))
        if edge_chunks.is_edge(cid):
            ch = edge_chunks.chunk(cid)
            prof = edge_chunks.every_record(prof, ch.anime)
        else:
            ch = chunk_of(cid)
    except Exception as exc:          # a broken image or an unreadable chunk: this chunk's error
        return setup_failed(cid, index, exc)
    res = check_with_model(game, ch, ctx, prof, slot, opts, only=only, index=index)
    if res["mismatches"] and not res.get("error") and shrink:
        from harness.shrinking import shrink_first_of_each_check
        shrink_first_of_each_check(game, ch, ctx, res, replay=ModelReplay(slot, prof.exact_local))
    return res


def check_with_model(game, ch, ctx, prof, slot, opts, only=None, index=None):
    """The record of corpus chunk `ch` with the model of `slot` as the expected side; never raises."""
    t0, cpu0 = _time.time(), _time.process_time()
    tally = Tally()
    timing, error = {}, None
    steps0 = game.steps
    try:
        anim = parse_reference(ch, ctx.float_model)
    except Exception as exc:                      # the chunk's parse (the queries come from it)
        return result(ch, index, t0, tally, timing, describe_refusal(exc), ctx, {})
    tally.applicable = checks.applicable(checks.Case(anim, prof))
    loads0 = dict(game.loads)
    try:
        line = chunk_line(game, ch, index, opts, prof, only, anim=anim, timing=timing)
    except Exception as exc:
        line = {"checks": [], "queries": [], "error": describe_error(exc, "game")}
    count_loads(game, loads0, tally)
    tally.checks = list(line["checks"])
    if line.get("error"):
        error = dict(line["error"])
        error.setdefault("where", None)
        tally.count("errors")
        if error.get("check") in checks.names() and error["check"] not in tally.checks:
            tally.checks.append(error["check"])
    queries, kinds = asked(line["queries"], slot.command)
    res = _compared(ch, index, t0, cpu0, steps0, game, tally, timing, error, ctx, anim, prof, slot, queries)
    res.update(kinds)
    return res


def asked(queries, command):
    """(the queries the model of `command` is asked, the record's fields saying which kinds it
    answered and which it was not asked): a probe answers some kinds only (harness.truth.probes)."""
    kinds = probes.kinds_of(command)
    if kinds is None:
        return queries, {}
    mine = [q for q in queries if q["kind"] in kinds]
    answered = Counter(dict.fromkeys(kinds, 0))
    answered.update(q["kind"] for q in mine)
    return mine, {"model_answered": dict(answered),
                  "model_not_asked": dict(Counter(q["kind"] for q in queries if q["kind"] not in kinds))}


def _compared(ch, index, t0, cpu0, steps0, game, tally, timing, error, ctx, anim, prof, slot, queries):
    if queries:
        m0 = _time.time()
        try:
            model = slot.get()
            model.send(ch.id, ch.data, ch.ext, ctx.float_model, queries)
            answers = protocol.checked_answers(ch.id, queries, model.receive())
        except HarnessError as exc:              # ModelError, or a model that cannot be started
            slot.discard()
            q = getattr(exc, "query", None)
            tally.count("errors")
            err = describe_error(exc, cmp.check_of((q or {}).get("kind"), "model"))
            return finish(ch, index, t0, cpu0, steps0, game, tally, timing, err, ctx, anim, prof, m0)
        compare_answers(queries, answers, ctx, tally, anim)
        return finish(ch, index, t0, cpu0, steps0, game, tally, timing, error, ctx, anim, prof, m0)
    return finish(ch, index, t0, cpu0, steps0, game, tally, timing, error, ctx, anim, prof)


class ModelReplay:
    """shrinking's and `replay --model`'s run of one check on an explicit input: the game's words
    (harness.truth.queries.replay_queries), the model's answers, compared into a Tally."""

    def __init__(self, slot, exact_local=True):
        self.slot, self.exact_local = slot, exact_local

    @staticmethod
    def accepts(check, items):
        """A playback query plays n steps of one speed (docs/truth.md §3): other step lists are
        not asked."""
        return checks.resolve(check).name != "playback" or len(set(items)) == 1

    def __call__(self, check, game, ch, ctx, items, **args):
        anim = parse_reference(ch, ctx.float_model)
        qs = replay_queries(checks.resolve(check).name, game, ch, anim, list(items), self.exact_local, **args)
        try:
            model = self.slot.get()
            model.send(ch.id, ch.data, ch.ext, ctx.float_model, qs)
            answers = protocol.checked_answers(ch.id, qs, model.receive())
        except HarnessError:
            self.slot.discard()
            raise
        tally = Tally()
        compare_answers(qs, answers, ctx, tally, anim)
        return tally


def compare_answers(queries, answers, ctx, tally, anim):
    """Each answer against the game's words of its query (of the chunk whose parse is `anim`), the
    counters kept per check."""
    start, kept = 0, len(tally.mismatches)
    while start < len(queries):
        check = cmp.check_of(queries[start]["kind"])
        end = start
        while end < len(queries) and cmp.check_of(queries[end]["kind"]) == check:
            end += 1
        before = Counter(tally.counters)
        for q, a in zip(queries[start:end], answers[start:end]):
            cmp.compare(q, a, ctx, tally, anim)
        tally.by_check[check] = dict(Counter(tally.counters) - before)
        start = end
    for m in tally.mismatches[kept:]:       # not the game's own (the running matrix): the model's
        m["answered_by"] = "model"


def finish(ch, index, t0, cpu0, steps0, game, tally, timing, error, ctx, anim, prof, m0=None):
    """The chunk record. timing: the game's seconds per check; model_seconds: the model's answer
    and its comparison (one request per chunk, so not per check)."""
    info = {"machine_steps": game.steps - steps0, "cpu_seconds": round(_time.process_time() - cpu0, 4)}
    if m0 is not None:
        info["model_seconds"] = round(_time.time() - m0, 4)
    info.update(ledger_fields(anim, ch, tally, prof))
    return result(ch, index, t0, tally, timing, error, ctx, info)
