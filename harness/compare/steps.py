"""The step generator note_steps of checks.md §6.3, with a restart draw per step (§6.2 step 9)."""


def note_step(rng, last):
    """One step size drawn as checks.md §6.3's table says (last = max(1, (N-1)*256))."""
    k = rng.random()
    if k < 0.10:
        return 0
    if k < 0.40:
        return 256
    if k < 0.60:
        return rng.randint(1, 600)
    if k < 0.80:
        frames = rng.randint(2, 12)
        r = rng.randint(1, 255)                 # drawn before the three-way choice
        return 256 * frames + rng.choice((0, 0, r))
    if k < 0.95:
        return rng.randint(1, 0xFFFF)
    return rng.randint(last // 2, 2 * last)


def note_plan(rng, frames, count):
    """[(step, restart)]: `restart` applies only if that step ends a play-once animation.

    DECISION: the restart draw is made for every step (not only for ending steps) so that a plan is
    a fixed list that can be replayed and shrunk without re-running the generator.
    """
    last = max(1, (frames - 1) * 256)
    plan = []
    for _ in range(count):
        s = note_step(rng, last)
        plan.append((s, rng.random() < 0.5))
    return plan


def note_step_count(frames, lo=30, hi=200):
    """max(30, min(200, 3N)) (checks.md §6.4), with the profile's bounds."""
    return max(lo, min(hi, 3 * frames))


def restarted(anim, want, restart, tally, counter):
    """Whether a plan restarts after this step (the reference's rule, Animation.restarts: a
    play-once animation that ended, with the step's restart drawn), counted under `counter`."""
    if anim.restarts(want, restart):
        tally.count(counter)
        tally.quirk("restarts")
        return True
    return False


def time_after(game, anim, want, restart, tally, counter):
    """The time after one planned step: the reference's, or 0 when the plan restarts a play-once
    animation that ended (the game restarted and the restart counted under `counter`)."""
    if restarted(anim, want, restart, tally, counter):
        game.restart()
    return anim.time_after(want, restart)


def planned(anim, plan):
    """A plan [(step, restart)] from time 0 as the reference plays it: per step (its index, the
    step, its restart, the time before it, the reference's Forward). The next step starts from
    Animation.time_after: 0 after a restart. What the checks count of the steps they compared, in
    process and from a model's answers alike, walks the plan this way."""
    time = 0
    for i, (s, restart) in enumerate(plan):
        want = anim.forward(time, s)
        yield i, s, restart, time, want
        time = anim.time_after(want, restart)
