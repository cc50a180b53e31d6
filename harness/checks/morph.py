"""Morph checks: ccMorpher::Modify on real models and synthetic blends, exactly (checks.md §5)."""
import random

import numpy as np

from ground.fields import Field
from harness.checks import Check, QueryKind
from harness.compare.bits import f32_bits
from harness.compare.blend_inputs import blend_context
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from reference import morph as reference_morph, serve

NEG_ZERO = 0x80000000
MINUS_1_8192 = 0xB9000000          # -1/8192: lane_z = -1 with lane_x = lane_y = 0
ONE, HALF = 0x3F800000, 0x3F000000



def applies(case):
    """checks.md §5.1: a chunk with F_Morpher records."""
    return bool(case.anim.morphs)


def run(case):
    """The chunk's real blends through ccMorpher::Modify against reference.morph (no chunk load)."""
    prof, ctx = case.prof, case.ctx
    cases = real_cases(case.anim, case.ch.file, case.rng, prof.morph_limit, prof.morph_max_vertices, case.tally)
    run_cases(case.game, cases, ctx, case.tally, lambda b, s, t: reference_morph(b, s, t, float_model=ctx.float_model))


class MorphCase:
    """One Modify input: base s16 triples, base scale bits, targets (positions, scale bits, weight bits)."""

    def __init__(self, label, base, base_scale, targets, morpher=None, frame=None, mmat=None, record=None,
                 last_mmat=False):
        self.label, self.base, self.base_scale, self.targets = label, base, base_scale, targets
        self.morpher, self.frame, self.mmat = morpher, frame, mmat
        self.record, self.last_mmat = record, last_mmat     # the F_Morpher record (the ledger's key)

    def describe(self):
        return {"label": self.label, "morpher": self.morpher, "frame": self.frame, "mmat": self.mmat,
                "vertices": len(self.base), "base_scale": f"0x{self.base_scale:08x}",
                "targets": [{"scale": f"0x{s:08x}", "weight": f"0x{w:08x}"} for _, s, w in self.targets]}


def run_cases(game, cases, ctx, tally, morph):
    """Call Modify on each case and require the blend of `morph(base, base_scale, targets)` (the
    reference's, or a model's) exactly."""
    for case in cases:
        got = game.modify(case.base, case.base_scale, case.targets)
        exp = [tuple(v) for v in morph(case.base, case.base_scale, case.targets)]
        compare_case(case, got, exp, ctx, tally)
        if case.record is not None:
            mark(tally, "morph vertices", (case.record.offset, case.mmat), min(len(exp), len(got)))
            if case.last_mmat:
                mark(tally, "F_Morpher records", case.record.offset)


def queries(game, ch, anim, prof, r):
    """checks.md §5.1: each real blend of the chunk's F_Morpher records through ccMorpher::Modify,
    the check's queries (docs/truth.md §3, kind "modify"): each carries every input (the base and
    target vertices, scales and weights) and the game's blended vertices."""
    out = []
    for case in real_cases(anim, ch.file, r, prof.morph_limit, prof.morph_max_vertices):
        got = game.modify(case.base, case.base_scale, case.targets)
        out.append({"kind": "modify", "morpher": case.morpher, "frame": case.frame, "mmat": case.mmat,
                    "base": [list(v) for v in case.base], "base_scale": case.base_scale,
                    "targets": [{"positions": [list(v) for v in pos], "scale": sc, "weight": w}
                                for pos, sc, w in case.targets],
                    "ledger": ([["morph vertices", [case.record.offset, case.mmat], len(case.base)]]
                               + ([["F_Morpher records", case.record.offset, 1]] if case.last_mmat else [])),
                    "game": {"vertices": [list(v) for v in got]}})
    return out


def compare(q, a, ctx, tally, _anim):
    """A chunk's modify query (a real blend, checks.md §5.1) against the answer's vertices, as
    run_cases compares a blend."""
    targets = [([tuple(p) for p in t["positions"]], t["scale"], t["weight"]) for t in q["targets"]]
    case = MorphCase("real", [tuple(v) for v in q["base"]], q["base_scale"], targets, morpher=q.get("morpher"),
                     frame=q.get("frame"), mmat=q.get("mmat"))
    compare_case(case, [tuple(v) for v in q["game"]["vertices"]], [tuple(v) for v in a["vertices"]], ctx, tally)
    return True


def compare_case(case, got, exp, ctx, tally):
    """The game's blended vertices `got` of one Modify case against the expected `exp`, exactly;
    the coverage counts are the game's words' (in a model run `exp` is the answer being judged)."""
    tally.count("morph cases")
    tally.count("morph vertices", len(case.base))
    morph_quirks(case, got, tally)
    m = min(len(exp), len(got))
    differ = np.asarray(exp[:m], dtype=np.int64).reshape(m, 3) != np.asarray(got[:m], dtype=np.int64).reshape(m, 3)
    for i, k in np.argwhere(differ).tolist():          # row-major: vertex by vertex, x y z
        tally.fail(record(ctx, "morph", Field.axis("vertex", k, i), exp[i][k], got[i][k], object=case.morpher,
                          time=None if case.frame is None else case.frame * 256,
                          floats=False, context=blend_context(case.describe(), case.base,
                                                              case.base_scale, case.targets, i)))
    if len(exp) != len(got):
        tally.fail(record(ctx, "morph", "vertex count", len(exp), len(got), floats=False, context=case.describe()))


