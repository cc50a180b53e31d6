"""Measure the step budgets' basis (harness/driver/budgets.py MEASURED): the largest steps one call
of each game function takes over the largest chunks of the stand-in's corpus.

    .venv/bin/python -m harness.runners.cases.measure_budgets     # prints MEASURED and MEASURED_ON
"""
from __future__ import annotations


def measure(n=40, seed=4, prof="quick"):
    """The largest steps per function over n chunks (the largest first) on the stand-in."""
    from harness.driver.game import Game
    from harness.options import Options
    from harness.profiles import profile
    from harness.runners.cases.chunk import check_chunk
    opts = Options(profile=prof, seed=seed)
    corpus = opts.open_corpus()
    ids = sorted(corpus.chunk_ids(), key=lambda c: -len(corpus.chunk(c).data))[:n]
    game = Game(opts.image, unbounded=True)
    for cid in ids:
        res = check_chunk(game, corpus.chunk(cid), opts.context(cid), profile(prof))
        if res.get("error"):
            raise RuntimeError(f"{cid}: {res['error']}")
    return dict(game.max_steps), f"the {n} largest chunks of the seed-1 corpus, {prof} profile, seed {seed}"


if __name__ == "__main__":
    counts, on = measure()
    print(f"MEASURED = {counts!r}\nMEASURED_ON = {on!r}")
