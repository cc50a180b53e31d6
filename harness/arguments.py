"""Argparse errors worded for the command typed, and the machine engine checked at the door.

The values themselves are checked by their types (harness/values.py). Run through make
(EEDIFF_VIA_MAKE=1, set by the Makefile's recipes), an error names the make variable (N, JOBS,
SEED ...) instead of the option it became: the option table's make column.
"""
from __future__ import annotations

import argparse
import os
import re
import sys

from harness.option_table import MAKE_VARIABLES


def via_make():
    return os.environ.get("EEDIFF_VIA_MAKE") == "1"


def make_words(message):
    """'argument --n: must be at least 1, not 0' -> 'N: must be at least 1, not 0'."""
    return re.sub(r"argument (--[\w-]+)(?:/[-\w]+)?:",
                  lambda m: f"{MAKE_VARIABLES.get(m[1], m[1])}:", message)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        if via_make():
            print(f"eediff: {make_words(message)}  (make help lists every variable)", file=sys.stderr)
            raise SystemExit(2)
        super().error(message)


def engine_in_use() -> str:
    """The machine engine a run will use (native, python or lockstep), checked at the door: an
    unknown $EEMU_ENGINE (make's ENGINE=) is a usage error naming that variable, not an error of
    the executable the first Machine happens to load."""
    from eemu_ext.core.machine import ENGINES, choose_engine
    value = os.environ.get("EEMU_ENGINE") or None
    if value is not None and value not in ENGINES:
        name = "ENGINE" if via_make() else "EEMU_ENGINE"
        raise ValueError(f"{name}={value}: the machine engine must be one of {', '.join(ENGINES)}")
    return choose_engine(None)
