"""Step budgets per game function, derived from the largest step count measured on the stand-in.

A budget is MARGIN times the largest count one call of the function took on the stand-in over the
measured sample, so a loop in real code stops in seconds rather than the 2e9-step minutes of the
fixed budgets of executable-abi.md §4. The numbers are a measurement: refresh them with
`python -m harness.runners.cases.measure_budgets` (MEASURED below records when and on what). A user overrides any
budget with Game(budgets={short name: steps}) or `--budget NAME=STEPS`.
"""
from __future__ import annotations

MARGIN = 50
# Largest steps of one call on the stand-in (seed-1 synthetic corpus, the MEASURED_ON sample).
MEASURED = {"ConvLCNum2ALCNum": 578_718, "InitAnmCtrlWork": 23, "ResetAnmCtrlWork": 2,
            "SetAnmCtrlWork": 974, "_AnimateForward": 144_843, "Modify": 2_584, "NoteProcess": 39}
MEASURED_ON = "the 40 largest chunks of the seed-1 corpus, quick profile, seed 4 (2026-12)"
FLOOR = 100_000       # DECISION: no budget below this, so a tiny measured count leaves room


def budget(short, measured=None, margin=MARGIN):
    """The step budget for a function given by its short name (e.g. 'SetAnmCtrlWork')."""
    m = (measured if measured is not None else MEASURED).get(short)
    if m is None:
        raise KeyError(f"no measured step count for {short!r}; measured: {', '.join(sorted(MEASURED))}")
    return max(FLOOR, margin * m)


def parse_overrides(items):
    """['SetAnmCtrlWork=5000000', ...] -> {'SetAnmCtrlWork': 5000000}; a bad item raises ValueError."""
    out = {}
    for it in items or ():
        name, sep, val = it.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--budget {it!r}: expected NAME=STEPS (e.g. SetAnmCtrlWork=5000000)")
        out[name.strip()] = int(val.replace("_", ""), 0)
    return out

