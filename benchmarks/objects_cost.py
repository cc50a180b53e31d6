"""`make bench`, objects_cost: what the anm's objects and world checks add to the nightly.

The nightly selection (bulk's sample of N chunks, seed 4, the nightly profile) is checked twice
in this one process, chunk by chunk: with every check, and with every check but objects and
world. Both runs share the machine's load alike, since each chunk's two runs follow each other.
The goal: the nightly with both checks at most GOAL times the nightly without them.

DECISION: the figure is the ratio of CPU seconds (process_time) of the two runs, which in one
process on an idle core is their wall time, and which a shared machine does not inflate for one
run more than the other; the wall-clock ratio is printed beside it.

DECISION: a chunk's two runs start from the same corpus state (its member inflated or not, the
chunk parsed or not, as the chunks before left them), and which of them runs first alternates
chunk by chunk: in a fixed order the first run inflated and parsed for both, and warmed what the
second found warm, as no nightly of either kind would. The effect is small: on 60 chunks, back to
back, the fixed order gave 1.42x and 1.40x, this way 1.40x twice.

DECISION: the process collects its cycles as a nightly's bulk worker does (settle_collector:
start-up frozen out of the collector's scans, the worker's thresholds), since the figure stands for
the nightly's cost; with Python's default collector the two checks' extra objects were scanned
again and again as no worker scans them (100 chunks: 1.343x with the default collector, 1.309x
with the worker's).

    python -m benchmarks.objects_cost [N]      (make bench runs it on 200 chunks)
"""
from __future__ import annotations

import sys
import time

from benchmarks.goals import goal, verdict

GOAL = 1.25
SEED = 4
N = 200
COSTLY = ("objects", "world")


def measure(n=N, seed=SEED, opts=None):
    """{"all": ..., "without": ...}: each {cpu, wall, chunks, mismatches, errors, world matrices}."""
    from harness import checks
    from harness.driver.game import Game
    from harness.options import Options
    from harness.profiles import profile
    from harness.runners.bulk import selection
    from harness.runners.bulk.worker import settle_collector
    from harness.runners.cases.chunk import check_chunk
    opts = opts or Options(seed=seed, profile="nightly")
    corpus = opts.open_corpus()
    ids = selection.sample(selection.pool(corpus), n, seed)
    prof = profile("nightly")
    runs = {"all": None, "without": [c for c in checks.names() if c not in COSTLY]}
    game = Game(opts.image, opts.float_model)
    check_chunk(game, corpus.chunk(ids[0]), opts.context(ids[0]), prof)      # compile once, untimed
    settle_collector()
    out = {k: {"cpu": 0.0, "wall": 0.0, "chunks": 0, "mismatches": 0, "errors": 0, "world matrices": 0}
           for k in runs}
    for i, cid in enumerate(ids):
        ch = corpus.chunk(cid)
        parsed = corpus.parsed_state()
        for name, only in (list(runs.items()) if i % 2 == 0 else list(runs.items())[::-1]):
            corpus.restore_parsed(parsed)
            c0, w0 = time.process_time(), time.perf_counter()
            res = check_chunk(game, ch, opts.context(cid), prof, only=only)
            r = out[name]
            r["cpu"] += time.process_time() - c0
            r["wall"] += time.perf_counter() - w0
            r["chunks"] += 1
            r["mismatches"] += len(res["mismatches"])
            r["errors"] += 1 if res.get("error") else 0
            r["world matrices"] += res["counters"].get("world matrices", 0)
    return out


def main(n=N):
    r = measure(n)
    every, without = r["all"], r["without"]
    print(f"objects_cost: the nightly with and without the objects and world checks ({every['chunks']} chunks "
          f"of the nightly sample, seed {SEED}, chunk by chunk in one process):")
    for name, x in (("every check", every), ("no objects/world", without)):
        print(f"  {name:17s} {x['cpu']:8.2f} CPU-s {x['wall']:8.2f} wall-s  world matrices {x['world matrices']:,}  "
              f"mismatches {x['mismatches']}  errors {x['errors']}")
    ratio = every["cpu"] / max(without["cpu"], 1e-9)
    print(f"  with / without: {ratio:.2f}x CPU ({every['wall'] / max(without['wall'], 1e-9):.2f}x wall)")
    clean = every["errors"] == 0 and without["errors"] == 0 and every["world matrices"] > 0
    print(f"  goal <= {GOAL}x, every matrix compared and no error: {goal(f'objects_cost <= {GOAL}x', ratio <= GOAL and clean)}")
    return verdict("benchmarks.objects_cost")


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1]) if len(sys.argv) > 1 else N))
