"""A mismatch record's field (interfaces.md §4): one value type, its text form and its parser.

A field is a name, zero or more indices and an optional member: "transparency", "position.x",
"rotation[2][1]", "world[13]", "vertex[40].z", "light.colour.r". The checks make their fields with
`Field` (and record() writes its text); whoever reads a field back (the plots, provenance, the
report) parses the text with `Field.parse`, never by slicing it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Tuple

AXES = "xyz"
_TEXT = re.compile(r"([^.\[\]]+)((?:\[\d+\])*)(?:\.(.+))?", re.S)
_INDEX = re.compile(r"\[(\d+)\]")


class BadField(ValueError):
    """A text that is no field (named in the message)."""


@dataclass(frozen=True)
class Field:
    """name[i][j].member: name has no '.', '[' or ']'; indices are ints >= 0; member, when there is
    one, is the rest of the text after the first '.' following the indices (it may hold dots).

    DECISION: the grammar is the one every field the checks wrote already had (interfaces.md §4
    does not give one), so the records' texts are unchanged: a light's word is the member of
    "light" ("light.colour.r"), a multi-word name ("frame counter") is a name. A Field that could
    not be parsed back to itself is refused when it is made."""
    name: str
    index: Tuple[int, ...] = ()
    member: Optional[str] = None

    def __post_init__(self):
        if not self.name or any(ch in self.name for ch in ".[]"):
            raise BadField(f"field name {self.name!r}: empty or holding '.', '[' or ']'")
        if any(not isinstance(i, int) or isinstance(i, bool) or i < 0 for i in self.index):
            raise BadField(f"field {self.name!r}: index {self.index!r} is not of ints >= 0")
        if self.member == "":
            raise BadField(f"field {self.name!r}: an empty member")

    def __str__(self) -> str:
        text = self.name + "".join(f"[{i}]" for i in self.index)
        return text if self.member is None else f"{text}.{self.member}"

    @classmethod
    def parse(cls, text) -> "Field":
        """The Field whose text is `text`; BadField naming the text when it is none."""
        m = _TEXT.fullmatch(text) if isinstance(text, str) else None
        if m is None:
            raise BadField(f"field {text!r}: not name[index]...[.member]")
        return cls(m.group(1), tuple(int(i) for i in _INDEX.findall(m.group(2))), m.group(3))

    @classmethod
    def axis(cls, name: str, i: int, *index: int) -> "Field":
        """name[index].x, .y or .z for axis i (position, scale, translation; vertex[k])."""
        return cls(name, tuple(int(k) for k in index), AXES[i])

    @classmethod
    def element(cls, name: str, r: int, c: int) -> "Field":
        """name[r][c]: row r, column c of a 3x3 (rotation, matrix)."""
        return cls(name, (int(r), int(c)))

    @property
    def axis_index(self) -> Optional[int]:
        """0, 1 or 2 for a member x, y or z, else None."""
        return AXES.index(self.member) if self.member in tuple(AXES) else None
