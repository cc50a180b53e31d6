"""Replay for shrinking and `python -m harness replay`: re-run one check of one chunk on an explicit
input list (the check's Replay: steps, a note plan, or times)."""
from harness import checks
from harness.runners.chunk import parse_reference
from harness.compare.tally import Tally


def replay(check, game, ch, ctx, items, **args):
    """The Tally of check `check` (a name or an alias) on chunk `ch` with input `items` and the
    replay's other `args`."""
    c = checks.resolve(check)
    case = checks.Case(anim=parse_reference(ch, ctx.float_model), prof=None, game=game, ch=ch, ctx=ctx,
                       tally=Tally())
    c.replay.run(case, list(items), **args)
    return case.tally
