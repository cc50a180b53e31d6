"""What comparing every record costs: the nightly profile against the sampled nightly it replaced.

The sampled nightly took 12 object records per chunk, 3 F_Morpher records per morpher and 120
vertices per mmat (checks.md §9's earlier caps). Both profiles run on the same chunks of one bulk
sample, chunk by chunk one after the other in this one process, so the load of a shared machine
falls on both alike; the figure is the ratio of their CPU seconds (process_time).

    python -m benchmarks.exhaustive_cost [N]      (make bench runs it on 200 chunks)
"""
from __future__ import annotations

import sys
import time

SAMPLED = dict(max_tracks=12, morph_limit=3, morph_max_vertices=120, every_record=False)
SEED = 4


def measure(n=200, seed=SEED, opts=None):
    """{profile: {cpu, cases, chunks, mismatches, ledger}} for "exhaustive" and "sampled"."""
    from harness.driver.game import Game
    from harness.options import Options
    from harness.profiles import profile
    from harness.runners.bulk import selection
    from harness.runners.cases.chunk import check_chunk
    from reports.ledger import total
    opts = opts or Options(seed=seed, profile="nightly")
    corpus = opts.open_corpus()
    ids = selection.sample(selection.pool(corpus), n, seed)
    profiles = {"exhaustive": profile("nightly"), "sampled": profile("nightly", **SAMPLED)}
    game = Game(opts.image, opts.float_model)
    check_chunk(game, corpus.chunk(ids[0]), opts.context(ids[0]), profiles["sampled"])   # compile once, untimed
    out = {k: {"cpu": 0.0, "cases": 0, "chunks": 0, "mismatches": 0, "ledgers": []} for k in profiles}
    for cid in ids:
        ch = corpus.chunk(cid)
        for name, prof in profiles.items():
            c0 = time.process_time()
            res = check_chunk(game, ch, opts.context(cid), prof)
            r = out[name]
            r["cpu"] += time.process_time() - c0
            r["cases"] += res["counters"].get("cases", 0)
            r["chunks"] += 1
            r["mismatches"] += len(res["mismatches"]) + (1 if res.get("error") else 0)
            r["ledgers"].append(res.get("ledger"))
    for r in out.values():
        r["ledger"] = total(r.pop("ledgers"))
    return out


def report(n=200):
    r = measure(n)
    ex, sa = r["exhaustive"], r["sampled"]
    print(f"exhaustive nightly against the sampled one ({ex['chunks']} chunks of the nightly sample, "
          f"seed {SEED}, chunk by chunk in one run):")
    for name, x in r.items():
        led = x["ledger"].get("object records", [0, 0])
        print(f"  {name:10s} {x['cpu']:8.2f} CPU-s  controller cases {x['cases']:,}  object records "
              f"{led[1]:,} of {led[0]:,}  mismatches {x['mismatches']}")
    print(f"  exhaustive / sampled (CPU): {ex['cpu'] / max(sa['cpu'], 1e-9):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(report(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
