"""Mismatch records (interfaces.md §4) and the one-line repro command of a case."""
from __future__ import annotations

import shlex
from typing import Optional

from .bits import hx, ulp


class CaseContext:
    """Identity of the case being checked: chunk, seed and the run options a repro must repeat."""

    def __init__(self, chunk, seed, profile="quick", float_model="hw", image=None, data=None,
                 disc=None, defaults=None):
        self.chunk, self.seed, self.profile, self.float_model = chunk, seed, profile, float_model
        self.image, self.data, self.disc = image, data, disc
        self.defaults = defaults or {}

    def repro(self, check=None):
        parts = ["make", "one", f"CASE={shlex.quote(self.chunk)}", f"SEED={self.seed}"]
        if check:
            parts.append(f"CHECK={check}")
        parts += [f"PROFILE={self.profile}", f"FLOAT={self.float_model}"]
        for key, val in (("IMAGE", self.image), ("DATA", self.data), ("DISC", self.disc)):
            if val and val != self.defaults.get(key):
                parts.append(f"{key}={shlex.quote(str(val))}")
        return " ".join(parts)


def raw(v):
    """Expected/got as raw bits: ints -> hex strings, sequences -> lists of the same."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return hx(v)
    if isinstance(v, (list, tuple)):
        return [raw(x) for x in v]
    return v


def record(ctx: CaseContext, check, field, expected, got, *, object=None, track=None, time=None,
           step=None, floats=True, deviation=None, tolerance=None, context=None,
           series=None) -> dict:
    """One Mismatch (interfaces.md §4). `floats`: expected/got are f32 patterns (ulp is computed)."""
    u: Optional[int] = None
    if floats and isinstance(expected, int) and isinstance(got, int):
        u = ulp(expected, got)
    rec = {"chunk": ctx.chunk, "check": check, "object": object, "track": track, "time": time,
           "step": step, "field": field, "expected": raw(expected) if floats else plain(expected),
           "got": raw(got) if floats else plain(got), "ulp": u, "deviation": deviation,
           "tolerance": tolerance, "seed": ctx.seed, "repro": ctx.repro(check),
           "context": context or {}}
    if series:
        rec["series"] = series
    return rec


def plain(v):
    """Non-float values (frame counters, u16 offsets, note tuples) as JSON-friendly ints/lists."""
    if isinstance(v, tuple):
        return [plain(x) for x in v]
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v
