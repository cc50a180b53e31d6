"""The game's function symbols as people read them: GNU C++ v2 mangled names ('NoteProcess__5ccAnmFv',
'__nw__FUi') shown as 'ccAnm::NoteProcess' and 'operator new', and a short name a person types
('NoteProcess', 'ccMalloc', 'ccAnm::NoteProcess') resolved to the one symbol it means."""
from __future__ import annotations

import re

OPERATORS = {"nw": "operator new", "dl": "operator delete", "vn": "operator new[]", "vd": "operator delete[]"}
_MANGLED = re.compile(r"^(?P<base>.+?)__(?P<rest>(?:\d+\w+?)?F.*|\d+\w+)$")


def readable(symbol: str) -> str:
    """'NoteProcess__5ccAnmFv' -> 'ccAnm::NoteProcess'; 'ccMalloc__FUi' -> 'ccMalloc'; other names as they are."""
    if symbol.startswith("__") and symbol[2:4] in OPERATORS and symbol[4:6] == "__":
        return OPERATORS[symbol[2:4]]
    m = _MANGLED.match(symbol)
    if not m:
        return symbol
    base, rest = m["base"], m["rest"]
    cls = re.match(r"(\d+)", rest)
    if cls:
        n = int(cls[1])
        name = rest[len(cls[1]):len(cls[1]) + n]
        if len(name) == n:
            return f"{name}::{base}"
    return base


class AmbiguousName(ValueError):
    """A short name that more than one function's readable name ends in."""


def resolve(name: str, symbols) -> str:
    """The symbol among `symbols` that `name` means: the symbol itself, or the one whose readable
    name, or the part of it after '::', is `name`. ValueError naming the candidates otherwise."""
    symbols = list(symbols)
    if name in symbols:
        return name
    hits = [s for s in symbols if readable(s) == name or readable(s).split("::")[-1] == name]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise AmbiguousName(f"{name!r} names {len(hits)} functions: "
                         + ", ".join(f"{readable(s)} ({s})" for s in sorted(hits)))
    raise ValueError(f"no function {name!r} among the functions the harness reaches")
