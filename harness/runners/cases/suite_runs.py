"""Run the named suites of checks.md §9 (used by the pytest suites and `python -m harness suite`)."""
from harness.checks import controllers, fobj, materials, morph, notes, playback
from reference import morph as reference_morph
from harness.checks import parse_reference
from harness.profiles import profile, rng
from harness.compare.steps import note_plan
from harness.runners.cases.suites import (CONTROLLER_CASES, FOBJ_CASES, MORPH_CASES, NOTE_CASES, NOTE_STEPS, PLAYBACK_RUNS,
                     SEEDS, find)
from harness.compare.tally import Tally

SYNTHETIC_MORPH = "synthetic::morph"   # the pseudo-chunk id of checks.md §5.2 (make one CASE=synthetic::morph)


def _ctx(opts, cid, seed):
    ctx = opts.context(cid)
    ctx.seed = seed
    return ctx


def controllers_suite(game, corpus, opts, cases=CONTROLLER_CASES):
    """Every controller case of §10 with times = 4 and max_tracks = 6, seed 5 (checks.md §9)."""
    seed = SEEDS["controllers"]
    prof = profile("nightly", times=4, max_tracks=6)
    tally = Tally()
    for stem, name in cases:
        cid = find(corpus, stem, name)
        ch, ctx = corpus.chunk(cid), _ctx(opts, cid, seed)
        anim = parse_reference(ch, opts.float_model)
        if anim.tracks:
            controllers.check_tracks(game, anim, game.load(ch.data), ctx, tally, prof,
                                           rng(seed, cid, "controllers"))
        if anim.materials:
            materials.check_materials(game, ch, anim, ctx, tally, prof,
                                              rng(seed, cid, "materials"))
    return tally


def playback_suite(game, corpus, opts, runs=PLAYBACK_RUNS):
    """xp_flag ANM_xpflnut0 at 256 x 60 and 700 x 30, ekx1 ANM_ekx1atc0 at 100 x 130 (checks.md §4.2)."""
    tally = Tally()
    for (stem, name), speed, steps in runs:
        cid = find(corpus, stem, name)
        ch, ctx = corpus.chunk(cid), _ctx(opts, cid, opts.seed)
        anim = parse_reference(ch, opts.float_model)
        playback.check_playback(game, anim, game.load(ch.data), ch.names, ctx, tally,
                                      [speed] * steps, speed)
    return tally


def notes_suite(game, corpus, opts, cases=NOTE_CASES, steps=NOTE_STEPS):
    """The 9 note cases, 120 steps each, seed 7, restarts on (checks.md §6.4)."""
    seed = SEEDS["notes"]
    tally = Tally()
    for stem, name in cases:
        cid = find(corpus, stem, name)
        ch, ctx = corpus.chunk(cid), _ctx(opts, cid, seed)
        anim = parse_reference(ch, opts.float_model)
        plan = note_plan(rng(seed, cid, "notes"), anim.frames, steps)
        notes.check_notes(game, ch, anim, ctx, tally, plan)
    return tally


def morph_real_suite(game, corpus, opts, cases=MORPH_CASES):
    """checks.md §5.1 on xp_flag ANM_xpflnut0 and ekx1 ANM_ekx1dwn0, limit 3, seed 3."""
    seed = SEEDS["morph"]
    tally = Tally()
    fn = lambda b, s, t: reference_morph(b, s, t, float_model=opts.float_model)
    for stem, name in cases:
        cid = find(corpus, stem, name)
        ch, ctx = corpus.chunk(cid), _ctx(opts, cid, seed)
        anim = parse_reference(ch, opts.float_model)
        cs = morph.real_cases(anim, ch.file, rng(seed, cid, "morph"), 3, 120, tally)
        morph.run_cases(game, cs, ctx, tally, fn)
    return tally


def morph_synthetic_suite(game, opts, b_count=300, a_count=12, image=None):
    """checks.md §5.2: Generator A (seed 9), Generator B (seed 0x6D6F7270), the fixed edge cases."""
    tally = Tally()
    fn = lambda b, s, t: reference_morph(b, s, t, float_model=opts.float_model)
    ctx = opts.context(SYNTHETIC_MORPH)
    ctx.seed = SEEDS["morph_a"]
    ctx.image = image or ctx.image
    cases = (morph.edge_cases() + morph.generator_a(SEEDS["morph_a"], a_count)
             + morph.generator_b(SEEDS["morph_b"], 300)[:b_count])
    morph.run_cases(game, cases, ctx, tally, fn)
    return tally


def fobj_suite(game, corpus, opts, cases=FOBJ_CASES, steps=60):
    """checks.md §7 on the F_Obj role case(s), both +0xA1 settings."""
    tally = Tally()
    for stem, name in cases:
        cid = find(corpus, stem, name)
        ch, ctx = corpus.chunk(cid), _ctx(opts, cid, opts.seed)
        anim = parse_reference(ch, opts.float_model)
        plan = note_plan(rng(opts.seed, cid, "fobj"), anim.frames, steps)
        for a1 in (0, 1):
            fobj.check_fobj(game, ch, anim, game.load(ch.data), ctx, tally, plan, a1)
    return tally
