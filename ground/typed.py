"""What a typed decode (msgspec) refused, said of the value it was decoding: the harness's and
reports' readers of records, truth files and answer lines name a bad member by its path and show
the value found there, from msgspec's ValidationError ("Expected `int`, got `str` - at
`$.mismatches[0].time`").
"""
from __future__ import annotations

import json
import re

_AT = re.compile(r" - at `\$(.*)`$")
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_MISSING = re.compile(r"Object missing required field (.+)")
_EXPECTED = re.compile(r"Expected (.+?), got (.+)")
MISSING = object()          # what member() finds where the path leads nowhere


class Refusal:
    """A ValidationError read: `what` (its message, without msgspec's back quotes), `keys` (the
    path to the member: names and indices), `missing` (the field a missing member is named by, or
    None) and `wanted` (the type an ill-typed member must be, as msgspec says it, or None)."""

    def __init__(self, exc):
        msg = str(exc)
        at = _AT.search(msg)
        self.what = (msg[:at.start()] if at else msg).replace("`", "")
        self.keys = [k if k else int(i) for k, i in _STEP.findall(at.group(1) if at else "")]
        missing, expected = _MISSING.match(self.what), _EXPECTED.match(self.what)
        self.missing = missing.group(1) if missing else None
        self.wanted = expected.group(1) if expected else None

    def lowered(self) -> str:
        """what, as the rest of a sentence ("expected int, got str")."""
        return self.what[:1].lower() + self.what[1:]


def path_text(keys) -> str:
    """["mismatches", 0, "repro"] as "mismatches[0].repro"."""
    out = ""
    for k in keys:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out


def member(value, keys):
    """The value at keys inside value (MISSING where the path leads nowhere)."""
    for k in keys:
        try:
            value = value[k]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return value


def json_text(value, limit=40) -> str:
    """value's JSON text, its first `limit` characters (nothing found: "nothing"), for a message."""
    if value is MISSING:
        return "nothing"
    try:
        return json.dumps(value)[:limit]
    except (TypeError, ValueError):
        return repr(value)[:limit]