def morph_quirks(case, out, tally):
    """Coverage: rescaled targets, negative weights, wrapping differences, saturated results."""
    tally.quirk("morph_rescaled", sum(1 for _, s, _ in case.targets if s != case.base_scale))
    tally.quirk("morph_negative_weight", sum(1 for _, _, w in case.targets if w >> 31))
    base = np.asarray(case.base, dtype=np.int64).reshape(-1, 3)
    wraps = 0
    for ps, _, _ in case.targets:
        m = min(len(ps), len(base))
        wraps += int(np.count_nonzero(np.abs(np.asarray(ps[:m], dtype=np.int64).reshape(m, 3) - base[:m]) > 32767))
    tally.quirk("morph_wrap", wraps)
    v = np.asarray(out, dtype=np.int64)
    tally.quirk("morph_saturation", int(np.count_nonzero((v == 32767) | (v == -32768))))


def real_cases(anim, file, rng, limit=3, max_vertices=120, tally=None):
    """checks.md §5.1: cases from the chunk's F_Morpher records and the member's decoded models."""
    models, bases = file.models, file.morphers
    cases = []
    by_morpher = anim.morphs if isinstance(anim.morphs, dict) else group(anim.morphs)
    for morpher in sorted(by_morpher):
        base_obj = bases.get(morpher)
        if base_obj not in models:
            if tally is not None:
                tally.count("morphers without a known base")
            continue
        base = models[base_obj]
        recs = list(by_morpher[morpher])
        if limit >= 0:
            recs = recs[::max(1, len(recs) // limit)][:limit]
        for rec in recs:
            if not rec.pairs or any(t not in models for t, _ in rec.pairs):
                continue
            kept = []
            for k, mmat in enumerate(base.mmats):
                tm = [models[t].mmats[k] if k < len(models[t].mmats) else None for t, _ in rec.pairs]
                if any(m is None or m.vertex_count != mmat.vertex_count for m in tm):
                    continue
                idx = list(range(len(mmat.positions)))
                if 0 <= max_vertices < len(idx):
                    idx = sorted(rng.sample(idx, max_vertices))
                pick = lambda ps: [tuple(ps[i]) for i in idx]
                targets = [(pick(m.positions), models[t].vertex_scale, w)
                           for m, (t, w) in zip(tm, rec.pairs)]
                kept.append(MorphCase("real", pick(mmat.positions), base.vertex_scale, targets,
                                      morpher=morpher, frame=rec.frame, mmat=k, record=rec))
            if len(kept) == len(base.mmats) and kept:
                kept[-1].last_mmat = True      # every mmat of the record has a case
            cases.extend(kept)
    return cases


def group(records):
    out = {}
    for r in records:
        out.setdefault(r.morpher, []).append(r)
    return out


def s16(rng, lim=32767):
    return rng.randint(-lim - 1 if lim == 32767 else -lim, lim)


def generator_a(seed=9, count=12):
    """checks.md §5.2 Generator A, with -0 and -1/8192 weights mixed into the draws."""
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        base = [(s16(rng), s16(rng), s16(rng)) for _ in range(40)]
        targets = []
        for _ in range(3):
            pos = [(s16(rng), s16(rng), s16(rng)) for _ in range(40)]
            scale = f32_bits(rng.choice((1.0, 2.0, 0.37)))
            pick = rng.random()
            weight = NEG_ZERO if pick < 0.1 else MINUS_1_8192 if pick < 0.2 else f32_bits(rng.uniform(-3, 9))
            targets.append((pos, scale, weight))
        cases.append(MorphCase(f"A{n}", base, ONE, targets))
    return cases


def generator_b(seed=0x6D6F7270, count=300):
    """checks.md §5.2 Generator B: 300 small morphers over several spreads, scales and weights."""
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        nv = rng.randint(1, 12)
        spread = rng.choice((100, 3000, 32767))
        base_scale = rng.choice((1.0, 0.5, 2.0, 16.0, None))
        base_scale = rng.uniform(0.1, 40) if base_scale is None else base_scale
        bs = f32_bits(base_scale)
        base = [tuple(rng.randint(-spread, spread) for _ in range(3)) for _ in range(nv)]
        targets = []
        for _ in range(rng.randint(1, 4)):
            ts = bs if rng.random() < 0.6 else f32_bits(rng.uniform(0.1, 40))
            pos = [tuple(max(-32768, min(32767, rng.randint(-spread, spread))) for _ in range(3))
                   for _ in range(nv)]
            w = rng.choice((0.0, 1.0, 0.5, 0.4, 0.6, "u01", "u15"))
            w = rng.uniform(0, 1) if w == "u01" else rng.uniform(-1.5, 1.5) if w == "u15" else w
            targets.append((pos, ts, f32_bits(w)))
        cases.append(MorphCase(f"B{n}", base, bs, targets))
    return cases


def edge_cases():
    """checks.md §5.2 fixed edge cases: a wrapping difference, a saturating add, -0 and -1/8192 weights."""
    return [
        MorphCase("wrap", [(-32000, 32000, 0)], ONE, [([(32000, -32000, 5)], ONE, ONE)]),
        MorphCase("saturate", [(32767, -32768, 7)], ONE,
                  [([(-32768, 32767, 7)], ONE, HALF), ([(0, 0, 7)], ONE, HALF)]),
        MorphCase("negative zero weight", [(10, -20, 30)], ONE, [([(1000, 2000, 3000)], ONE, NEG_ZERO)]),
        MorphCase("weight -1/8192", [(10, -20, 30)], ONE, [([(1000, 2000, 3000)], ONE, MINUS_1_8192)]),
    ]


def answer(anim, q):
    """The built-in reference's blend of modify query q (reference/serve.py's, as it answers a model
    run), in the float model of the chunk's parse."""
    return serve.modify(q, anim.float_model)


CHECK = Check("morph", order=4, kinds=("morph",), applies=applies, run=run, queries=queries,
              query_kinds=(QueryKind("modify", compare, answer),))
