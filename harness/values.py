"""The values an option takes, checked at the door: an argparse type per kind of value.

A count that is zero or negative, or not a number, is a usage error (exit 2), never "the whole
corpus" or a traceback. The option table (harness/option_table.py) names one of these per option.
"""
from __future__ import annotations

import argparse
import os


def whole_number(minimum=None):
    """An argparse type: an int, at least `minimum` when given."""
    def parse(text):
        try:
            value = int(text, 10)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value
    parse.__name__ = "whole number"
    return parse


FRAME_SPEED_MAX = 0xFFFF        # ccAnm's frameSpd is a u16 (executable-abi.md §5)


def frame_speed(text):
    """A playback speed: a whole number 1..65535 (0 would never advance)."""
    n = whole_number(1)(text)
    if n > FRAME_SPEED_MAX:
        raise argparse.ArgumentTypeError(f"at most {FRAME_SPEED_MAX} (a u16 frame speed), not {n}")
    return n


def seconds(text):
    """A time limit in seconds: a finite number above 0 (0, negative, inf or nan never ends well)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {text}")
    return value


def listed(one):
    """An argparse type: a comma-separated list, each item parsed by `one` (empty items skipped)."""
    def parse(text):
        return [one(x.strip()) for x in str(text).split(",") if x.strip()]
    parse.__name__ = "list"
    return parse


def u32_number(text):
    """A whole number 0..2^32-1 (a step or time the game takes as a u32)."""
    n = whole_number(0)(text)
    if n > 0xFFFFFFFF:
        raise argparse.ArgumentTypeError(f"at most {0xFFFFFFFF} (a u32), not {n}")
    return n


def note_step(text):
    """STEP:RESET of a note plan: a u32 step and 0 or 1."""
    step, sep, reset = text.partition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not STEP:RESET (e.g. 256:0)")
    if reset not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"RESET must be 0 or 1, not {reset}")
    return u32_number(step), reset == "1"


def job_count(text):
    """`auto` (one per core) or a whole number of at least 1."""
    if text in (None, "", "auto"):
        return os.cpu_count() or 1
    try:
        n = whole_number(1)(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or auto: one per core)") from None
    # DECISION: at most JOBS_PER_CORE workers per core: each is a forked process with its own
    # machine, and a pool forks all of them at once.
    most = JOBS_PER_CORE * (os.cpu_count() or 1)
    if n > most:
        raise argparse.ArgumentTypeError(f"at most {most} ({JOBS_PER_CORE} per core), not {n}")
    return n


JOBS_PER_CORE = 4


def chunk_count(text):
    """pytest's --chunks: 0 (the profile's default) or a positive count; a negative one is a usage error."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (the profile's default) or more, not {value}")
    return value
