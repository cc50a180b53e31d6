"""An independent, deliberately simple restatement of ee-float.md, written only for the tests.

Exact rational arithmetic (fractions.Fraction) for values, the models' truncation and guard-bit
rules applied to those exact values, a per-window statement of the Booth multiplier and a plain
restatement of the SRT recurrences. Slow on purpose; shares no code with eemu_ext.eefloat.
"""
from .simple import *  # noqa: F401,F403
