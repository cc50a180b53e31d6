"""Check profiles: how thoroughly each chunk is checked (quick for CI and mutants, nightly per checks.md §9)."""
import random
from dataclasses import dataclass, replace
from typing import Optional


@dataclass(frozen=True)
class Profile:
    name: str
    times: int                 # random times per track (checks.md §2.1)
    max_tracks: int            # tracks checked per chunk (checks.md §2.1); -1 = all of them
    max_boundaries: int        # key boundaries (each +-1 tick) added per track; -1 = all of them
    playback_max_steps: int    # cap on min(400, 2N*256/speed + 3) (checks.md §4.2)
    playback_all: bool         # playback every chunk, not only those with morphs or loops
    note_steps_min: int        # max(note_steps_min, min(note_steps_max, 3N)) (checks.md §6.4)
    note_steps_max: int
    fobj_steps: int
    morph_limit: int           # F_Morpher records per morpher (checks.md §5.1); -1 = all of them
    morph_max_vertices: int    # vertices per mmat; -1 = all of them
    exact_local: bool = True   # compare a non-keyed playback 3x3 bit-exactly (checks.md §3, stricter mode)
    playback_speeds: int = 1   # distinct speeds played per chunk (the first drawn as checks.md §4.2 says)
    float_model: Optional[str] = None   # forces the float model (None: the run's FLOAT)
    sample: Optional[int] = None        # forces the number of chunks (None: the run's N)
    probe_first: bool = False           # run the readiness probe first; stop unless it says ready
    reload: bool = False                # load afresh every time and check it against the restored load
    every_record: bool = False          # compares every record: a ledger kind left out fails the run


PROFILES = {
    "quick": Profile("quick", times=2, max_tracks=3, max_boundaries=4, playback_max_steps=48,
                     playback_all=True, note_steps_min=10, note_steps_max=16, fobj_steps=12,
                     morph_limit=1, morph_max_vertices=24, playback_speeds=2, reload=True),
    # The nightly plays every chunk with tracks or morphs at all four speeds of checks.md §4.2
    # (DECISION: every speed, not the spec's one drawn speed, which is the quick profile's first).
    # It compares every record the game writes (checks.md §9): every object and material record at
    # every key boundary +-1 and 6 random times, every F_Morpher record and every vertex.
    "nightly": Profile("nightly", times=6, max_tracks=-1, max_boundaries=-1, playback_max_steps=400,
                       playback_all=True, note_steps_min=30, note_steps_max=200, fobj_steps=60,
                       morph_limit=-1, morph_max_vertices=-1, playback_speeds=4, every_record=True),
    # The first run on a user's own disc: the configuration known to pass on the real game
    # (FLOAT=trunc, the playback 3x3 within tolerance), a small sample, probe first.
    "first-contact": Profile("first-contact", times=6, max_tracks=12, max_boundaries=-1,
                             playback_max_steps=400, playback_all=False, note_steps_min=30,
                             note_steps_max=200, fobj_steps=60, morph_limit=3, morph_max_vertices=120,
                             exact_local=False, float_model="trunc", sample=40, probe_first=True),
}


def profile(name, **overrides):
    try:
        p = PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)}") from None
    return replace(p, **overrides) if overrides else p


def run_profile(opts):
    """The profile a run's options ask for: PROFILE, with --reload on top."""
    return profile(opts.profile, **({"reload": True} if getattr(opts, "reload", False) else {}))


def rng(seed, chunk, check, *extra):
    """The generator for one (seed, chunk, check) case: independent of worker split and order."""
    return random.Random(":".join(str(x) for x in (seed, chunk, check) + extra))
