"""An independent, deliberately simple restatement of ee-float.md, written only for the tests.

Exact rational arithmetic (fractions.Fraction) for values, the models' truncation and guard-bit
rules applied to those exact values, a per-window statement of the Booth multiplier and a plain
restatement of the SRT recurrences (simple.py); a plain COP1/VU0 state model (state.py). Slow on
purpose; shares no code with eemu_ext.eefloat.
"""
from .simple import (HW, TRUNC, booth_product, cmp_value, expo, ops, pack_trunc,  # noqa: F401
                     raw_order, sig, sign, srt_quotient, srt_root, value)

__all__ = ["HW", "TRUNC", "booth_product", "cmp_value", "expo", "ops", "pack_trunc", "raw_order",
           "sig", "sign", "srt_quotient", "srt_root", "value"]
