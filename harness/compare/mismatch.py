"""Mismatch records (interfaces.md §4) and the one-line repro command of a case."""
from __future__ import annotations

from typing import Optional

from harness.compare.bits import hx, ulp
from harness.compare.inferred import tag as inferred_tag
from harness.option_table import case_rows, default

DEFAULT_PROFILE = default("--profile", "python")


class CaseContext:
    """Identity of the case being checked: chunk, seed and the run options a repro must repeat."""

    def __init__(self, chunk, seed, profile=DEFAULT_PROFILE, float_model="hw", image=None, data=None,
                 disc=None, defaults=None, **options):
        self.chunk, self.seed, self.profile, self.float_model = chunk, seed, profile, float_model
        self.image, self.data, self.disc = image, data, disc
        self.defaults = defaults or {}           # the run's default inputs, by make variable (IMAGE, DATA)
        # the other options a repro names (the option table's case rows: syms, overlay, volume,
        # confirm, reload, model), each at its table default unless given
        for r in case_rows():
            if r.name not in vars(self) and r.name not in ("check", "time"):
                setattr(self, r.name, options.pop(r.name, r.default))
        if options:
            raise TypeError(f"CaseContext: no case option {', '.join(sorted(options))} in the option table")

    def repro(self, check=None, time=None):
        """The command that repeats this case (harness.commands.one_command), showing the
        mismatches at `time` first: the repro of the 150th mismatch of a chunk shows that one,
        not the chunk's first 20."""
        from harness.commands import one_command
        return one_command(self, check, time)


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
    """One Mismatch (interfaces.md §4). `field`: a ground.fields.Field or its text; `floats`:
    expected/got are f32 patterns (ulp is computed)."""
    u: Optional[int] = None
    if floats and isinstance(expected, int) and isinstance(got, int):
        u = ulp(expected, got)
    rec = {"chunk": ctx.chunk, "check": check, "object": object, "track": track, "time": time,
           "step": step, "field": str(field), "expected": raw(expected) if floats else plain(expected),
           "got": raw(got) if floats else plain(got), "ulp": u, "deviation": deviation,
           "tolerance": tolerance, "seed": ctx.seed, "repro": ctx.repro(check, time=time),
           "context": context or {}}
    if series:
        rec["series"] = series
    rule = inferred_tag(rec, ctx.float_model)
    if rule:
        rec["inferred"] = rule
    return rec


def plain(v):
    """Non-float values (frame counters, u16 offsets, note tuples) as JSON-friendly ints/lists."""
    if isinstance(v, tuple):
        return [plain(x) for x in v]
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v
