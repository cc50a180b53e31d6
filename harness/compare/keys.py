"""Key-level facts of a chunk's controllers: boundary times, keys around a time, static quirk counts."""

from harness.compare.bits import hx, zero_exponent


def keyed_channels(record):
    """(name, controller) of every keyed channel of a Track, MaterialTrack or DirectLight record."""
    names = ("pos", "rot", "scale", "alpha", "u", "v", "position", "rotation", "colour", "intensity",
             "beam_start", "beam_end", "radius1", "radius2")
    return [(n, getattr(record, n)) for n in names
            if hasattr(record, n) and getattr(record, n).kind == 2]


def boundary_times(record, hi):
    """Every key time f*256 and its +-1 tick neighbours inside [1, hi] (u32 wrap of f*256)."""
    out = set()
    for _, c in keyed_channels(record):
        for frame, _ in c.keys:
            t = (frame * 256) & 0xFFFFFFFF
            for d in (-1, 0, 1):
                if 1 <= t + d <= hi:
                    out.add(t + d)
    return out


def sample_times(record, last, rng, n_random, max_boundaries):
    """checks.md §2.1 step 4.3 plus every key boundary +-1 (or a seeded sample of them).

    Never past last = (N - 1)*256: a game that does not clamp would give false
    mismatches there. For last = 0 (N = 1) the only time is 0."""
    if last <= 0:
        return [0]
    hi = last
    ts = {1, hi} | {rng.randint(1, hi) for _ in range(n_random)}
    b = sorted(boundary_times(record, hi) - ts)
    if 0 <= max_boundaries < len(b):
        b = rng.sample(b, max_boundaries)
    return sorted(ts | set(b))


def keys_around(controller, t, span=2):
    """The keys of a keyed controller around tick t, for a mismatch's context."""
    if controller is None or controller.kind != 2:
        return None if controller is None or controller.kind == 0 else {"value": [hx(w) for w in controller.value]}
    keys = list(controller.keys)
    i = 0
    while i < len(keys) and (keys[i][0] * 256) <= t:
        i += 1
    lo, hi = max(0, i - span), min(len(keys), i + span)
    return {"keys": [{"i": j, "frame": keys[j][0], "value": [hx(w) for w in keys[j][1]]}
                     for j in range(lo, hi)], "count": len(keys)}


def controller_quirks(c, frames):
    """Quirk counts of one controller: back-in-time keys, shared frames, past-the-end keys, denormals."""
    q = {}
    if c.kind == 1:
        words = list(c.value)
    elif c.kind == 2:
        words = [w for _, v in c.keys for w in v]
        fr = [f for f, _ in c.keys]
        q["keys_back_in_time"] = sum(1 for a, b in zip(fr, fr[1:]) if b < a)
        q["shared_frame_keys"] = sum(1 for a, b in zip(fr, fr[1:]) if b == a)
        q["keys_past_end"] = sum(1 for f in fr if f >= frames)
        q["keyed_channels"] = 1
    else:
        return q
    q["denormal_keys"] = sum(1 for w in words if zero_exponent(w) and w & 0x7FFFFFFF)
    q["negative_zero_values"] = sum(1 for w in words if w == 0x80000000)
    q["exponent255_values"] = sum(1 for w in words if (w >> 23) & 0xFF == 0xFF)
    return q


def track_quirks(record, frames):
    q = {}
    for _, c in (("pos", record.pos), ("rot", record.rot), ("scale", record.scale), ("alpha", record.alpha)):
        for k, v in controller_quirks(c, frames).items():
            q[k] = q.get(k, 0) + v
    if record.rot.kind == 2:
        q["keyed_rotation_tracks"] = 1
        if len(record.rot.keys) >= 70:
            q["rotation_70_keys"] = 1
    if record.rot.kind == 1:
        from harness.compare.bits import f32
        if any(abs(f32(w)) > 180.0 for w in record.rot.value):
            q["single_rotation_beyond_180"] = 1
    if record.object != record.target:
        q["extobj_tracks"] = 1
    return q
