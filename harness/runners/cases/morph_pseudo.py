"""The synthetic Modify blends of checks.md §5.2 as bulk pseudo-chunks, so `make bulk` checks them.

The disc's F_Morpher weights all lie in [0, 8) (corpus-stats.md §6), so negative, -0 and >= 8
weights, wrapping differences and saturating adds exist only here. Each pseudo-chunk has its own id
and its own fixed cases; its record has the per-chunk format of harness/runners/cases/chunk.py, under check
"morph". Every draw comes from the generators' fixed seeds (harness/suites.py SEEDS) or from
(seed, pseudo-chunk id).
"""
from __future__ import annotations

import random
import time as _time

from harness.checks import morph
from reference import morph as reference_morph
from harness.compare.bits import f32_bits
from harness.checks.morph import MorphCase
from harness.runners.cases.suites import SEEDS
from harness.compare.tally import Tally

PREFIX = "synthetic::morph/"
B_SLICES = 6                  # Generator B's 300 cases in six pseudo-chunks of 50
# DECISION: weights of every lane regime of animation-semantics.md §9.2 step 2: negative (lane_z
# = -1, lane_y = -1 down to x = -65536), -0 and -1/8192 (x = 0 but lane_z = -1), 8 <= w < 16 (all
# lanes s16(x) < 0) and w >= 16 (lanes differ).
WEIGHTS = (-0.5, -1.0, -2.75, -15.9, -16.5, -40.0, 8.0, 8.5, 12.25, 15.999, 16.0, 23.5, 100.0, 0x80000000,
           0xB9000000)


def ids():
    """The pseudo-chunk ids, in the order `make bulk` appends them to its sample."""
    return ([PREFIX + "edge", PREFIX + "weights", PREFIX + "generator-a"]
            + [f"{PREFIX}generator-b/{k}" for k in range(B_SLICES)])


def is_pseudo(cid) -> bool:
    return isinstance(cid, str) and cid.startswith(PREFIX)


def weight_cases(seed=SEEDS["morph_a"]):
    """One case per weight of WEIGHTS, on 24 random vertices with two targets (one rescaled)."""
    rng = random.Random(f"{seed}:{PREFIX}weights")
    out = []
    for n, w in enumerate(WEIGHTS):
        wb = w if isinstance(w, int) else f32_bits(w)
        base = [tuple(rng.randint(-32768, 32767) for _ in range(3)) for _ in range(24)]
        t1 = [tuple(rng.randint(-32768, 32767) for _ in range(3)) for _ in range(24)]
        t2 = [tuple(rng.randint(-4000, 4000) for _ in range(3)) for _ in range(24)]
        out.append(MorphCase(f"W{n}", base, f32_bits(1.0),
                             [(t1, f32_bits(1.0), wb), (t2, f32_bits(rng.choice((0.5, 2.0, 3.3))), f32_bits(0.25))]))
    return out


def cases(cid):
    """The MorphCase list of pseudo-chunk `cid` (an unknown id is an error naming it)."""
    part = cid[len(PREFIX):]
    if part == "edge":
        return morph.edge_cases()
    if part == "weights":
        return weight_cases()
    if part == "generator-a":
        return morph.generator_a(SEEDS["morph_a"], 12)
    if part.startswith("generator-b/") and part[len("generator-b/"):].isdigit():
        k = int(part[len("generator-b/"):])
        if k < B_SLICES:
            b = morph.generator_b(SEEDS["morph_b"], 300)
            size = -(-len(b) // B_SLICES)
            return b[k * size:(k + 1) * size]
    raise ValueError(f"unknown synthetic Modify pseudo-chunk {cid!r} (known: {', '.join(ids())})")


def check_pseudo(game, cid, ctx, index=None, blend=None):
    """Run the pseudo-chunk's Modify cases against the reference (or `blend(base, base_scale,
    targets)`, a model run's); the per-chunk record."""
    def coverage(cs, tally):
        tally.quirk("morph_weight_8_up", sum(1 for c in cs for _, _, w in c.targets
                                             if not w >> 31 and w >= f32_bits(8.0)))
    return check_blends(game, _Pseudo(cid), ctx, index, lambda: cases(cid), coverage, blend)


def check_blends(game, named, ctx, index, cases_of, coverage, blend=None, run=True):
    """The per-chunk record of Modify blends built by code (a pseudo-chunk, the morph edge chunk;
    named.id its id): the cases of cases_of() through Modify against the reference (or `blend`, a
    model run's), coverage(cases, tally) counting what they exercise. run=False: the check is
    selected out and nothing runs."""
    from harness.runners.cases.chunk import describe_error, result
    t0 = _time.time()
    tally = Tally()
    tally.checks.append("morph")
    tally.applicable = ["morph"]        # the blends are all Modify cases: morph applies
    error = None
    steps0 = game.steps if game is not None else 0
    if run:
        try:
            cs = cases_of()
            morph.run_cases(game, cs, ctx, tally,
                            blend or (lambda b, s, t: reference_morph(b, s, t, float_model=ctx.float_model)))
            coverage(cs, tally)
        except Exception as exc:
            error = describe_error(exc, "morph")
            tally.count("errors")
    info = {"machine_steps": (game.steps - steps0) if game is not None else 0,
            "cpu_seconds": round(_time.time() - t0, 4), "machine_cpu": {}}
    return result(named, index, t0, tally, {"morph": round(_time.time() - t0, 4)}, error, ctx, info)


class _Pseudo:
    def __init__(self, cid):
        self.id = cid
