"""Shrink a mismatch to a minimal input (fewest steps, fewest times) and attach it as `shrunk`."""

from corpus.names import shell_word

from . import replay


def _reports_shrink(name):
    """reports.shrink.<name> (helper H's delta debugging), or None when reports lacks it."""
    try:
        from reports import shrink
    except ImportError:
        return None
    return getattr(shrink, name, None)


def same_failure(tally, m):
    return any(x["check"] == m["check"] and x["field"] == m["field"] for x in tally.mismatches)


def coalesce(steps):
    """Candidate step lists of at most 3 steps that reach the same times as the failing step.

    DECISION: besides delta debugging (which only deletes steps), try jumping straight to the time
    before the failing step: [t_before], then the failing step itself, since every compared state
    is a function of the time reached and the frames read.
    """
    if len(steps) <= 1:
        return []
    pre, last = sum(steps[:-1]), steps[-1]
    out = [[pre + last], [pre, last]]
    if len(steps) > 2:
        out.append([sum(steps[:-2]), steps[-2], last])
    return out


def shrink_mismatch(game, ch, ctx, m, max_replays=40):
    """Return the `shrunk` dict for mismatch m, or None when its check has no replay entry point."""
    c, check = m.get("context") or {}, m["check"]
    if check == "playback" and "step_sizes" in c:
        run = lambda items: replay.replay_playback(game, ch, ctx, items, items[0] if items else 256)
        items, key = list(c["step_sizes"]), "steps"
    elif check in ("notes", "fobj") and "plan" in c:
        a1 = c.get("a1", 0)
        replay_fn = replay.replay_notes if check == "notes" else (lambda g, h, x, p: replay.replay_fobj(g, h, x, p, a1))
        run = lambda items: replay_fn(game, ch, ctx, items)
        items, key = [tuple(p) for p in c["plan"]], "plan"
    elif check in ("controllers", "multistep") and m.get("track") is not None and m.get("time") is not None:
        times = [m["time"]] if check == "controllers" else sorted(set(c.get("deltas") and _times(c["deltas"]) or [m["time"]]))
        run = lambda items: replay.replay_times(game, ch, ctx, m["track"], items)
        items, key = times, "times"
    else:
        return None
    budget = [max_replays]
    errors = []

    def still_fails(candidate):
        if budget[0] <= 0 or not candidate:
            return False
        budget[0] -= 1
        try:
            return same_failure(run(list(candidate)), m)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            return False

    best = items
    if key == "steps":
        for cand in coalesce(items):
            if len(cand) < len(best) and still_fails(cand):
                best = cand
                break
    # fewest steps, then the smallest step sizes (shrink_steps) / fewest items (ddmin)
    shrinker = _reports_shrink("shrink_steps" if key == "steps" else "ddmin")
    if shrinker is not None and (len(best) > 1 or key == "steps"):
        try:
            best = list(shrinker(list(best), still_fails, max_tests=max_replays))
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
    if errors:
        import sys
        print(f"shrinking {m['chunk']} {m['check']}: {errors[0]}", file=sys.stderr)
    if best == items and key != "times":
        return None
    best = [list(x) if isinstance(x, tuple) else x for x in best]
    return {key: best, "repro": replay_command(ctx, m, key, best), "original_length": len(items),
            "tests": max_replays - budget[0]}


def replay_command(ctx, m, key, best):
    """The one-line `python -m harness replay` command for a shrunk input."""
    check = "controllers" if m["check"] == "multistep" else m["check"]
    parts = [".venv/bin/python", "-m", "harness", "replay", "--case", shell_word(ctx.chunk), "--check", check]
    if key == "steps":
        parts += ["--steps", ",".join(str(s) for s in best)]
    elif key == "plan":
        parts += ["--plan", ",".join(f"{s}:{int(bool(r))}" for s, r in best)]
        if m["check"] == "fobj":
            parts += ["--a1", str(int((m.get("context") or {}).get("a1", 0)))]
    else:
        parts += ["--track", str(int(m["track"])), "--times", ",".join(str(int(t)) for t in best)]
    return " ".join(parts + ctx.repro_args(case=False))


def _times(deltas):
    out, t = [], 0
    for d in deltas:
        t += d
        out.append(t)
    return out
