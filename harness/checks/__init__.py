"""The checks of checks.md §2-§7, one module per check, and the registry that finds them.

A check is one `Check` object: its name and the other names that select it, the record kinds it
needs (the quick test's kinds, selection.QUICK_TESTS), whether it applies to a chunk, how it runs,
how a mismatch's input is replayed and shrunk, and whether provenance traces its mismatches. It
runs on one `Case` (the game, the chunk, its parsed Anime, the case context, the tally, the
profile, the check's rng, the speed and the checks still to run on the chunk after it).

A check that asks the game queries (docs/truth.md §3: what a truth file holds and a model answers)
declares them: `queries`, the function that asks the game a chunk's queries, and `query_kinds`,
one `QueryKind` per kind of query it asks (its comparison, the built-in reference's answer, the
answer's structure). The truth export, check-truth, a model run and the built-in answering take
their tables from these declarations (`query_kinds()`, `builders()`); a check whose run is only
its queries runs by `queries_run`.

To add a check, add one module here that defines `CHECK = Check(...)`, and its name to the shared
vocabulary (ground/vocabulary.py, which reports, the truth files and the pytest plugin read); the
registry imports every module of this package, holds them to the vocabulary and runs their checks
in `order`. Selection (`--check`, the bulk pool), the
mutants' default cases, the differential tests' chunks, the shrinker, `python -m harness replay`
and provenance all ask the registry, so nothing else names the check. A module here without a
CHECK is an error at import (tests/harness/test_layout.py).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

from ground import vocabulary
from harness.compare.ledger import mark


@dataclass
class Case:
    """What a check runs on: one chunk on one game. `applies` reads only anim and prof."""
    anim: Any
    prof: Any
    game: Any = None
    ch: Any = None
    ctx: Any = None
    tally: Any = None
    rng: Any = None
    speed: Optional[int] = None
    later: Tuple[str, ...] = ()          # the checks that run after this one on the same game, chunk and parse


@dataclass(frozen=True)
class Replay:
    """How a check re-runs one chunk on an explicit input, for shrinking and `harness replay`.

    key: the input's name, also the replay option (`--steps`, `--plan`, `--times`); args: the other
    arguments the replay takes, each a replay option of its own (`--a1`, `--track`); input(m): the
    input of mismatch m as (items, {arg: value}), None when m carries none; run(game, ch, ctx,
    items, **args): the Tally of one replay; queries(game, ch, anim, items, exact_local, **args):
    the queries of one replay with the game's words, what a model is asked when a model run
    shrinks (exact_local: the profile's, whether a 3x3 without a keyed rotation is compared
    exactly; None: the check's mismatches are not shrunk through a model)."""
    key: str
    input: Callable[[dict], Optional[Tuple[list, dict]]]
    run: Callable[..., Any]
    args: Tuple[str, ...] = ()
    queries: Optional[Callable[..., list]] = None


@dataclass(frozen=True)
class QueryKind:
    """One kind of query a check asks (docs/truth.md §3).

    name: the kind (the query's "kind", a key of ground/vocabulary.py's QUERY_KINDS naming this
    check); compare(q, a, ctx, tally, anim): the game's words of query q (under "game") against the
    answer a, recorded into the tally, True when q was compared to its end (checks.answered marks
    its ledger then); answer(anim, q): the built-in reference's answer to q as a dict of its fields
    (numpy arrays welcome), anim the chunk's parse; structure: the answer's fields as a msgspec
    Struct (without "i" and "kind", which every answer has), with an optional classmethod
    fit(q, a) raising ValueError when the answer's sizes are not those q asks for; None when
    harness/truth/answers.py holds the kind's structure (the kinds reference/serve.py answers)."""
    name: str
    compare: Callable[..., bool]
    answer: Callable[[Any, dict], dict]
    structure: Optional[type] = None


@dataclass(frozen=True)
class Check:
    name: str
    order: int                           # its place in a chunk's run
    kinds: Tuple[str, ...]               # the record kinds it needs (selection.QUICK_TESTS)
    applies: Callable[[Case], bool]      # whether the chunk's content calls for it (checks.md §9)
    run: Callable[[Case], None]          # load what it needs, compare machine and reference, tally
    aliases: Tuple[str, ...] = ()        # other names that select it (its sub-checks' mismatches)
    replay: Optional[Replay] = None      # None: its mismatches are not shrunk or replayed
    traced_call: Optional[str] = None    # the game call provenance records for its mismatches
    # (game, ch, anim, prof, r) -> the chunk's queries with the game's words (docs/truth.md §3)
    queries: Optional[Callable[..., list]] = None
    query_kinds: Tuple[QueryKind, ...] = ()   # the kinds of query `queries` asks

    @property
    def names(self):
        return (self.name,) + self.aliases


def discover(package=__name__, path=None):
    """Every check module's CHECK in `package`, in run order."""
    found = []
    for info in pkgutil.iter_modules(path if path is not None else __path__):
        module = importlib.import_module(f"{package}.{info.name}")
        check = getattr(module, "CHECK", None)
        if not isinstance(check, Check):
            raise ImportError(f"{module.__name__}: a check module defines CHECK = Check(...)")
        found.append(check)
    return tuple(sorted(found, key=lambda c: (c.order, c.name)))


def get(name) -> Check:
    """The check named `name` exactly (not an alias); KeyError."""
    for c in CHECKS:
        if c.name == name:
            return c
    return _unknown(name)


def resolve(name) -> Check:
    """The check that `name` selects: its own name or one of its aliases; KeyError."""
    for c in CHECKS:
        if name in c.names:
            return c
    return _unknown(name)


def _unknown(name):
    raise KeyError(f"no check named {name!r} (known: {', '.join(names())})")


def names():
    """Every name `--check` accepts, in run order, each check's aliases after it."""
    return tuple(n for c in CHECKS for n in c.names)


def aliases():
    """Every alias (a name that selects another check)."""
    return frozenset(a for c in CHECKS for a in c.aliases)


def replayable():
    """The names of the checks that replay an explicit input (shrinking, `harness replay`), in run order."""
    return tuple(c.name for c in CHECKS if c.replay is not None)


def applicable(case: Case):
    """The names of the checks this chunk's content calls for (checks.md §2-§7, §9), in run order."""
    return [c.name for c in CHECKS if c.applies(case)]


def parse_reference(ch, float_model):
    """The reference model of corpus chunk `ch` under `float_model`: what a check compares against."""
    from reference import Animation
    return Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=float_model)


def query_kinds():
    """query kind -> (the name of the check that declares it, its QueryKind), in run order."""
    return {k.name: (c.name, k) for c in CHECKS for k in c.query_kinds}


def builders():
    """check name -> the function that asks the game its queries, of the checks that declare one."""
    return {c.name: c.queries for c in CHECKS if c.queries is not None}


def queries_run(queries, kinds):
    """The run of a check whose run is only its queries: ask the game the chunk's queries
    (`queries`, the check's builder), answer each by its kind's built-in answer and compare it
    through `answered`, as a model's answer would be."""
    by_kind = {k.name: k for k in kinds}

    def run(case):
        for q in queries(case.game, case.ch, case.anim, case.prof, case.rng):
            kind = by_kind[q["kind"]]
            answered(kind.compare, q, kind.answer(case.anim, q), case.ctx, case.tally, case.anim)
    return run


def answered(compare, q, a, ctx, tally, anim):
    """Compare the answer `a` (docs/truth.md §3: the reference's in process, or a model's) to query
    `q` (with the game's words under "game") by the check's `compare(q, a, ctx, tally, anim)` and,
    when the query was compared to its end (no step stopped it, the game compiled what it asks),
    mark the records it covers in the ledger (the query's "ledger": [kind, key, weight]). True
    when it was compared to its end."""
    complete = compare(q, a, ctx, tally, anim)
    if complete:
        for kind, key, weight in q.get("ledger") or ():
            mark(tally, kind, tuple(key) if isinstance(key, list) else key, weight)
    return complete


def replay(check, game, ch, ctx, items, **args):
    """Shrinking's and `python -m harness replay`'s run of one check on an explicit input: the
    Tally of check `check` (a name or an alias) on chunk `ch` with input `items` (the check's
    Replay: steps, a note plan, or times) and the replay's other `args`."""
    from harness.compare.tally import Tally
    c = resolve(check)
    case = Case(anim=parse_reference(ch, ctx.float_model), prof=None, game=game, ch=ch, ctx=ctx, tally=Tally())
    c.replay.run(case, list(items), **args)
    return case.tally


def spoken(found) -> None:
    """The registry's checks speak the shared vocabulary (ground/vocabulary.py): the same names in
    the same run order, the same aliases, record kinds of RECORD_KINDS. ImportError naming the
    difference."""
    names_ = tuple(c.name for c in found)
    if names_ != vocabulary.CHECKS:
        raise ImportError(f"harness/checks: the checks {', '.join(names_)} are not ground/vocabulary.py's CHECKS "
                          f"{', '.join(vocabulary.CHECKS)} (a check module's name and order)")
    aliases_ = {a: c.name for c in found for a in c.aliases}
    if aliases_ != vocabulary.ALIASES:
        raise ImportError(f"harness/checks: aliases {aliases_} are not ground/vocabulary.py's ALIASES {vocabulary.ALIASES}")
    for c in found:
        odd = [k for k in c.kinds if k not in vocabulary.RECORD_KINDS]
        if odd:
            raise ImportError(f"harness/checks: check {c.name} needs record kind(s) {', '.join(odd)} not in "
                              f"ground/vocabulary.py's RECORD_KINDS")
        for k in c.query_kinds:
            if vocabulary.QUERY_KINDS.get(k.name) != c.name:
                raise ImportError(f"harness/checks: check {c.name} declares the query kind {k.name!r}, which "
                                  f"ground/vocabulary.py's QUERY_KINDS does not name as its")
        if c.query_kinds and c.queries is None:
            raise ImportError(f"harness/checks: check {c.name} declares query kinds but no `queries` to ask them")


CHECKS: Tuple[Check, ...] = discover()
spoken(CHECKS)
